// The two languages of one answer: what the check removed in one is not
// left standing in the other. No I/O.
#pragma once

#include "mergelens/guide/citations.h"
#include "mergelens/guide/guide.h"

namespace mergelens {

// `a` and `b` are the two guides (zh and en) of one bilingual answer, each
// checked and pruned (`ra`, `rb`: what remove_failed_citations did to it).
// A list item the check removed whole in one language goes in the other
// too when the other's item at the same place drew no failure at all (it
// says the same thing in other words, which the check could not catch);
// lists of different lengths are not paired. Each removal is logged in the
// guide's writer.edits ("questions[3]: removed, as in the zh guide of the
// same answer"). Returns the number of items removed.
size_t agree_items(Guide& a, const PruneReport& ra, Guide& b, const PruneReport& rb);

}  // namespace mergelens
