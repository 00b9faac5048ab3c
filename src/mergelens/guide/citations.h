// The citation checker: a guide may claim only what the change supports, and
// may propose what it likes where it proposes.
//
// A *claim* is a path, a line range, an identifier said to be in the code, a
// figure attributed to the PR, a PR reference, a commit or a URL. It must be
// true of the change (its diff, title, body, commit messages, labels, review
// conversation and the facts derived from them), or of the repository at the
// merge commit when a clone is there (RepoLookup): a file the PR does not
// touch but that exists is fine.
//
// A *suggestion* proposes or reasons: a test to add, a setting to try, an
// alternative expression, a value of a variable, a name from the language or
// protocol the code speaks. Its code is not in the change by nature. The
// checker decides per code span (guide/prose.h tells sentences apart):
//   - written in the change, a path of it, or made only of its identifiers
//     and literals (a derived expression such as `ps > 1` from `ps == 1`,
//     `[:-0]` from `x[:-swa_tail_len]`), or of names of the language, its
//     standard library and the protocols it speaks (guide/vocabulary.h):
//     allowed anywhere;
//   - in a suggesting place (focus questions, design decisions, questions,
//     gaps, advice) and a suggesting sentence: a setting built on a name the
//     change has (`CUDA_MODULE_LOADING=EAGER`, `--tp 4`), a bare value next
//     to such a name (`EAGER`), code the guide declares it proposes
//     (`Guide::suggested_code`), or code a sentence introduces ("add a test
//     `test_x`", "例如 `fcntl.LOCK_EX | fcntl.LOCK_NB`"): allowed, and listed
//     as a suggestion so publishers can show it as one;
//   - anything else is a failure naming the place and the sentence.
//
// Failures are removed sentence by sentence (remove_failed_citations): an
// item survives when what remains still stands. Model answers are checked
// before they are stored; the offline writer's guides too, so a detector bug
// cannot publish a citation the change lacks.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mergelens/analysis/facts.h"
#include "mergelens/guide/guide.h"
#include "mergelens/model/change.h"

namespace mergelens {

// What the repository at the merge commit holds beyond the change; either
// function may be empty (no clone). Called only for citations the change
// itself does not support, so they may be slow; must be thread-compatible
// with the index that holds them (one index per thread).
struct RepoLookup {
  // Whether a file or folder exists at the merge commit.
  std::function<bool(std::string_view path)> has_path;
  // Whether an identifier is defined or used in the repository at the merge
  // commit (the files around the change first, then the whole tree).
  std::function<bool(std::string_view token)> has_identifier;
  // The modules the changed files import at the merge or the parent, as
  // analysis/code/import_graph.h parse_imports writes them ("torch",
  // "vllm.config.SpeculativeConfig|vllm.config"). Those whose top package
  // the repository does not hold are libraries (CitationIndex::from_library).
  std::vector<std::string> imports;
};

// What a change allows a guide to cite. Built once per change; read-only after.
class CitationIndex {
 public:
  explicit CitationIndex(const Change& change, const Facts& facts, RepoLookup repo = {});

  // The full path of the change's file `cited` names (exact path, old path of
  // a rename, or a unique file-name / path suffix); empty when none.
  std::string resolve_path(std::string_view cited) const;
  // resolve_path, or a file or folder of the repository at the merge commit.
  bool path_exists(std::string_view cited) const;
  // Whether `dir` is a folder of one of the change's files or of the
  // repository (a place a suggested new file could go).
  bool folder_exists(std::string_view dir) const;
  // Whether [start, end] overlaps a hunk of `path` (new-file lines, or old-file
  // lines for a deleted file), with a few lines of tolerance for context.
  bool range_in_diff(const std::string& path, std::int32_t start, std::int32_t end) const;
  // The same for any file of the change (a range cited without its path).
  bool range_in_any_file(std::int32_t start, std::int32_t end) const;
  // Written in the change (substring of its text or of the facts' symbols),
  // or a path of it.
  bool has_code_span(std::string_view span) const;
  // An identifier token of the change (any length), a known name of the
  // language or protocol (vocabulary), or one the repository has.
  bool has_token(std::string_view token) const;
  bool known_token(std::string_view token) const;
  // The identifiers of `span`'s leading dotted name that belong to a library
  // the changed files import: after a library module's path (`torch.cuda.
  // graph_pool_handle()` when a changed file imports torch) or after a name
  // imported from one (`SpeculativeConfig.use_eagle()` after `from
  // vllm.config import SpeculativeConfig`). A library is an imported module
  // whose top package is not a file or folder of the change or the
  // repository. Empty when the span starts otherwise.
  std::vector<std::string> from_library(std::string_view span) const;
  // The dimension labels of a shape written in prose, `[num_blocks,
  // bytes_per_block]`: in a bracketed list of at least two names of which
  // one is a name of the change, a snake_case name each of whose words of
  // four letters or more the change writes (a tuple in parentheses is
  // code, not a shape). Empty otherwise.
  std::vector<std::string> shape_labels(std::string_view span) const;
  // A name the change sets or reads as a variable: an environment variable,
  // a command-line flag or a config key (facts' signals), or an upper-case
  // identifier with an underscore written in the change.
  bool is_variable(std::string_view name) const;
  // `strict`: a decimal or a figure with a unit (x, %, ms, GB, ...): it must be
  // written in the change. Otherwise derived counts and line numbers pass too.
  bool has_number(std::string_view number, bool strict) const;
  // A numeric literal written in the change (normalised: "2.30" = "2.3").
  bool has_literal(std::string_view number) const;
  // Whether "about `number`" describes a count derived from the change: a
  // file's, a folder's or the change's added/removed lines, a hunk's size, a
  // focus region's changed lines or range length, or the sum of two focus
  // ranges or of the first k (k <= 8). It may differ from the count by at
  // most 15 % of the count (at least 1): "about 40 lines" for 7 + 37.
  bool near_count(std::string_view number) const;
  // Whether a bare file name or path suffix names a file of the change, even
  // when several files (or old paths of renames) share it ("egress.rs" for
  // two renamed `egress.rs`).
  bool names_file(std::string_view cited) const;
  // Whether a path the change does not touch is named by it all the same: the
  // repository has it, or the change's text writes the path, its file name or
  // its module form ("environ.py" from `sglang.srt.environ`).
  bool path_mentioned(std::string_view cited) const;
  // A glob-like code span: `NAME_*`, `_normalize_*`, `<image_N>`, `foo_{i}`.
  static bool is_pattern(std::string_view span);
  // Whether such a pattern matches an identifier or text of the change
  // (`*` stands for one or more word characters, a lone `N` or `K` for a
  // number or a format placeholder such as `{i}`).
  bool matches_pattern(std::string_view span) const;
  // A Python variadic parameter, `*args` or `**flash_attn_kwargs`: its name is
  // the declaring code's choice, so a guide proposing a case may name one.
  static bool is_star_parameter(std::string_view span);
  bool has_pr(std::int64_t number) const;
  bool has_sha(std::string_view hex) const;
  bool has_url(std::string_view url) const;
  // A reference to another repository, `owner/repo#N` or `owner/repo@sha`
  // (a sha of at least 7 digits): written so in the change, or as a link
  // (`github.com/owner/repo/pull/N`, `.../issues/N`, `.../commit/SHA`) in the
  // change or the code shown beside it. Case-insensitive on owner/repo.
  bool has_repo_ref(std::string_view ref) const;
  // An identifier the change builds rather than writes: a name of the change
  // joined to a string fragment it appends or prepends (`train_sft` from
  // `"train"` and `split += "_sft"`, `static_minmax` from
  // `f"static_{observer}"`). Both parts must be written in the change or the
  // context code; a fragment alone (`"_sft"`) must start or end with `_`.
  bool built_token(std::string_view token) const;

  // Code the writer was shown beside the change (definitions read at the
  // parent or the merge, guide/prompt.h ContextText): its identifiers and
  // text may be cited as the change's own. Call before the index is shared.
  void add_context_code(std::string_view text);

  // What claims about the change are checked against (guide/claims.h): the
  // switches with their declarations at the parent and the merge, the
  // files' statuses, and the definitions that existed at the parent.
  struct Claimable {
    std::vector<SwitchFact> switches;
    bool switches_known = false;
    std::map<std::string, FileStatus> files;  // path (and old path) → status
    std::set<std::string> existed;            // definitions at the parent, bare and qualified
    std::set<std::string> added;              // definitions the change adds, bare and qualified
    // PRs of this repository the store says merged before this change (they
    // name it, but are no later change): number → merge time, UTC seconds.
    std::map<std::int64_t, std::int64_t> earlier;
    // The lines the change adds to each test file (facts' roles): each run
    // of added lines as code_key (claims.h) writes it, one run a line.
    std::map<std::string, std::string> added_test_lines;
    bool context_known = false;
  };
  const Claimable& claimable() const { return claimable_; }

 private:
  Claimable claimable_;
  std::string corpus_;                // all text of the change, for substring checks
  std::string facts_code_;            // symbols and signal details the analysis read
  std::string unquoted_;              // both, without backticks and single quotes
  std::set<std::string> paths_;       // full paths and old paths
  std::set<std::string> folders_;     // every folder of a path
  std::set<std::string> ctx_paths_;   // files the context read (facts.context)
  std::set<std::string> tokens_;      // identifier tokens of the corpus and facts
  std::set<std::string> variables_;   // env vars, flags, config keys
  std::set<std::string> numbers_;     // numeric literals of the corpus, normalised
  std::set<std::string> derived_;     // counts and line numbers derived from the change
  std::vector<std::int64_t> counts_;  // counts only (no line numbers), for near_count
  std::set<std::int64_t> prs_;        // PR/issue numbers written or referenced
  std::vector<std::string> shas_;     // commit shas of the change and its references
  std::set<std::string> repo_refs_;   // "owner/repo#N", "owner/repo@sha" (lower case)
  std::string this_repo_;             // "owner/repo" of the change (lower case)
  // Records the links to PRs, issues and commits of `text` (repo_refs_; a
  // link to this repository's PR also goes to prs_).
  void scan_links(std::string_view text);
  struct Span {
    std::string path;
    std::int32_t start, end;
  };
  std::vector<Span> spans_;
  std::int32_t max_line_ = 0;
  RepoLookup repo_;
  std::set<std::string> libraries_;      // imported library modules, "torch", "vllm.config"
  std::set<std::string> library_names_;  // names imported from them, "SpeculativeConfig"
  void note_libraries(const Change& change);
};

struct CitationFailure {
  std::string field;     // "headline", "focus[2]", "questions[0]", ...
  std::string part;      // of an object item: "path", "range", "symbol", "question",
                         // "why", "reason", "text", "ref", "note"; "" for a string
  std::string citation;  // what was cited: "`foo()`", "2.3x", "#123", "x.py:10-20"
  std::string reason;    // "not in the change", ...
  // The failing sentence as [begin, end) bytes of that text; 0, 0 when the
  // whole part fails (a path, a range, a symbol, a reference).
  size_t begin = 0, end = 0;
};

struct CitationReport {
  std::vector<CitationFailure> failures;
  // Code spans accepted as suggestions (not in the change), each once, in
  // the order they appear.
  std::vector<std::string> suggested;
};

// Checks every element of `guide` except `source` and `writer` (the pipeline
// fills them). `guide.suggested_code` lists code the writer declares it
// proposes; it is honoured only in suggesting places. `published`: the text
// reaches a reader, so words only the writer's prompt has ("the facts", "the
// excerpt") fail too; a split PR's notes, read only by the call that writes
// the guide, pass false.
CitationReport check_guide(const Guide& guide, const CitationIndex& index, bool published = true);
// check_guide(...).failures.
std::vector<CitationFailure> check_citations(const Guide& guide, const CitationIndex& index);

// What remove_failed_citations did, for the writer that puts two languages
// of one answer side by side: the items it removed whole ("questions[3]",
// "focus[1]", "advice[0]", named by their index in the answer) and the
// fields whose text it edited.
struct PruneReport {
  std::set<std::string> items_removed;
  std::set<std::string> fields_edited;
  std::map<std::string, size_t> list_sizes;  // each list's items before the removals
};

// Removes what failed, as clean edits: a failing clause goes alone when it
// is a parenthesis or an added clause and the rest of its sentence still
// reads (citations.h's rules; guide/prune_text.h), else its sentence goes
// whole; the sentences left are joined with no separator left dangling and
// no connector pointing at a removed sentence. An item is kept when what
// remains still stands; list items whose path, reference or whole text
// fails are dropped; a focus point's failing range or symbol is cleared
// (the point stays) and the rejected line numbers go wherever its question
// and why repeat them. A scalar (headline, summary, why, audience) that no
// longer stands takes `fallback`'s; a verdict sentence that lost its lead
// gets one for guide.verdict, and a digest paragraph that lost its lead
// sentence is rebuilt from the verdict sentence and what is left. A score's
// reason or the judgment's argument goes whole when any of it fails.
// Records each removal in guide.writer.removed ("field.part: citation
// (reason): what was done"), each other edit (a rebuilt lead, a point left
// without question and why) in guide.writer.edits, canonicalises cited
// focus and skim paths to full paths, and sets guide.suggested_code to
// `suggested`. Fills `report` when given. Returns the number of failures
// handled.
size_t remove_failed_citations(Guide& guide, const std::vector<CitationFailure>& failures,
                               const Guide& fallback, const CitationIndex& index,
                               const std::vector<std::string>& suggested = {},
                               PruneReport* report = nullptr);

// How many list items (focus, skim, design decisions, questions, number
// cautions, body vs code, gaps, advice, references) a guide has.
size_t count_items(const Guide& guide);

// `text` without backticks and single quotes.
std::string unquoted(std::string_view text);

// Whether `text` contains CJK ideographs (a "zh" guide must).
bool has_cjk(std::string_view text);

}  // namespace mergelens
