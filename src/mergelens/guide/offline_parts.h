// The elements of an offline guide, one function each (private to guide/).
#pragma once

#include <initializer_list>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "mergelens/analysis/facts.h"
#include "mergelens/guide/citations.h"
#include "mergelens/guide/guide.h"
#include "mergelens/guide/phrases.h"
#include "mergelens/model/change.h"

namespace mergelens::guide_detail {

struct Ctx {
  const Change& change;
  const Facts& facts;
  const phrases::Phrases& p;
  // What the change lets a guide cite: text the code wrote (a comment's URL,
  // a count the checker cannot derive) is used only when it checks out.
  const CitationIndex& index;
  bool zh() const { return p.lang == "zh"; }
  const char* tr(const char* zh_text, const char* en_text) const {
    return zh() ? zh_text : en_text;
  }
};

// A phrase filled with its arguments; empty when it does not take them (a
// phrase is data: a wrong one must not throw out of the writer, nor leave
// its placeholders in a guide). Callers drop empty sentences.
std::string fmt_rt(std::string_view f, auto&&... args) {
  try {
    return fmt::format(fmt::runtime(f), std::forward<decltype(args)>(args)...);
  } catch (const fmt::format_error&) {
    return {};
  }
}

// Whether the analysis gave `path` the test role (or the test or benchmark role).
bool is_test_file(const Facts& f, const std::string& path);
bool is_test_or_bench(const Facts& f, const std::string& path);

// `text` (code as written: a condition, a statement) in backticks, with
// inner backticks replaced; longer than `max` bytes it is cut at a token
// boundary outside string literals where every bracket opened before it is
// closed (the first such boundary past `max` when none keeps a third of it,
// the whole text when there is none), and "…" follows the closing backtick,
// so the span is still code the change contains, never half a string.
std::string code(std::string_view text, size_t max = 60);
// A name in backticks, never cut: a qualified name longer than `max` loses
// its leading qualifiers ("A.b.c" → "b.c" → "c"), whole parts at a time.
std::string code_name(std::string_view name, size_t max = 60);

// --- checked facts (offline_facts.cc) ---

// Whether `path` is code a user runs: a core, kernel or model file outside
// tests, benchmarks, examples, scripts and docs folders.
bool shipped_code(const Facts& f, const std::string& path);

// Whether the added line `s` sits on reads, whitespace aside, like a line the
// change removes (in any file): a check the change moves, not a new one.
// Lines of fewer than 10 characters besides spaces (`else:`) never match.
bool moved_line(const Ctx& c, const Signal& s);

// Whether `s` sits in code the change adds: a file it adds, or a definition
// the analysis lists as added (the signal's enclosing symbol or one it nests
// in). A check or an early return there has no callers from before the
// change: the condition beside it says when it fires, and nothing that ran
// before now stops at it.
bool in_added_code(const Ctx& c, const Signal& s);

// Whether signal `s` may carry a look-here question (removed dead code
// always may). A check of a benchmark, example or script, or one the change
// only moved (its line also removed elsewhere), is no place for a reviewer's
// doubt; nor is a check, an early return or a device branch in code the
// change adds (no caller ran past it before, and it has no "old path"; its
// condition says when it fires), or a check or early return whose line only
// edits a line that already returned or raised, or that stands where the same
// function lost one of the same shape (names aside). A switch a removed line
// already names existed before: asking whether leaving it unset keeps the old
// behaviour presumes it is new.
bool askable(const Ctx& c, const Signal& s);

// Whether `path` is an example script: under an examples/ or example/
// folder, or named *_example.* or example_*.*.
bool example_path(std::string_view path);
// Whether `fc` is an example script: example_path, or a runnable script in
// a docs-role folder such as experimental/ (example_script in
// analysis/code/roles.h, with its role in `f`).
bool example_file(const Facts& f, const FileChange& fc);
// Whether the change has files and every one is an example (example_file):
// such a change is neither the product's code nor its documentation.
bool examples_only(const Change& change, const Facts& facts);
// Whether the Python function or method `d` raises before doing anything,
// before and after the change: every `def` of its name in its file's diff
// is followed, past its signature, by an unchanged `raise` as the body's
// first statement (blank lines, comments and a docstring aside). No caller
// can depend on such a function's parameters. False when the diff does not
// show the body's first statement.
bool raises_on_entry(const Ctx& c, const Definition& d);
// The blank and comment-only lines among the changed lines of `path` at
// new-file lines start..end (a removed line counted at the line that now
// follows it); 0 for a file whose hunks were capped.
int prose_changed_lines(const Ctx& c, const std::string& path, std::int32_t start,
                        std::int32_t end);
// "lines 12–30" of a focus region, with how many of its changed lines are
// blank or comments when some but not all are ("; 13 of them comments or
// blank"): those are no code to read.
std::string region_lines_label(const Ctx& c, const FocusRegion& r);
// ", besides 326 lines deleted in 1 file" ("" when none): the code files a
// change deletes whole, which are on the skim list and so not in a figure
// of changed lines of code.
std::string deleted_code_clause(const Ctx& c);
// The diff of `path` as one string (its hunks' lines with their origins);
// "" when the change does not hold the file or its diff is empty. Two files
// with the same non-empty key are copies: a reader reads one.
std::string diff_key(const Ctx& c, const std::string& path);

// What is known about a switch (an env var or a flag) at the change's parent.
enum class SwitchAge {
  kNew,       // absent at the parent, declared at the merge (Facts::switches)
  kExisting,  // present at the parent: the switch facts say so, or a removed
              // line of the change names it
  kUnknown,   // not checked (no switch facts): nothing may call it new
};
SwitchAge switch_age(const Ctx& c, const std::string& name);
// The switch facts of `name` ("--flag" also matches its field "flag");
// nullptr when the facts hold none or were not computed.
const SwitchFact* switch_fact(const Ctx& c, const std::string& name);
// Switches whose declared default the change edits (both revisions declare
// it, the defaults differ), in name order, at most `max`.
std::vector<const SwitchFact*> changed_defaults(const Ctx& c, size_t max);

// The switches the change reads or declares on added lines of shipped code,
// in order, each once; with `new_only`, only those known to be new.
std::vector<const Signal*> switch_signals(const Ctx& c, bool new_only);

// Added signals of `kinds` in shipped code, in order.
std::vector<const Signal*> code_signals(const Ctx& c,
                                        std::initializer_list<std::string_view> kinds);

// Whether `name` (a definition's qualified name) is one a caller outside the
// change could use: not private ("_x" in any part), not a test, not nested
// in a function.
bool public_name(const Facts& f, const Definition& d);
// The last path component, in backticks.
std::string file(std::string_view path);
// "第 3–9 行" / "lines 3–9" ("第 3 行" / "line 3" for one line).
std::string lines_label(const Ctx& c, std::int32_t start, std::int32_t end);
// A count of lines as the language's phrases take it: "3" in Chinese (the
// phrase says "约 {} 行"), "1 line" / "3 lines" in English.
std::string line_count(const Ctx& c, std::int64_t n);
// The title without its "(#N)" suffix, "feat(x):" prefix and "[Tag]"s that
// name a kind ("[Bugfix]") or a marker ("[1/N]"); a "[Tag]" that names a
// scope ("[AMD]", "[NPU]") is kept as "AMD: " (offline_headline.cc).
std::string clean_title(std::string_view title);

std::string summary(const Ctx& c);
std::string verdict_text(const Ctx& c);
std::string lesson(const Ctx& c);
// Changed lines in code files that are not clean-up, blank and comment-only
// lines left out (prose_changed_lines).
int code_lines(const Ctx& c);
// "12 changed lines of code in 3 files, 1 of them new": what was counted.
std::string code_size(const Ctx& c);
std::vector<GuideFocus> focus_points(const Ctx& c, size_t max);
std::vector<std::string> design_decisions(const Ctx& c);
std::vector<std::string> questions(const Ctx& c, const std::vector<GuideFocus>& focus);
std::vector<std::string> number_cautions(const Ctx& c);
std::vector<std::string> body_vs_code(const Ctx& c);
std::vector<std::string> gaps(const Ctx& c);
std::vector<GuideAdvice> advice(const Ctx& c, const Guide& g);
std::string audience(const Ctx& c);
std::vector<GuideReference> references(const Ctx& c);

// --- what the code says about itself (offline_rationale.cc) ---

// Headlines stay within the seeds' length: the longest example is 96 Latin
// characters ("MORI intranode grid clamped …"), 36 by prose::width, about 36
// Chinese characters. A title that fits is never cut: a cut title reads as
// broken and loses the words that narrow it.
inline constexpr double kHeadlineWidth = 36;
// A figure wider than this (a whole table row) stays out of the headline.
inline constexpr double kFigureWidth = 14;

// Whether every citation in `text` passes the citation checker.
bool citable(const Ctx& c, const std::string& text);
// Whether `ref` passes as a cross-reference ("#12", "owner/repo#12", a sha, a URL).
bool citable_ref(const Ctx& c, const std::string& ref);

// `text` quoted as written (“…”, in both languages), newlines as
// spaces, clipped at a word to about `max` bytes.
std::string quote(const Ctx& c, std::string_view text, size_t max);
// The first comment or docstring the change adds inside focus region `focus`.
const RationaleNote* note_in_focus(const Ctx& c, int focus);
// The note that best says why the change exists: one in a focus region, of
// five words or more, that the citation checker passes; a comment (which
// tends to say why) before a docstring (which says what), then the longest,
// then the one in the better region. A docstring that documents parameters
// or return values (":param", "Args:", "Returns:", numpydoc's "Parameters")
// describes an interface, not a decision, and is never chosen. nullptr when
// none qualifies.
const RationaleNote* lesson_note(const Ctx& c);
// "注释（第 349–350 行）：“…”" / "comment (lines 349–350): "…"".
std::string note_clause(const Ctx& c, const RationaleNote& n);
// "`old` → `new`".
std::string pair_label(const Replacement& r);
// Replacements of code files grouped by the call their added line introduces,
// largest group first.
struct ReplacementGroup {
  std::string call;
  std::vector<const Replacement*> items;
};
std::vector<ReplacementGroup> replacement_groups(const Ctx& c);
// The pair that shows a group best: an assignment the call replaced when there
// is one (the shape most of the group shares), else the first.
const Replacement* typical_replacement(const ReplacementGroup& g);
// The question a replacement supports: a value moved, a condition changed, a
// call replacing the old form. Empty when it is none of these.
std::string replacement_question(const Ctx& c, const Replacement& r);
// The question a "COND: ACTION" guard-with-fallback signal supports, naming
// both; empty when the detail does not have that form.
std::string fallback_question(const Ctx& c, const Signal& s);
// The words of a test's name ("test_clearing_the_mapping_does_not_synchronize"
// → "clearing the mapping does not synchronize"); empty when the name is not a
// test's or says fewer than two words.
std::string test_contract(std::string_view name);
// The first test the change adds in `path` whose name states a contract, or
// nullptr.
const Definition* contract_test(const Ctx& c, const std::string& path);
// "the test `x` is named for the contract it checks: "…"".
std::string contract_sentence(const Ctx& c, const Definition& test);
// --- what a summary names (offline_facts.cc) ---
// Whether `path` holds code on the main path (core, kernel or model role;
// a path the analysis gave no role counts as code).
bool is_code_role(const Facts& f, const std::string& path);
// The change's definitions in the order a summary names them: those of the
// public names before private ones ("_helper"), then those of the files with
// the most changed lines first, the analysis's order within a file.
// Pointers into `c.facts`.
std::vector<const Definition*> definitions_by_weight(const Ctx& c);
// The code files the change adds or deletes whole (`status`) with at least
// `min_lines` lines, the largest first, at most `n`: "adds `a.py`" and
// "removes `b.py`" say more than the first definitions they hold.
// Pointers into `c.change`.
// A file of the change as a code span: its name, or its whole path when
// another file of the change has the same name (a module moved to a new
// folder is `a/x.py` and `b/x.py`, never `x.py` twice).
std::string file_label(const Ctx& c, const std::string& path);
std::vector<const FileChange*> whole_code_files(const Ctx& c, FileStatus status, size_t n,
                                                std::int32_t min_lines);
// --- what a look-here range changes besides its quoted pair (offline_edits.cc) ---
// What a replacement changes: the old and new text between the pair's common
// prefix and suffix ("_gemma_mappings" → "_gemma2_mappings": "" → "2"), as
// one key; two replacements with one key are the same edit.
std::string edit_key(const Replacement& r);
// The statement by which `line` leaves its block ("return", "continue",
// "break", "raise", "assert", "throw"), as its first word or after an `if`'s
// colon; empty when it has none.
std::string_view exits(std::string_view line);
// Whether two lines of code are one line with some names changed: the same
// text when each identifier other than a keyword ("if", "not", "return", ...)
// reads as one placeholder and spaces are ignored, and at least one name in
// common ("if a < n: continue" and "if b < n: continue"; not "if a is None:
// return" and "if b is None: return").
bool same_shape(std::string_view a, std::string_view b);
// The edit keys of the change's renames: a definition or an assignment whose
// name alone changed ("_a = [" → "_b = ["). A line that only follows such a
// rename ("X": _a → "X": _b) changes nothing by itself.
std::set<std::string> rename_keys(const Facts& f);
// Whether replacement `r` only names a value the change assigns to a new
// variable on an added line of its file ("elif a and b:" → "elif use_x:"
// beside "use_x = a and b"): an equivalent rewrite, not a changed condition.
bool extracted_variable(const Ctx& c, const Replacement& r);
// The added statement of focus region `r` that says most about what the
// range changes beyond its line pairs: a new branch (with the first statement
// it runs), else a write to state or a call, else an assignment from a call;
// a statement over several lines joined into one. Lines paired as
// replacements, at one of `signals`, inside an added comment or docstring,
// and aliases ("name = x.y") are not candidates. Empty when none qualifies.
std::string other_added_statement(const Ctx& c, const FocusRegion& r,
                                  const std::vector<const Signal*>& signals);

// --- the headline (offline_headline.cc) ---
// The PR's title in both languages (Chinese: the kind of change first), with
// the key figure the PR states when it fits; never cut mid-token.
std::string headline(const Ctx& c);
// The Chinese word for the kind of change, from its tags ("修复", "重构", ...)
// or, when every file has one role that is not code, that role ("文档");
// empty when neither says.
std::string headline_kind(const Ctx& c);
// `text` (a headline from the title) with words the checker would read as a
// citation ("CVE-2026-5760") marked as code when that makes it pass.
std::string citable_headline(const Ctx& c, std::string text);
// `text` cut at a word (outside code spans) to the headline width, with "…".
std::string fit_headline(std::string_view text);

// The digest paragraph: the verdict with its scope, the lesson (or for a
// skip, what the change does), and the places to read when the verdict does
// not name them; two or three sentences.
std::string digest(const Ctx& c, const Guide& g);

}  // namespace mergelens::guide_detail
