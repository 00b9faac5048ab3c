// Offline guide: what a look-here range changes besides the line pair it
// quotes. A range often holds several edits; the item must not read as if the
// quoted one (a rename, an equivalent rewrite) were the whole change.
#include <algorithm>
#include <cctype>
#include <set>

#include <re2/re2.h>

#include "mergelens/guide/offline_parts.h"
#include "mergelens/util/strings.h"

namespace mergelens::guide_detail {
namespace {

// The name a line defines or assigns ("def f(", "class C", "x = ", "x: T = ")
// and the text after it; false when the line does neither.
bool named_line(std::string_view line, std::string* name, std::string* rest) {
  static const RE2 kDef(R"(^\s*(?:async\s+)?(?:def|class)\s+([A-Za-z_]\w*)(.*)$)");
  static const RE2 kAssign(R"(^\s*([A-Za-z_][\w.]*)(\s*(?::[^=]*)?=[^=].*)$)");
  return RE2::FullMatch(line, kDef, name, rest) || RE2::FullMatch(line, kAssign, name, rest);
}

// Bracket depth a line leaves open (strings skipped).
int open_brackets(std::string_view s) {
  int depth = 0;
  char quote = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const char ch = s[i];
    if (quote) {
      if (ch == '\\')
        ++i;
      else if (ch == quote)
        quote = 0;
      continue;
    }
    if (ch == '"' || ch == '\'')
      quote = ch;
    else if (ch == '#')
      break;
    else if (ch == '(' || ch == '[' || ch == '{')
      ++depth;
    else if (ch == ')' || ch == ']' || ch == '}')
      --depth;
  }
  return depth;
}

// "a" + "b" joined as code is written on one line: no space after an opening
// bracket or before a closing one.
void join_code(std::string& out, std::string_view next) {
  next = trim(next);
  if (next.empty()) return;
  const bool tight =
      !out.empty() && (out.back() == '(' || out.back() == '[' || out.back() == '{' ||
                       next.front() == ')' || next.front() == ']' || next.front() == '}');
  if (!out.empty() && !tight) out += ' ';
  out += next;
}

bool starts_word(std::string_view t, std::string_view w) {
  if (!t.starts_with(w)) return false;
  if (t.size() == w.size()) return true;
  const unsigned char next = t[w.size()];
  return !std::isalnum(next) && next != '_';
}

// How much an added statement says about what a range changes: a new
// branch 3; a write to state (an attribute or an item) or a call 2; an
// assignment from a call 1; anything else, an alias ("name = x.y"), 0.
int weight(std::string_view t) {
  for (std::string_view w : {"if", "elif", "while", "for", "with", "try", "except", "catch"})
    if (starts_word(t, w)) return 3;
  static const RE2 kTarget(R"(^([A-Za-z_][\w.]*(?:\[[^\]]*\])*)\s*(?:[-+*/|&]?=)[^=])");
  static const RE2 kCall(R"(^[A-Za-z_][\w.]*\()");
  std::string target;
  if (RE2::PartialMatch(t, kTarget, &target)) {
    if (target.find('.') != std::string::npos || target.find('[') != std::string::npos) return 2;
    return t.find('(') != std::string_view::npos ? 1 : 0;
  }
  return RE2::PartialMatch(t, kCall) ? 2 : 0;
}

}  // namespace

std::string edit_key(const Replacement& r) {
  const std::string_view a = r.old_text, b = r.new_text;
  size_t pre = 0;
  while (pre < a.size() && pre < b.size() && a[pre] == b[pre]) ++pre;
  size_t suf = 0;
  while (suf < a.size() - pre && suf < b.size() - pre &&
         a[a.size() - 1 - suf] == b[b.size() - 1 - suf])
    ++suf;
  return std::string(a.substr(pre, a.size() - pre - suf)) + "\x1f" +
         std::string(b.substr(pre, b.size() - pre - suf));
}

std::string_view exits(std::string_view line) {
  static constexpr std::string_view kWords[] = {"return", "continue", "break",
                                                "raise",  "assert",   "throw"};
  auto word_ends = [&](size_t end) {
    return end == line.size() ||
           !(std::isalnum(static_cast<unsigned char>(line[end])) || line[end] == '_');
  };
  for (size_t at = 0; at <= line.size();) {
    for (auto w : kWords)
      if (line.substr(at).starts_with(w) && word_ends(at + w.size())) return w;
    const size_t colon = line.find(':', at);
    if (colon == std::string_view::npos) break;
    at = colon + 1;
    while (at < line.size() && line[at] == ' ') ++at;
  }
  return {};
}

bool same_shape(std::string_view a, std::string_view b) {
  static const std::set<std::string_view> kKeep = {
      "if",     "elif",  "else",  "not",    "and",   "or",   "is",    "in",      "None",
      "return", "break", "raise", "assert", "throw", "True", "False", "continue"};
  // The line with each name as "_", spaces dropped; its names in `names`.
  auto shape = [&](std::string_view t, std::set<std::string_view>& names) {
    std::string out;
    for (size_t i = 0; i < t.size();) {
      if (std::isalpha(static_cast<unsigned char>(t[i])) || t[i] == '_') {
        size_t j = i;
        while (j < t.size() && (std::isalnum(static_cast<unsigned char>(t[j])) || t[j] == '_')) ++j;
        const std::string_view word = t.substr(i, j - i);
        if (kKeep.count(word)) {
          out += word;
        } else {
          out += '_';
          names.insert(word);
        }
        i = j;
      } else {
        if (t[i] != ' ') out += t[i];
        ++i;
      }
    }
    return out;
  };
  std::set<std::string_view> in_a, in_b;
  if (shape(a, in_a) != shape(b, in_b)) return false;
  for (auto n : in_a)
    if (in_b.count(n)) return true;
  return in_a.empty();
}

std::set<std::string> rename_keys(const Facts& f) {
  std::set<std::string> out;
  for (const Replacement& r : f.replacements) {
    std::string old_name, old_rest, new_name, new_rest;
    if (named_line(r.old_text, &old_name, &old_rest) &&
        named_line(r.new_text, &new_name, &new_rest) && old_name != new_name &&
        old_rest == new_rest)
      out.insert(edit_key(r));
  }
  return out;
}

bool extracted_variable(const Ctx& c, const Replacement& r) {
  // The differing middle of the two lines, widened to whole identifiers.
  const std::string_view a = r.old_text, b = r.new_text;
  auto ident = [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_'; };
  size_t pre = 0;
  while (pre < a.size() && pre < b.size() && a[pre] == b[pre]) ++pre;
  while (pre > 0 && ident(a[pre - 1])) --pre;
  size_t suf = 0;
  while (suf < a.size() - pre && suf < b.size() - pre &&
         a[a.size() - 1 - suf] == b[b.size() - 1 - suf])
    ++suf;
  while (suf > 0 && ident(a[a.size() - suf])) --suf;
  const std::string_view was = trim(a.substr(pre, a.size() - pre - suf));
  const std::string_view name = trim(b.substr(pre, b.size() - pre - suf));
  static const RE2 kName(R"([A-Za-z_]\w*)");
  if (was.empty() || !RE2::FullMatch(name, kName)) return false;
  auto squeeze = [](std::string_view t) {
    std::string out;
    for (char ch : t)
      if (ch != ' ' && ch != '\t') out += ch;
    return out;
  };
  const RE2 assigns("^\\s*" + RE2::QuoteMeta(std::string(name)) + R"(\s*(?::[^=]*)?=([^=].*)$)");
  for (const FileChange& fc : c.change.files) {
    if (fc.path != r.path) continue;
    for (const Hunk& h : fc.hunks)
      for (const DiffLine& l : h.lines) {
        std::string value;
        if (l.origin == '+' && RE2::FullMatch(l.text, assigns, &value) &&
            squeeze(value) == squeeze(was))
          return true;
      }
  }
  return false;
}

std::string other_added_statement(const Ctx& c, const FocusRegion& r,
                                  const std::vector<const Signal*>& signals) {
  std::set<std::int32_t> paired, skip;  // paired; commented or described lines
  for (const Replacement& x : c.facts.replacements)
    if (x.path == r.path) paired.insert(x.new_line);
  skip = paired;
  for (const Signal* s : signals) skip.insert(s->at.line);
  for (const RationaleNote& n : c.facts.rationale)
    if (n.path == r.path)
      for (std::int32_t l = n.start_line; l <= n.end_line; ++l) skip.insert(l);
  auto squeeze = [](std::string_view t) {
    std::string out;
    for (char ch : t)
      if (ch != ' ' && ch != '\t') out += ch;
    return out;
  };
  std::string best;
  int best_weight = 0;
  for (const FileChange& fc : c.change.files) {
    if (fc.path != r.path) continue;
    // A line the change removes and writes again (a loop moved out of
    // another, a block re-indented) is not something the range adds.
    std::set<std::string> removed;
    for (const Hunk& h : fc.hunks)
      for (const DiffLine& l : h.lines)
        if (l.origin == '-') removed.insert(squeeze(l.text));
    for (const Hunk& h : fc.hunks) {
      for (size_t k = 0; k < h.lines.size(); ++k) {
        const DiffLine& l = h.lines[k];
        if (l.origin != '+' || l.new_no < r.start_line || l.new_no > r.end_line ||
            skip.count(l.new_no))
          continue;
        const std::string_view t = trim(l.text);
        if (t.empty() || t.starts_with("#") || t.starts_with("//") || t.starts_with("/*") ||
            t.starts_with("*") || t.starts_with("\"\"\"") || t.starts_with("'''"))
          continue;
        const int w = weight(t);
        if (w <= best_weight || removed.count(squeeze(t))) continue;
        // A statement written over several lines is quoted whole: its added
        // lines up to where its brackets close.
        std::string text;
        int depth = 0;
        size_t j = k;
        bool shown = false;  // a part of it is the quoted pair's line
        for (; j < h.lines.size() && h.lines[j].origin == '+'; ++j) {
          shown = shown || paired.count(h.lines[j].new_no);
          join_code(text, h.lines[j].text);
          depth += open_brackets(h.lines[j].text);
          if (depth <= 0) break;
        }
        if (depth > 0 || shown) continue;  // it goes on past the added lines, or is quoted
        // A new branch is shown with the first statement it runs ("if c: x = y").
        if (w == 3 && text.ends_with(":") && j + 1 < h.lines.size() &&
            h.lines[j + 1].origin == '+' && !paired.count(h.lines[j + 1].new_no) &&
            open_brackets(h.lines[j + 1].text) == 0 && !trim(h.lines[j + 1].text).empty() &&
            !trim(h.lines[j + 1].text).starts_with("#") &&
            h.lines[j + 1].text.find_first_not_of(" \t") > l.text.find_first_not_of(" \t"))
          join_code(text, h.lines[j + 1].text);
        best = std::move(text);
        best_weight = w;
      }
    }
  }
  return best;
}

}  // namespace mergelens::guide_detail
