// The state of writing one change's guides with a model (private to
// pipeline/write_llm*.cc): the citation index, the offline guides that stand
// in for what an answer loses, the calls left, and what was spent.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mergelens/guide/citations.h"
#include "mergelens/guide/prompt.h"
#include "mergelens/guide/triage.h"
#include "mergelens/llm/client.h"
#include "mergelens/pipeline/write_llm.h"
#include "mergelens/source/tree_lookup.h"

namespace mergelens::write_llm_detail {

struct Job {
  const Change& change;
  const Facts& facts;  // the analysis's own
  // The day's triage the guides start from, when there is one.
  std::optional<TriageJudgment> triage;
  llm::Client& client;
  const LlmOptions& options;
  std::string model;
  LlmOutcome& out;
  std::unique_ptr<TreeLookup> tree;  // before `index`, whose lookups use it
  std::unique_ptr<CitationIndex> index;
  std::map<std::string, Guide> offline;  // by language, checked, from start_facts
  std::map<std::string, Facts> start;    // by language: where the judgment starts
  std::vector<std::string> injected;
  int calls_left = 0;
  std::vector<std::string> notes_removed;  // what the notes check removed
  std::vector<ContextText> context;        // the code around the change the prompts show

  Job(const Change& c, const Facts& f, llm::Client& cl, const LlmOptions& o, std::string m,
      LlmOutcome& out, const TriageJudgment* t);
  const Guide& offline_guide(const std::string& lang);
  // The judgment a guide in `lang` starts from: the triage's over the
  // analysis's facts (guide/triage_guide.h start_facts), else the facts.
  const Facts& start_facts(const std::string& lang);
  const TriageJudgment* triage_or_null() const { return triage ? &*triage : nullptr; }
};

// What processing an answer did, for putting two languages side by side.
using Pruned = PruneReport;

// One exchange with the model: the answer's guide for each language asked
// (checked, pruned and finished), or why it is unusable.
struct Answer {
  std::map<std::string, Guide> guides;
  std::map<std::string, Pruned> pruned;       // what the check removed from each
  std::map<std::string, nlohmann::json> raw;  // the answer each guide came from (for the cache)
  std::map<std::string, std::string> problems;
  bool transport_failed = false;  // the request itself failed for good
};

// Asks `prompt` for `langs` ({"zh"}, {"en"} or {"zh", "en"} as one bilingual
// answer), once more when an answer is unusable or the check would remove
// much and a call is left.
Answer ask(Job& job, const Prompt& prompt, const std::vector<std::string>& langs);

// The guide of a cached answer (one language's part), checked and finished
// as a fresh one is; nullopt when it is no longer usable (then ask again).
std::optional<Guide> from_cached(Job& job, const nlohmann::json& raw, const std::string& lang,
                                 Pruned* pruned = nullptr);

// The model's answer schema for `langs`.
nlohmann::json answer_schema(const std::vector<std::string>& langs);

}  // namespace mergelens::write_llm_detail
