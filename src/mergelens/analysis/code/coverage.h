// Tests and benchmarks: which tests a change adds or edits, what code they
// most likely cover, and what changed code has no test or measurement near it.
#pragma once

#include "mergelens/analysis/facts.h"
#include "mergelens/model/change.h"

namespace mergelens {

// Fills facts.tests and facts.gaps from the change, facts.roles,
// facts.signals, facts.numbers and facts.skim:
//  - every changed test file, with the code file it covers (same stem:
//    test_foo.py / foo_test.cc / foo.spec.ts ↔ foo.*, or the code file whose
//    path shares the most components);
//  - a "test" gap for each substantive code file (≥ 10 changed lines, or a
//    guard/fallback/branch signal) that no changed test covers, at most 3,
//    strongest first;
//  - a "benchmark" gap when the text claims a performance number and no
//    benchmark file changed.
void find_coverage(const Change& change, Facts& facts);

}  // namespace mergelens
