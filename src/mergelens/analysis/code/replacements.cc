// One-for-one line replacements and the last step of the rationale facts
// (see rationale.h).
//
// Within a run of changed lines (no context between them), every removed
// line is compared with every added one by their word pieces; the most
// similar pairs above the threshold are taken first, each line once. A
// rewritten block of more than kMaxRunSide lines a side is a rewrite, not a
// set of edits, and is left alone. An added line under a branch the run adds
// around it (deeper than the removed line, below a new "if"/"else"/"try") is
// one arm of new control flow, not a one-line replacement: it pairs with nothing.
#include <algorithm>
#include <cctype>
#include <climits>

#include "mergelens/analysis/code/code_text.h"
#include "mergelens/analysis/code/rationale.h"
#include "mergelens/util/strings.h"

namespace mergelens {
namespace {

constexpr size_t kMaxRunSide = 24;
constexpr double kMinSimilarity = 0.5;
constexpr size_t kMaxKept = 48;

// Word pieces of a line, lower-cased and sorted: identifiers split at '_'
// and at lower-to-upper case changes; numbers kept.
std::vector<std::string> pieces(std::string_view s) {
  std::vector<std::string> out;
  std::string cur;
  auto push = [&] {
    for (char& ch : cur) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (!cur.empty()) out.push_back(cur);
    cur.clear();
  };
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = s[i];
    if (!std::isalnum(c)) {
      push();
      continue;
    }
    if (c >= 'A' && c <= 'Z' && !cur.empty() && cur.back() >= 'a' && cur.back() <= 'z') push();
    cur += static_cast<char>(c);
  }
  push();
  std::sort(out.begin(), out.end());
  return out;
}

size_t common(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  size_t i = 0, j = 0, n = 0;
  while (i < a.size() && j < b.size()) {
    if (a[i] == b[j]) {
      ++n, ++i, ++j;
    } else if (a[i] < b[j]) {
      ++i;
    } else {
      ++j;
    }
  }
  return n;
}

bool pairable(Language lang, std::string_view text) {
  const std::string_view t = trim(text);
  if (t.empty() || signal_internal::is_comment_line(lang, t)) return false;
  if (lang == Language::kPython && (t.starts_with("\"\"\"") || t.starts_with("'''"))) return false;
  if (t.starts_with("import ") || (t.starts_with("from ") && t.find(" import ") != t.npos) ||
      t.starts_with("#include") || t.starts_with("use ") || t.starts_with("using "))
    return false;
  // At least one identifier of two letters.
  int run = 0;
  for (unsigned char c : t) {
    run = std::isalpha(c) || c == '_' ? run + 1 : 0;
    if (run >= 2) return true;
  }
  return false;
}

std::string squeezed(std::string_view s) {
  std::string out;
  for (char c : s)
    if (c != ' ' && c != '\t' && c != '\r') out += c;
  return out;
}

// "x = ..." / "x += ..." / "x: T = ...": the assigned target, else empty.
std::string assigned(std::string_view text) {
  const std::string_view t = trim(text);
  size_t i = 0;
  int depth = 0;
  for (; i < t.size(); ++i) {
    const char c = t[i];
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') --depth;
    if (c == '"' || c == '\'') return {};
    if (depth == 0 && c == '=' && (i + 1 >= t.size() || t[i + 1] != '=') &&
        (i == 0 || std::string_view("=!<>").find(t[i - 1]) == std::string_view::npos)) {
      size_t e = i;
      while (e > 0 && std::string_view("+-*/%&|^:").find(t[e - 1]) != std::string_view::npos) --e;
      std::string_view target = trim(t.substr(0, e));
      const size_t colon = target.find(':');  // "x: int"
      if (colon != std::string_view::npos && target.find('[') == std::string_view::npos)
        target = trim(target.substr(0, colon));
      for (std::string_view kw : {"auto ", "const ", "let ", "var ", "mut "})
        if (target.starts_with(kw)) target.remove_prefix(kw.size());
      return std::string(target);
    }
  }
  return {};
}

// Whether a removed and an added line can be one edit: two assignments to
// different targets are two statements (`w2 = a` is not replaced by `w1 = b`)
// unless only the target changed (a rename: the value is the same).
bool same_target(std::string_view removed, std::string_view added) {
  const std::string a = assigned(removed), b = assigned(added);
  if (a.empty() || b.empty() || a == b) return true;
  auto value = [](std::string_view t) {
    t = trim(t);
    const size_t eq = t.find('=');
    return squeezed(t.substr(eq + 1));
  };
  return value(removed) == value(added);
}

// Whether a line continues a condition written over several lines ("and x",
// "|| y"): a fragment is one edit only of another fragment, never of a whole
// statement ("and e.event is not None" is not replaced by "if event is None:").
bool condition_fragment(std::string_view text) {
  const std::string_view t = trim(text);
  return t.starts_with("and ") || t.starts_with("or ") || t.starts_with("&&") ||
         t.starts_with("||");
}

// Columns of a line's leading whitespace (a tab counts 8).
size_t indent_of(std::string_view s) {
  size_t n = 0;
  for (char c : s) {
    if (c == ' ') {
      ++n;
    } else if (c == '\t') {
      n += 8;
    } else {
      break;
    }
  }
  return n;
}

// Whether a line opens a branch or a block of control flow: "if x:",
// "else:", "try:", "except E:", "for ...", "} else {", "case 3:".
bool opens_branch(std::string_view text) {
  std::string_view t = trim(text);
  if (t.starts_with("}")) t = trim(t.substr(1));
  auto word = [&](std::string_view w) {
    if (!t.starts_with(w)) return false;
    if (t.size() == w.size()) return true;
    const unsigned char next = t[w.size()];
    if (std::isalnum(next) || next == '_') return false;
    // "default = 3", "match.group(1)": a name, not a keyword.
    const std::string_view rest = trim(t.substr(w.size()));
    return !(rest.starts_with("=") && !rest.starts_with("==")) && !rest.starts_with(".") &&
           !rest.starts_with(",") && !rest.starts_with(")") && !rest.starts_with("]");
  };
  for (std::string_view w : {"if", "elif", "else", "try", "except", "catch", "finally", "for",
                             "while", "with", "switch", "case", "default", "match", "do"})
    if (word(w)) return true;
  return false;
}

// Whether added line `a` sits inside a branch the run adds around it: an
// added line before it opens a branch at an indentation from the removed
// line's own up to below `a`'s ("x = f(y)" became "try: ... if c: ... else:
// x = g(y)"). Such an added line is one arm of a new structure, not the one
// line that replaced `r`.
bool nested_in_new_branch(const std::vector<DiffLine>& lines, const std::vector<int>& added, int r,
                          int a) {
  const size_t from = indent_of(lines[r].text), to = indent_of(lines[a].text);
  if (to <= from) return false;
  for (int i : added) {
    if (i >= a) break;
    const size_t at = indent_of(lines[i].text);
    if (at >= from && at < to && opens_branch(lines[i].text)) return true;
  }
  return false;
}

}  // namespace

double line_similarity(std::string_view a, std::string_view b) {
  const auto pa = pieces(a), pb = pieces(b);
  if (pa.empty() || pb.empty()) return 0;
  return 2.0 * static_cast<double>(common(pa, pb)) / static_cast<double>(pa.size() + pb.size());
}

// Whether a line opens a definition ("def f(", "async def f(", "class C",
// "fn f(", "func f(", "function f("): a definition's head is one edit only of
// another head, never of a parameter or a statement ("def validate(s) -> t"
// is not replaced by "scheme: str | None," of the function that took its place).
bool opens_definition(std::string_view text) {
  const std::string_view t = trim(text);
  for (std::string_view kw :
       {"def ", "async def ", "class ", "fn ", "pub fn ", "func ", "function "})
    if (t.starts_with(kw)) return true;
  return false;
}

std::vector<RawReplacement> find_replacements(Language lang, const Hunk& hunk) {
  std::vector<RawReplacement> out;
  const auto& lines = hunk.lines;
  size_t k = 0;
  while (k < lines.size()) {
    if (lines[k].origin != '+' && lines[k].origin != '-') {
      ++k;
      continue;
    }
    std::vector<int> removed, added;
    size_t e = k;
    for (; e < lines.size() && (lines[e].origin == '+' || lines[e].origin == '-'); ++e)
      (lines[e].origin == '-' ? removed : added).push_back(static_cast<int>(e));
    k = e;
    if (removed.empty() || added.empty() || removed.size() > kMaxRunSide ||
        added.size() > kMaxRunSide)
      continue;
    // A line written again unchanged (a block re-ordered or re-indented) was
    // not replaced: it pairs with its copy, each copy once, and with nothing else.
    std::vector<char> copied_r(removed.size(), 0), copied_a(added.size(), 0);
    for (size_t i = 0; i < removed.size(); ++i) {
      const std::string rs = squeezed(lines[removed[i]].text);
      for (size_t j = 0; j < added.size(); ++j)
        if (!copied_a[j] && squeezed(lines[added[j]].text) == rs) {
          copied_r[i] = copied_a[j] = 1;
          break;
        }
    }
    struct Candidate {
      double sim;
      int r, a;
    };
    std::vector<Candidate> cands;
    for (size_t i = 0; i < removed.size(); ++i) {
      const int r = removed[i];
      if (copied_r[i] || !pairable(lang, lines[r].text)) continue;
      // A removed line as close to an arm of a new branch as to any other
      // line became part of that structure: it pairs with none of them.
      double nested_best = -1;
      std::vector<Candidate> mine;
      for (size_t j = 0; j < added.size(); ++j) {
        const int a = added[j];
        if (copied_a[j] || !pairable(lang, lines[a].text) ||
            !same_target(lines[r].text, lines[a].text) ||
            condition_fragment(lines[r].text) != condition_fragment(lines[a].text) ||
            opens_definition(lines[r].text) != opens_definition(lines[a].text))
          continue;
        const double sim = line_similarity(lines[r].text, lines[a].text);
        if (sim < kMinSimilarity) continue;
        if (nested_in_new_branch(lines, added, r, a))
          nested_best = std::max(nested_best, sim);
        else
          mine.push_back({sim, r, a});
      }
      for (const Candidate& c : mine)
        if (c.sim > nested_best) cands.push_back(c);
    }
    std::stable_sort(cands.begin(), cands.end(),
                     [](const Candidate& x, const Candidate& y) { return x.sim > y.sim; });
    std::vector<int> used_r, used_a;
    for (const auto& c : cands) {
      if (std::find(used_r.begin(), used_r.end(), c.r) != used_r.end() ||
          std::find(used_a.begin(), used_a.end(), c.a) != used_a.end())
        continue;
      used_r.push_back(c.r);
      used_a.push_back(c.a);
      out.push_back({c.r, c.a});
    }
  }
  std::sort(out.begin(), out.end(),
            [](const RawReplacement& x, const RawReplacement& y) { return x.added < y.added; });
  return out;
}

void finish_rationale(Facts& facts) {
  auto code_file = [&](const std::string& path) {
    auto it = facts.roles.find(path);
    if (it == facts.roles.end()) return false;
    return it->second == FileRole::kCore || it->second == FileRole::kKernel ||
           it->second == FileRole::kModel;
  };
  auto region_of = [&](const std::string& path, std::int32_t start, std::int32_t end) {
    for (size_t i = 0; i < facts.focus.size(); ++i) {
      const FocusRegion& r = facts.focus[i];
      if (r.path == path && start <= r.end_line && end >= r.start_line)
        return static_cast<std::int32_t>(i);
    }
    return std::int32_t{-1};
  };
  auto by_focus = [](const auto& x, const auto& y) {
    const auto fx = x.focus < 0 ? INT32_MAX : x.focus, fy = y.focus < 0 ? INT32_MAX : y.focus;
    return fx < fy;
  };
  std::erase_if(facts.rationale, [&](const RationaleNote& n) { return !code_file(n.path); });
  for (auto& n : facts.rationale) n.focus = region_of(n.path, n.start_line, n.end_line);
  std::stable_sort(facts.rationale.begin(), facts.rationale.end(), by_focus);
  if (facts.rationale.size() > kMaxKept) facts.rationale.resize(kMaxKept);

  std::erase_if(facts.replacements, [&](const Replacement& r) { return !code_file(r.path); });
  for (auto& r : facts.replacements) r.focus = region_of(r.path, r.new_line, r.new_line);
  std::stable_sort(facts.replacements.begin(), facts.replacements.end(), by_focus);
  if (facts.replacements.size() > kMaxKept) facts.replacements.resize(kMaxKept);
}

}  // namespace mergelens
