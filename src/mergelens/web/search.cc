#include "mergelens/web/search.h"

#include <algorithm>

#include "mergelens/analysis/text/glossary.h"
#include "mergelens/web/pages.h"

namespace mergelens::web {

namespace {

constexpr size_t kMaxQueryBytes = 256, kMaxTerms = 12;

// Blanks and every other ASCII control character (NUL included, which the
// index cannot read) separate terms.
bool is_space(char c) {
  const auto u = static_cast<unsigned char>(c);
  return c == ' ' || u < 0x20 || u == 0x7F;
}

bool has_word(std::string_view s) {
  return std::any_of(s.begin(), s.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u >= 0x80 || std::isalnum(u);
  });
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

// Moves `i` back to the start of a UTF-8 sequence.
size_t boundary(const std::string& s, size_t i) {
  while (i > 0 && i < s.size() && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) --i;
  return i;
}

}  // namespace

Result<std::vector<SearchTerm>> parse_query(std::string_view q) {
  if (q.size() > kMaxQueryBytes)
    return fail(ErrorKind::kInvalidInput, "the query is longer than {} bytes", kMaxQueryBytes);
  std::vector<SearchTerm> terms;
  size_t i = 0;
  while (i < q.size()) {
    if (is_space(q[i])) {
      ++i;
      continue;
    }
    SearchTerm t;
    if (q[i] == '-') {
      t.exclude = true;
      ++i;
      if (i >= q.size() || is_space(q[i]))
        return fail(ErrorKind::kInvalidInput, "'-' must be followed by a term to exclude");
    }
    if (q[i] == '"') {
      const size_t close = q.find('"', i + 1);
      if (close == std::string_view::npos)
        return fail(ErrorKind::kInvalidInput, "a quote is not closed: {}",
                    std::string(q.substr(i)));
      t.text = std::string(q.substr(i + 1, close - i - 1));
      i = close + 1;
      if (i < q.size() && q[i] == '*') {
        t.prefix = true;
        ++i;
      }
      if (i < q.size() && !is_space(q[i]))
        return fail(ErrorKind::kInvalidInput, "put a space after a closing quote");
    } else {
      const size_t start = i;
      while (i < q.size() && !is_space(q[i])) ++i;
      std::string_view word = q.substr(start, i - start);
      if (word.ends_with('*')) {
        t.prefix = true;
        word.remove_suffix(1);
      }
      if (word.find('*') != std::string_view::npos)
        return fail(ErrorKind::kInvalidInput, "'*' may only end a word: {}", std::string(word));
      if (word.find('"') != std::string_view::npos)
        return fail(ErrorKind::kInvalidInput, "a quote inside a word: {}", std::string(word));
      t.text = std::string(word);
    }
    if (!has_word(t.text))
      return fail(ErrorKind::kInvalidInput, "\"{}\" has no letter or digit to search for", t.text);
    terms.push_back(std::move(t));
    if (terms.size() > kMaxTerms)
      return fail(ErrorKind::kInvalidInput, "at most {} terms", kMaxTerms);
  }
  if (terms.empty()) return fail(ErrorKind::kInvalidInput, "the query is empty");
  if (std::all_of(terms.begin(), terms.end(), [](const SearchTerm& t) { return t.exclude; }))
    return fail(ErrorKind::kInvalidInput, "a search needs at least one term that is not excluded");
  return terms;
}

std::vector<SearchTerm> expand_terms(std::vector<SearchTerm> in) {
  constexpr size_t kMaxWords = 3;
  auto plain = [](const SearchTerm& t) {
    return !t.prefix && t.text.find_first_of(" \t") == std::string::npos;
  };
  // Words typed apart that name one entry ("speculative decoding", "CUDA 图")
  // become one term: the phrase, or any of the entry's other forms.
  std::vector<SearchTerm> terms;
  for (size_t i = 0; i < in.size();) {
    size_t take = 1;
    for (size_t n = std::min(kMaxWords, in.size() - i); n > 1; --n) {
      bool ok = true;
      std::string phrase = in[i].text;
      for (size_t k = 1; k < n && ok; ++k) {
        ok = plain(in[i + k]) && plain(in[i]) && in[i + k].exclude == in[i].exclude;
        phrase += " " + in[i + k].text;
      }
      if (ok && glossary_find(phrase)) {
        in[i].text = phrase;
        take = n;
        break;
      }
    }
    terms.push_back(std::move(in[i]));
    i += take;
  }
  for (auto& t : terms) {
    if (t.prefix) continue;
    const std::string self = lower(t.text);
    for (std::string& form : search_forms(t.text)) {
      SearchAlternative a;
      a.prefix = form.ends_with('*');
      if (a.prefix) form.pop_back();
      if (form == self && !a.prefix) continue;
      a.text = std::move(form);
      t.alternatives.push_back(std::move(a));
    }
  }
  return terms;
}

nlohmann::json snippet(const std::vector<std::string>& texts, const std::vector<SearchTerm>& terms,
                       size_t width) {
  std::vector<std::string> needles;
  auto add = [&](const std::string& text) {
    size_t i = 0;
    const std::string l = lower(text);
    while (i < l.size()) {
      while (i < l.size() && is_space(l[i])) ++i;
      size_t j = i;
      while (j < l.size() && !is_space(l[j])) ++j;
      if (j > i) needles.push_back(l.substr(i, j - i));
      i = j;
    }
  };
  for (const auto& t : terms) {
    if (t.exclude) continue;
    add(t.text);
    for (const auto& a : t.alternatives) add(a.text);
  }
  nlohmann::json out = nlohmann::json::array();
  for (const auto& raw : texts) {
    const std::string text = clean_text(raw);
    const std::string low = lower(text);
    size_t first = std::string::npos;
    for (const auto& n : needles) first = std::min(first, low.find(n));
    if (first == std::string::npos) continue;
    size_t start = first > width / 4 ? boundary(text, first - width / 4) : 0;
    size_t end = std::min(text.size(), start + width);
    end = end < text.size() ? boundary(text, end) : end;
    if (start > 0) out.push_back({{"t", "…"}, {"hit", false}});
    size_t pos = start;
    while (pos < end) {
      size_t best = std::string::npos, len = 0;
      for (const auto& n : needles) {
        const size_t f = low.find(n, pos);
        if (f < best || (f == best && n.size() > len)) {
          best = f;
          len = n.size();
        }
      }
      if (best == std::string::npos || best >= end) {
        out.push_back({{"t", text.substr(pos, end - pos)}, {"hit", false}});
        break;
      }
      if (best > pos) out.push_back({{"t", text.substr(pos, best - pos)}, {"hit", false}});
      const size_t stop = std::min(end, best + len);
      out.push_back({{"t", text.substr(best, stop - best)}, {"hit", true}});
      pos = stop;
    }
    if (end < text.size()) out.push_back({{"t", "…"}, {"hit", false}});
    break;
  }
  return out;
}

Result<Page> search_page(const Site& site, std::string_view q) {
  Page page;
  page.template_name = "search";
  page.title = fmt::format("{} · {}", tr(site.lang, "search_results"), site.repo.name);
  nlohmann::json& m = page.model;
  m["q"] = clean_text(q);
  m["action"] = site.links.action("/search");
  m["results"] = nlohmann::json::array();
  m["count"] = 0;
  m["asked"] = false;
  std::string_view trimmed = q;
  while (!trimmed.empty() && is_space(trimmed.front())) trimmed.remove_prefix(1);
  if (trimmed.empty()) return page;
  auto parsed = parse_query(q);
  if (!parsed) return std::unexpected(parsed.error());
  auto terms = std::optional(expand_terms(std::move(*parsed)));
  auto hits = site.store.search(site.repo.id, *terms, lang_code(site.lang), 50);
  if (!hits) return std::unexpected(hits.error());
  std::vector<std::int64_t> ids;
  for (const auto& h : *hits) ids.push_back(h.change.id);
  auto tags = site.store.tags_of(ids);
  if (!tags) return std::unexpected(tags.error());
  static const std::vector<std::string> kNone;
  for (const auto& h : *hits) {
    auto t = tags->find(h.change.id);
    nlohmann::json item =
        change_item(site, h.change, t == tags->end() ? kNone : t->second, h.headline);
    item["snippet"] = snippet({h.text, h.headline, h.change.title}, *terms);
    m["results"].push_back(std::move(item));
  }
  m["count"] = hits->size();
  m["asked"] = true;
  return page;
}

}  // namespace mergelens::web
