// The offline writer: a guide from the analysis facts alone, no network.
//
// Every sentence is built from a fact (a signal, a definition, a focus
// region, a number, a gap, a reference), so the guide cites only what the
// change contains; an element the facts do not support is left empty.
#pragma once

#include <string_view>

#include "mergelens/analysis/facts.h"
#include "mergelens/guide/guide.h"
#include "mergelens/model/change.h"

namespace mergelens {

// Writes the guide of `change` in `lang` ("zh" or "en"; anything else is
// written in English). Never fails: a change without facts worth a sentence
// gets a short guide (headline, summary, verdict, scores, tags, source).
Guide write_offline_guide(const Change& change, const Facts& facts, std::string_view lang);

// Fills the fields every writer shares and that come from the facts, not the
// writer: verdict, tags, scores' values and the source (PR link, author,
// merge time).
void fill_from_facts(const Change& change, const Facts& facts, Guide& guide);

}  // namespace mergelens
