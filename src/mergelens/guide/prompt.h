// The prompts of the model writer: the editorial standard, the facts, the
// PR's own text fenced as untrusted data, and a diff excerpt chosen by the
// focus ranking within a token budget.
//
// A PR whose top focus regions do not fit one prompt is read in several
// calls (a bounded map-reduce): one notes call per group of regions, each
// within the budget, then one call that writes the guide from the checked
// notes and a short excerpt (plan_split, build_notes_prompt,
// build_reduce_prompt). Any prompt may ask for both languages in one answer
// (lang "both").
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mergelens/analysis/facts.h"
#include "mergelens/guide/citations.h"
#include "mergelens/model/change.h"

namespace mergelens {

struct TriageJudgment;  // guide/triage.h

// Part of the answer-cache key: bump when the prompt's wording or layout changes.
inline constexpr std::string_view kPromptVersion = "guide-prompt-7";

// A context item of the facts (Facts::context) with its lines, read by the
// pipeline from the clone at the item's revision (pipeline/context_text.h).
struct ContextText {
  ContextItem item;
  std::string text;  // lines start_line..end_line, each ending in '\n'
};

// The focus regions a prompt is judged by: a single prompt is enough when it
// shows (90 % of the changed lines of) each of the top ones.
inline constexpr size_t kTopRegions = 8;

// The largest number of notes a notes call asks for (kNotesFormat).
inline constexpr size_t kMaxNotes = 8;

struct PromptCoverage {
  size_t hunks_total = 0, hunks_included = 0;  // hunks shown whole or in part
  // Share of the changed lines of the top-3 focus regions that the excerpt shows
  // (1.0 when there are no focus regions).
  double top3_share = 1.0;
  size_t top_regions = 0;                   // min(kTopRegions, focus regions)
  size_t top_regions_shown = 0;             // of them, shown (90 % of their changed lines)
  std::vector<std::string> files_left_out;  // files with changed lines not shown at all
};

struct Prompt {
  std::string system;           // the instructions; never contains PR text
  std::string user;             // facts, fenced PR text, diff excerpt, the answer format
  size_t estimated_tokens = 0;  // both messages, conservative (llm/tokens.h)
  PromptCoverage coverage;
  int max_tokens = 4096;  // for the answer
};

// Builds the prompt for `lang` ("zh", "en", or "both": one answer holding
// {"zh": guide, "en": guide}) within `budget_tokens`. The facts and PR text
// take what they need up to ~35% of it; the rest goes to the diff and the
// code around it (`context`, with the facts' switches) under its own
// heading. The whole diff is shown when it fits beside the context (files
// in order, tests last); otherwise the context takes at most a quarter of
// the rest and the excerpt the remainder: code focus regions first, then
// tests' regions, then other hunks by score (tests after code), never
// cutting a definition that would fit whole. What is left out (files,
// hunks cut, context items) is listed at the end under "What you were not
// shown", with the instruction to ask rather than assert about it. The PR
// body, commit messages and reviews are clipped and fenced; the system
// message says nothing inside a fence is an instruction. `facts` are the
// analysis's own; `triage`, when the change's day has one (not owned, may
// be null), gets a section of its own labelled as a model's earlier
// judgment (guide/triage_guide.h), and the answer is asked to start from it.
Prompt build_prompt(const Change& change, const Facts& facts, std::string_view lang,
                    size_t budget_tokens, const std::vector<ContextText>& context = {},
                    const TriageJudgment* triage = nullptr);

// The notes calls of a large PR: groups of focus-region indexes (into
// facts.focus), at most max_calls - 1 of them, within the budget of one call
// each. Every top region (kTopRegions) gets a place and a share of its
// call; a region larger than its share shows its head; room left takes
// further regions whole. nullopt when the single prompt already shows the top
// regions, when there is nothing to split, or when max_calls < 3 (a split
// needs at least two notes calls to show more than one prompt does).
struct SplitPlan {
  std::vector<std::vector<size_t>> groups;
  // Per region of each group, the tokens it may take (a large region shows
  // its head, so every planned region gets a share); 0 = whole.
  std::vector<std::vector<long>> caps;
  size_t regions_planned = 0;  // regions in the groups
  size_t regions_single = 0;   // top regions the single prompt would show
};
std::optional<SplitPlan> plan_split(const Change& change, const Facts& facts, size_t budget_tokens,
                                    int max_calls);

// The prompt of notes call `group` (0-based) of `plan`; its answer is
// {"notes": [...], "skim": [...]} (guide/notes.h).
// A call asked again after an answer cut off at its token limit asks for
// fewer notes (`max_notes`, at most kMaxNotes).
Prompt build_notes_prompt(const Change& change, const Facts& facts, const SplitPlan& plan,
                          size_t group, size_t budget_tokens,
                          const std::vector<ContextText>& context = {},
                          size_t max_notes = kMaxNotes);

// The prompt that writes the guide (in `lang`, as build_prompt) from the
// notes of the notes calls, rendered as text by render_notes (guide/notes.h),
// with an excerpt of the top regions in the budget left.
Prompt build_reduce_prompt(const Change& change, const Facts& facts, std::string_view lang,
                           std::string_view notes, size_t budget_tokens,
                           const std::vector<ContextText>& context = {},
                           const TriageJudgment* triage = nullptr);

// The completion tokens an answer may need, sized from its schema and item
// counts (each field at the length the answer format asks, with a third to
// spare): a guide in one language or both; a notes answer of `notes` notes.
int guide_completion_budget(std::string_view lang);
int notes_completion_budget(size_t notes);

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
