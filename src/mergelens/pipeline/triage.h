// The triage job: each repository-day's analysed changes → one model call
// per batch (guide/triage.h) → triage records in the store.
//
// A day (UTC) with more changes than `batch_size` is split into equal
// batches of consecutive merges; the day's order then interleaves the
// batches by verdict, importance and insight, the model's order breaking
// ties. Answers are cached by the prompt (an unchanged day makes no request
// on a re-run) and the calls go through the same client, ledger, budget and
// rate limit as guide calls. A batch whose call fails for good, or whose
// answer is unusable after one retry, stores nothing: its changes keep the
// analysis's judgment, and the report says why. An answer cut off at its
// token limit is asked again in two halves. The scopes and reasons a
// reader will see are checked against each change as a guide's claims are
// (guide/triage_guide.h check_triage_texts) before they are stored.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mergelens/guide/triage.h"
#include "mergelens/store/store.h"

namespace mergelens {
namespace llm {
class Client;
}

struct TriageOptions {
  size_t batch_size = 60;                   // changes per call at most (>= 1)
  std::optional<UnixSeconds> since, until;  // merged_at window; none = every analysed change
  std::vector<std::string> days;            // when not empty, only these UTC days
  bool force = false;                       // ask again even when the answer is cached
  // When set, no model is asked: each batch's request (messages and schema)
  // is written to this folder as DAY-BATCH.request.json, for inspection or
  // to be answered elsewhere.
  std::string dump_dir;
};

struct TriageReport {
  size_t days = 0, batches = 0;
  size_t calls = 0;    // chat completions (a retry is one more)
  size_t cached = 0;   // batches answered from the cache: no request
  size_t failed = 0;   // batches without a usable answer (analysis's judgment stands)
  size_t judged = 0;   // changes given a triage
  size_t missing = 0;  // changes a usable answer left out
  long prompt_tokens = 0, completion_tokens = 0;
  size_t max_prompt_tokens = 0;       // the largest prompt's estimate
  std::vector<std::string> problems;  // one line per failed batch or dropped item
  size_t texts_removed = 0;           // scope and reason sentences the citation check removed
  size_t split_truncated = 0;         // batches cut off at the token limit and asked in halves
};

// Triages `repo`'s days. `client` is not owned. Fails only on store errors
// (days already stored stay stored); model failures are counted in the
// report, not errors.
Result<TriageReport> triage_days(Store& store, const RepoRecord& repo, llm::Client& client,
                                 const TriageOptions& options);

// The stored triage of a change as the guide writers read it
// (guide/triage_guide.h): its verdict, scores, scopes and reasons; nullopt
// when the record's verdict or scores are not valid.
std::optional<TriageJudgment> triage_judgment_of(const TriageRecord& triage);

// The UTC days ("YYYY-MM-DD") of `ids`' merges, each once, oldest first.
Result<std::vector<std::string>> triage_days_of(Store& store, std::span<const std::int64_t> ids);

}  // namespace mergelens
