// The Doc: text cleaned and cut into sentences and Markdown tables (see text_doc.h).
#include "mergelens/analysis/text/text_doc.h"

#include <algorithm>
#include <array>
#include <set>

#include <fmt/format.h>

namespace mergelens::text_detail {
namespace {

Sent make_sent(sv text, bool table, bool task) {
  Sent st{std::string(text), table, task, code_spans(text), url_spans(text), {}};
  std::vector<Span> all = st.code;
  all.insert(all.end(), st.urls.begin(), st.urls.end());
  std::sort(all.begin(), all.end(), [](const Span& a, const Span& b) { return a.b < b.b; });
  for (const Span& m : all)
    if (!st.mask.empty() && m.b < st.mask.back().e)
      st.mask.back().e = std::max(st.mask.back().e, m.e);
    else
      st.mask.push_back(m);
  return st;
}

bool is_delim_row(sv l) {
  l = trim(l);
  if (!has_byte(l, '|') || !has_byte(l, '-')) return false;
  return std::all_of(l.begin(), l.end(),
                     [](char c) { return c == '|' || c == '-' || c == ':' || is_space(c); });
}

std::vector<std::string> split_row(sv l) {
  l = trim(l);
  if (!l.empty() && l.front() == '|') l.remove_prefix(1);
  if (!l.empty() && l.back() == '|' && (l.size() < 2 || l[l.size() - 2] != '\\'))
    l.remove_suffix(1);
  std::vector<std::string> cells;
  std::string cur;
  bool code = false;
  for (size_t i = 0; i < l.size(); ++i) {
    char c = l[i];
    if (c == '`') code = !code;
    if (c == '\\' && i + 1 < l.size() && l[i + 1] == '|') {
      cur += '|';
      ++i;
    } else if (c == '|' && !code) {
      cells.emplace_back(trim(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  cells.emplace_back(trim(cur));
  return cells;
}

bool abbreviation_before(sv s, size_t dot) {
  size_t b = dot;
  while (b > 0 && is_alpha(s[b - 1])) --b;
  static const std::set<std::string> kAbbr = {"e.g", "i.e",    "g",   "e",  "vs", "etc",
                                              "cf",  "approx", "fig", "no", "eq", "resp"};
  std::string w = lower(s.substr(b, dot - b));
  if (b >= 2 && s[b - 1] == '.') w = lower(s.substr(b - 2, dot - b + 2));
  return kAbbr.count(w) > 0;
}

// Splits a paragraph into sentences; never inside `code` or "quotes".
void split_sentences(sv p, bool task, std::vector<Sent>& out) {
  size_t start = 0;
  bool code = false, quote = false;
  auto emit = [&](size_t end) {
    sv t = trim(p.substr(start, end - start));
    if (!t.empty()) out.push_back(make_sent(t, false, task));
    start = end;
  };
  for (size_t i = 0; i < p.size(); ++i) {
    char c = p[i];
    if (c == '`') code = !code;
    if (c == '"' && !code) quote = !quote;
    if (i - start > 1500 && is_space(c)) {
      emit(i);
      continue;
    }
    if (code || quote) continue;
    bool next_space = i + 1 >= p.size() || is_space(p[i + 1]);
    if ((c == '!' || c == '?') && next_space) emit(i + 1);
    if (c == '.' && next_space && !abbreviation_before(p, i)) emit(i + 1);
    if (c == '\xE3' && i + 2 < p.size() && p[i + 1] == '\x80' && p[i + 2] == '\x82')
      emit(i + 3);  // 。
    if (c == '\xEF' && i + 2 < p.size() && p[i + 1] == '\xBC' &&
        (p[i + 2] == '\x81' || p[i + 2] == '\x9F'))
      emit(i + 3);  // ！？
  }
  emit(p.size());
}

bool is_task_line(sv t) {
  return t.size() >= 5 && (t[0] == '-' || t[0] == '*') && t[1] == ' ' && t[2] == '[' && t[4] == ']';
}

// Strips a heading, quote or list marker; returns true when the line opens a block.
bool strip_marker(sv& t) {
  bool block = false;
  size_t hashes = t.find_first_not_of('#');
  if (hashes != sv::npos && hashes > 0 && hashes <= 6 && is_space(t[hashes]))
    t.remove_prefix(hashes), block = true;
  while (!t.empty() && t.front() == '>') t.remove_prefix(1), block = true;
  t = trim(t);
  if (t.size() >= 2 && (t[0] == '-' || t[0] == '*' || t[0] == '+') && t[1] == ' ')
    t.remove_prefix(2), block = true;
  size_t d = 0;
  while (d < t.size() && d < 3 && is_digit(t[d])) ++d;
  if (d > 0 && d + 1 < t.size() && (t[d] == '.' || t[d] == ')') && t[d + 1] == ' ')
    t.remove_prefix(d + 2), block = true;
  if (t.size() >= 3 && t[0] == '[' && t[2] == ']' && (t[1] == ' ' || t[1] == 'x' || t[1] == 'X'))
    t.remove_prefix(3);
  t = trim(t);
  return block;
}

Doc build_doc(sv raw) {
  Doc doc;
  const std::string text = clean_text(raw);
  std::vector<sv> lines;
  for (size_t i = 0; i <= text.size();) {
    size_t e = text.find('\n', i);
    if (e == std::string::npos) e = text.size();
    lines.push_back(sv(text).substr(i, e - i));
    i = e + 1;
  }
  std::string para;
  bool para_task = false;
  auto flush = [&] {
    if (!para.empty()) split_sentences(para, para_task, doc.sents);
    para.clear();
  };
  char fence = 0;
  size_t fence_len = 0;
  for (size_t li = 0; li < lines.size(); ++li) {
    sv t = trim(lines[li]);
    if (t.size() >= 3 && (t[0] == '`' || t[0] == '~') && t[1] == t[0] && t[2] == t[0]) {
      size_t run = t.find_first_not_of(t[0]);
      run = run == sv::npos ? t.size() : run;
      if (!fence) {
        flush();
        fence = t[0], fence_len = run;
      } else if (t[0] == fence && run >= fence_len && trim(t.substr(run)).empty()) {
        fence = 0;
      }
      continue;
    }
    if (has_byte(t, '|') && li + 1 < lines.size() && is_delim_row(lines[li + 1])) {
      flush();
      Table tab;
      tab.head = split_row(t);
      doc.sents.push_back(make_sent(t, true, false));
      for (li += 2; li < lines.size(); ++li) {
        sv r = trim(lines[li]);
        if (r.empty() || !has_byte(r, '|') || r.starts_with("```") || r.starts_with("~~~")) break;
        tab.rows.push_back(split_row(r));
        doc.sents.push_back(make_sent(r, true, false));
      }
      --li;
      doc.tables.push_back(std::move(tab));
      continue;
    }
    if (fence) continue;
    if (t.empty()) {
      flush();
      continue;
    }
    const bool task = is_task_line(t);
    bool trailer = t.find("-by: ") != sv::npos && t.find("-by: ") < 24;
    if (strip_marker(t) || trailer || (!para.empty() && para.back() == ':')) flush();
    if (t.empty()) continue;
    if (para.empty()) para_task = task;
    if (!para.empty()) para += ' ';
    para.append(t);
  }
  flush();
  return doc;
}

}  // namespace

std::string lower(sv s) {
  std::string r(s);
  for (char& c : r) c = lower_c(c);
  return r;
}

sv trim(sv s) {
  while (!s.empty() && (is_space(s.front()) || s.front() == '\n')) s.remove_prefix(1);
  while (!s.empty() && (is_space(s.back()) || s.back() == '\n')) s.remove_suffix(1);
  return s;
}

bool has_byte(sv s, char c) {
  return s.find(c) != sv::npos;
}

bool has_pr(sv s) {  // "pr" in any case, without allocating
  for (size_t i = 0; i + 1 < s.size(); ++i)
    if ((s[i] | 0x20) == 'p' && (s[i + 1] | 0x20) == 'r') return true;
  return false;
}

// Valid UTF-8 (invalid bytes become U+FFFD), no CR or NUL, no <!-- comments -->.
std::string clean_text(sv raw) {
  std::string out;
  out.reserve(raw.size());
  const auto* p = reinterpret_cast<const unsigned char*>(raw.data());
  const size_t n = raw.size();
  for (size_t i = 0; i < n;) {
    unsigned char c = p[i];
    if (c < 0x80) {
      if (c != '\r') out += c == 0 ? ' ' : char(c);
      ++i;
      continue;
    }
    size_t len = (c >= 0xC2 && c <= 0xDF)   ? 2
                 : (c >= 0xE0 && c <= 0xEF) ? 3
                 : (c >= 0xF0 && c <= 0xF4) ? 4
                                            : 0;
    bool ok = len > 0 && i + len <= n;
    for (size_t k = 1; ok && k < len; ++k) ok = (p[i + k] & 0xC0) == 0x80;
    if (ok && len >= 3) {
      unsigned char d = p[i + 1];
      ok = !(c == 0xE0 && d < 0xA0) && !(c == 0xED && d >= 0xA0) && !(c == 0xF0 && d < 0x90) &&
           !(c == 0xF4 && d >= 0x90);
    }
    if (ok) {
      out.append(raw.data() + i, len);
      i += len;
    } else {
      out += "\xEF\xBF\xBD";
      ++i;
    }
  }
  std::string res;
  res.reserve(out.size());
  for (size_t i = 0;;) {
    size_t a = out.find("<!--", i);
    if (a == std::string::npos) {
      res.append(out, i);
      break;
    }
    res.append(out, i, a - i);
    size_t b = out.find("-->", a + 4);
    if (b == std::string::npos) break;
    i = b + 3;
  }
  return res;
}

bool in_spans(const std::vector<Span>& v, size_t pos, size_t* end) {
  auto it =
      std::upper_bound(v.begin(), v.end(), pos, [](size_t p, const Span& s) { return p < s.b; });
  if (it == v.begin()) return false;
  --it;
  if (pos >= it->e) return false;
  if (end) *end = it->e;
  return true;
}

// `code` spans (with their backticks) of a sentence.
std::vector<Span> code_spans(sv s) {
  std::vector<Span> out;
  for (size_t i = s.find('`'); i != sv::npos && i < s.size();) {
    size_t run = s.find_first_not_of('`', i);
    if (run == sv::npos) break;
    size_t k = run - i;
    size_t close = s.find(std::string(k, '`'), run);
    if (close == sv::npos) break;
    out.push_back({i, close + k});
    i = s.find('`', close + k);
  }
  return out;
}

// URLs (scheme to the first space, quote or bracket; trailing punctuation dropped).
std::vector<Span> url_spans(sv s) {
  std::vector<Span> out;
  for (size_t i = s.find("://"); i != sv::npos; i = s.find("://", i + 3)) {
    size_t b = i;
    while (b > 0 && is_alpha(s[b - 1])) --b;
    if (b == i || (!out.empty() && b < out.back().e)) continue;
    size_t e = i + 3;
    while (e < s.size() && !is_space(s[e]) && !has_byte("<>\"'`()[]{}", s[e]) &&
           (unsigned char)s[e] < 0x80)
      ++e;
    while (e > i + 3 && has_byte(".,;:!?*", s[e - 1])) --e;
    out.push_back({b, e});
  }
  return out;
}

// build_doc() memoised: the analyzer reads the same title and body for numbers,
// references and mentions, so the last few Docs of this thread are kept,
// keyed by a hash of the text. The shared_ptr keeps a Doc alive for its reader.
std::shared_ptr<const Doc> cached_doc(sv raw) {
  struct Entry {
    size_t hash = 0, size = 0;
    std::shared_ptr<const Doc> doc;
  };
  thread_local std::array<Entry, 6> cache;
  thread_local size_t next = 0;
  const size_t h = std::hash<sv>{}(raw);
  for (const Entry& e : cache)
    if (e.doc && e.hash == h && e.size == raw.size()) return e.doc;
  auto doc = std::make_shared<const Doc>(build_doc(raw));
  cache[next++ % cache.size()] = {h, raw.size(), doc};
  return doc;
}

std::string clip(sv s, size_t b, size_t e, size_t max) {
  s = trim(s);
  if (s.size() <= max) return std::string(s);
  b = std::min(b, s.size()), e = std::clamp(e, b, s.size());
  size_t half = (max - std::min(max, e - b)) / 2;
  size_t lo = b > half ? b - half : 0, hi = std::min(s.size(), e + half);
  while (lo > 0 && (s[lo] & 0xC0) == 0x80) --lo;
  while (hi < s.size() && (s[hi] & 0xC0) == 0x80) ++hi;
  return fmt::format("{}{}{}", lo > 0 ? "…" : "", s.substr(lo, hi - lo), hi < s.size() ? "…" : "");
}

}  // namespace mergelens::text_detail
