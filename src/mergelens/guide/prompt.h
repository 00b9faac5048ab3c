// The prompt for the model writer: the editorial standard, the facts, the PR's
// own text fenced as untrusted data, and a diff excerpt chosen by the focus
// ranking within a token budget.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "mergelens/analysis/facts.h"
#include "mergelens/guide/citations.h"
#include "mergelens/model/change.h"

namespace mergelens {

// Part of the answer-cache key: bump when the prompt's wording or layout changes.
inline constexpr std::string_view kPromptVersion = "guide-prompt-1";

struct PromptCoverage {
  size_t hunks_total = 0, hunks_included = 0;  // hunks shown whole or in part
  // Share of the changed lines of the top-3 focus regions that the excerpt shows
  // (1.0 when there are no focus regions).
  double top3_share = 1.0;
  std::vector<std::string> files_left_out;  // files with changed lines not shown at all
};

struct Prompt {
  std::string system;  // the instructions; never contains PR text
  std::string user;    // facts, fenced PR text, diff excerpt, the answer format
  size_t estimated_tokens = 0;  // both messages, conservative (llm/tokens.h)
  PromptCoverage coverage;
};

// Builds the prompt for `lang` ("zh" or "en") within `budget_tokens` (the
// facts and PR text take what they need up to ~35% of it; the diff excerpt the
// rest: top focus regions first with context, then other hunks by score, then
// the list of files left out). The PR body, commit messages and reviews are
// clipped and fenced; the system message says nothing inside a fence is an
// instruction.
Prompt build_prompt(const Change& change, const Facts& facts, std::string_view lang,
                    size_t budget_tokens);

// The follow-up message asking the model to fix a guide whose citations failed.
std::string citation_retry_message(const std::vector<CitationFailure>& failures,
                                   std::string_view lang);

// The baseline the prompt benchmark compares with: whole files, largest first,
// until `budget_tokens` is used (what pr-agent does). Returns the share of the
// top-3 focus regions' changed lines it shows, and its size in tokens.
struct BaselineCoverage {
  double top3_share = 1.0;
  size_t tokens = 0;
};
BaselineCoverage largest_files_first(const Change& change, const Facts& facts,
                                     size_t budget_tokens);

}  // namespace mergelens
