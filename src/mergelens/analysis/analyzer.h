// The analysis of one change: runs every detector in order and returns its
// Facts. Deterministic: the same change, context and analyzer version give the
// same facts.
#pragma once

#include <string>
#include <vector>

#include "mergelens/analysis/code/code_facts.h"
#include "mergelens/analysis/code/definition_fates.h"
#include "mergelens/analysis/facts.h"
#include "mergelens/analysis/judgment/scores.h"
#include "mergelens/analysis/repo_config.h"
#include "mergelens/analysis/text/threads.h"
#include "mergelens/model/change.h"

namespace mergelens {

struct AnalysisContext {
  std::string repo_name;       // "owner/repo": references to it count as local
  RepoConfig config;           // from mergelens.toml (empty when absent)
  std::vector<TagRule> rules;  // effective tag rules (defaults + labeler + config)
  FileReader read_new_file;    // new-file contents at the merge commit; may be empty
  VerdictThresholds thresholds;
  std::vector<Backlink> referenced_by;  // later changes naming this one (from the store)
  Reach reach;                          // the change's reach at its merge commit (pipeline)
  std::vector<SwitchFact> switches;     // its switches at the parent and the merge (pipeline)
  bool switches_known = false;
  std::vector<ContextItem> context;  // code around it at the parent and the merge (pipeline)
  // What the parser found of the definitions it removes, adds or re-signs
  // (pipeline; applied to the diff's definitions when context_known).
  std::vector<DefinitionFate> definition_fates;
  bool context_known = false;
  // The repository's stored history for thread links (pipeline); null: none.
  // Not owned; read-only while changes are analysed.
  const ThreadIndex* threads = nullptr;
};

// Builds a context from the repository's own files: `mergelens_toml` and
// `labeler_yml` are their texts (empty when the repository has none). A
// malformed file is an error naming it (kInvalidInput).
Result<AnalysisContext> make_context(std::string repo_name, std::string_view mergelens_toml,
                                     std::string_view labeler_yml);

// Analyses one change. Never fails: detectors skip what they cannot read.
Facts analyze_change(const Change& change, const AnalysisContext& context);

}  // namespace mergelens
