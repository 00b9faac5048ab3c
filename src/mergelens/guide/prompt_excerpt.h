// The diff excerpt of a model prompt (private to guide/): focus regions
// first with a few lines of context, then other hunks by focus score, within
// a token budget, and the list of files it leaves out.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "mergelens/analysis/facts.h"
#include "mergelens/guide/prompt.h"
#include "mergelens/model/change.h"

namespace mergelens::prompt_detail {

struct Excerpt {
  std::string diff;               // the rendered excerpt (numbered lines)
  std::vector<std::string> left;  // "  path (+a -d[, binary|, clean-up])" of files not shown
  PromptCoverage coverage;        // filled for the whole change
  long remaining = 0;             // budget left after the excerpt
};

// Renders `regions` (indexes into facts.focus, in that order) with context;
// then, when `other_hunks`, every other hunk that fits, best score first
// (clean-up files never). Never exceeds `budget` estimated tokens: a region
// that does not fit is cut line by line and marked. `caps[i]`, when given and
// positive, bounds what regions[i] may take (its head is shown).
Excerpt build_excerpt(const Change& c, const Facts& f, const std::vector<size_t>& regions,
                      long budget, bool other_hunks, const std::vector<long>& caps = {});

// Estimated tokens of rendering focus region `k` alone with its context.
size_t region_cost(const Change& c, const Facts& f, size_t k);

// The facts section and the fenced PR text of every prompt. The facts'
// trusted head (repository, reference, sizes, verdict, scores) stands
// outside the fence; every fact that quotes the PR is fenced, clipped so
// the section estimates about `tokens` at most.
std::string facts_section(const Change& c, const Facts& f, size_t tokens = SIZE_MAX);
std::string untrusted_section(const Change& c, const std::string& fence, size_t tokens);
std::string clip_tokens(std::string_view text, size_t tokens);
// Whole lines while they fit `tokens`, then "[… N more lines of facts not
// shown]"; a quote cut after a sentence or between words, marked "…".
std::string clip_lines(std::string_view text, size_t tokens);
std::string clip_quote(std::string_view text, size_t bytes);
std::string replace_all(std::string s, std::string_view from, std::string_view to);
std::string fence_of(const Change& c);
// The position of each line of a hunk in the new file ('-' lines sit where
// they used to be).
std::vector<std::int32_t> positions(const Hunk& h);

}  // namespace mergelens::prompt_detail
