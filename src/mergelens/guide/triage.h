// Triage: a model judges a day's changes by comparing them with each other.
//
// One prompt carries every change of a batch (a repository-day, or part of a
// busy one): title, author, labels, the first lines of the description, size
// and largest paths, reach, the author's own argued comment, and the
// analysis's scores with their reasons. The model answers with the batch in
// order, most worth reading first, each with importance and insight on the
// calibrated scale of docs/judgment.md, a verdict with its scope and a
// one-line reason in Chinese and English. Everything a PR's author wrote is
// fenced as untrusted data. No I/O: pipeline/triage.h runs the calls.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "mergelens/analysis/facts.h"
#include "mergelens/guide/prompt.h"
#include "mergelens/model/change.h"
#include "mergelens/util/error.h"

namespace mergelens {

// Part of the triage cache key: bump when the prompt's wording or layout changes.
inline constexpr std::string_view kTriagePromptVersion = "triage-2";

// Estimated prompt tokens a change takes in a triage prompt on average (the
// longest entries lose detail first when a batch would take more): with the
// fixed part (~1,350), a 50-change day stays under 10k.
inline constexpr size_t kTriageTokensPerChange = 170;
// A quiet day's entries may take this much in all, so they keep full detail.
inline constexpr size_t kTriageQuietDayTokens = 4000;
// A busy day's part lists the other parts' PRs by title within this much.
inline constexpr size_t kTriageOtherPartsTokens = 2500;

// One change of a batch. Neither pointer is owned; both outlive the call.
struct TriageInput {
  std::int64_t change_id = 0;
  const Change* change = nullptr;
  const Facts* facts = nullptr;
  // The changes it belongs with, as one line ("reverts #12; part 2/3 with
  // #10"); empty when none (report/threads.h's links, computed by the pipeline).
  std::string thread;
};

// The id a triage prompt gives a change and the model answers with: "#N" for
// a pull request, else the first 10 characters of its sha.
std::string triage_ref(const Change& change);
// The ids of a batch, each once: a second change with the same number (a
// reused "(#N)") is named by its sha.
std::vector<std::string> triage_refs(std::span<const TriageInput> inputs);

// The prompt for one batch of `repo`'s day `day` ("YYYY-MM-DD"), batch
// `batch` (1-based) of `batches`. The entries take kTriageTokensPerChange
// estimated tokens each on average at most. `other_parts`: the day's PRs in
// the other batches, one "#N title" line each, listed inside the fence for
// comparison (within kTriageOtherPartsTokens). The answer schema is
// triage_answer_schema(). Never fails.
Prompt build_triage_prompt(std::string_view repo, std::string_view day, int batch, int batches,
                           std::span<const TriageInput> inputs,
                           std::span<const std::string> other_parts = {});

// The JSON schema of a triage answer (for response_format json_schema).
nlohmann::json triage_answer_schema();

// The completion tokens a triage answer of `changes` items may need: each
// item's fields at their longest (the format's word and character limits)
// with room to spare, within the 16,384 a call may ask.
int triage_completion_budget(size_t changes);

// The model's judgment of one change.
struct TriageJudgment {
  std::int64_t change_id = 0;
  int rank = 0;  // 1-based place in the batch
  int importance = 0, insight = 0;
  Verdict verdict = Verdict::kSkim;
  // How much to read and where, in English (`scope`) and Chinese; the
  // reasons likewise. Any may be empty (skims and skips have no scope).
  std::string scope, scope_zh, reason_zh, reason_en;
};

struct TriageAnswer {
  std::vector<TriageJudgment> items;  // in the model's order, ranks 1..n
  std::vector<std::int64_t> missing;  // inputs the answer did not judge (they keep the analysis's)
  // What the answer held that could not be used, one line each: a PR that is
  // not in the batch, a repeated PR, an item with a bad value, a text field
  // citing a backticked name the PR's entry does not show (the field is
  // dropped, the judgment kept).
  std::vector<std::string> dropped;
};

// Reads the model's answer for `inputs`. Items naming a change outside the
// batch, repeated items and items with a missing or out-of-range value are
// dropped (and said in `dropped`); changes without a usable item are
// `missing`. Failure: kCorrupt when the answer is not an object with a
// "prs" list, or when no item is usable.
Result<TriageAnswer> parse_triage_answer(const nlohmann::json& answer,
                                         std::span<const TriageInput> inputs);

}  // namespace mergelens
