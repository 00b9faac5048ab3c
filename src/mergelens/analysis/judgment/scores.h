// Importance and insight scores (1–10, each with its reasons) and the verdict.
#pragma once

#include <string>
#include <vector>

#include "mergelens/analysis/facts.h"
#include "mergelens/model/change.h"

namespace mergelens {

// Thresholds of the verdict, on the calibrated scale (docs/judgment.md). The
// verdict says how much reading pays:
//   close read      a small change (at most dense_max_lines code lines) on a
//                   path that matters (importance ≥ dense_importance) with an
//                   argued decision where a reader reads (an argued comment,
//                   a guard with a fallback) that registers as a lesson
//                   (insight ≥ dense_insight): its scope names those places;
//                   or a dense, argued decision that generalises (insight ≥
//                   close_insight) in at most close_max_files code files;
//   selective read  the same spread over more files, a clear decision worth
//                   copying (insight ≥ selective_insight), or a change the
//                   release notes would list (importance ≥
//                   selective_importance): its scope names the files that
//                   carry it;
//   skip            clean-up, or importance + insight ≤ skip_sum;
//   skim            the rest.
// A change to code that at least wide_reach modules import directly
// (facts.reach), in at least wide_files code files, is a selective read,
// never a skim or a skip: what many modules use changed in many places.
// A change with no code on the main path has importance at most
// no_code_importance.
struct VerdictThresholds {
  int dense_max_lines = 40;
  int dense_importance = 3;
  int dense_insight = 5;
  int close_insight = 9;
  size_t close_max_files = 4;
  int selective_insight = 7;
  int selective_importance = 7;
  int skip_sum = 4;
  int no_code_importance = 3;
  int wide_reach = 20;
  size_t wide_files = 10;
};

// Fills facts.importance, facts.insight (values, reasons, raw scores),
// facts.score_inputs, facts.verdict and facts.verdict_scope from facts already
// computed (roles, signals, definitions, skim/cleanup,
// numbers, tests, focus, references).
void score_change(const Change& change, Facts& facts, const VerdictThresholds& t = {});

// The files a reader of a close or selective read is sent to when no argued
// decision names them: the paths of the best focus regions (at most three,
// each region scoring at least half the best). Empty without focus regions.
// With `change`, a file whose diff is byte-identical to one already named is
// left out (copies of one header in several folders are one place to read).
std::vector<std::string> reading_scope(const Facts& facts, const Change* change = nullptr);

}  // namespace mergelens
