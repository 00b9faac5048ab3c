// The writer's prompt leaking into a guide: "the facts flag …", "the excerpt
// stops before …", "事实部分显示 …", "摘录中未展示 …". A reader has no facts
// section and no excerpt, and "not shown" says nothing about the change (the
// reader sees all of it), so such words are rewritten away where a clause
// carries them ("According to the facts, X" → "X"; "(not shown in the
// excerpt)" dropped) and the sentence is removed where the claim is about
// the prompt itself. Both languages. Pure.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "mergelens/guide/citations.h"
#include "mergelens/guide/guide.h"

namespace mergelens {

// Rewrites the leading clauses and parentheses that only name the prompt,
// in every prose field of `guide`; records each rewrite in
// guide.writer.removed ("field: prompt words (rewritten): what"). Returns
// how many texts changed.
size_t rewrite_prompt_words(Guide& guide);

// Whether `sentence` speaks of the writer's prompt (its facts section, the
// excerpt, the material, what was or was not shown) rather than of the
// change. `allow_analysis`: "the analysis" may be named (the judgment's
// argument answers the analysis's verdict).
bool mentions_prompt(std::string_view sentence, bool allow_analysis = false);

// One failure per sentence of `guide` that still mentions the prompt
// (reason "refers to the writer's prompt, which a reader does not have"),
// for remove_failed_citations. check_guide() adds them to its report.
void find_prompt_leaks(const Guide& guide, std::vector<CitationFailure>& out);

}  // namespace mergelens
