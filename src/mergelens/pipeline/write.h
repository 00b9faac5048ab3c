// The write job: analysed changes → guides → store.
//
// For every analysed change that needs a guide in a language (none stored,
// stale, or — with `use_llm` — not written by a model), writes one and stores
// it, in batches of one transaction each, so an interrupted run resumes where
// it stopped. The offline writer is the default. With `use_llm`, each guide is
// asked of the model (see write_llm.h); when the model fails for good, the
// offline writer writes it instead and the guide records why: a run never
// leaves a change without a guide.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "mergelens/pipeline/triage.h"
#include "mergelens/store/store.h"
#include "mergelens/util/progress.h"

namespace mergelens {

namespace llm {
class Client;
}

struct WriteOptions {
  std::vector<std::string> langs{"zh"};  // "zh", "en"
  bool force = false;                    // rewrite guides that are current
  size_t batch_size = 16;
  // The model to ask; nullptr writes offline. Not owned.
  llm::Client* client = nullptr;
  size_t budget_tokens = 12000;  // prompt budget for the diff excerpt and facts, per call
  int max_calls = 4;             // model calls a PR (a large PR is read in several)
  bool bilingual = true;         // with zh and en, one model call for both
  // When not empty, only these change ids are considered (each still only
  // when it needs a guide, or with `force`).
  std::vector<std::int64_t> only;
  // With a model: triage the days of the changes to write first
  // (pipeline/triage.h), so each guide starts from the day's judgment.
  bool triage = true;
  size_t triage_batch = 60;
};

struct WriteReport {
  size_t written = 0;    // guides stored
  size_t offline = 0;    // written by the offline writer (fallbacks included)
  size_t llm = 0;        // written from a model answer (cached ones included)
  size_t cached = 0;     // model answers taken from the cache: no request made
  size_t fallbacks = 0;  // model asked but failed for good; offline guide stored
  size_t removed_citations = 0;
  std::map<std::string, size_t> fallback_reasons;  // reason → count
  WriteRunRecord ledger;                           // what was recorded in the store's ledger
  std::optional<TriageReport> triage;              // when the days were triaged first
};

// The offline writer's guide for one change with its citations checked (any
// failing citation removed), as write_guides stores it. Also used by the
// worker's write jobs (pipeline/worker.h). `facts` are the analysis's own;
// with the day's `triage` (not owned, may be null) the guide shows the
// triage's judgment (guide/triage_guide.h start_facts) and records whose
// judgment is whose.
Guide write_checked_offline(const Change& change, const Facts& facts, const std::string& lang,
                            const TriageJudgment* triage = nullptr);

// Fails only on store errors (guides of batches already committed stay
// stored); model failures are fallbacks, not errors.
Result<WriteReport> write_guides(Store& store, const RepoRecord& repo, const WriteOptions& options,
                                 Progress* progress);

}  // namespace mergelens
