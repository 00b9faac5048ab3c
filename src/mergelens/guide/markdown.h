// A guide as Markdown: what `show` prints and what digests post elsewhere.
#pragma once

#include <string>

#include "mergelens/guide/guide.h"

namespace mergelens {

// Renders every non-empty element of `g` in its language, headline first, the
// original PR link with author and merge time last. Text from the guide is
// emitted as written (it is Markdown already: code in backticks).
std::string guide_to_markdown(const Guide& g);

// Whose judgment is whose, one italic line each, in the guide's language,
// every verdict in words: the day's model triage (its verdict, scores,
// scope and reason) when the guide started from one, the analysis's when it
// differs from the judgment shown, and the guide's model's argument when it
// moved its judgment. Empty when there is nothing to say.
std::string judgment_lines(const Guide& g);
// The triage's line alone (empty when g.triage has no verdict).
std::string triage_markdown(const Guide& g);

}  // namespace mergelens
