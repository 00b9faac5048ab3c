// The hand-set parts of the importance and insight scores, in one place, each
// with the reason it has: the insight's lesson weights and the thresholds of
// the importance rules. The importance rules' weights and the scale of both
// scores are fitted (score_fitted.h, bench/judgment/fit_scale.py). Internal
// to the analysis module (importance.cc, insight.cc). The figures they were
// checked against are in bench/README.md ("Judgment"); development sets come
// from other projects (vllm-ascend's release notes, its authors' title tags,
// reviewers' comment lines), never from sglang's release notes.
#pragma once

namespace mergelens::score_weights {

// ---- Insight: density of a reusable decision where a reader looks.
//
// Lessons are counted in the first kReadRegions focus regions of code files
// only (tests show a contract, they are never the lesson; docs and configs
// teach no design). Lessons within kDecisionGap lines of each other are one
// decision, worth its best lesson plus kRestOfDecision of the others;
// decisions add up with diminishing returns (kRepeatFactor). The total is
// divided by reading_cost = max(1, log2(1 + lines_to_read / kLinesPerUnit)),
// which grows with the lines of those regions, slowly, so a 12-line change
// with a stated reason beats a 5,000-line port with the same reason somewhere
// in it. The density is the raw insight; its place on the calibrated scale
// (score_fitted.h, docs/judgment.md) is the score.

inline constexpr int kReadRegions = 3;          // a reader reads the top few regions, not the PR
inline constexpr double kMinRegionShare = 0.2;  // ... each at least this share of the best one
inline constexpr double kLinesPerUnit = 12;     // a dozen lines cost one unit of attention
inline constexpr double kMaxLessons = 10;       // many small lessons do not make a masterpiece
inline constexpr int kDecisionGap = 4;          // lines between lessons of one decision
inline constexpr double kRestOfDecision = 0.3;  // the other lessons of one decision
inline constexpr double kRepeatFactor = 0.6;    // each further decision counts this much less

// Lessons.
inline constexpr double kFallback = 2.0;  // a guard that falls back: the decision is explicit
inline constexpr double kConcurrency =
    2.0;                                // locks, streams, events: hard to get right, worth copying
inline constexpr double kBranch = 1.5;  // dtype/device/platform branch: where hardware bites
inline constexpr double kGuard = 1.0;   // guard, raise, early return, try: a stated precondition
inline constexpr double kSwitch = 1.0;  // env var or flag: a decision left to the user
inline constexpr double kConstant = 0.5;     // tuned constant: a number, rarely reusable
inline constexpr double kAbstraction = 1.0;  // a new class or struct in the region
inline constexpr double kSignature = 0.5;    // a signature changed: the contract moved
// A one-for-one replacement says "this, not that"; the same edit made in
// several places (the same words brought in) counts once.
inline constexpr double kReplacement = 1.0;
// The author's own rationale: a comment that argues (because, to avoid,
// instead of, otherwise, ...: insight.cc) is the lesson stated, and a longer
// argument says a little more (one more point per kWordsPerPoint words, at
// most kArguedLength: a long comment alone is a routine lesson, 5–6, not a
// dense decision, 9–10, which a reader's check of offline scores found it
// was); one that only describes helps less; a docstring describes the
// contract.
inline constexpr double kArguedComment = 2.0;
// An argued comment of at least this many words is an argued decision the
// verdict can send a reader to ("only N lines in one place"); shorter ones
// ("# avoid sync") still count as lessons.
inline constexpr int kArguedWords = 8;
inline constexpr int kWordsPerPoint = 20;
inline constexpr double kArguedLength = 0.5;
inline constexpr double kPlainComment = 0.5;
inline constexpr double kDocstring = 0.5;
// A small change with a claimed large effect: the trick is in few lines.
inline constexpr int kSmallChangeLines = 40;
inline constexpr double kSmallChangeBigEffect = 1.5;

// Mechanical bulk: a region in a model port (an added model file), in a very
// large added file (vendored or dropped-in code), of repetitive data or of
// moved code teaches at this rate; a change that is mostly bulk is capped.
inline constexpr double kBulkRate = 0.4;
inline constexpr int kLargeAddedFile = 1500;  // added lines
inline constexpr double kBulkShare = 0.8;     // of the code lines
inline constexpr int kBulkCap = 4;

// ---- Importance: reach.
//
// Each rule below is a feature of the importance (importance.cc); the raw
// importance is their weighted sum, the weights fitted on release notes
// (score_fitted.h), so no one kind of evidence, least of all size, is
// weighted by hand. The rules:
//   reach      code on the main path, modules importing it, breadth, kernels
//   size       changed code lines: log10(1 + lines), and two thresholds
//   behaviour  a default moved, a new switch, public API, a request/response format
//   support    a new capability, model or hardware; a title that adds, a feature
//              tag, docs or tests that come with the code
//   evidence   claimed numbers, a reported problem fixed, correctness-critical
//              paths, reverts, later reverts and follow-ups
//
// 9–10 is what a release's highlights name (docs/judgment.md): without a new
// capability, model or hardware, a moved default or format, or a claimed gain
// on code most of the repository imports, importance stops here.
inline constexpr int kNoHighlightCap = 8;
//
// Reach is measured on the repository's import graph at the merge commit (Python imports,
// C/C++/CUDA includes): how many modules import the touched code files directly (seeing through
// package __init__ files). Transitive reach is no measure: in a package with re-exports nearly
// every file reaches nearly every other (sglang: median 1,796 of ~2,100 code files), while direct
// importers spread from 0 to hundreds (median 6, p90 237).

inline constexpr int kReachSome = 3;        // modules importing the touched code: reach_some
inline constexpr int kReachWide = 20;       // reach_wide
inline constexpr int kReachCore = 100;      // reach_core: a hub most of the code depends on
inline constexpr int kCodeLinesSome = 30;   // size_some from here
inline constexpr int kCodeLinesMany = 300;  // size_many from here
// A new capability (the title adds, supports or enables; at least this many
// new definitions in code).
inline constexpr int kCapabilityDefs = 2;
inline constexpr int kModulesBroad = 3;  // top-level modules touched: modules_broad

}  // namespace mergelens::score_weights
