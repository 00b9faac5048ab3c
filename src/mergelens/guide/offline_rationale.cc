// Offline guide: what the code says about itself. Quotes of the comments and
// docstrings a change adds (Facts::rationale), removed lines shown with the
// line that replaced them (Facts::replacements), the contract a test is named
// for, the questions a region's own facts support and the digest paragraph. Every sentence here is
// built from one of those facts; where none applies the functions return nothing.
#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>
#include <re2/re2.h>

#include "mergelens/analysis/text/text_facts.h"
#include "mergelens/guide/offline_parts.h"
#include "mergelens/guide/prose.h"

namespace mergelens::guide_detail {
namespace {

// The last component of a dotted or scoped name: "A.b.c" → "c", "ns::f" → "f".
std::string_view short_name(std::string_view name) {
  for (std::string_view sep : {".", "::"}) {
    auto p = name.rfind(sep);
    if (p != std::string_view::npos) name.remove_prefix(p + sep.size());
  }
  return name;
}

// Identifiers written as calls ("f(" or "a.f(") in `text`: the names f.
std::set<std::string> calls_in(std::string_view text) {
  static const RE2 kCall(R"(([A-Za-z_][A-Za-z0-9_]*)\s*\()");
  std::set<std::string> out;
  re2::StringPiece in(text.data(), text.size());
  std::string name;
  while (RE2::FindAndConsume(&in, kCall, &name)) out.insert(name);
  return out;
}

// "name = value" / "name: T = value" / "name=value," : the name and the value.
bool assignment(std::string_view text, std::string* name, std::string* value) {
  static const RE2 kAssign(
      R"(^\s*([A-Za-z_][A-Za-z0-9_.]*)\s*(?::\s*[^=]+?)?\s*=\s*([^=].*?)\s*[,;)]?\s*$)");
  return RE2::FullMatch(text, kAssign, name, value);
}

// Calls a replacement may introduce that say nothing about the change.
bool generic_call(std::string_view name) {
  static const std::set<std::string_view> kGeneric = {
      "len",       "int",    "str",    "float",       "bool",       "list",    "dict",
      "set",       "tuple",  "range",  "print",       "isinstance", "getattr", "hasattr",
      "setattr",   "min",    "max",    "sum",         "any",        "all",     "sorted",
      "enumerate", "zip",    "map",    "filter",      "abs",        "round",   "type",
      "super",     "iter",   "next",   "format",      "repr",       "id",      "open",
      "get",       "append", "extend", "items",       "keys",       "values",  "to",
      "cuda",      "cpu",    "item",   "size",        "view",       "reshape", "contiguous",
      "clone",     "detach", "sizeof", "static_cast", "std",        "if",      "for",
      "while",     "return", "assert", "not",         "and",        "or",      "in"};
  return name.size() < 3 || kGeneric.count(name) > 0;
}

// Whether `r`'s added line is where the change defines `name` (a rename or
// a new signature, not a call).
bool defines_at(const Facts& f, const Replacement& r, std::string_view name) {
  return std::any_of(f.definitions.begin(), f.definitions.end(), [&](const Definition& d) {
    return d.at.path == r.path && d.at.line == r.new_line && short_name(d.name) == name;
  });
}

// Whether the change defines `name` (added, modified or with a new signature).
bool defined_in_change(const Facts& f, std::string_view name) {
  return std::any_of(f.definitions.begin(), f.definitions.end(), [&](const Definition& d) {
    return d.change != "removed" && short_name(d.name) == name;
  });
}

// The call `new_text` introduces in place of `old_text`: one the change
// defines, or one that takes the place of another call. Empty when none.
std::string introduced_call(const Facts& f, std::string_view old_text, std::string_view new_text) {
  const auto before = calls_in(old_text);
  const auto after = calls_in(new_text);
  for (const auto& name : after)
    if (!before.count(name) && !generic_call(name) && defined_in_change(f, name)) return name;
  bool swapped = false;  // the old line called something the new one no longer does
  for (const auto& name : before)
    if (!after.count(name) && !generic_call(name)) swapped = true;
  if (swapped)
    for (const auto& name : after)
      if (!before.count(name) && !generic_call(name)) return name;
  return {};
}

// Whether a name says version ("__version__", "VERSION").
bool names_version(std::string_view name) {
  std::string l(name);
  for (char& ch : l) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return l.find("version") != std::string::npos;
}

std::string squeeze(std::string_view s) {
  std::string out;
  for (char ch : s)
    if (ch != ' ' && ch != '\t') out += ch;
  return out;
}

// The name a definition line defines ("def f(", "class A", "fn f", "func f"), or empty.
std::string defined_name(std::string_view line) {
  static const RE2 kDef(
      R"(^\s*(?:async\s+)?(?:def|class|fn|func|struct|pub\s+fn)\s+([A-Za-z_][A-Za-z0-9_]*))");
  std::string name;
  return RE2::PartialMatch(line, kDef, &name) ? name : std::string();
}

// A literal a default or a setting takes: a number, a string, a boolean or none.
bool literal(std::string_view v) {
  static const RE2 kLiteral(
      R"re(-?[0-9][0-9_.]*(e-?[0-9]+)?[a-zA-Z]{0,3}|"[^"]*"|'[^']*'|True|False|None|true|false|nullptr|null)re");
  return RE2::FullMatch(v, kLiteral);
}

bool is_condition(std::string_view text) {
  static const RE2 kCond(R"(^\s*(?:\}\s*)?(?:if|elif|else if|while)\b.*)");
  return RE2::FullMatch(text, kCond);
}

// The condition of an if/elif/while line, without the keyword, the colon or
// brace, and the parentheses a C-family condition sits in.
std::string condition_of(std::string_view text) {
  static const RE2 kCond(R"(^\s*(?:\}\s*)?(?:if|elif|else if|while)\s*(.*?)\s*[:{]?\s*$)");
  std::string c;
  if (!RE2::FullMatch(text, kCond, &c)) return std::string(text);
  if (c.size() > 2 && c.front() == '(' && c.back() == ')') {
    int depth = 0;
    bool outer = true;  // the first parenthesis closes at the end
    for (size_t i = 0; i < c.size(); ++i) {
      depth += c[i] == '(' ? 1 : c[i] == ')' ? -1 : 0;
      if (depth == 0 && i + 1 < c.size()) outer = false;
    }
    if (outer) c = c.substr(1, c.size() - 2);
  }
  return c;
}

}  // namespace

bool citable(const Ctx& c, const std::string& text) {
  Guide probe;
  probe.lang = c.p.lang;
  probe.why = text;
  return check_citations(probe, c.index).empty();
}

bool citable_ref(const Ctx& c, const std::string& ref) {
  Guide probe;
  probe.lang = c.p.lang;
  probe.references.push_back({ref, "", ""});
  return check_citations(probe, c.index).empty();
}

std::string quote(const Ctx& c, std::string_view text, size_t max) {
  std::string s(text);
  std::replace(s.begin(), s.end(), '\n', ' ');
  // An odd backtick would open a code span that never closes.
  if (std::count(s.begin(), s.end(), '`') % 2) std::replace(s.begin(), s.end(), '`', '\'');
  if (s.size() > max) {
    size_t cut = s.rfind(' ', max);
    if (cut == std::string::npos || cut < max / 2) cut = max;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
    s = s.substr(0, cut);
    if (std::count(s.begin(), s.end(), '`') % 2) s += '`';
    s += "…";
  }
  (void)c;  // curly quotes in both languages: a straight one would end a quoted URL
  return "“" + s + "”";
}

const RationaleNote* note_in_focus(const Ctx& c, int focus) {
  for (const auto& n : c.facts.rationale)
    if (n.focus == focus && citable(c, note_clause(c, n))) return &n;
  return nullptr;
}

std::string note_clause(const Ctx& c, const RationaleNote& n) {
  return fmt_rt(n.kind == "docstring" ? c.p.note_docstring : c.p.note_comment,
                lines_label(c, n.start_line, n.end_line), quote(c, n.text, 240));
}

// `text` quoted within `max`; when that cut would fall before the line's
// first difference from the other side (`differs_at`), the pair would show
// two equal quotes and hide the edit, so a line of up to 160 characters is
// quoted whole.
static std::string pair_side(std::string_view text, size_t max, size_t differs_at) {
  std::string s = code(text, max);
  const size_t shown = s.ends_with("…") ? s.size() - std::string_view("`…").size() - 1 : 0;
  if (shown && shown <= differs_at && text.size() <= 160) s = code(text, text.size());
  return s;
}

std::string pair_label(const Replacement& r) {
  const std::string& a = r.old_text;
  const std::string& b = r.new_text;
  size_t same = 0;
  while (same < a.size() && same < b.size() && a[same] == b[same]) ++same;
  if (a.size() <= 70 && b.size() <= 70) return fmt::format("{} → {}", code(a, 70), code(b, 70));
  // Long lines: show where they differ, from a token boundary on, with "…"
  // outside the code so each span is still written in the change. Both
  // sides keep something to show: a line that is a prefix of the other
  // ("def f(" → "def f(a, b):") is shown from its start.
  size_t start = 0;
  while (start < a.size() && start < b.size() && a[start] == b[start]) ++start;
  while (start > 0 &&
         (std::isalnum(static_cast<unsigned char>(a[start - 1])) || a[start - 1] == '_'))
    --start;
  if (start < 20 || start + 3 > a.size() || start + 3 > b.size()) start = 0;
  auto side = [&](const std::string& t) {
    const size_t from = std::min(start, t.size());
    return (start ? "…" : "") + pair_side(std::string_view(t).substr(from), 60, same - from);
  };
  return fmt::format("{} → {}", side(a), side(b));
}

std::vector<ReplacementGroup> replacement_groups(const Ctx& c) {
  std::map<std::string, ReplacementGroup> by_call;
  for (const auto& r : c.facts.replacements) {
    if (is_test_file(c.facts, r.path)) continue;
    const std::string f = introduced_call(c.facts, r.old_text, r.new_text);
    if (f.empty() || !defined_in_change(c.facts, f) || defines_at(c.facts, r, f)) continue;
    auto& g = by_call[f];
    g.call = f;
    g.items.push_back(&r);
  }
  std::vector<ReplacementGroup> out;
  for (auto& [call, g] : by_call) out.push_back(std::move(g));
  std::stable_sort(out.begin(), out.end(),
                   [](const ReplacementGroup& a, const ReplacementGroup& b) {
                     return a.items.size() > b.items.size();
                   });
  return out;
}

const Replacement* typical_replacement(const ReplacementGroup& g) {
  for (const auto* r : g.items)
    if (r->old_text.find(" = ") != std::string::npos) return r;
  return g.items.front();
}

std::string replacement_question(const Ctx& c, const Replacement& r) {
  std::string old_name, old_value, new_name, new_value;
  if (assignment(r.old_text, &old_name, &old_value) &&
      assignment(r.new_text, &new_name, &new_value) && old_name == new_name &&
      old_value != new_value && literal(old_value) && literal(new_value)) {
    // A version string moving is a release, not a value to question.
    if (names_version(old_name)) return {};
    return fmt_rt(c.p.q_value_moved, code_name(old_name), code(old_value, 50), code(new_value, 50));
  }
  if (is_condition(r.old_text) && is_condition(r.new_text)) {
    // "if x:" → "elif x:" keeps the condition: only the chain changed.
    const std::string a = condition_of(r.old_text), b = condition_of(r.new_text);
    if (squeeze(a) == squeeze(b)) return {};
    return fmt_rt(c.p.q_condition_changed, code(a, 70), code(b, 70));
  }
  if (std::string f = introduced_call(c.facts, r.old_text, r.new_text); !f.empty()) {
    if (!defines_at(c.facts, r, f)) return fmt_rt(c.p.q_call_replaced, pair_label(r), code_name(f));
    // A rename only when the old name is gone: defined nowhere in the new code.
    const std::string was = defined_name(r.old_text);
    if (was.empty() || was == f || defined_in_change(c.facts, was)) return {};
    return fmt_rt(c.p.q_renamed, pair_label(r));
  }
  return {};
}

std::string fallback_question(const Ctx& c, const Signal& s) {
  // "except X: ACTION" as the detector writes a handled exception.
  const auto colon = s.detail.find(": ");
  if (colon == std::string::npos || colon == 0 || colon + 2 >= s.detail.size()) return {};
  return fmt_rt(c.p.q_fallback_to, code(s.detail.substr(0, colon), 60),
                code(s.detail.substr(colon + 2), 60));
}

std::string test_contract(std::string_view name) {
  std::string_view n = short_name(name);
  std::string words;
  if (n.starts_with("test_"))
    n.remove_prefix(5);
  else if ((n.starts_with("Test") || n.starts_with("test")) && n.size() > 4 && std::isupper(n[4]))
    n.remove_prefix(4);
  else
    return {};
  // Names with digits or runs of capitals ("Qwen3_30B_A3B", "LoRA") do not
  // split into words a reader can read as a sentence.
  for (size_t i = 1; i < n.size(); ++i)
    if (std::isdigit(static_cast<unsigned char>(n[i])) ||
        (std::isupper(static_cast<unsigned char>(n[i])) &&
         std::isupper(static_cast<unsigned char>(n[i - 1]))))
      return {};
  for (size_t i = 0; i < n.size(); ++i) {
    const char ch = n[i];
    if (ch == '_') {
      if (!words.empty() && words.back() != ' ') words += ' ';
    } else if (ch >= 'A' && ch <= 'Z') {
      if (!words.empty() && words.back() != ' ') words += ' ';
      words += static_cast<char>(ch - 'A' + 'a');
    } else {
      words += ch;
    }
  }
  while (!words.empty() && words.back() == ' ') words.pop_back();
  return std::count(words.begin(), words.end(), ' ') >= 1 ? words : std::string();
}

const Definition* contract_test(const Ctx& c, const std::string& path) {
  for (const auto& d : c.facts.definitions)
    if (d.change == "added" && d.at.path == path && (d.kind == "function" || d.kind == "method") &&
        !test_contract(d.name).empty())
      return &d;
  return nullptr;
}

std::string contract_sentence(const Ctx& c, const Definition& test) {
  return fmt_rt(c.p.test_contract, code(short_name(test.name), 80),
                quote(c, test_contract(test.name), 120));
}

namespace {

// Whether a docstring documents an interface: its parameters, returns or
// raises, in the reST, Google or numpydoc style (or Javadoc/Doxygen tags).
bool interface_doc(const RationaleNote& n) {
  if (n.kind != "docstring") return false;
  static constexpr std::string_view kMarks[] = {
      ":param",   ":return", ":raises", ":type ",     ":rtype", "Args:",   "Arguments:",
      "Returns:", "Raises:", "Yields:", "Parameters", "@param", "@return", "\\param"};
  for (auto m : kMarks)
    if (n.text.find(m) != std::string::npos) return true;
  return false;
}

}  // namespace

const RationaleNote* lesson_note(const Ctx& c) {
  const RationaleNote* best = nullptr;
  auto key = [&](const RationaleNote& n) {
    return std::make_tuple(n.kind == "comment", std::count(n.text.begin(), n.text.end(), ' '),
                           -n.focus);
  };
  for (const auto& n : c.facts.rationale)
    if (n.focus >= 0 && std::count(n.text.begin(), n.text.end(), ' ') >= 4 && !interface_doc(n) &&
        (!best || key(n) > key(*best)) && citable(c, note_clause(c, n)))
      best = &n;
  return best;
}

std::string digest(const Ctx& c, const Guide& g) {
  const std::string end(c.p.sentence_end);
  auto sentence = [&](std::string s) {
    s = prose::tidy(s);
    if (s.empty()) return s;
    if (!s.ends_with(end) && !s.ends_with(".") && !s.ends_with("?") && !s.ends_with("？")) s += end;
    return s;
  };
  std::vector<std::string> out;
  out.push_back(sentence(g.verdict_text));
  if (!g.why.empty()) {
    out.push_back(sentence(g.why));
  } else if (g.verdict == "skip" || g.verdict == "skim") {
    out.push_back(sentence(g.summary));
  }
  // Name the places to read when the verdict did not.
  std::vector<std::string> places;
  for (const auto& f : g.focus) {
    if (places.size() == 2) break;
    if (f.symbol.empty() || g.verdict_text.find(code(f.symbol)) != std::string::npos ||
        is_test_or_bench(c.facts, f.path))
      continue;
    places.push_back(fmt_rt(c.p.digest_place, code(short_name(f.symbol), 60), file(f.path),
                            lines_label(c, f.start_line, f.end_line)));
  }
  if (!places.empty() && (g.verdict == "close_read" || g.verdict == "selective_read"))
    out.push_back(sentence(fmt_rt(c.p.digest_places, phrases::join_list(places, c.p))));
  // A read with no lesson whose places are all tests or benchmarks: what it changes.
  if (out.size() < 2) out.push_back(sentence(g.summary));
  if (out.size() > 3) out.resize(3);
  return fmt::format("{}", fmt::join(out, c.zh() ? "" : " "));
}

}  // namespace mergelens::guide_detail
