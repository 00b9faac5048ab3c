// Facts: everything the analysis derives from one change, deterministically.
//
// The guide writers read only these facts (and the change itself), so every
// statement a guide makes can be traced to a fact, and every fact to a place
// in the change: a path and line range of the new file, or a sentence of the
// title, body or commit messages.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mergelens {

// Bump when detectors change what they produce; stored facts of an older
// version are recomputed.
inline constexpr int kAnalyzerVersion =
    31;  // 2: review facts, open PRs; 3: tests cover
         // what they import or call; 4: rationale,
         // replacements; 5: reach; 6: importance by
         // reach, insight by density, ranked tags;
         // 7: focus by explaining comments,
         // whole new files up to 1,000 lines;
         // 8: three focus places, the third
         // in another file when close;
         // 9: reach capped at exactly 500
         // in any graph order, files whose
         // diff was not read
         // 10: fitted importance weights, both
         // scores on a calibrated scale, the
         // verdict by how much reading pays
         // 11: switches at the parent and the
         // merge, code context at the parent
         // 12: importance fitted on many
         // repositories: title words, path
         // shares, series, follow-ups
         // 13: thread links (series, reverts,
         // re-lands, follow-ups, files added)
         // 14: checked fallbacks, branches in
         // conditions only, no version
         // constants, test gaps need a new
         // path, code words from code
         // 15: switch lines after a string
         // continued by a backslash; lines
         // added just before a definition
         // do not edit it, its decorators do
         // 16: definitions checked against
         // the parser's tags at the parent
         // and merge (kept, moved, nested,
         // inherited, compatible signatures),
         // unread switches
         // 17: kept lines pair before new
         // values, branches the parent had,
         // perf claims by key_figure, no
         // concurrency in strings
         // 18: a function removed from one
         // file and added with the same
         // name in another is moved, not
         // dead nor new
         // 19: a focus region named by the
         // definition holding most of its
         // changed lines; added tests that
         // replace removed ones
         // 20: a handler that re-raises
         // is no handled exception
         // 21: lines of code leave out comments, copies count once,
         // example scripts, include guards, type-narrowing asserts,
         // regions named by the definition holding their lines, no
         // pair across a new branch or between a head and a parameter
         // 22: insight reasons, the weightiest first
         // 23: context: what edited functions call
         // 24: ... only calls that name their target for certain
         // 25: a field's or option's origin is its own file's
         // 26: context shows where the attributes added lines read are set
         //     (the class, its bases, the file) and _PRIVATE constants
         // 27: a default changes only between two declarations, or two
         //     reads of one file that both state one
         // 28: an attribute declared under its name in a dict (`d["x"] = ...`)
         // 29: ... only a tensor made there; a class-level declaration whole
         // 30: a removed method is inherited when the class's bases (ctags)
         //     name a class defining it, not a word of its header line;
         //     context "test" items; a removed decorator in a run that
         //     removes a definition edits no kept one
         // 31: a test gap names the definition holding its first branch

enum class Language {
  kUnknown,
  kPython,
  kCpp,
  kCuda,
  kRust,
  kGo,
  kJavaScript,
  kTypeScript,
  kMarkdown,
  kJson,
  kYaml,
  kToml,
  kShell,
  kCMake,
  kText,
};

enum class FileRole {
  kCore,       // library/application code on the main path
  kKernel,     // GPU/CPU kernels (.cu, .cuh, csrc/, triton kernels)
  kModel,      // model definitions (models/)
  kConfig,     // configuration or tuning data (JSON/YAML tables)
  kTest,       // tests
  kBenchmark,  // benchmarks
  kDocs,       // documentation
  kCi,         // CI workflows and scripts
  kBuild,      // build and dependency files
  kGenerated,  // generated, vendored or lock files
};

const char* to_string(Language l);
const char* to_string(FileRole r);

// Where a fact sits in the new file (lines are 1-based; for removed code the
// line is the new-file position where it used to be).
struct Place {
  std::string path;
  std::int32_t line = 0;
  std::string symbol;  // enclosing function/class/section, empty when unknown
};

// A detected signal inside one hunk: a guard, an env var, a flag, ...
struct Signal {
  std::string kind;    // "guard", "fallback", "raise", "assert", "early_return", "try",
                       // "handler", "fallback_mention", "preprocessor", "env_var",
                       // "cli_flag", "dtype_branch", "device_branch", "platform_branch",
                       // "concurrency", "todo", "numeric_constant", "public_api",
                       // "dead_code_removed". "fallback" is checked: a new `if` on a
                       // capability whose `else` keeps the code that ran before the
                       // change (detail: the condition); "fallback_mention" is the word
                       // or an unchecked `else` of such an `if`; "handler" an except or
                       // catch that goes on with other code (detail "except X: code").
  std::string detail;  // e.g. the env var name, the flag, the constant
  Place at;
  bool added = true;  // false when the signal sits on a removed line
};

struct Definition {
  std::string name;
  std::string kind;  // "function", "class", "struct", "method", "macro", "section", ...
  // "added", "removed", "signature_changed", "modified"; where the parser read
  // both trees (analysis/code/context.h, DefinitionFate): "moved" (its line
  // went or came, but another file defines it on the other side) and
  // "inherited" (a method override removed; a base class still defines it).
  std::string change;
  Place at;
  // signature_changed: every call the parent's signature accepted still binds
  // (only parameters with defaults appended, or annotations changed).
  bool compatible = false;
  // An added test: the tests of the same file the change removes that it
  // stands in place of (a similar name, or the one test added to their class;
  // mark_replaced_tests). Such a test is not new coverage.
  std::vector<std::string> replaces{};
};

// Consecutive changed lines of one hunk under one enclosing symbol (empty: file
// level), all added or all removed, all code or all blank/comment lines.
struct SymbolSpan {
  std::int32_t start = 0, end = 0;  // new-file lines (removed: where they used to be)
  std::int32_t lines = 0;
  bool added = true;
  bool code = true;  // not blank, not a comment
  std::string symbol;
};

struct HunkFacts {
  std::size_t file = 0, hunk = 0;           // indexes into Change::files / FileChange::hunks
  std::int32_t new_start = 0, new_end = 0;  // changed lines' span in the new file
  std::int32_t added = 0, removed = 0;
  std::string symbol;  // enclosing symbol of the first changed code line
  // The changed lines by enclosing symbol (analysed hunks of files with an
  // outline), from which the focus ranking names the definition holding most
  // of a region's changed lines. Not stored (facts_json): read at analysis.
  std::vector<SymbolSpan> spans{};
  bool moved = false;                // lines also appear removed/added elsewhere in the change
  double score = 0;                  // focus weight (see focus.cc)
  std::vector<std::string> reasons;  // why it scored
};

struct FocusRegion {
  std::string path;
  std::int32_t start_line = 0, end_line = 0;  // new-file lines
  std::string symbol;
  double score = 0;
  std::vector<std::string> reasons;
  std::int32_t changed_lines = 0;
};

struct SkimItem {
  std::string path;
  std::string reason;  // "rename-only", "delete-only", "whitespace-only", "comment-only",
                       // "import-only", "mechanical", "generated", "docs", ...
};

struct NumberFact {
  std::string text;      // as written: "2.3x", "-78%", "1520 → 2100 tok/s"
  std::string kind;      // "speedup", "percent", "latency", "throughput", "memory", "count"
  double value = 0;      // normalised value (2.3 for 2.3x, -78 for -78%)
  std::string sentence;  // the sentence it came from
  std::string source;    // "title", "body", "commit"
};

struct NumberCaution {
  std::string kind;    // "spread", "no_benchmark", "single_point"
  std::string detail;  // e.g. "1.9x vs 1.05x"
};

struct BodyMismatch {
  std::string kind;     // "named_not_touched", "touched_not_mentioned"
  std::string subject;  // the path or identifier
  std::string detail;
};

struct TestFact {
  std::string path;    // test file changed or added
  std::string covers;  // code path it most likely covers, empty if unknown
};

struct Gap {
  std::string kind;     // "test", "benchmark"
  std::string subject;  // path or symbol lacking the test/benchmark
  std::string detail;
  // "test": the definition enclosing the first new branch the detail quotes
  // (qualified, at the merge), empty at file level or when unknown.
  std::string symbol = {};
};

struct Tag {
  std::string name;
  std::string source;  // "path", "keyword", "prefix", "labeler", "config", "generic", "code",
                       // "numbers", "references"
  std::string rule;    // the glob, keyword or prefix that matched
  double share = 0;    // changed lines in the files the rule's paths or roles cover, 0..1
  double weight = 0;   // rank: the strength of the evidence plus `share`
  std::string evidence = {};  // what a reader can check: "title prefix [AMD]", "3 files, 42% ..."
};

struct Score {
  int value = 1;  // 1..10, on the calibrated scale (docs/judgment.md)
  std::vector<std::string> reasons;
  double raw = 0;  // the continuous score mapped onto 1..10 (score_scale.h)
};

// What the scores were computed from, stored with them so that the offline fit
// (bench/judgment/fit_scale.py) refits the weights and the scale from stored
// facts without re-analysing.
struct ScoreInputs {
  std::map<std::string, double> importance_features;  // feature → value (score_fitted.h)
  int code_lines = 0;  // changed lines of code on the main path (skimmed files excluded)
  // Argued decisions in the regions a reader reads: an added comment that
  // argues, or a guard with a fallback, as "path:line".
  std::vector<std::string> argued;
};

enum class Verdict { kCloseRead, kSelectiveRead, kSkim, kSkip };
const char* to_string(Verdict v);

struct Reference {
  std::string kind;      // "pr", "issue", "commit", "version", "url"
  std::string relation;  // "fixes", "follow_up", "reverts", "mentions"
  std::string repo;      // "owner/repo" when named, empty for this repository
  std::int64_t number = 0;
  std::string sha;     // for commits
  std::string text;    // as written
  std::string source;  // "title", "body", "commit", "review"
};

// A later change that names this one (fixes, follow-ups, reverts, mentions).
struct Backlink {
  std::int64_t change_id = 0;
  std::string ref;  // "#123" or a short sha
  std::string title;
  std::string relation;        // "fixes", "follow_up", "reverts", "mentions"
  std::int64_t merged_at = 0;  // UTC seconds
};

// An earlier change this one belongs with (analysis/text/threads.h): the
// same series, a revert or re-land of it, a follow-up naming it, or work on
// files it added. Stored with the facts and indexed (store: change_links).
struct ThreadLink {
  std::string relation;     // "series", "reverts", "relands", "follow_up", "fixes", "builds_on"
  std::string sha;          // the earlier change's merge sha
  std::int64_t number = 0;  // its PR number; 0 without one
  // series: this change's part ("3/5", "3/N", "III"); builds_on: a path the
  // earlier change added; reverts/relands: "title", "number" or "sha" (how
  // it was found); else empty.
  std::string detail;
};

// What reviewers said about the change (from the GitHub source).
struct ReviewPoint {
  std::string reviewer;
  std::string kind;  // "changes_requested", "comment", "suggestion", "follow_up", "approval"
  std::string path;  // empty for remarks on the whole PR
  std::int32_t line = 0;
  std::string excerpt;  // the remark, clipped
};

// A comment or docstring the change adds in a code file (not tests or docs):
// what the code itself says about why.
struct RationaleNote {
  std::string path;
  std::int32_t start_line = 0, end_line = 0;  // new-file lines
  std::string kind;                           // "comment" or "docstring"
  // As written, comment markers and docstring quotes stripped; the lines of
  // one comment joined by ' ' (a blank comment line between paragraphs: '\n').
  std::string text;
  std::string symbol;       // enclosing function/class, empty at file level
  std::int32_t focus = -1;  // index into Facts::focus, -1 when in no region
};

// A removed line replaced by a similar added one in the same hunk: a one-for-one edit.
struct Replacement {
  std::string path;
  std::int32_t old_line = 0, new_line = 0;  // old-file and new-file lines
  std::string old_text, new_text;           // the lines, trimmed
  std::string symbol;                       // enclosing symbol of the added line
  std::int32_t focus = -1;                  // index into Facts::focus, -1 when in no region
};

// How far a change reaches in its repository's import graph at the merge
// commit (Python imports, C/C++/CUDA includes), measured by the pipeline.
struct Reach {
  bool known = false;          // the graph could be built (a clone was available)
  std::int32_t importers = 0;  // modules importing a touched code file, directly or not (no
                               // tests; counted up to 500)
  std::int32_t direct = 0;     // ... directly (through package __init__ files)
  std::string hub;             // the touched code file with the most importers
  std::int32_t hub_importers = 0;
};

// One switch's primary declaration at one revision (analysis/code/switches.h).
struct SwitchSide {
  bool exists = false;  // declared or read anywhere in the tree at that revision
  std::string path;
  std::int32_t line = 0;      // 1-based line of the declaring statement
  std::string origin;         // "registry", "field", "argparse", "config_read", "read"
  std::string default_value;  // as written (`True`, `"1"`, `None`); "" when none
  bool has_default = false;
  std::string text;  // the declaring statement, whitespace collapsed, clipped
};

// A switch (environment variable, command-line option, configuration field)
// the change reads, sets or declares, as the repository had it at the
// change's parent and at its merge commit.
struct SwitchFact {
  std::string name;  // "SGLANG_X", "--enable-foo", "enable_foo"
  std::string kind;  // "env", "cli", "config"
  // What the change does to it: "added" (absent at the parent, declared at
  // the merge: a new switch), "removed" (declared at the parent, gone at the
  // merge), "default_changed", "redeclared" (its declaration was edited or
  // moved, the default kept), "used" (changed lines only read or set it).
  std::string change;
  bool existed_at_parent = false;  // == before.exists
  bool default_changed = false;    // both exist and the primary defaults differ
  SwitchSide before, after;        // at the parent / at the merge
  // The change that first declared it ("#123", or a short sha without a PR
  // number), when the analysed history saw it appear; "" when it is older
  // than the analysed history or this change adds it.
  std::string introduced_by;
  // Declared at the merge by an assignment to a variable that nothing in its
  // file reads again (a local, or a module name starting with '_'): the
  // switch selects nothing.
  bool unread = false;
};

// The key under which a switch's first declaration is remembered
// (Store::switch_origins). An environment variable is one name in the whole
// tree; a configuration field or a command-line option is named anew by each
// class or parser declaring one (`dataset`, `--model`), so its key adds the
// file that declares it on `side`: "dataset@pkg/args.py". A switch of another
// file, or one that moved, then names no origin rather than a stranger's.
inline std::string switch_origin_key(const SwitchFact& s, const SwitchSide& side) {
  if (s.kind == "env") return s.name;
  return s.name + "@" + side.path;
}

// Code a careful reviewer opens beside the diff (analysis/code/context.h),
// found by a parser in the tree at the change's parent, or at its merge for
// the callers of a changed signature. Only where it is: the writers read the
// text from the clone at `revision`.
struct ContextItem {
  // "changed": a definition the hunks edit, as it stood at the parent;
  // "called": a function, method or class changed lines call (defined at the parent);
  // "constant": a module-level constant changed lines use (at the parent);
  // "caller": a definition that calls one whose signature this change edits (at the merge);
  // "attribute": where an attribute that added lines read is set, unchanged (at the merge);
  // "callee": what a function the hunks edit calls on its unchanged lines (at the merge);
  // "test": an existing test, unchanged by the change, that calls a definition it
  //   edits (`target`; at the merge, `at` the call).
  std::string why;
  std::string name;  // qualified: "Scheduler.run_batch"
  std::string kind;  // "function", "method", "class", "variable", "macro", ...
  std::string path;
  std::int32_t start_line = 0, end_line = 0;  // at `revision`, 1-based, inclusive
  std::string revision;                       // "parent" or "merge"
  std::string signature;                      // as the parser gave it, "" when none
  std::string at;      // the place of the change it relates to: "path:line" (new-file line)
  std::string target;  // "test": the qualified name of the edited definition it calls
};

struct Facts {
  int version = kAnalyzerVersion;
  std::map<std::string, FileRole> roles;      // path → role
  std::map<std::string, Language> languages;  // path → language
  std::vector<HunkFacts> hunks;
  std::vector<Signal> signals;
  std::vector<Definition> definitions;
  std::vector<SkimItem> skim;
  std::string cleanup;  // whole-change clean-up kind, empty when the change is substantive
  std::vector<NumberFact> numbers;
  std::vector<NumberCaution> number_cautions;
  std::vector<BodyMismatch> body_mismatches;
  std::vector<TestFact> tests;
  std::vector<Gap> gaps;
  std::vector<FocusRegion> focus;        // best first
  std::int32_t lines_worth_reading = 0;  // changed lines inside the focus regions
  std::vector<Tag> tags;
  Score importance, insight;
  ScoreInputs score_inputs;
  Verdict verdict = Verdict::kSkim;
  std::vector<std::string> verdict_scope;  // paths to read for a selective read
  std::vector<Reference> references;
  std::vector<Backlink> referenced_by;  // as known when the facts were computed
  std::vector<ThreadLink> thread;       // earlier changes it belongs with, strongest first
  std::vector<std::string> reviewers;   // logins of people who reviewed or commented
  std::vector<ReviewPoint> review_points;
  std::vector<RationaleNote> rationale;   // in focus order first, then by position
  std::vector<Replacement> replacements;  // likewise
  Reach reach;
  // Switches the change reads, sets or declares, names sorted; meaningful only
  // when switches_known (the clone was read at the parent and the merge).
  std::vector<SwitchFact> switches;
  bool switches_known = false;
  // Definitions around the change, best first per kind (at most 24); known
  // when the parser read the tree at the parent.
  std::vector<ContextItem> context;
  bool context_known = false;
  // Files whose diff was not read (FileChange::unavailable), as "path: why":
  // nothing below says anything about their content.
  std::vector<std::string> unread_files;
  // The PR was still open when analysed: guides address its reviewers (what to
  // check before merge) rather than readers of merged code.
  bool open = false;
};

}  // namespace mergelens
