// Importance and insight scores (1–10, each with its reasons) and the verdict.
#pragma once

#include "mergelens/analysis/facts.h"
#include "mergelens/model/change.h"

namespace mergelens {

// Thresholds of the verdict, set for the share of each verdict over the
// sglang history (see bench/README.md, "Judgment": about 7 % close reads, so a
// 45-PR day carries a handful). A change is worth reading when importance +
// insight ≥ close_sum with insight ≥ close_insight, or when insight ≥
// dense_insight and importance ≥ dense_importance (a dense lesson on a path
// that matters); it is then a close read if its substantive code spans at
// most close_max_files files, else a selective read naming the files. Other
// changes are a selective read from selective_sum, a skim from skim_sum, else
// skipped.
struct VerdictThresholds {
  int close_sum = 13;
  int close_insight = 5;
  int dense_insight = 7;
  int dense_importance = 3;
  size_t close_max_files = 4;
  int selective_sum = 12;
  int skim_sum = 5;
};

// Fills facts.importance, facts.insight, facts.verdict and facts.verdict_scope
// from facts already computed (roles, signals, definitions, skim/cleanup,
// numbers, tests, focus, references).
void score_change(const Change& change, Facts& facts, const VerdictThresholds& t = {});

}  // namespace mergelens
