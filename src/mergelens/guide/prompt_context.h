// The code around a change as the model writer shows it (private to guide/):
// the context items of the facts with their text, and the switches with their
// declarations before and after, under their own heading; and the list of
// what the prompt leaves out, so the model asks instead of asserting.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "mergelens/analysis/facts.h"
#include "mergelens/guide/prompt.h"
#include "mergelens/model/change.h"

namespace mergelens::prompt_detail {

struct ContextSection {
  std::string text;                   // "" when there is nothing to show
  std::vector<std::string> left_out;  // "function `x` (pkg/a.py:10-90, called)" not shown
  size_t tokens = 0;
};

// The section within `budget` estimated tokens: the switches first (one line
// each), then the items in the facts' order, each whole when it fits and has
// at most kWholeLines lines, else its head (signature and docstring) with the
// number of lines left out; items that do not fit at all are listed in
// left_out. Fenced as untrusted data (repository code may hold anything).
ContextSection context_section(const Change& c, const Facts& f,
                               const std::vector<ContextText>& texts, long budget);

// Estimated tokens of the whole section (every item whole).
size_t context_cost(const Change& c, const Facts& f, const std::vector<ContextText>& texts);

// "## What you were not shown" with the files and context left out, or ""
// when the prompt shows everything.
std::string not_shown_section(const std::vector<std::string>& files,
                              const std::vector<std::string>& context);

inline constexpr int kWholeLines = 80;

}  // namespace mergelens::prompt_detail
