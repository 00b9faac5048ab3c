// What the number reader (text_numbers.cc) shares with the cautions on the
// numbers (text_cautions.cc). Internal to the analysis module.
#pragma once

#include "mergelens/analysis/text/text_doc.h"

namespace mergelens::text_detail {

// True when `sentence` speaks of performance (speed, latency, throughput,
// memory, a benchmark; English or Chinese), so a percentage in it is a claim.
// Pure; never fails.
bool perf_context(sv sentence);

}  // namespace mergelens::text_detail
