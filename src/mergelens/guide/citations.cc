#include "mergelens/guide/citations.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <utility>

#include <fmt/format.h>

namespace mergelens {
namespace {

bool word_char(unsigned char c) {
  return std::isalnum(c) || c == '_';
}

// "2.30" → "2.3", "2.0" → "2", "007" → "7".
std::string normalise(std::string_view n) {
  std::string s(n);
  auto dot = s.find('.');
  if (dot != std::string::npos) {
    while (!s.empty() && s.back() == '0') s.pop_back();
    if (!s.empty() && s.back() == '.') s.pop_back();
  }
  size_t lead = 0;
  while (lead + 1 < s.size() && s[lead] == '0' && s[lead + 1] != '.') ++lead;
  return s.substr(lead);
}

constexpr std::string_view kUnits[] = {"tokens/s", "tok/s", "req/s", "it/s", "GiB", "MiB", "KiB",
                                       "GB",       "MB",    "KB",    "TB",   "ms",  "us",  "µs",
                                       "μs",       "ns",    "×",     "x",    "%",   "倍",  "s"};

struct NumberToken {
  std::string text;  // as written, without unit
  bool strict = false;
  bool version = false;  // dotted version such as 0.4.1
};

// Numbers standing alone in `text` (not inside identifiers such as fp8 or H100).
std::vector<NumberToken> scan_numbers(std::string_view text) {
  std::vector<NumberToken> out;
  size_t i = 0;
  while (i < text.size()) {
    unsigned char c = text[i];
    if (!std::isdigit(c)) {
      ++i;
      continue;
    }
    unsigned char prev = i > 0 ? text[i - 1] : ' ';
    size_t j = i;
    while (j < text.size() && (std::isdigit(static_cast<unsigned char>(text[j])) ||
                               (text[j] == '.' && j + 1 < text.size() &&
                                std::isdigit(static_cast<unsigned char>(text[j + 1])))))
      ++j;
    const bool joined = prev == '-' && i >= 2 && word_char(text[i - 2]);  // "Llama-3"
    if (word_char(prev) || prev == '.' || prev == '#' || prev == '/' || joined) {
      i = j;
      continue;
    }
    NumberToken t;
    t.text = std::string(text.substr(i, j - i));
    t.version = std::count(t.text.begin(), t.text.end(), '.') > 1;
    t.strict = t.text.find('.') != std::string::npos;
    size_t k = j;
    if (k < text.size() && text[k] == ' ') ++k;
    bool unit = false;
    for (auto u : kUnits)
      if (text.substr(k).starts_with(u)) {
        size_t after = k + u.size();
        bool bounded =
            after >= text.size() || !std::isalpha(static_cast<unsigned char>(text[after]));
        if (bounded) {
          unit = true;
          break;
        }
      }
    if (!unit && j < text.size() && std::isalpha(static_cast<unsigned char>(text[j]))) {
      i = j;  // part of a token such as 8B or 4bit
      continue;
    }
    t.strict = t.strict || unit;
    out.push_back(std::move(t));
    i = j;
  }
  return out;
}

// Identifier tokens of at least 3 characters.
void scan_tokens(std::string_view text, std::set<std::string>& out) {
  size_t i = 0;
  while (i < text.size()) {
    unsigned char c = text[i];
    if (std::isalpha(c) || c == '_') {
      size_t j = i;
      while (j < text.size() && word_char(text[j])) ++j;
      if (j - i >= 3) out.emplace(text.substr(i, j - i));
      i = j;
    } else {
      ++i;
    }
  }
}

void add_numbers(std::string_view text, std::set<std::string>& out) {
  for (const auto& t : scan_numbers(text)) out.insert(t.version ? t.text : normalise(t.text));
  // Numbers inside identifiers count too when cited alone ("H100" → "100" is not
  // added: only standalone figures are evidence for standalone figures).
}

std::string span_text(std::string span) {
  // Strip an ellipsis from clipped code and "()" from calls.
  for (std::string_view cut : {"…", "..."})
    if (span.size() >= cut.size() && span.ends_with(cut)) span.resize(span.size() - cut.size());
  while (span.ends_with("()")) span.resize(span.size() - 2);
  while (!span.empty() && std::isspace(static_cast<unsigned char>(span.back()))) span.pop_back();
  while (!span.empty() && std::isspace(static_cast<unsigned char>(span.front()))) span.erase(0, 1);
  return span;
}

bool alnum(unsigned char c) {
  return std::isalnum(c) || c == '_';
}

class Checker {
 public:
  Checker(const CitationIndex& index, std::vector<CitationFailure>& out) : ix_(index), out_(out) {}

  // Checks the citations inside free text.
  void text(const std::string& field, std::string_view t) {
    std::string rest;  // the text with code spans blanked out
    rest.reserve(t.size());
    size_t i = 0;
    while (i < t.size()) {
      if (t[i] == '`') {
        size_t close = t.find('`', i + 1);
        if (close == std::string_view::npos) {
          rest.append(t.substr(i));
          break;
        }
        std::string_view span = t.substr(i + 1, close - i - 1);
        if (!ix_.has_code_span(span)) fail(field, fmt::format("`{}`", span), "not in the change");
        rest.append(close - i + 1, ' ');
        i = close + 1;
      } else {
        rest.push_back(t[i++]);
      }
    }
    urls(field, rest);
    refs(field, rest);
    numbers(field, rest);
  }

  void path(const std::string& field, const std::string& p) {
    if (ix_.resolve_path(p).empty()) fail(field, p, "no such file in the change");
  }

  void range(const std::string& field, const std::string& p, std::int32_t a, std::int32_t b) {
    std::string full = ix_.resolve_path(p);
    if (full.empty()) return;  // reported by path()
    if (!ix_.range_in_diff(full, a, b))
      fail(field, fmt::format("{}:{}-{}", p, a, b), "lines outside the change's hunks");
  }

  void ref(const std::string& field, const std::string& r) {
    std::string_view v = r;
    auto hash = v.find('#');
    if (hash != std::string_view::npos) {
      std::string digits(v.substr(hash + 1));
      bool ok = !digits.empty() && digits.size() < 12 &&
                std::all_of(digits.begin(), digits.end(),
                            [](unsigned char c) { return std::isdigit(c); });
      if (ok && hash == 0)
        ok = ix_.has_pr(std::stoll(digits));
      else if (ok)
        ok = ix_.has_code_span(r);  // owner/repo#N must be written in the change
      if (!ok) fail(field, r, "reference not in the change");
      return;
    }
    bool hex = v.size() >= 7 &&
               std::all_of(v.begin(), v.end(), [](unsigned char c) { return std::isxdigit(c); });
    if (!(hex && ix_.has_sha(v)) && !ix_.has_url(v)) fail(field, r, "reference not in the change");
  }

 private:
  void fail(const std::string& field, std::string citation, std::string reason) {
    out_.push_back({field, std::move(citation), std::move(reason)});
  }

  void urls(const std::string& field, std::string_view t) {
    size_t pos = 0;
    while ((pos = t.find("://", pos)) != std::string_view::npos) {
      size_t start = pos;
      while (start > 0 && std::isalpha(static_cast<unsigned char>(t[start - 1]))) --start;
      size_t end = pos + 3;
      while (end < t.size() && !std::isspace(static_cast<unsigned char>(t[end])) && t[end] != ')' &&
             t[end] != '>' && static_cast<unsigned char>(t[end]) < 0x80)
        ++end;
      std::string_view url = t.substr(start, end - start);
      while (!url.empty() && (url.back() == '.' || url.back() == ',' || url.back() == ';'))
        url.remove_suffix(1);
      if (!ix_.has_url(url)) fail(field, std::string(url), "URL not in the change");
      pos = end;
    }
  }

  void refs(const std::string& field, std::string_view t) {
    for (size_t i = 0; i < t.size(); ++i) {
      if (t[i] == '#' && (i == 0 || !alnum(t[i - 1]))) {
        size_t j = i + 1;
        while (j < t.size() && std::isdigit(static_cast<unsigned char>(t[j]))) ++j;
        if (j > i + 1 && j - i < 13 &&
            !ix_.has_pr(std::stoll(std::string(t.substr(i + 1, j - i - 1)))))
          fail(field, std::string(t.substr(i, j - i)), "PR or issue not named in the change");
        i = j;
      }
    }
    // Commit shas: 7–40 hex digits with both a letter and a digit.
    size_t i = 0;
    while (i < t.size()) {
      if (!alnum(t[i])) {
        ++i;
        continue;
      }
      size_t j = i;
      while (j < t.size() && alnum(t[j])) ++j;
      std::string_view w = t.substr(i, j - i);
      bool hex = w.size() >= 7 && w.size() <= 40 &&
                 std::all_of(w.begin(), w.end(), [](unsigned char c) { return std::isxdigit(c); });
      bool letter =
          std::any_of(w.begin(), w.end(), [](unsigned char c) { return std::isalpha(c); });
      bool digit = std::any_of(w.begin(), w.end(), [](unsigned char c) { return std::isdigit(c); });
      if (hex && letter && digit && !ix_.has_sha(w))
        fail(field, std::string(w), "commit not in the change");
      i = j;
    }
  }

  void numbers(const std::string& field, std::string_view t) {
    for (const auto& n : scan_numbers(t)) {
      bool ok = n.version ? ix_.has_code_span(n.text) : ix_.has_number(n.text, n.strict);
      if (!ok) fail(field, n.text, "number not in the change");
    }
  }

  const CitationIndex& ix_;
  std::vector<CitationFailure>& out_;
};

}  // namespace

bool has_cjk(std::string_view text) {
  for (size_t i = 0; i + 2 < text.size(); ++i) {
    unsigned char c = text[i];
    // U+4E00..U+9FFF encode as E4 B8 80 .. E9 BF BF.
    if (c >= 0xE4 && c <= 0xE9) return true;
  }
  return false;
}

CitationIndex::CitationIndex(const Change& change, const Facts& facts) {
  auto add_text = [&](std::string_view t) {
    corpus_.append(t);
    corpus_.push_back('\n');
  };
  add_text(change.title);
  add_text(change.url);
  add_text(change.body);
  for (const auto& c : change.commits) {
    add_text(c.message);
    shas_.push_back(c.sha);
  }
  for (const auto& l : change.labels) add_text(l);
  for (const auto& r : change.reviews) add_text(r.body);
  for (const auto& r : change.review_comments) add_text(r.body);
  for (const auto& r : change.comments) add_text(r.body);
  shas_.push_back(change.sha);
  if (!change.parent_sha.empty()) shas_.push_back(change.parent_sha);
  if (change.number) prs_.insert(*change.number);
  std::int64_t adds = 0, dels = 0;
  for (const auto& f : change.files) {
    paths_.insert(f.path);
    if (!f.old_path.empty()) paths_.insert(f.old_path);
    add_text(f.path);
    for (auto n : {f.additions, f.deletions, f.additions + f.deletions})
      derived_.insert(std::to_string(n));
    adds += f.additions;
    dels += f.deletions;
    for (const auto& h : f.hunks) {
      const bool deleted = f.status == FileStatus::kDeleted;
      std::int32_t start = deleted ? h.old_start : h.new_start;
      std::int32_t count = deleted ? h.old_lines : h.new_lines;
      spans_.push_back({f.path, start, start + std::max(count, 1) - 1});
      max_line_ = std::max(max_line_, start + count);
      add_text(h.section);
      for (const auto& l : h.lines) add_text(l.text);
    }
  }
  for (auto n : {adds, dels, adds + dels, static_cast<std::int64_t>(change.files.size()),
                 static_cast<std::int64_t>(change.commits.size())})
    derived_.insert(std::to_string(n));
  for (int i = 0; i <= 10; ++i) derived_.insert(std::to_string(i));
  // Facts are derived from the change: every figure they state may be cited.
  std::string facts_text;
  for (const auto& r : facts.focus) {
    for (auto n : {r.start_line, r.end_line, r.changed_lines}) derived_.insert(std::to_string(n));
    for (const auto& s : r.reasons) facts_text += s + "\n";
  }
  derived_.insert(std::to_string(facts.lines_worth_reading));
  // Counts the writers state: clean-up files, focus regions and their files,
  // changed lines of code outside the clean-up.
  std::set<std::string> skimmed, focus_paths;
  for (const auto& s : facts.skim) skimmed.insert(s.path);
  for (const auto& r : facts.focus) focus_paths.insert(r.path);
  std::int64_t code = 0;
  for (const auto& f : change.files) {
    auto it = facts.roles.find(f.path);
    bool is_code = it == facts.roles.end() || it->second == FileRole::kCore ||
                   it->second == FileRole::kKernel || it->second == FileRole::kModel;
    if (is_code && !skimmed.count(f.path)) code += f.additions + f.deletions;
  }
  for (auto n :
       {static_cast<std::int64_t>(skimmed.size()), static_cast<std::int64_t>(focus_paths.size()),
        static_cast<std::int64_t>(facts.focus.size()), code,
        static_cast<std::int64_t>(facts.verdict_scope.size())})
    derived_.insert(std::to_string(n));
  derived_.insert(std::to_string(facts.importance.value));
  derived_.insert(std::to_string(facts.insight.value));
  for (const auto& s : facts.importance.reasons) facts_text += s + "\n";
  for (const auto& s : facts.insight.reasons) facts_text += s + "\n";
  for (const auto& n : facts.number_cautions) facts_text += n.detail + "\n";
  for (const auto& g : facts.gaps) facts_text += g.detail + "\n";
  for (const auto& m : facts.body_mismatches) facts_text += m.detail + "\n";
  for (const auto& h : facts.hunks) {
    derived_.insert(std::to_string(h.added + h.removed));
    derived_.insert(std::to_string(h.new_start));
    derived_.insert(std::to_string(h.new_end));
  }
  for (const auto& d : facts.definitions) derived_.insert(std::to_string(d.at.line));
  for (const auto& s : facts.signals) derived_.insert(std::to_string(s.at.line));
  add_numbers(facts_text, derived_);
  // Symbols and signal details were read from the change's files (enclosing
  // classes may sit outside the hunks), so they count as written.
  auto add_fact = [&](const std::string& t) {
    if (t.empty()) return;
    facts_code_.append(t);
    facts_code_.push_back('\n');
  };
  for (const auto& h : facts.hunks) add_fact(h.symbol);
  for (const auto& r : facts.focus) add_fact(r.symbol);
  for (const auto& d : facts.definitions) {
    add_fact(d.name);
    add_fact(d.at.symbol);
  }
  for (const auto& s : facts.signals) {
    add_fact(s.detail);
    add_fact(s.at.symbol);
  }
  for (const auto& r : facts.review_points) add_fact(r.excerpt);
  scan_tokens(facts_code_, tokens_);
  for (const auto& r : facts.references) {
    if (r.number > 0) prs_.insert(r.number);
    if (!r.sha.empty()) shas_.push_back(r.sha);
    add_text(r.text);
  }
  for (const auto& b : facts.referenced_by) {
    if (b.ref.starts_with("#")) {
      try {
        prs_.insert(std::stoll(b.ref.substr(1)));
      } catch (...) {
      }
    } else {
      shas_.push_back(b.ref);
    }
    add_text(b.title);
  }
  scan_tokens(corpus_, tokens_);
  add_numbers(corpus_, numbers_);
  // "#123", ".../pull/123", ".../issues/123" written anywhere in the text.
  for (size_t i = 0; i < corpus_.size(); ++i) {
    size_t digits = std::string::npos;
    if (corpus_[i] == '#')
      digits = i + 1;
    else if (corpus_.compare(i, 6, "/pull/") == 0)
      digits = i + 6;
    else if (corpus_.compare(i, 8, "/issues/") == 0)
      digits = i + 8;
    if (digits == std::string::npos) continue;
    size_t j = digits;
    while (j < corpus_.size() && j - digits < 12 &&
           std::isdigit(static_cast<unsigned char>(corpus_[j])))
      ++j;
    if (j > digits) prs_.insert(std::stoll(corpus_.substr(digits, j - digits)));
  }
}

std::string CitationIndex::resolve_path(std::string_view cited) const {
  std::string c(cited);
  while (c.starts_with("./")) c.erase(0, 2);
  if (c.starts_with("a/") || c.starts_with("b/")) {
    if (paths_.count(c.substr(2))) return c.substr(2);
  }
  if (paths_.count(c)) return c;
  if (c.empty()) return {};
  std::string found;
  for (const auto& p : paths_) {
    if (p.size() > c.size() && p.ends_with(c) && p[p.size() - c.size() - 1] == '/') {
      if (!found.empty()) return {};  // ambiguous
      found = p;
    }
  }
  return found;
}

bool CitationIndex::range_in_diff(const std::string& path, std::int32_t start,
                                  std::int32_t end) const {
  if (start <= 0 && end <= 0) return true;  // the point names no range
  if (start <= 0 || end < start) return false;
  constexpr std::int32_t kSlack = 3;
  for (const auto& s : spans_)
    if (s.path == path && start <= s.end + kSlack && end >= s.start - kSlack) return true;
  return false;
}

bool CitationIndex::has_code_span(std::string_view raw) const {
  std::string span = span_text(std::string(raw));
  if (span.empty()) return true;
  if (!resolve_path(span).empty()) return true;
  if (corpus_.find(span) != std::string::npos) return true;
  if (facts_code_.find(span) != std::string::npos) return true;
  if (span.find('\'') != std::string::npos) {  // writers turn inner backticks into quotes
    std::string ticks = span;
    std::replace(ticks.begin(), ticks.end(), '\'', '`');
    if (corpus_.find(ticks) != std::string::npos || facts_code_.find(ticks) != std::string::npos)
      return true;
  }
  std::set<std::string> toks;
  scan_tokens(span, toks);
  if (toks.empty()) return false;
  return std::all_of(toks.begin(), toks.end(),
                     [&](const std::string& t) { return tokens_.count(t) > 0; });
}

bool CitationIndex::has_number(std::string_view number, bool strict) const {
  std::string n = normalise(number);
  if (numbers_.count(n) || numbers_.count(std::string(number))) return true;
  if (derived_.count(n)) return true;
  if (strict) return false;
  std::int64_t v = 0;
  try {
    v = std::stoll(n);
  } catch (...) {
    return false;
  }
  if (v <= 0 || v > max_line_) return false;
  for (const auto& s : spans_)
    if (v >= s.start - 3 && v <= s.end + 3) return true;
  return false;
}

bool CitationIndex::has_pr(std::int64_t number) const {
  return prs_.count(number) > 0;
}

bool CitationIndex::has_sha(std::string_view hex) const {
  if (hex.size() < 7) return false;
  for (const auto& s : shas_)
    if (s.size() >= hex.size() ? s.compare(0, hex.size(), hex) == 0
                               : hex.compare(0, s.size(), s) == 0 && s.size() >= 7)
      return true;
  return corpus_.find(hex) != std::string::npos;
}

bool CitationIndex::has_url(std::string_view url) const {
  return corpus_.find(url) != std::string::npos;
}

std::vector<CitationFailure> check_citations(const Guide& g, const CitationIndex& index) {
  std::vector<CitationFailure> out;
  Checker c(index, out);
  c.text("headline", g.headline);
  c.text("summary", g.summary);
  c.text("verdict_text", g.verdict_text);
  c.text("why", g.why);
  c.text("audience", g.audience);
  c.text("importance.reason", g.importance.reason);
  c.text("insight.reason", g.insight.reason);
  for (size_t i = 0; i < g.focus.size(); ++i) {
    const auto& f = g.focus[i];
    std::string field = fmt::format("focus[{}]", i);
    c.path(field, f.path);
    c.range(field, f.path, f.start_line, f.end_line);
    if (!f.symbol.empty()) c.text(field, "`" + f.symbol + "`");
    c.text(field, f.question);
    c.text(field, f.why);
  }
  for (size_t i = 0; i < g.skim.size(); ++i) {
    std::string field = fmt::format("skim[{}]", i);
    c.path(field, g.skim[i].path);
    c.text(field, g.skim[i].reason);
  }
  auto list = [&](const char* name, const std::vector<std::string>& items) {
    for (size_t i = 0; i < items.size(); ++i) c.text(fmt::format("{}[{}]", name, i), items[i]);
  };
  list("design_decisions", g.design_decisions);
  list("questions", g.questions);
  list("number_cautions", g.number_cautions);
  list("body_vs_code", g.body_vs_code);
  list("gaps", g.gaps);
  for (size_t i = 0; i < g.advice.size(); ++i)
    c.text(fmt::format("advice[{}]", i), g.advice[i].text);
  for (size_t i = 0; i < g.references.size(); ++i) {
    std::string field = fmt::format("references[{}]", i);
    c.ref(field, g.references[i].ref);
    c.text(field, g.references[i].note);
  }
  return out;
}

size_t remove_failed_citations(Guide& g, const std::vector<CitationFailure>& failures,
                               const Guide& fallback, const CitationIndex& index) {
  std::map<std::string, std::set<size_t>> drop;  // list name → indexes
  std::set<std::string> scalars;
  for (const auto& f : failures) {
    g.writer.removed.push_back(fmt::format("{}: {} ({})", f.field, f.citation, f.reason));
    auto open = f.field.find('[');
    if (open == std::string::npos) {
      scalars.insert(f.field);
    } else {
      drop[f.field.substr(0, open)].insert(std::stoul(f.field.substr(open + 1)));
    }
  }
  auto prune = [&](auto& vec, const char* name) {
    auto it = drop.find(name);
    if (it == drop.end()) return;
    for (auto i = it->second.rbegin(); i != it->second.rend(); ++i)
      if (*i < vec.size()) vec.erase(vec.begin() + static_cast<std::ptrdiff_t>(*i));
  };
  prune(g.focus, "focus");
  prune(g.skim, "skim");
  prune(g.design_decisions, "design_decisions");
  prune(g.questions, "questions");
  prune(g.number_cautions, "number_cautions");
  prune(g.body_vs_code, "body_vs_code");
  prune(g.gaps, "gaps");
  prune(g.advice, "advice");
  prune(g.references, "references");
  if (scalars.count("headline")) g.headline = fallback.headline;
  if (scalars.count("summary")) g.summary = fallback.summary;
  if (scalars.count("verdict_text")) g.verdict_text = fallback.verdict_text;
  if (scalars.count("why")) g.why = fallback.why;
  if (scalars.count("audience")) g.audience = fallback.audience;
  if (scalars.count("importance.reason")) g.importance.reason = fallback.importance.reason;
  if (scalars.count("insight.reason")) g.insight.reason = fallback.insight.reason;
  for (auto& f : g.focus)
    if (auto full = index.resolve_path(f.path); !full.empty()) f.path = full;
  for (auto& s : g.skim)
    if (auto full = index.resolve_path(s.path); !full.empty()) s.path = full;
  return failures.size();
}

}  // namespace mergelens
