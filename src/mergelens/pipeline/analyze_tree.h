// The tree thread of the analyze job (pipeline-internal, see analyze.h): the
// import graph, the switch registry and the parser's symbol index of the
// repository, moved along the changes in merge order on one thread while the
// workers analyse them, and what each change measures on them.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "mergelens/analysis/code/definition_fates.h"
#include "mergelens/analysis/facts.h"
#include "mergelens/analysis/repo_config.h"
#include "mergelens/model/change.h"
#include "mergelens/source/git_source.h"
#include "mergelens/store/store.h"

namespace mergelens {

// File contents the graph read at a change's commit, kept for the workers
// that analyse the same change (they read the same files for symbols).
class ContentCache {
 public:
  void put(const std::string& sha, const std::string& path, std::optional<std::string> c) {
    std::lock_guard lock(mu_);
    const size_t size = c ? c->size() : 0;
    if (bytes_ + size > kMaxBytes) return;
    bytes_ += size;
    map_.emplace(sha + '\n' + path, std::move(c));
  }
  // True with the content (or its absence) when cached.
  bool get(const std::string& sha, const std::string& path, std::optional<std::string>& out) {
    std::lock_guard lock(mu_);
    auto it = map_.find(sha + '\n' + path);
    if (it == map_.end()) return false;
    out = it->second;
    return true;
  }
  void clear() {
    std::lock_guard lock(mu_);
    map_.clear();
    bytes_ = 0;
  }

 private:
  static constexpr size_t kMaxBytes = 64u << 20;
  std::mutex mu_;
  std::unordered_map<std::string, std::optional<std::string>> map_;
  size_t bytes_ = 0;
};

// What the tracker measured at one change: its reach at the merge commit and
// its switches at the parent and the merge.
struct TreeFacts {
  Reach reach;
  std::vector<SwitchFact> switches;
  bool switches_known = false;
  std::vector<ContextItem> context;
  std::vector<DefinitionFate> fates;
  bool context_known = false;
};

// Measures each change on the trees at its parent and merge commits (see
// the implementation's Impl for how the trees move). Not thread-safe: one
// thread calls at(); the ContentCache it fills is shared with the workers.
class TreeTracker {
 public:
  // Without a `source` (no clone) every change measures nothing. The source,
  // config, cache and origins must outlive the tracker.
  TreeTracker(GitSource* source, const RepoConfig& config, ContentCache& cache,
              const std::vector<SwitchOrigin>& origins);
  ~TreeTracker();
  TreeTracker(const TreeTracker&) = delete;
  TreeTracker& operator=(const TreeTracker&) = delete;

  // What `c` measures (empty facts when the trees cannot be read). The
  // same change asked again gets the same facts (kept for the run).
  TreeFacts at(const Change& c);
  // Times a whole tree was read.
  size_t rebuilds() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace mergelens
