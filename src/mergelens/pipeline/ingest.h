// The ingest job: git clone → changes → store.
//
// Walks the first-parent history of a branch from its tip down to the
// repository's stored base (or the root), then reads the new commits oldest
// first, in parallel, and stores them in batches of one transaction each. A
// batch that is contiguous with the stored base moves the base forward, so an
// interrupted run resumes where it stopped and a repeated run reads nothing.
//
// Shallow clones: the walk ends at the clone's boundary commit as it would at
// a root; that change is stored marked shallow, without files (its parent is
// not there to diff against). When a later run finds a stored boundary whose
// parent the clone now holds (`git fetch --deepen`, `--unshallow`), it walks
// below it, stores the older changes oldest first, and last rewrites the
// boundary with its real diff; killed half-way, the boundary is still marked
// and the next run continues below it. The base is not moved by this.
//
// Partial and filtered clones: a file whose blob the clone lacks (or whose
// diff could not be computed) is stored with FileChange::unavailable saying
// why; the run goes on. Each later run reads the changes stored with such
// files again and rewrites those that now read more of them (same id, facts
// dropped), so fetching the blobs and ingesting again fills them in.
#pragma once

#include <optional>
#include <string>
#include <vector>

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
  // Follow the branch as the last fetch left it (GitSource::resolve_fetched_branch):
  // set by `run --watch`, whose passes fetch origin into a clone they never merge.
  bool follow_fetched = false;
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
  // The shallow boundary this run stored (a change without a diff), empty
  // when none: the clone is shallow and history stops there.
  std::string shallow_boundary;
  UnixSeconds shallow_boundary_at = 0;  // its merge time
  size_t deepened = 0;     // older changes stored below a former boundary (the clone was deepened)
  size_t filled = 0;       // former boundaries rewritten with their diff
  size_t unavailable = 0;  // files stored without their diff (FileChange::unavailable)
  size_t completed = 0;    // stored changes read again and rewritten with files they lacked
};

// Runs the job. `progress` may be null. On failure, batches already committed
// stay stored (and a later run continues after them); nothing is half-stored.
// Failures name their input: kInvalidInput (not a repository, empty repository),
// kNotFound (unknown branch), store errors as returned by the store.
Result<IngestReport> ingest(Store& store, const IngestOptions& options, Progress* progress);

// What a run did at a shallow clone's boundary and with files it could not
// read, as lines for the user (empty when neither): where history stops and
// how to read further back, how many older changes a deepened clone gave,
// how many files were stored without their diff and how many stored changes
// were completed.
std::vector<std::string> shallow_notes(const IngestReport& report);

}  // namespace mergelens
