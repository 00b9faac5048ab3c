// Mentions of files and identifiers in text, and the body-vs-code check (declared in
// text_facts.h). Numbers live in text_numbers.cc, references in text_refs.cc, and the
// shared reading of text (the Doc) in text_doc.h.
#include "mergelens/analysis/text/text_facts.h"

#include <re2/re2.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "mergelens/analysis/text/text_doc.h"

namespace mergelens {
namespace text_detail {
namespace {

bool known_ext(sv name) {
  static const RE2 re(
      "(?i)[\\w.\\-]*[A-Za-z_][\\w\\-]*\\.(?:py|pyi|pyx|pxd|cu|cuh|cc|cpp|cxx|c|h|hh|hpp|hxx|inl|"
      "rs|go|js|mjs|ts|tsx|"
      "jsx|md|rst|txt|json|jsonl|yaml|yml|toml|ini|cfg|sh|bash|cmake|proto|ipynb|html|css|java|kt|"
      "swift|mm|lock|"
      "jinja|j2|sql|ptx|metal|mlir|td|bzl|xml|csv)");
  return RE2::FullMatch(name, re);
}

bool identifier_like(sv t) {
  static const RE2 re("[A-Za-z_]\\w*(?:(?:\\.|::|->)[A-Za-z_]\\w*)*");
  return RE2::FullMatch(t, re);
}

// A name worth comparing with code: snake_case of 2+ parts, or (when `camel_ok`)
// CamelCase / lowerCamel with two capitals.
bool codeish(sv t, bool camel_ok) {
  size_t parts = 0, upper = 0, low = 0;
  bool inner_upper = false;
  for (size_t i = 0, start = 0; i <= t.size(); ++i) {
    if (i == t.size() || t[i] == '_' || t[i] == '.' || t[i] == ':' || t[i] == '>' || t[i] == '-') {
      if (i > start) ++parts;
      start = i + 1;
      continue;
    }
    if (t[i] >= 'A' && t[i] <= 'Z') ++upper, inner_upper |= i > 0 && is_alpha(t[i - 1]);
    if (t[i] >= 'a' && t[i] <= 'z') ++low;
  }
  if (t.find('_') != sv::npos && parts >= 2) return true;
  // CamelCase: two humps "Fused|Mo", or lowerCamel "get|Value"; not GPUs, SGLang, vLLM.
  size_t humps = 0;
  for (size_t i = 0; i + 1 < t.size(); ++i)
    humps += t[i] >= 'A' && t[i] <= 'Z' && t[i + 1] >= 'a' && t[i + 1] <= 'z';
  bool lower_start = !t.empty() && t[0] >= 'a' && t[0] <= 'z';
  return camel_ok && inner_upper && low > 0 && upper >= 1 &&
         (humps >= 2 || (lower_start && humps >= 1));
}

// Kind of a path-like token outside backticks, or "".
const char* plain_path_kind(sv t) {
  size_t slashes = std::count(t.begin(), t.end(), '/');
  sv body = t.ends_with('/') ? t.substr(0, t.size() - 1) : t;
  if (body.find("//") != sv::npos || body.starts_with('/')) return "";
  sv last = body.substr(body.rfind('/') + 1);
  if (known_ext(last)) return "path";
  static const RE2 dir("[a-z_.][a-z0-9_.\\-]*(?:/[a-z_.][a-z0-9_.\\-]*)+/?");
  bool short_part = false;  // tok/s/gpu, a/b/c
  for (size_t a = 0, k = 0; k <= body.size(); ++k)
    if (k == body.size() || body[k] == '/') short_part |= k - a < 2, a = k + 1;
  if ((slashes >= 2 || t.ends_with('/')) && !short_part && RE2::FullMatch(t, dir)) return "path";
  return "";
}

void add_mention(std::vector<Mention>& out, std::set<std::string>& seen, std::string text,
                 const char* kind, sv s, size_t b, size_t e, bool ticked) {
  if (text.empty() || !seen.insert(std::string(kind) + "|" + text).second) return;
  out.push_back({std::move(text), kind, clip(s, b, e), ticked});
}

void backticked_mention(sv c, sv s, const Span& sp, std::vector<Mention>& out,
                        std::set<std::string>& seen) {
  c = trim(c);
  if (c.empty() || std::any_of(c.begin(), c.end(), is_space) || c.find("://") != sv::npos) return;
  size_t paren = c.find('(');
  if (paren != sv::npos && paren > 0 && c.back() == ')' && identifier_like(c.substr(0, paren)))
    c = c.substr(0, paren);
  if (c.starts_with("./")) c.remove_prefix(2);
  static const RE2 line_suffix("(.*\\.[A-Za-z0-9]+)(?::\\d+(?::\\d+)?|#L\\d+(?:-L?\\d+)?)");
  re2::StringPiece file_part;
  if (RE2::FullMatch(c, line_suffix, &file_part)) c = sv(file_part);  // layout.hpp:98
  static const RE2 flag("--[A-Za-z][\\w\\-]*");
  static const RE2 path("[\\w.\\-]+(?:/[\\w.\\-]+)*/?");
  static const RE2 assign("([A-Za-z_]\\w*)=\\S*");
  std::string name;
  if (RE2::FullMatch(c, flag)) {
    add_mention(out, seen, std::string(c), "identifier", s, sp.b, sp.e, true);
  } else if (has_byte(c, '/') && RE2::FullMatch(c, path)) {
    add_mention(out, seen, std::string(c), "path", s, sp.b, sp.e, true);
  } else if (known_ext(c) && RE2::FullMatch(c, path)) {
    add_mention(out, seen, std::string(c), "file", s, sp.b, sp.e, true);
  } else if (identifier_like(c)) {
    add_mention(out, seen, std::string(c), "identifier", s, sp.b, sp.e, true);
  } else if (RE2::FullMatch(c, assign, &name) && name.find('_') != std::string::npos) {
    add_mention(out, seen, name, "identifier", s, sp.b, sp.e, true);
  }
}

void sentence_mentions(const Sent& st, std::vector<Mention>& out, std::set<std::string>& seen) {
  sv s = st.text;
  const std::vector<Span>&code = st.code, &urls = st.urls;
  for (const Span& sp : code) {
    size_t k = s.find_first_not_of('`', sp.b);
    size_t n = k - sp.b;
    backticked_mention(s.substr(k, sp.e - n - k), s, sp, out, seen);
  }
  auto tok_char = [](char c) { return is_word(c) || c == '.' || c == '/' || c == '-' || c == ':'; };
  for (size_t i = 0; i < s.size();) {
    size_t mend;
    if (!tok_char(s[i])) {
      ++i;
      continue;
    }
    if (in_spans(code, i, &mend) || in_spans(urls, i, &mend)) {
      i = mend;
      continue;
    }
    size_t j = i;
    while (j < s.size() && tok_char(s[j]) &&
           !(s[j] == ':' && (j + 1 >= s.size() || s[j + 1] != ':'))) {
      if (s[j] == ':') ++j;
      ++j;
    }
    size_t e = j;
    while (e > i && has_byte(".-:", s[e - 1])) --e;
    sv t = s.substr(i, e - i);
    const char* kind = "";
    bool dot = false, slash = false, codey = false;  // codey: '_', ':' or an inner capital
    for (size_t k = 0; k < t.size(); ++k) {
      dot |= t[k] == '.', slash |= t[k] == '/';
      codey |= t[k] == '_' || t[k] == ':' || (k > 0 && t[k] >= 'A' && t[k] <= 'Z');
    }
    const bool call = e < s.size() && s[e] == '(';
    if (t.empty() || !(is_alpha(t[0]) || t[0] == '_' || t[0] == '.')) {
    } else if (slash) {
      kind = plain_path_kind(t);
    } else if (dot && known_ext(t)) {
      kind = "file";
    } else if (t == "Dockerfile" || t == "Makefile") {
      kind = "file";
    } else if ((dot || codey || call) && identifier_like(t)) {
      bool simple = t.find_first_of("._:") == sv::npos && !codeish(t, true);
      if ((call && (e + 1 < s.size() && s[e + 1] == ')')) || (call && !simple) ||
          codeish(t, !has_byte(t, '.')))
        kind = "identifier";
    }
    if (*kind) add_mention(out, seen, std::string(t), kind, s, i, e, false);
    i = std::max(j, i + 1);
  }
}

std::string basename_of(sv p) {
  return std::string(p.substr(p.rfind('/') + 1));
}
// Whether a named path or file matches a changed path; true when the name is too vague to test.
bool path_touched(std::string m, const std::vector<std::string>& paths) {
  while (m.starts_with("./") || m.starts_with("/")) m.erase(0, m[0] == '.' ? 2 : 1);
  bool dir = m.ends_with('/');
  if (dir) m.pop_back();
  if (m.empty()) return true;
  const bool file = known_ext(basename_of(m));
  if (!file && !dir && std::count(m.begin(), m.end(), '/') < 2) return true;
  for (const std::string& p : paths) {
    if (m.find('/') == std::string::npos && file) {
      // "NVIDIA_H20.json" names "E=256,N=256,device_name=NVIDIA_H20.json" too.
      if (p.ends_with(m) && (p.size() == m.size() || has_byte("/=,", p[p.size() - m.size() - 1])))
        return true;
    } else if (file) {
      if (p == m || p.ends_with("/" + m) || m.ends_with("/" + p)) return true;
    } else if (p.starts_with(m + "/") || p.find("/" + m + "/") != std::string::npos) {
      return true;
    }
  }
  return false;
}

size_t word_count2(const Doc& d) {  // twice the number of words: a CJK character is half a word
  size_t n = 0;
  for (const Sent& st : d.sents)
    if (!st.task)
      for (size_t i = 0; i < st.text.size();) {
        unsigned char c = st.text[i];
        if (is_word(char(c))) {
          while (i < st.text.size() && is_word(st.text[i])) ++i;
          n += 2;
        } else {
          n += c >= 0xE3 && c <= 0xE9;
          ++i;
        }
      }
  return n;
}

// Lowercase word-ish tokens of `s` ("sgl-kernel", "glm4_moe") and their parts, with a
// plural 's' dropped, passed to `fn` until it returns true.
template <class Fn>
bool any_token(sv s, std::string& buf, Fn&& fn) {
  auto norm = [&](sv w) {
    buf.assign(w);
    for (char& c : buf) c = lower_c(c);
    if (buf.size() > 3 && buf.back() == 's') buf.pop_back();
    return buf.size() >= 3 && fn(buf);
  };
  for (size_t i = 0; i < s.size();) {
    if (!is_word(s[i])) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < s.size() &&
           (is_word(s[j]) || (s[j] == '-' && j + 1 < s.size() && is_word(s[j + 1]))))
      ++j;
    sv w = s.substr(i, j - i);
    if (norm(w)) return true;
    if (w.find_first_of("_-") != sv::npos)
      for (size_t a = 0, k = 0; k <= w.size(); ++k)
        if (k == w.size() || w[k] == '_' || w[k] == '-') {
          if (k > a && norm(w.substr(a, k - a))) return true;
          a = k + 1;
        }
    i = j;
  }
  return false;
}

void touched_not_mentioned(const Change& change, std::vector<BodyMismatch>& out) {
  std::map<std::string, std::pair<std::int64_t, std::vector<const FileChange*>>> areas;
  std::int64_t total = 0;
  for (const FileChange& f : change.files) {
    size_t cut = f.path.rfind('/');
    size_t second = f.path.find('/', f.path.find('/') + 1);
    std::string area = cut == std::string::npos ? f.path : f.path.substr(0, std::min(cut, second));
    areas[area].first += f.additions + f.deletions;
    areas[area].second.push_back(&f);
    total += f.additions + f.deletions;
  }
  std::erase_if(
      areas, [&](const auto& a) { return a.second.first < 50 || a.second.first * 10 < total * 4; });
  if (areas.empty()) return;
  const auto bodyp = cached_doc(change.body);
  if (word_count2(*bodyp) < 60) return;
  std::set<std::string> stop = {"python", "src",      "lib", "libs", "include", "core",  "common",
                                "utils",  "util",     "pkg", "main", "init",    "index", "base",
                                "misc",   "internal", "the", "and",  "test"};
  std::string buf;
  for (sv part : {sv(change.repo).substr(0, change.repo.find('/')),
                  sv(change.repo).substr(change.repo.find('/') + 1)})
    any_token(part, buf, [&](const std::string& w) { return stop.insert(w), false; });
  const std::string title = clean_text(change.title);
  for (const auto& [area, v] : areas) {
    std::unordered_set<std::string> cand;  // path components, file stems and their parts
    for (const FileChange* f : v.second) {
      sv p = f->path;
      size_t dot = p.rfind('.');
      if (dot != sv::npos && (p.rfind('/') == sv::npos || dot > p.rfind('/') + 1))
        p = p.substr(0, dot);
      any_token(p, buf, [&](const std::string& w) {
        if (!stop.count(w) && !std::all_of(w.begin(), w.end(), is_digit)) cand.insert(w);
        return false;
      });
    }
    auto named = [&](sv text) {
      return any_token(text, buf, [&](const std::string& w) { return cand.count(w) > 0; });
    };
    bool hit = named(title);
    for (size_t i = 0; i < bodyp->sents.size() && !hit; ++i)
      hit = !bodyp->sents[i].task && named(bodyp->sents[i].text);
    if (!hit)
      out.push_back(
          {"touched_not_mentioned", area,
           fmt::format(
               "{} of {} changed lines ({}%) are under {}, which the title and body never name",
               v.first, total, v.first * 100 / std::max<std::int64_t>(total, 1), area)});
  }
}

std::vector<Mention> extract_mentions_impl(std::string_view text) {
  std::vector<Mention> out;
  try {
    const auto docp = cached_doc(text);
    const Doc& doc = *docp;
    std::set<std::string> seen;
    for (const Sent& st : doc.sents) {
      if (st.text.find_first_of("`/._(ABCDEFGHIJKLMNOPQRSTUVWXYZ") == std::string::npos) continue;
      sentence_mentions(st, out, seen);
      if (out.size() > 500) break;
    }
  } catch (const std::exception&) {
    return {};
  }
  return out;
}

std::vector<BodyMismatch> body_vs_code_impl(const Change& change) {
  std::vector<BodyMismatch> out;
  try {
    if (change.files.empty()) return out;
    struct Named {
      Mention m;
      const char* source;
    };
    std::vector<Named> named;
    std::set<std::string> seen;
    auto collect = [&](sv text, const char* src) {
      for (Mention& m : extract_mentions(text))
        if (seen.insert(m.kind + "|" + m.text).second) named.push_back({std::move(m), src});
    };
    collect(change.title, "title");
    collect(change.body, "body");
    for (const Commit& c : change.commits) {
      // A squash message repeats the body: read only what it adds (the subject, a commit list).
      size_t at = change.body.size() > 40 ? c.message.find(change.body) : std::string::npos;
      if (at == std::string::npos)
        collect(c.message, "commit");
      else
        collect(c.message.substr(0, at) + "\n\n" + c.message.substr(at + change.body.size()),
                "commit");
    }

    std::vector<std::string> paths;
    for (const FileChange& f : change.files) {
      paths.push_back(f.path);
      if (!f.old_path.empty()) paths.push_back(f.old_path);
    }
    // A file named only as context is no mismatch: one the diff's own lines
    // name (a comment pointing at another library), one named beside "see",
    // "like", "passed" (a tool that was run, a file to compare with), or a
    // slash-separated list of words ("eagle/mtp/dspark") rather than a file.
    // An identifier the body names is never checked: whether the body claims
    // the change writes it or only explains the code around it (an argument
    // of a reproduction, a function the fix calls) cannot be read from the
    // text, and "trust the code" would be a false claim either way.
    auto in_diff_text = [&](const std::string& text) {
      for (const FileChange& f : change.files)
        for (const Hunk& h : f.hunks)
          for (const DiffLine& l : h.lines)
            if (l.text.find(text) != std::string::npos) return true;
      return false;
    };
    static const RE2 kContext(
        "(?i)\\b(?:see|like|similar|such as|e\\.g\\.|passed|pass|passes|ran|run|running|lint|"
        "upstream|compare|following|based on|inspired|mirrors|refer|cf\\.)\\b");
    auto file_like = [](const std::string& t) {
      const size_t slash = t.rfind('/');
      const std::string base = slash == std::string::npos ? t : t.substr(slash + 1);
      if (base.empty()) return slash != std::string::npos;  // "a/b/": a folder
      const size_t dot = base.rfind('.');
      return dot != std::string::npos && dot > 0 && dot + 1 < base.size();
    };
    size_t shown = 0;
    for (const Named& n : named) {
      if (n.m.kind == "identifier") continue;
      bool miss = !path_touched(n.m.text, paths) && file_like(n.m.text) &&
                  !RE2::PartialMatch(n.m.sentence, kContext) && !in_diff_text(n.m.text);
      if (!miss || ++shown > 12) continue;
      out.push_back({"named_not_touched", n.m.text,
                     fmt::format("named in the {} (\"{}\") but not in the diff", n.source,
                                 clip(n.m.sentence, 0, 0, 160))});
    }
    touched_not_mentioned(change, out);
  } catch (const std::exception&) {
    return out;
  }
  return out;
}

}  // namespace
}  // namespace text_detail

std::vector<Mention> extract_mentions(std::string_view text) {
  return text_detail::extract_mentions_impl(text);
}

std::vector<BodyMismatch> body_vs_code(const Change& change) {
  return text_detail::body_vs_code_impl(change);
}

namespace {

// "修改前 (us)" and "修改后 (us)", "before" and "after", ...: the two columns
// of one measurement taken before and after the change.
bool before_after(std::string_view a, std::string_view b) {
  static const std::pair<std::string_view, std::string_view> kPairs[] = {
      {"before", "after"},  {"修改前", "修改后"}, {"优化前", "优化后"}, {"baseline", "pr"},
      {"baseline", "this"}, {"baseline", "new"},  {"baseline", "ours"}, {"old", "new"},
      {"main", "pr"},       {"main", "this"},     {"w/o", "w/"},        {"without", "with"}};
  auto lower = [](std::string_view v) {
    std::string s(v);
    for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return s;
  };
  const std::string x = lower(a), y = lower(b);
  for (const auto& [p, q] : kPairs)
    if (x.find(p) != std::string::npos && y.find(q) != std::string::npos &&
        y.find(p) == std::string::npos)
      return true;
  return false;
}

}  // namespace

bool claims_performance(const std::vector<NumberFact>& numbers) {
  if (!key_figure(numbers).empty()) return true;
  // A before/after pair of a time, rate, size or share ("31.2 ms -> 24.9 ms",
  // "1520 → 2100 tok/s") is a measured effect even without a word of gain.
  for (const auto& n : numbers) {
    if (n.source != "title" && n.source != "body") continue;
    if (n.kind != "latency" && n.kind != "throughput" && n.kind != "memory" && n.kind != "percent")
      continue;
    for (std::string_view arrow : {"\xE2\x86\x92", "->", "=>", "\xE2\x9F\xB6"})
      if (n.text.find(arrow) != std::string::npos) return true;
  }
  return false;
}

std::string key_figure(const std::vector<NumberFact>& numbers) {
  // Table cells come as "ROW; COLUMN: VALUE" sentences (see extract_numbers).
  static const RE2 kTable(R"((.*?); (.+): .*)");
  struct Cell {
    std::string row, column;
    const NumberFact* n;
  };
  std::vector<Cell> cells;
  std::vector<std::string> columns;  // in order of appearance
  for (const auto& n : numbers) {
    if (n.source != "title" && n.source != "body") continue;
    std::string row, column;
    if (n.kind != "count" && RE2::FullMatch(n.sentence, kTable, &row, &column)) {
      if (std::find(columns.begin(), columns.end(), column) == columns.end())
        columns.push_back(column);
      cells.push_back({std::move(row), std::move(column), &n});
    }
  }
  // A speedup the text states in prose is the PR's own summary of itself.
  for (const auto& n : numbers)
    if (n.kind == "speedup" && (n.source == "title" || n.source == "body") &&
        !RE2::FullMatch(n.sentence, kTable))
      return n.text;
  auto cell = [&](std::string_view row, std::string_view column) -> const NumberFact* {
    for (const auto& c : cells)
      if (c.row == row && c.column == column) return c.n;
    return nullptr;
  };
  for (size_t i = 0; i < columns.size(); ++i)
    for (size_t j = i + 1; j < columns.size(); ++j) {
      if (!before_after(columns[i], columns[j])) continue;
      for (const auto& c : cells) {
        if (c.column != columns[i]) continue;
        const NumberFact* after = cell(c.row, columns[j]);
        if (after && after->kind == c.n->kind && after->text != c.n->text)
          return fmt::format("{}: {} {} → {} {}", c.row, columns[i], c.n->text, columns[j],
                             after->text);
      }
    }
  static constexpr std::string_view kRank[] = {"speedup", "throughput", "latency", "memory",
                                               "percent"};
  for (auto kind : kRank)
    for (const auto& col : columns) {
      std::vector<const NumberFact*> v;
      for (const auto& c : cells)
        if (c.column == col) v.push_back(c.n);
      if (v.size() == 2 && v[0]->kind == kind && v[1]->kind == kind && v[0]->text != v[1]->text)
        return fmt::format("{} {} → {}", col, v[0]->text, v[1]->text);
    }
  // A lone figure is the change's effect only when its sentence says it
  // improved something: "+204 MB/iter → OOM" describes the bug, "completed
  // in ~45 minutes" the test run.
  static const RE2 kGain(
      "(?i)faster|speed|improv|reduc|lower|less\\b|fewer|sav(e|es|ed|ing)\\b|boost|gain|higher|"
      "increas|decreas|cut\\b|shrink|提升|提高|加速|提速|降低|减少|节省|缩短");
  for (auto kind : kRank) {
    if (kind == "percent") break;
    for (const auto& n : numbers)
      if (n.kind == kind && (n.source == "title" || n.source == "body") &&
          RE2::PartialMatch(n.sentence, kGain))
        return n.text;
  }
  return {};
}

}  // namespace mergelens
