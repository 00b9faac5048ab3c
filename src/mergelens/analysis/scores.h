// Importance and insight scores (1–10, each with its reasons) and the verdict.
#pragma once

#include "mergelens/analysis/facts.h"
#include "mergelens/model/change.h"

namespace mergelens {

// Thresholds of the verdict, calibrated on the sglang history (see
// bench/README.md). A change is worth reading when importance + insight ≥
// close_sum with insight ≥ close_insight, or when insight > close_insight and
// importance ≥ 3; it is then a close read if its substantive code spans at
// most close_max_files files, else a selective read naming the files. Other
// changes are a selective read from selective_sum, a skim from skim_sum, else
// skipped.
struct VerdictThresholds {
  int close_sum = 12;
  int close_insight = 5;
  size_t close_max_files = 4;
  int selective_sum = 10;
  int skim_sum = 5;
};

// Fills facts.importance, facts.insight, facts.verdict and facts.verdict_scope
// from facts already computed (roles, signals, definitions, skim/cleanup,
// numbers, tests, focus, references).
void score_change(const Change& change, Facts& facts, const VerdictThresholds& t = {});

}  // namespace mergelens
