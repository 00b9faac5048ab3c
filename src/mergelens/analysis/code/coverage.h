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
//  - a "test" gap for each code file with a new path (an added guard,
//    fallback, handled exception, dtype/device/platform branch, early return,
//    raise or check, outside moved hunks; not an `assert NAME is not None`
//    right after `NAME = value`, which narrows a type and tests no input)
//    that no changed test covers (by name, an
//    import of its module, or a call of what it defines), at most 3,
//    strongest first; detail "N changed lines with K new branches or guards;
//    first: DETAIL; ..." with the first such signal's detail. Files that only
//    delete, and files without a new path, have none: there is no branch for
//    a test to take;
//  - a "benchmark" gap when the text claims a figure (key_figure) and no
//    benchmark file changed.
void find_coverage(const Change& change, Facts& facts);

}  // namespace mergelens
