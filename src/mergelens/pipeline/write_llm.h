// Writing guides with a model: prompt (guide/prompt.h) → chat completion
// (llm/client.h) → JSON repair → schema → the citation check, which removes
// false sentences and keeps the rest (guide/citations.h) → validation and
// the judgment the model argued (guide/validate.h), asking once more when an
// answer is unusable or would lose much, and the offline writer as the
// fallback. Answers are cached in the store by (change content, facts,
// prompt version, model, language, budget, calls).
//
// A PR whose top focus regions do not fit one prompt is read in a bounded
// map-reduce: one notes call per group of regions, then one call that writes
// the guide from the checked notes (at most `max_calls` calls a PR,
// retries included). With both languages wanted, one call asks for both and
// each is checked on its own; a language the answer lacks or gets wrong is
// asked alone.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "mergelens/guide/guide.h"
#include "mergelens/guide/triage.h"
#include "mergelens/store/store.h"

namespace mergelens {

namespace llm {
class Client;
}

struct LlmOptions {
  size_t budget_tokens = 12000;  // per call
  int max_calls = 4;             // model calls a PR (all languages, retries included), >= 1
  bool bilingual = true;         // one call for zh and en when both are wanted
  // A clone holding the changes' merge commits, for citations of files and
  // names the change does not touch; empty = none.
  std::string clone_path;
};

struct LlmOutcome {
  int requests = 0;  // HTTP requests
  int calls = 0;     // chat completions (a retry is one more)
  long prompt_tokens = 0, completion_tokens = 0;
  bool cached = false;          // every guide came from the cache
  std::string plan;             // "single", "both", "split 3+1", ...
  std::string fallback_reason;  // empty when the model's guide was used (for every language)
};

class LlmWriter {
 public:
  // Neither `client` nor `store` is owned; both must outlive the writer.
  // Store calls are serialised by the writer.
  LlmWriter(llm::Client& client, Store& store, LlmOptions options);

  // Always returns a guide: the model's (checked) or the offline writer's
  // with `writer.fallback_reason` set. Thread-safe. `facts` are the
  // analysis's own; `triage` (not owned; null when the change's day has
  // none) is the day's triage the guide starts from (guide/triage_guide.h).
  Guide write(const Change& change, const Facts& facts, const std::string& lang,
              LlmOutcome* outcome, const TriageJudgment* triage = nullptr);
  // The zh and the en guide (in that order), from one answer when the model
  // manages both. Thread-safe.
  std::vector<Guide> write_both(const Change& change, const Facts& facts, LlmOutcome* outcome,
                                const TriageJudgment* triage = nullptr);

  std::string model() const;
  unsigned concurrency() const;
  const LlmOptions& options() const { return options_; }
  // Adds the client's request, retry, failure, token and cost totals.
  void fill_ledger(WriteRunRecord& ledger) const;

 private:
  struct Job;
  std::vector<Guide> write_langs(const Change& change, const Facts& facts,
                                 const std::vector<std::string>& langs, LlmOutcome* outcome,
                                 const TriageJudgment* triage);

  llm::Client& client_;
  Store& store_;
  LlmOptions options_;
  std::mutex store_mu_;
};

// Copies `client`'s request, retry, failure, token and cost totals into `ledger`.
void fill_ledger_from(const llm::Client& client, WriteRunRecord& ledger);

}  // namespace mergelens
