// Focus ranking: which lines of a change a careful reader should read first.
#pragma once

#include "mergelens/analysis/facts.h"
#include "mergelens/model/change.h"

namespace mergelens {

// Scores every hunk of facts.hunks (filling score and reasons) from the file
// roles, signals, definitions, moved-code marks and skim list already in
// `facts`; merges nearby hunks of a file into regions; and fills facts.focus
// (best first, at most 8, each at least a fifth of the best) and
// facts.lines_worth_reading (changed lines in the regions scoring at least
// half of the best, at most 3 regions). The weights are documented in focus.cc.
void rank_focus(const Change& change, Facts& facts);

}  // namespace mergelens
