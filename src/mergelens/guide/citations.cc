// The checker: walks every text of a guide sentence by sentence and decides
// for each code span, path, line range, figure, PR reference, commit and URL
// whether it is a claim the change supports, a suggestion allowed where it
// stands, or a failure (the rules are in citations.h).
#include "mergelens/guide/citations.h"

#include <algorithm>
#include <cctype>
#include <map>

#include <fmt/format.h>
#include <re2/re2.h>

#include "mergelens/guide/citation_names.h"
#include "mergelens/guide/citation_text.h"
#include "mergelens/guide/claims.h"
#include "mergelens/guide/prompt_leaks.h"
#include "mergelens/guide/prose.h"

namespace mergelens {

using citation_text::path_like;
using citation_text::scan_numbers;
using citation_text::span_text;
using citation_text::word_char;

namespace {

// How a text may propose: never (claims), in sentences that read as
// suggestions (design decisions), or always (questions, gaps, advice, the
// question of a focus point).
enum class Where { kClaim, kMaySuggest, kSuggest };

bool alnum(unsigned char c) {
  return std::isalnum(c) || c == '_';
}

// A value one would give a variable: `EAGER`, `auto`, `0`, `1.5`, `"fp8"`,
// a version pin `<0.23`.
bool value_shaped(std::string_view c) {
  static const RE2 kValue(
      R"(^(?:[A-Z][A-Z0-9]{0,15}|[a-z][a-z0-9]{0,11}|-?\d+(?:\.\d+)*|"[^"`]{0,24}"|'[^'`]{0,24}'|(?:[<>=!~]=?|\^)\s*\d[\w.*]*(?:\s*,\s*(?:[<>=!~]=?)\s*\d[\w.*]*)?)$)");
  return RE2::FullMatch(re2::StringPiece(c.data(), c.size()), kValue);
}

// A sentence saying something is not part of the change ("`environ.py` is
// not among the changed files", "该 PR 未改动 `x.py`").
bool says_not_in_change(std::string_view s) {
  static const RE2 kNot(
      R"((?i)\b(?:is|are|was|were|does|do|did|has|have)\s*(?:not|n't)\s+(?:among|in|part of|touched|changed|modified|included|edited|updated|listed|touch|change|modify|include|edit|update)\b|\b(?:untouched|unchanged|unmodified)\b|\bnot (?:among|in) the (?:changed|modified) files\b|\boutside (?:the|this) (?:change|pr|diff)\b|不在|未改动|未修改|未被修改|没有改动|没有修改|没改|未涉及|不涉及|未包含|不包含|并未(?:改动|修改|涉及))");
  return RE2::PartialMatch(re2::StringPiece(s.data(), s.size()), kNot);
}

bool version_pin(std::string_view c) {
  static const RE2 kPin(R"(^[\w.\-\[\]]*\s*(?:[<>=!~]=?|\^)\s*\d[\w.*]*(?:\s*,.*)?$)");
  return RE2::FullMatch(re2::StringPiece(c.data(), c.size()), kPin);
}

std::string dirname(std::string_view p) {
  while (p.ends_with('/')) p.remove_suffix(1);
  auto slash = p.rfind('/');
  return slash == std::string_view::npos ? std::string() : std::string(p.substr(0, slash));
}

class Checker {
 public:
  Checker(const CitationIndex& index, const Guide& g, CitationReport& out) : ix_(index), out_(out) {
    for (const auto& s : g.suggested_code) declared_.insert(span_text(s));
  }

  // Whether any code span of the guide names a variable of the change
  // (then bare values such as `EAGER` read as values of it).
  void note_variables(std::string_view t) {
    for (const auto& s : prose::code_spans(t)) {
      std::string c = span_text(std::string(s.code));
      auto cut = c.find_first_of("= ");
      std::string name = cut == std::string::npos ? c : c.substr(0, cut);
      if (ix_.is_variable(name)) names_variable_ = true;
    }
  }

  // The figures of a text that the change gives: a figure worked out from
  // them (a ratio, a percentage) may stand beside them (derived_figure).
  void note_figures(const std::string& field, std::string_view t) {
    const std::string list = field.substr(0, field.find('['));
    for (const auto& n : scan_numbers(prose::without_code(t))) {
      if (n.version || !ix_.has_number(n.text, true)) continue;
      try {
        const double v = std::stod(n.text);
        item_figures_[field].push_back(v);
        if (list != field) list_figures_[list].push_back(v);
      } catch (...) {
      }
    }
  }

  void text(const std::string& field, const std::string& part, std::string_view t, Where place) {
    for (const auto& r : prose::sentences(t)) sentence(field, part, t, r, place);
  }

  void path(const std::string& field, const std::string& p, bool in_change_only) {
    bool ok = in_change_only ? !ix_.resolve_path(p).empty() : ix_.path_exists(p);
    if (!ok) fail(field, "path", p, "no such file in the change", 0, 0);
  }

  void range(const std::string& field, const std::string& p, std::int32_t a, std::int32_t b) {
    std::string full = ix_.resolve_path(p);
    if (full.empty()) return;  // path() reports it
    if (!ix_.range_in_diff(full, a, b))
      fail(field, "range", fmt::format("{}:{}-{}", p, a, b), "lines outside the change's hunks", 0,
           0);
  }

  // A focus point's symbol names the change's code (citation_names.h).
  void symbol(const std::string& field, const std::string& s) {
    if (!citation_names::symbol_ok(ix_, s))
      fail(field, "symbol", "`" + s + "`", "not in the change", 0, 0);
  }

  void ref(const std::string& field, const std::string& r) {
    std::string_view v = r;
    bool ok = false;
    const auto hash = v.find('#'), at = v.find('@');
    if (hash == 0) {
      std::string digits(v.substr(1));
      ok = !digits.empty() && digits.size() < 12 &&
           std::all_of(digits.begin(), digits.end(),
                       [](unsigned char c) { return std::isdigit(c); }) &&
           ix_.has_pr(std::stoll(digits));
    } else if (hash != std::string_view::npos || at != std::string_view::npos) {
      // owner/repo#N, owner/repo@sha: written in the change or linked by it.
      ok = ix_.has_code_span(r) || ix_.has_repo_ref(r);
    } else {
      bool hex = v.size() >= 7 &&
                 std::all_of(v.begin(), v.end(), [](unsigned char c) { return std::isxdigit(c); });
      ok = (hex && ix_.has_sha(v)) || ix_.has_url(v);
    }
    if (!ok) fail(field, "ref", r, "reference not in the change", 0, 0);
  }

 private:
  void fail(const std::string& field, const std::string& part, std::string citation,
            std::string reason, size_t begin, size_t end) {
    out_.failures.push_back({field, part, std::move(citation), std::move(reason), begin, end});
  }

  void suggest(std::string_view code) {
    std::string c(code);
    if (std::find(out_.suggested.begin(), out_.suggested.end(), c) == out_.suggested.end())
      out_.suggested.push_back(std::move(c));
  }

  void sentence(const std::string& field, const std::string& part, std::string_view t,
                prose::Range r, Where place) {
    std::string_view s = t.substr(r.begin, r.end - r.begin);
    const bool may =
        place == Where::kSuggest || (place == Where::kMaySuggest && prose::is_suggestion(s));
    auto bad = [&](std::string citation, std::string reason) {
      fail(field, part, std::move(citation), std::move(reason), r.begin, r.end);
    };
    // A value the change writes (`AUTO`) makes its siblings values too
    // ("`EAGER` and `LAZY`, not `AUTO`").
    sibling_value_ = false;
    for (const auto& sp : prose::code_spans(s)) {
      std::string c = span_text(std::string(sp.code));
      if (value_shaped(c) && ix_.has_code_span(c)) sibling_value_ = true;
    }
    for (const auto& sp : prose::code_spans(s)) {
      std::string reason;
      if (!span_ok(sp.code, s, sp.begin, may, &reason)) bad(fmt::format("`{}`", sp.code), reason);
    }
    std::string rest = prose::without_code(s);
    negative_ = says_not_in_change(s);
    urls(rest, bad);
    refs(rest, bad);
    paths(rest, may, bad);
    numbers(rest, field, may, bad);
  }

  bool span_ok(std::string_view raw, std::string_view s, size_t at, bool may, std::string* why) {
    const std::string c = span_text(std::string(raw));
    // Suggestions are recorded as written between the backticks, which is
    // how publishers find them again.
    auto suggest = [&](const std::string&) { this->suggest(raw); };
    if (c.empty() || ix_.has_code_span(c)) return true;
    // A name pattern (`EGRESS_TAG_*`, `<image_N>`) stands for the names it
    // matches: true when it matches one, a failure when it matches none.
    if (CitationIndex::is_pattern(c)) {
      if (ix_.matches_pattern(c)) return true;
      *why = fmt::format("`{}` matches nothing in the change", c);
      return false;
    }
    // An instance of a name the code formats (`image_0`, `<image_0>` from
    // `f"image_{i}"` or `<image_\d+>`) and a slash shorthand of names the
    // change has (`OPT_MHC_POST/PRE` for `OPT_MHC_POST` and `OPT_MHC_PRE`).
    if (citation_names::formatted_name(ix_, c) || citation_names::shorthand_ok(ix_, c)) return true;
    std::string p;
    int first = 0, last = 0;
    bool ext = false;
    // A path when it has a file extension or starts in a folder the change
    // or the repository has; "EAGLE/EAGLE3/NEXTN" is a list of names.
    if (path_like(c, &p, &first, &last, &ext) && (ext || starts_in_folder(p))) {
      if (ix_.path_exists(p) || (first == 0 && ix_.names_file(p))) {
        std::string full = ix_.resolve_path(p);
        if (first > 0 && !full.empty() && !ix_.range_in_diff(full, first, last)) {
          *why = "lines outside the change's hunks";
          return false;
        }
        return true;
      }
      if (may && prose::introduces_code(s, at) && ix_.folder_exists(dirname(p))) {
        suggest(c);  // "add `test/srt/test_new_case.py`"
        return true;
      }
      // "`environ.py` is not among the changed files": true of a file the
      // change names (an import of it) or the repository has. A file nothing
      // names is a ghost even in a negative sentence (it implies the file
      // exists), and the sentence's other claims are checked as usual.
      if (first == 0 && says_not_in_change(s) && ix_.path_mentioned(p)) return true;
      *why = "no such file in the change";
      return false;
    }
    // Made of the change's identifiers and literals, or of names of the
    // language and protocols it speaks.
    auto [unknown, proposed] = citation_names::span_names(ix_, c);
    bool odd_number = false;
    for (const auto& n : scan_numbers(c))
      if (!ix_.has_literal(n.text) && !ix_.has_number(n.text, true)) {
        bool small = !n.strict && n.text.size() <= 2;
        odd_number = odd_number || !small;
        proposed = true;
      }
    if (unknown.empty() && (!odd_number || may)) {
      if (may && proposed) suggest(c);
      return true;
    }
    if (!may) {
      *why = unknown.empty() ? "a figure the change does not give"
                             : fmt::format("`{}` is not in the change", unknown.front());
      return false;
    }
    // Where the guide proposes: declared suggestions, settings and values of
    // the change's variables, version pins, code a sentence introduces.
    if (declared_.count(c) || declared_.count(std::string(raw)) || version_pin(c)) {
      suggest(c);
      return true;
    }
    if (citation_names::sets_known_name(ix_, c)) {
      suggest(c);
      return true;
    }
    if (value_shaped(c) && (names_variable_ || sibling_value_)) {
      suggest(c);
      return true;
    }
    const bool test_name = c.starts_with("test_") || c.starts_with("Test") ||
                           CitationIndex::is_star_parameter(c);  // "if it declares `**kw`"
    if (test_name || prose::introduces_code(s, at)) {
      suggest(c);
      return true;
    }
    *why = fmt::format("`{}` is not in the change", unknown.empty() ? c : unknown.front());
    return false;
  }

  template <class Bad>
  void urls(std::string& t, Bad& bad) {
    size_t pos = 0;
    while ((pos = t.find("://", pos)) != std::string::npos) {
      size_t start = pos;
      while (start > 0 && std::isalpha(static_cast<unsigned char>(t[start - 1]))) --start;
      size_t end = pos + 3;
      while (end < t.size() && !std::isspace(static_cast<unsigned char>(t[end])) && t[end] != ')' &&
             t[end] != '>' && static_cast<unsigned char>(t[end]) < 0x80)
        ++end;
      std::string_view url = std::string_view(t).substr(start, end - start);
      while (!url.empty() && (url.back() == '.' || url.back() == ',' || url.back() == ';'))
        url.remove_suffix(1);
      if (!ix_.has_url(url)) bad(std::string(url), "URL not in the change");
      std::fill(t.begin() + static_cast<long>(start), t.begin() + static_cast<long>(end), ' ');
      pos = end;
    }
  }

  template <class Bad>
  void refs(std::string& t, Bad& bad) {
    for (size_t i = 0; i < t.size(); ++i) {
      if (t[i] == '#' && (i == 0 || !alnum(t[i - 1]))) {
        size_t j = i + 1;
        while (j < t.size() && std::isdigit(static_cast<unsigned char>(t[j]))) ++j;
        if (j > i + 1 && j - i < 13 &&
            !ix_.has_pr(std::stoll(std::string(t.substr(i + 1, j - i - 1)))))
          bad(std::string(t.substr(i, j - i)), "PR or issue not named in the change");
        if (j > i + 1)
          std::fill(t.begin() + static_cast<long>(i), t.begin() + static_cast<long>(j), ' ');
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
      std::string_view w = std::string_view(t).substr(i, j - i);
      bool hex = w.size() >= 7 && w.size() <= 40 &&
                 std::all_of(w.begin(), w.end(), [](unsigned char c) { return std::isxdigit(c); });
      bool letter =
          std::any_of(w.begin(), w.end(), [](unsigned char c) { return std::isalpha(c); });
      bool digit = std::any_of(w.begin(), w.end(), [](unsigned char c) { return std::isdigit(c); });
      if (hex && letter && digit && !ix_.has_sha(w))
        bad(std::string(w), "commit not in the change");
      i = j;
    }
  }

  // File paths written without backticks ("python/sglang/srt/foo.py").
  template <class Bad>
  void paths(std::string& t, bool may, Bad& bad) {
    size_t i = 0;
    while (i < t.size()) {
      auto ok_char = [&](char ch) {
        return word_char(static_cast<unsigned char>(ch)) || ch == '/' || ch == '.' || ch == '-';
      };
      if (!ok_char(t[i]) || static_cast<unsigned char>(t[i]) >= 0x80) {
        ++i;
        continue;
      }
      size_t j = i;
      while (j < t.size() && ok_char(t[j])) ++j;
      std::string_view w = std::string_view(t).substr(i, j - i);
      while (!w.empty() && (w.back() == '.' || w.back() == '-')) w.remove_suffix(1);
      std::string p;
      int a = 0, b = 0;
      bool ext = false;
      if (w.find('/') != std::string_view::npos && path_like(w, &p, &a, &b, &ext) &&
          (ext || starts_in_folder(p)) && !ix_.has_code_span(p) && !ix_.path_exists(p) &&
          !(a == 0 && ix_.names_file(p)) && !(may && ix_.folder_exists(dirname(p))) &&
          !(a == 0 && negative_ && ix_.path_mentioned(p)))
        bad(std::string(w), "no such file in the change");
      if (w.find('/') != std::string_view::npos)
        std::fill(t.begin() + static_cast<long>(i), t.begin() + static_cast<long>(j), ' ');
      i = j;
    }
  }

  template <class Bad>
  void numbers(std::string& t, const std::string& field, bool may, Bad& bad) {
    // Ranges "120-135", "120–135": lines when they overlap a hunk, counts
    // when both ends are figures of the change.
    re2::StringPiece in(t);
    std::string a, b;
    const char* base = t.data();
    std::vector<std::pair<size_t, size_t>> blank;
    re2::StringPiece whole;
    static const RE2 kRangeWhole(R"(((\d{1,7})\s*(?:-|–|~|～|到|至)\s*(\d{1,7})))");
    while (RE2::FindAndConsume(&in, kRangeWhole, &whole, &a, &b)) {
      size_t begin = static_cast<size_t>(whole.data() - base), end = begin + whole.size();
      bool inside_word = (begin > 0 && (alnum(t[begin - 1]) || t[begin - 1] == '.')) ||
                         (end < t.size() && (alnum(t[end]) || t[end] == '.' || t[end] == '%'));
      long x = std::stol(a), y = std::stol(b);
      if (inside_word || x >= y) continue;
      bool ok = ix_.range_in_any_file(static_cast<std::int32_t>(x), static_cast<std::int32_t>(y)) ||
                (ix_.has_number(a, false) && ix_.has_number(b, false)) || may;
      if (!ok) bad(fmt::format("{}-{}", a, b), "lines outside the change's hunks");
      blank.emplace_back(begin, end);
    }
    for (auto [x, y] : blank)
      std::fill(t.begin() + static_cast<long>(x), t.begin() + static_cast<long>(y), ' ');
    for (const auto& n : scan_numbers(t)) {
      bool ok;
      if (n.version)
        ok = ix_.has_code_span(n.text) || may;
      else if (n.strict)
        ok = ix_.has_number(n.text, true) || derived(n, field);
      else
        ok = ix_.has_number(n.text, false) || (may && !line_cued(t, n.pos)) ||
             (!line_cued(t, n.pos) && approximate(t, n.pos, n.end) && ix_.near_count(n.text));
      if (!ok)
        bad(n.written, n.strict ? "a figure the change does not give" : "number not in the change");
    }
  }

  // A figure worked out from the figures its item cites, or, when the item
  // cites fewer than two, from those of its list ("0.4%" under the list item
  // that gives 347.72 and 349.23).
  bool derived(const citation_text::NumberToken& n, const std::string& field) const {
    auto item = item_figures_.find(field);
    if (item != item_figures_.end() && item->second.size() >= 2)
      return citation_text::derived_figure(n, item->second);
    auto list = list_figures_.find(field.substr(0, field.find('[')));
    return list != list_figures_.end() && citation_text::derived_figure(n, list->second);
  }

  // "about 40", "~40", "约 40", "40 左右", "40 多": an approximate count.
  static bool approximate(std::string_view t, size_t pos, size_t end) {
    std::string_view before = t.substr(0, pos);
    while (!before.empty() && before.back() == ' ') before.remove_suffix(1);
    for (std::string_view cue :
         {"about", "About", "around", "Around", "roughly", "Roughly", "approximately",
          "Approximately", "nearly", "almost", "some", "~", "\u2248", "\u7ea6", "\u5927\u7ea6",
          "\u8fd1", "\u5c06\u8fd1", "\u63a5\u8fd1", "\u5dee\u4e0d\u591a"})
      if (before.ends_with(cue)) return true;
    std::string_view after = t.substr(std::min(end, t.size()));
    while (!after.empty() && after.front() == ' ') after.remove_prefix(1);
    for (std::string_view cue : {"\u5de6\u53f3", "\u591a", "\u4f59", "\u4e0a\u4e0b"})
      if (after.starts_with(cue)) return true;
    return false;
  }

  // "line 120", "lines 120", "L120", "第 120 行": a line, not a count.
  static bool line_cued(std::string_view t, size_t pos) {
    std::string_view before = t.substr(0, pos);
    while (!before.empty() && before.back() == ' ') before.remove_suffix(1);
    for (std::string_view cue : {"line", "lines", "Line", "Lines", "L", "\u7b2c", "\u884c"})
      if (before.ends_with(cue)) return true;
    return false;
  }

  bool starts_in_folder(std::string_view p) const {
    auto slash = p.find('/');
    return slash != std::string_view::npos && slash > 0 && ix_.folder_exists(p.substr(0, slash));
  }

  const CitationIndex& ix_;
  CitationReport& out_;
  std::set<std::string> declared_;
  bool names_variable_ = false;
  bool sibling_value_ = false;
  bool negative_ = false;  // the sentence says something is not in the change
  std::map<std::string, std::vector<double>> item_figures_;  // field → figures the change gives
  std::map<std::string, std::vector<double>> list_figures_;  // list name → the same
};

// Visits every text of a guide with its field, part and place.
template <class Fn>
void for_each_text(const Guide& g, Fn fn) {
  fn("headline", "", g.headline, Where::kClaim);
  fn("digest", "", g.digest, Where::kClaim);
  fn("summary", "", g.summary, Where::kClaim);
  fn("verdict_text", "", g.verdict_text, Where::kClaim);
  fn("why", "", g.why, Where::kClaim);
  fn("audience", "", g.audience, Where::kClaim);
  fn("importance.reason", "", g.importance.reason, Where::kClaim);
  fn("insight.reason", "", g.insight.reason, Where::kClaim);
  fn("analysis.argument", "", g.analysis.argument, Where::kClaim);
  for (size_t i = 0; i < g.focus.size(); ++i) {
    fn(fmt::format("focus[{}]", i), "question", g.focus[i].question, Where::kSuggest);
    fn(fmt::format("focus[{}]", i), "why", g.focus[i].why, Where::kMaySuggest);
  }
  for (size_t i = 0; i < g.skim.size(); ++i)
    fn(fmt::format("skim[{}]", i), "reason", g.skim[i].reason, Where::kClaim);
  auto list = [&](const char* name, const std::vector<std::string>& items, Where place) {
    for (size_t i = 0; i < items.size(); ++i)
      fn(fmt::format("{}[{}]", name, i), "", items[i], place);
  };
  list("design_decisions", g.design_decisions, Where::kMaySuggest);
  list("questions", g.questions, Where::kSuggest);
  list("number_cautions", g.number_cautions, Where::kClaim);
  list("body_vs_code", g.body_vs_code, Where::kClaim);
  list("gaps", g.gaps, Where::kSuggest);
  for (size_t i = 0; i < g.advice.size(); ++i)
    fn(fmt::format("advice[{}]", i), "text", g.advice[i].text, Where::kSuggest);
  for (size_t i = 0; i < g.references.size(); ++i)
    fn(fmt::format("references[{}]", i), "note", g.references[i].note, Where::kClaim);
}

}  // namespace

bool has_cjk(std::string_view text) {
  return prose::has_cjk(text);
}

CitationReport check_guide(const Guide& g, const CitationIndex& index, bool published) {
  CitationReport out;
  Checker c(index, g, out);
  for_each_text(g, [&](const std::string&, const std::string&, std::string_view t, Where) {
    c.note_variables(t);
  });
  for_each_text(g, [&](const std::string& field, const std::string&, std::string_view t, Where) {
    c.note_figures(field, t);
  });
  for_each_text(g, [&](const std::string& field, const std::string& part, std::string_view t,
                       Where place) { c.text(field, part, t, place); });
  for (size_t i = 0; i < g.focus.size(); ++i) {
    const auto& f = g.focus[i];
    std::string field = fmt::format("focus[{}]", i);
    c.path(field, f.path, /*in_change_only=*/f.start_line > 0 || f.end_line > 0);
    c.range(field, f.path, f.start_line, f.end_line);
    if (!f.symbol.empty()) c.symbol(field, f.symbol);
  }
  for (size_t i = 0; i < g.skim.size(); ++i)
    c.path(fmt::format("skim[{}]", i), g.skim[i].path, /*in_change_only=*/true);
  for (size_t i = 0; i < g.references.size(); ++i)
    c.ref(fmt::format("references[{}]", i), g.references[i].ref);
  // Claims about the change checked against the code before and after it,
  // and words that only a writer's prompt has.
  check_claims(g, index, out.failures);
  check_order_claims(g, index, out.failures);
  check_gap_claims(g, index, out.failures);
  if (published) find_prompt_leaks(g, out.failures);
  return out;
}

std::vector<CitationFailure> check_citations(const Guide& guide, const CitationIndex& index) {
  return check_guide(guide, index).failures;
}

}  // namespace mergelens
