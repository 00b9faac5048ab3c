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
  std::vector<std::string> cut;   // "  path: new-file lines a-b (cut for room)" of hunks cut
  PromptCoverage coverage;        // filled for the whole change
  long remaining = 0;             // budget left after the excerpt
};

// Renders `regions` (indexes into facts.focus, in that order) with context;
// then, when `other_hunks`, every other hunk that fits, best score first
// (clean-up files never; hunks of test files after the others). Never
// exceeds `budget` estimated tokens: a piece that does not fit is cut line
// by line and marked, and the cut moves back to the start of the definition
// it would split when that definition fits the piece's room whole (a part
// never ends mid-function when the function fits). `caps[i]`, when given
// and positive, bounds what regions[i] may take (its head is shown).
Excerpt build_excerpt(const Change& c, const Facts& f, const std::vector<size_t>& regions,
                      long budget, bool other_hunks, const std::vector<long>& caps = {});

// The whole diff, every hunk whole, files in the change's order with tests
// last (clean-up files too). Its coverage is full.
Excerpt whole_diff(const Change& c, const Facts& f);

// Focus-region indexes in focus order, regions in test files after the others.
std::vector<size_t> code_first(const Facts& f, std::vector<size_t> regions);

// Where a cut of hunk lines [from, to) after line k-1 may move back to: the
// start of the innermost definition the cut would split (decorators
// included), or `from` when none; and where that definition ends.
size_t definition_start(const Hunk& h, Language lang, size_t from, size_t k, size_t to);
size_t definition_end(const Hunk& h, Language lang, size_t j, size_t to);

// Estimated tokens of rendering focus region `k` alone with its context.
size_t region_cost(const Change& c, const Facts& f, size_t k);

// The facts section and the fenced PR text of every prompt. The facts'
// trusted head (repository, reference, sizes, verdict, scores) stands
// outside the fence; every fact that quotes the PR is fenced, clipped so
// the section estimates about `tokens` at most.
std::string facts_section(const Change& c, const Facts& f, size_t tokens = SIZE_MAX);
std::string untrusted_section(const Change& c, const std::string& fence, size_t tokens);
std::string clip_tokens(std::string_view text, size_t tokens);
// Whole lines while they fit `tokens`, then "[… N more lines of WHAT not
// shown]"; a quote cut after a sentence or between words, marked "…".
std::string clip_lines(std::string_view text, size_t tokens, std::string_view what = "facts");
std::string clip_quote(std::string_view text, size_t bytes);
std::string replace_all(std::string s, std::string_view from, std::string_view to);
std::string fence_of(const Change& c);
// The position of each line of a hunk in the new file ('-' lines sit where
// they used to be).
std::vector<std::int32_t> positions(const Hunk& h);

}  // namespace mergelens::prompt_detail
