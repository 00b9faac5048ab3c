// The ingest job: git clone → changes → store.
//
// Walks the first-parent history of a branch from its tip down to the
// repository's stored base (or the root), then reads the new commits oldest
// first, in parallel, and stores them in batches of one transaction each. A
// batch that is contiguous with the stored base moves the base forward, so an
// interrupted run resumes where it stopped and a repeated run reads nothing.
#pragma once

#include <optional>
#include <string>

#include "mergelens/source/git_source.h"
#include "mergelens/store/store.h"
#include "mergelens/util/progress.h"

namespace mergelens {

struct IngestOptions {
  std::string repo_path;
  std::string repo_name;             // empty: owner/repo of the origin remote, else the folder name
  std::string branch;                // empty: the branch HEAD points to
  std::optional<UnixSeconds> since;  // only commits merged at or after
  std::optional<UnixSeconds> until;  // only commits merged before
  size_t limit = 0;                  // at most this many new changes, newest first; 0 = all
  std::string url_base;              // web base for PR links; empty: derived from the origin remote
  size_t batch_size = 64;
  unsigned threads = 0;  // readers; 0 = one per core
  GitReadOptions read;
};

struct IngestReport {
  RepoRecord repo;
  size_t walked = 0;      // first-parent commits visited
  size_t stored = 0;      // new changes stored
  size_t pending = 0;     // commits selected for reading
  bool anchored = false;  // the walk reached the stored base or the root
};

// Runs the job. `progress` may be null. On failure, batches already committed
// stay stored (and a later run continues after them); nothing is half-stored.
// Failures name their input: kInvalidInput (not a repository, empty repository),
// kNotFound (unknown branch), store errors as returned by the store.
Result<IngestReport> ingest(Store& store, const IngestOptions& options, Progress* progress);

}  // namespace mergelens
