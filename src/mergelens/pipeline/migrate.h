// Copying a whole store into another (`mergelens migrate-store`, typically
// from the embedded SQLite file to a PostgreSQL database), through the Store
// interface alone, so any backend can be the source or the target.
//
// Copied: repositories (with their ingest base), every change with its
// files, commits, labels, PR state and conversation, the GitHub sync state,
// facts, guides (stale ones stay stale), the model-answer cache, the write
// ledger and the workers' repository settings. Not copied: the job queue
// (workers rebuild it: `mergelens repos enqueue`) and the shared model
// limits. Change ids differ in the target; everything is joined by sha.
#pragma once

#include <cstddef>

#include "mergelens/store/store.h"
#include "mergelens/util/progress.h"

namespace mergelens {

struct MigrateReport {
  size_t repos = 0, changes = 0, facts = 0, guides = 0, triage = 0, cache = 0, runs = 0;
};

// Fails with kInvalidInput when `to` already holds a repository (copy into
// an empty store only), or with either store's errors; a failed copy leaves
// whole changes in the target, to be dropped and copied again.
Result<MigrateReport> migrate_store(Store& from, Store& to, Progress* progress);

}  // namespace mergelens
