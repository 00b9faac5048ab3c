// The store: everything mergelens keeps between runs.
//
// `Store` is the only way other modules reach persisted data; no SQL leaves
// this folder, so another backend (PostgreSQL shared by several workers) can
// implement the same interface. Every method either completes or changes
// nothing: writes run in one transaction, and readers never see a change
// without its files and commits.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "mergelens/analysis/facts.h"
#include "mergelens/guide/guide.h"
#include "mergelens/model/change.h"
#include "mergelens/util/error.h"

namespace mergelens {

struct RepoRecord {
  std::int64_t id = 0;
  std::string name;      // "owner/repo" or a folder name; unique in the store
  std::string path;      // local clone last ingested from
  std::string web_base;  // "https://github.com/owner/repo", empty when unknown
  std::string branch;
  // Newest first-parent commit whose whole ancestry is stored; the next ingest
  // stops walking there. Empty until one ingest reached the root.
  std::string base_sha;
};

struct ChangeSummary {
  std::int64_t id = 0;
  ChangeKind kind = ChangeKind::kCommit;
  std::optional<std::int64_t> number;
  std::string sha;
  std::string title;
  Person author;
  UnixSeconds merged_at = 0;
  std::string url;
  std::int32_t file_count = 0;
  std::int64_t additions = 0, deletions = 0;
  // From the stored facts; verdict is empty when the change is not analysed.
  std::string verdict;
  int importance = 0, insight = 0;
  bool open = false;  // an open pull request (merged_at is 0)
};

// Where the GitHub sync of a repository stopped (see pipeline/sync.h).
struct GithubSyncState {
  UnixSeconds closed_since = 0;              // closed PRs updated before this are all stored
  UnixSeconds open_since = 0;                // open PRs updated before this are all stored
  std::map<std::string, std::string> etags;  // list query → ETag of its first page
};

// A stored row that carries a PR number (cheap lookup for the sync's join).
struct PullRow {
  std::int64_t id = 0;
  std::string sha;
  bool open = false;
  std::string head_sha;
  UnixSeconds updated_at = 0;
  std::int32_t file_count = 0;
};

struct ListQuery {
  std::optional<UnixSeconds> since;  // merged_at >= since
  std::optional<UnixSeconds> until;  // merged_at < until
  size_t limit = 0;                  // 0 = no limit
};

// One `write` run: what it produced and what it cost (the ledger).
struct WriteRunRecord {
  UnixSeconds started_at = 0, finished_at = 0;
  std::string writer;  // "offline" or "llm"
  std::string model;
  std::int64_t guides = 0, cached = 0, fallbacks = 0;
  std::int64_t requests = 0, retries = 0, failures = 0;
  std::int64_t prompt_tokens = 0, completion_tokens = 0;
  double usd = 0;
  std::int64_t removed_citations = 0;
};

class Store {
 public:
  virtual ~Store() = default;

  // Inserts a repository or updates the path, web_base and branch of the one
  // with the same name (base_sha is left as stored). Returns the stored record.
  virtual Result<RepoRecord> upsert_repo(const RepoRecord& repo) = 0;
  virtual Result<std::vector<RepoRecord>> list_repos() = 0;
  // nullopt when no repository has that name.
  virtual Result<std::optional<RepoRecord>> find_repo(std::string_view name) = 0;

  // Shas of every stored change of a repository.
  virtual Result<std::unordered_set<std::string>> known_shas(std::int64_t repo_id) = 0;

  // Stores `changes` (each change's `repo` field is ignored: `repo_id` says
  // where it belongs), skipping any whose sha is already stored, and moves the
  // repository's base to `new_base` when given — in one transaction. Returns
  // how many were inserted. On failure nothing is stored.
  virtual Result<size_t> put_changes(std::int64_t repo_id, std::span<const Change> changes,
                                     const std::optional<std::string>& new_base) = 0;

  // Changes of a repository, newest merge first.
  virtual Result<std::vector<ChangeSummary>> list_changes(std::int64_t repo_id,
                                                          const ListQuery& query) = 0;
  virtual Result<size_t> count_changes(std::int64_t repo_id) = 0;

  // The newest change carrying a PR number, with files, hunks and commits.
  virtual Result<std::optional<Change>> get_change_by_number(std::int64_t repo_id,
                                                             std::int64_t number) = 0;
  // Full shas of stored changes starting with `prefix` (at most 10).
  virtual Result<std::vector<std::string>> find_shas(std::int64_t repo_id,
                                                     std::string_view prefix) = 0;
  virtual Result<std::optional<Change>> get_change_by_sha(std::int64_t repo_id,
                                                          std::string_view sha) = 0;
  virtual Result<std::optional<Change>> get_change_by_id(std::int64_t id) = 0;

  // Ids of the repository's changes that have no facts of `version`, oldest
  // merge first.
  virtual Result<std::vector<std::int64_t>> changes_needing_analysis(std::int64_t repo_id,
                                                                     int version) = 0;
  // Stores (or replaces) the facts of several changes in one transaction,
  // with their verdict, scores, tags and references indexed for queries.
  // Older changes of the same repository that these facts say they fix,
  // follow up or revert lose their facts in the same transaction, so the next
  // analysis recomputes them with the new back-reference. Returns how many
  // older changes were so marked.
  virtual Result<size_t> put_facts(std::span<const std::pair<std::int64_t, Facts>> facts) = 0;
  // nullopt when the change has no stored facts.
  virtual Result<std::optional<Facts>> get_facts(std::int64_t change_id) = 0;
  // Later changes of the same repository whose references name `change` (its
  // PR number or its sha), oldest first.  (Backlink is defined in facts.h.)
  virtual Result<std::vector<Backlink>> referenced_by(std::int64_t repo_id,
                                                      const Change& change) = 0;

  // --- guides (one per change and language) ---

  // Ids of analysed changes, oldest merge first, that need a guide in `lang`:
  // none stored, or the stored one is stale (its facts changed since), or
  // (`want_llm`) it was not written by a model. `force` returns every
  // analysed change.
  virtual Result<std::vector<std::int64_t>> changes_needing_guide(std::int64_t repo_id,
                                                                  std::string_view lang,
                                                                  bool want_llm, bool force) = 0;
  // Stores (or replaces) guides in one transaction; each guide's `lang` and
  // `writer.kind` are indexed. On failure nothing is stored.
  virtual Result<void> put_guides(std::span<const std::pair<std::int64_t, Guide>> guides) = 0;
  // nullopt when the change has no guide in `lang`. kCorrupt when the stored
  // document cannot be read.
  virtual Result<std::optional<Guide>> get_guide(std::int64_t change_id, std::string_view lang) = 0;

  // The model-answer cache: a JSON text by key (see pipeline/write.h for the
  // key). nullopt on a miss.
  virtual Result<std::optional<std::string>> cache_get(std::string_view key) = 0;
  virtual Result<void> cache_put(std::string_view key, std::string_view json) = 0;

  // Appends one row to the ledger of write runs.
  virtual Result<void> record_write_run(const WriteRunRecord& run) = 0;
  // The most recent runs, newest first.
  virtual Result<std::vector<WriteRunRecord>> write_runs(size_t limit) = 0;

  // --- GitHub source (store/sqlite_github.cc) ---

  // Rows of a repository carrying PR `number` (open ones and merged ones),
  // newest id first; empty when none.
  virtual Result<std::vector<PullRow>> pull_rows(std::int64_t repo_id, std::int64_t number) = 0;

  // Stores one pull request with its files, commits, labels, state and
  // conversation, in one transaction: the row with id `change.id` when
  // nonzero (kept: same id), else the row with the same sha, else a new row.
  // Rows listed in `absorb` (say, the git row of a PR first stored open) are
  // deleted first, so the surviving row may take their sha. The row's facts
  // are dropped so the next analysis recomputes them. When `state` is given it
  // is saved in the same transaction (sync progress). Returns the row id. On
  // failure nothing changes.
  virtual Result<std::int64_t> put_pull(std::int64_t repo_id, const Change& change,
                                        std::span<const std::int64_t> absorb,
                                        const std::optional<GithubSyncState>& state) = 0;

  // Deletes a change with everything it owns (a PR that was stored open and
  // closed without merging). Deleting an unknown id is not an error.
  virtual Result<void> delete_change(std::int64_t id) = 0;

  // The sync state of a repository; all zero and no ETags before a first sync.
  virtual Result<GithubSyncState> get_sync_state(std::int64_t repo_id) = 0;
  // Replaces the sync state of a repository (its ETags included).
  virtual Result<void> put_sync_state(std::int64_t repo_id, const GithubSyncState& state) = 0;
};

struct StoreOptions {
  bool create = true;  // create the file (and its folder) when missing
};

// Opens (creating and migrating as needed) the SQLite store at `path`.
// Failures, each naming `path`: kNotFound (missing and !create), kIo (folder
// cannot be created or is read-only), kCorrupt (not a database, or not a
// mergelens one), kUnsupported (written by a newer mergelens).
Result<std::unique_ptr<Store>> open_sqlite_store(const std::string& path,
                                                 const StoreOptions& options = {});

// Chooses the repository a command works on: the one named `name`, or the only
// one in the store when `name` is empty. kNotFound / kInvalidInput otherwise,
// listing the names the store holds.
Result<RepoRecord> resolve_repo(Store& store, std::string_view name);

// Looks a change up by "#N", "N" or a sha prefix of at least 7 hex digits.
// kNotFound when nothing matches, kInvalidInput when `ref` is malformed or an
// abbreviated sha is ambiguous.
Result<Change> find_change(Store& store, const RepoRecord& repo, std::string_view ref);

}  // namespace mergelens
