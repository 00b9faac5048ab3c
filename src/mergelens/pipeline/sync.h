// The sync job: GitHub REST API → store, joined with a local clone's changes.
//
// Lists the repository's closed pull requests sorted by last update, newest
// first, down to where the previous sync stopped; skips closed-unmerged ones;
// and for each merged one fetches the pull, its reviews, review comments and
// issue comments (and, when the store has no git diff for its merge commit,
// its files and commits). A PR whose merge commit was ingested from the clone
// keeps the git diff (exact) and takes title, body, labels, logins and the
// conversation from the API. Open PRs (updated since the last sync) are stored
// too, marked open, with the diff of the files endpoint; they are refreshed
// when their head commit or their conversation changes, and the row turns
// merged — same id — when the PR merges.
//
// PRs are stored oldest update first, one transaction each, which also moves
// the sync point, so an interrupted sync (rate limit, network) leaves whole
// PRs only and the next run continues after them. The first page of each list
// is requested with the ETag saved by the previous sync: an unchanged
// repository costs two conditional requests (closed list, open list), both
// answered 304.
#pragma once

#include <optional>
#include <string>

#include "mergelens/source/github_client.h"
#include "mergelens/store/store.h"
#include "mergelens/util/progress.h"

namespace mergelens {

struct SyncOptions {
  std::string repo;  // "owner/repo" on GitHub, also its name in the store
  std::string api_url = "https://api.github.com";
  std::string token;                 // never logged or stored
  std::optional<UnixSeconds> since;  // only PRs updated at or after (overrides the sync point)
  size_t limit = 0;                  // at most N PRs per list, newest update first; 0 = all
  bool open = true;                  // also sync open PRs
  std::int64_t max_wait_seconds = 60;
  github::Clock* clock = nullptr;  // tests inject a fake clock; not owned
  int max_retries = 4;
  // Pages followed per list (pull requests, and each PR's reviews, comments,
  // commits); more, or a next link naming a page already read, stops the sync
  // with kCorrupt. 0: no bound.
  size_t max_pages = github::kDefaultMaxPages;
};

struct SyncReport {
  RepoRecord repo;
  size_t merged = 0;            // merged PRs stored or updated
  size_t joined = 0;            // of which the diff came from the clone
  size_t open = 0;              // open PRs stored or refreshed
  size_t turned_merged = 0;     // open rows that became merged
  size_t skipped_unmerged = 0;  // closed without merging
  size_t unchanged = 0;         // listed but already current
  github::Stats stats;
};

// Runs the job. `progress` may be null. Failures name the endpoint or the
// store: kInvalidInput (repository name not "owner/repo", bad token, a page
// link to another host than the API), kNotFound (no such repository),
// kCorrupt (malformed JSON from GitHub, pagination past `max_pages` or
// looping), kIo
// (rate limit beyond --max-wait, network, 5xx after retries). PRs stored
// before a failure stay stored, whole.
Result<SyncReport> sync_github(Store& store, const SyncOptions& options, Progress* progress);

}  // namespace mergelens
