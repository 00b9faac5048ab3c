// The analyze job: stored changes → facts → store.
//
// Analyses every change of a repository that has no facts of the current
// analyzer version (or all with `force`), in parallel, storing the facts in
// batches of one transaction each, so an interrupted run resumes where it
// stopped. The repository's own mergelens.toml and .github/labeler.yml (read
// from its clone at the branch tip) shape roles and tags. With a clone, each
// change's reach is measured on the import graph at its merge commit (kept in
// memory for the run and moved along the changes in merge order).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "mergelens/analysis/facts.h"
#include "mergelens/store/store.h"
#include "mergelens/util/progress.h"

namespace mergelens {

struct AnalyzeOptions {
  std::string config_path;  // a mergelens.toml to use instead of the repository's own
  bool force = false;       // recompute facts that are current
  unsigned threads = 0;     // 0 = one per core
  size_t batch_size = 64;
};

struct AnalyzeReport {
  size_t analyzed = 0;
  size_t invalidated = 0;        // older changes re-analysed because a newer one names them
  bool clone_available = false;  // file contents could be read for symbol detection
  size_t graph_rebuilds = 0;     // times the import graph was read from a whole tree
  double graph_micros = 0;       // CPU time spent moving the import graph and measuring reach
  std::map<std::string, size_t> verdicts;  // verdict name → count in this run
  std::vector<double> micros;              // analysis time of each change, microseconds
  // Wall time of each change's batch (reading, analysing, storing) divided
  // among its changes, microseconds; in the order of `micros`.
  std::vector<double> wall_micros;
  // The repository's own mergelens.toml or .github/labeler.yml at its tip was
  // malformed: one message each, naming the file and line; defaults were used.
  std::vector<std::string> warnings;
};

// Fails with kInvalidInput when the file named by `config_path` is malformed
// (naming it), or with the store's errors; the clone's own configuration files
// only add `warnings`. Facts of batches already committed stay stored.
Result<AnalyzeReport> analyze(Store& store, const RepoRecord& repo, const AnalyzeOptions& options,
                              Progress* progress);

}  // namespace mergelens
