// Facts from free text: the title, body and commit messages of a change.
//
// Everything here reads prose the way a careful reviewer would: numbers the PR
// claims (with the sentence that carries their conditions), references to other
// PRs, issues, commits and versions, and the files and identifiers the text
// names, which body_vs_code() compares with the diff.
//
// Input text is whatever the source stored: invalid UTF-8 is replaced by U+FFFD
// before reading, so every returned string is valid UTF-8. HTML comments
// (PR templates) and fenced code blocks are skipped; Markdown tables are read
// even inside fences. All functions are linear in the text size, return plain
// values the caller owns, never throw, and return an empty vector on a
// library failure (out of memory). They are thread-safe: the only state is a
// per-thread memo of the last few texts read, so the analyzer can ask for the
// numbers, references and mentions of one body without reading it three times.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "mergelens/analysis/facts.h"
#include "mergelens/model/change.h"

namespace mergelens {

// Numbers claimed in `text` (tagged with `source`: "title", "body", "commit"),
// in text order, each with the sentence it came from (clipped to ~300 bytes
// around the number when the sentence is longer).
//   kinds:  "speedup" (2.3x, 2.3×, 2.3 倍, 3 times faster), "percent" (-78%, 提升 68%:
//           value is signed by an explicit sign or a direction word: "reduced by 40%",
//           "降低 30%" give -40 and -30), "latency" (value in ms), "throughput" (tok/s,
//           req/s, QPS, TFLOPS, GB/s: value in the written unit, k/M multipliers applied),
//           "memory" (value in GB), "count" (a bare integer before→after pair "12 → 3").
//   pairs:  "1520 → 2100 tok/s", "from 12 ms to 8 ms", "从 12 ms 降到 8 ms" are one fact
//           whose value is the after value; ranges "1.05–1.9x" and "1520 vs 2100 tok/s"
//           give two facts with the same text.
//   tables: Markdown tables whose header or cells carry units or speedup/latency/... columns
//           give one fact per numeric metric cell; its sentence is
//           "<row label>; <column header>: <cell>" where the row label joins the
//           non-metric cells ("bs=1, Llama-8B").
// Not numbers: versions (v0.4.1, 2.9.0), #123, dates, times, shas, numbers in
// identifiers (fp8, e4m3, H100, bs=64), hardware counts (8x H100), dimensions
// (128x128), numbers in URLs and inline code, bare numbers without a unit.
std::vector<NumberFact> extract_numbers(std::string_view text, std::string_view source);

// The one figure that sums up a change's claim, from its title and body
// numbers, or empty:
//   - a speedup stated in prose ("2.3x faster"), the PR's own summary;
//   - a table whose columns are a before/after pair ("before"/"after",
//     "修改前"/"修改后", "baseline"/..., "old"/"new", "main"/"PR"): its first
//     row, "ROW: BEFORE a → AFTER b";
//   - a table of two rows (a baseline and the change): "COLUMN a → b", for
//     the first column of the strongest kind;
//   - else the first speedup, throughput, latency or memory figure of the
//     text whose sentence says something improved (faster, reduces, saves,
//     提升, ...): a figure that describes the problem or a test run is not
//     the change's effect (a bare percentage says too little out of context).
// Kinds rank speedup, throughput, latency, memory, percent.
std::string key_figure(const std::vector<NumberFact>& numbers);

// Whether the title or body claims a performance effect: a key figure (see
// above), or a before/after pair of a time, rate, size or percentage
// ("31.2 ms -> 24.9 ms"). A lone time that describes a run ("completed in
// ~45 minutes") claims nothing.
bool claims_performance(const std::vector<NumberFact>& numbers);

// Cautions on the numbers of one change:
//   "spread"        speedups (or same-signed performance percentages) that vary widely
//                   (max/min >= 1.3 for speedups; >= 2.5x and >= 10 points for percents);
//                   detail "<max as written> vs <min as written>". A 1.0x baseline row is
//                   not a claim and is ignored.
//   "no_benchmark"  a performance claim exists (a speedup, a performance percentage, or
//                   a latency, throughput or memory figure whose sentence says something
//                   improved) and `benchmark_changed` is false; detail
//                   lists up to three of the figures.
//   "single_point"  exactly one distinct speedup (or, without speedups, one performance
//                   percentage) is claimed and neither its sentences nor any sentence of
//                   `text` (the title and body, when given) names a condition (batch
//                   size, sequence length, concurrency, parallelism, hardware, model
//                   size); detail is the figure.
std::vector<NumberCaution> number_cautions(const std::vector<NumberFact>& numbers,
                                           bool benchmark_changed, std::string_view text = {});

// References in `text`: "#123", "PR 123", "owner/repo#123", GitHub pull/issue/commit URLs
// (a PR commit URL gives both the PR and the commit), other links (kind "url", images
// excluded), bare shas (7-40 lowercase hex with a letter and a digit, not inside a word),
// and versions ("v0.5.2", "sgl-kernel 0.3.9", "torch==2.9.0", "0.1.7"; text carries the
// package name when one precedes the version).
// Relation from the words before it in the same sentence: fixes/closes/resolves (修复) →
// "fixes"; follow-up to/after/reland/introduced by/regression from (跟进) → "follow_up";
// revert(s) (回滚), and anything inside the quotes of a `Revert "..."` line → "reverts";
// list continuations ("Fixes #1, #2 and #3") inherit the relation; else "mentions".
// `this_repo` ("owner/repo", case-insensitive) makes references to it local (repo empty).
// Deduplicated by kind (PR and issue share numbers) + repo + number/sha/version; the
// strongest relation wins (reverts > fixes > follow_up > mentions) and a URL's kind
// wins over a guessed one. The trailing "(#N)" of a squash title is NOT removed: callers
// drop references to the change's own number.
std::vector<Reference> extract_references(std::string_view text, std::string_view source,
                                          std::string_view this_repo);

// A file, path or code identifier named in text.
struct Mention {
  std::string text;         // as written, without call parentheses: "glm4_moe.py", "FusedMoE"
  std::string kind;         // "path" (has a '/'), "file" (a name with a known extension),
                            // "identifier"
  std::string sentence;     // the sentence it came from (clipped)
  bool backticked = false;  // written inside `code`
};

// Files and identifiers named in `text`, deduplicated by kind+text, in text order:
// single-token backticked spans (`x.py`, `a/b/`, `FusedMoE`, `foo()`, `--flag`), and
// outside backticks paths with a known extension or 2+ slashes, file names with a known
// extension, names followed by "(", snake_case names of 2+ parts, dotted names with a
// snake_case part, and CamelCase / lowerCamel names. Backticked spans with spaces
// (commands) and fenced code are skipped. Plain English words are never returned.
std::vector<Mention> extract_mentions(std::string_view text);

// Body vs code for one change (title, body, commit messages and files of `change`; a
// commit message that contains the whole body, as a squash message does, is read
// without that copy):
//   "named_not_touched"      a file the text names (a path or a name with an extension; a
//                            trailing '/' names a folder) that no changed path (or old
//                            path) matches by suffix or basename ("H20.json" also matches
//                            ".../E=64,device_name=H20.json"; vague two-part paths such as
//                            "owner/repo" are not checked), that no line of the diff names
//                            (a comment pointing at another library's file), and whose
//                            sentence does not name it as context ("see", "like", "passed",
//                            "upstream", ...). Identifiers are not reported: whether the
//                            text says the change writes one or only names the code around
//                            it cannot be read from the text. At most 12; nothing when the
//                            change has no files.
//   "touched_not_mentioned"  only when the body has >= 30 words (a CJK character counts
//                            half; template comments and task-list lines excluded): a
//                            top-level area (first two directory components) holding
//                            >= 40% and >= 50 of the changed lines, none of whose path
//                            components, file stems or their _/- parts (plural 's'
//                            ignored; generic ones like src/, utils/ and the repository's
//                            own name do not count) the title or body names.
// detail says where the subject was named, or how many lines the area holds.
std::vector<BodyMismatch> body_vs_code(const Change& change);

}  // namespace mergelens
