// A guide as Markdown: what `show` prints and what digests post elsewhere.
#pragma once

#include <string>

#include "mergelens/guide/guide.h"

namespace mergelens {

// Renders every non-empty element of `g` in its language, headline first, the
// original PR link with author and merge time last. Text from the guide is
// emitted as written (it is Markdown already: code in backticks).
std::string guide_to_markdown(const Guide& g);

}  // namespace mergelens
