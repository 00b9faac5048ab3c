// SqliteStore: the SQLite implementation of Store. Private to store/: its
// methods are split over sqlite_store.cc (changes), sqlite_facts.cc (facts),
// sqlite_guides.cc (guides, the answer cache and the write ledger),
// sqlite_github.cc (PR state, conversation, sync state), sqlite_pages.cc
// (triage). Page queries and search are SqlStore's.
#pragma once

#include <functional>

#include <nlohmann/json.hpp>
#include <string>

#include "mergelens/store/rows.h"
#include "mergelens/store/sql_store.h"
#include "mergelens/store/sqlite_util.h"
#include "mergelens/store/store.h"

namespace mergelens {

class SqliteStore final : public SqlStore {
  using Db = sql::Db;
  using Stmt = sql::Stmt;

 public:
  SqliteStore(std::string path, Db db) : path_(std::move(path)), db_(std::move(db)) {}

  Result<RepoRecord> upsert_repo(const RepoRecord& repo) override;
  Result<std::vector<RepoRecord>> list_repos() override;
  Result<std::optional<RepoRecord>> find_repo(std::string_view name) override;
  Result<std::unordered_set<std::string>> known_shas(std::int64_t repo_id) override;
  Result<std::vector<std::string>> shallow_boundaries(std::int64_t repo_id) override;
  Result<std::vector<std::pair<std::string, size_t>>> incomplete_changes(
      std::int64_t repo_id) override;
  Result<size_t> put_changes(std::int64_t repo_id, std::span<const Change> changes,
                             const std::optional<std::string>& new_base) override;
  Result<std::vector<ChangeSummary>> list_changes(std::int64_t repo_id,
                                                  const ListQuery& query) override;
  Result<size_t> count_changes(std::int64_t repo_id) override;
  Result<std::optional<Change>> get_change_by_number(std::int64_t repo_id,
                                                     std::int64_t number) override;
  Result<std::vector<std::string>> find_shas(std::int64_t repo_id,
                                             std::string_view prefix) override;
  Result<std::optional<Change>> get_change_by_sha(std::int64_t repo_id,
                                                  std::string_view sha) override;
  Result<std::optional<Change>> get_change_by_id(std::int64_t id) override;
  Result<std::vector<std::int64_t>> changes_needing_analysis(std::int64_t repo_id,
                                                             int version) override;
  Result<size_t> put_facts(std::span<const std::pair<std::int64_t, Facts>> facts) override;
  Result<std::optional<Facts>> get_facts(std::int64_t change_id) override;
  Result<std::vector<Backlink>> referenced_by(std::int64_t repo_id, const Change& change) override;
  Result<std::vector<std::int64_t>> changes_needing_guide(std::int64_t repo_id,
                                                          std::string_view lang, bool want_llm,
                                                          bool force) override;
  Result<void> put_guides(std::span<const std::pair<std::int64_t, Guide>> guides) override;
  Result<std::optional<Guide>> get_guide(std::int64_t change_id, std::string_view lang) override;
  Result<std::optional<std::string>> cache_get(std::string_view key) override;
  Result<void> cache_put(std::string_view key, std::string_view json) override;
  Result<std::vector<std::pair<std::string, std::string>>> cache_entries(std::string_view after,
                                                                         size_t limit) override;
  Result<void> record_write_run(const WriteRunRecord& run) override;
  Result<std::vector<WriteRunRecord>> write_runs(size_t limit) override;
  Result<std::vector<PullRow>> pull_rows(std::int64_t repo_id, std::int64_t number) override;
  Result<std::int64_t> put_pull(std::int64_t repo_id, const Change& change,
                                std::span<const std::int64_t> absorb,
                                const std::optional<GithubSyncState>& state) override;
  Result<void> delete_change(std::int64_t id) override;
  Result<void> put_triage(std::span<const TriageRecord> records) override;
  Result<std::map<std::int64_t, TriageRecord>> triage_of(
      std::span<const std::int64_t> ids) override;
  Result<GithubSyncState> get_sync_state(std::int64_t repo_id) override;
  Result<void> put_sync_state(std::int64_t repo_id, const GithubSyncState& state) override;

  // JobStore (the job queue, model limits, repository settings)
  Result<size_t> enqueue_jobs(std::span<const JobSpec> jobs, UnixSeconds now) override;
  Result<std::optional<Job>> claim_job(std::string_view worker, std::span<const std::string> kinds,
                                       UnixSeconds now, int lease_seconds) override;
  Result<bool> heartbeat_job(std::int64_t id, std::string_view worker, UnixSeconds now,
                             int lease_seconds) override;
  Result<bool> complete_job(std::int64_t id, std::string_view worker, UnixSeconds now) override;
  Result<bool> fail_job(std::int64_t id, std::string_view worker, std::string_view error,
                        UnixSeconds now, int retry_in, bool permanent) override;
  Result<bool> release_job(std::int64_t id, std::string_view worker,
                           UnixSeconds not_before) override;
  Result<std::vector<Job>> list_jobs(const JobQuery& query) override;
  Result<std::vector<JobCount>> job_counts() override;
  Result<size_t> retry_dead_jobs(std::string_view kind, UnixSeconds now) override;
  Result<size_t> prune_jobs(UnixSeconds before) override;
  Result<ModelGrant> take_model_slot(std::string_view name, const ModelLimits& limits,
                                     std::int64_t now_ms) override;
  Result<void> add_model_tokens(std::string_view name, std::int64_t tokens,
                                std::int64_t now_ms) override;
  Result<void> put_repo_settings(const RepoSettings& settings) override;
  Result<std::vector<RepoSettings>> list_repo_settings() override;
  Result<bool> remove_repo_settings(std::string_view name) override;
  Result<GuideState> guide_state(std::int64_t change_id, std::string_view lang) override;

  // For the job queue's adapter (sqlite_jobs.cc).
  template <class T>
  Result<T> run_transaction(const std::function<Result<T>()>& body) {
    return in_transaction<T>(body);
  }
  Result<Stmt> prepare_stmt(std::string_view q) const { return prepare(q); }
  std::int64_t last_changes() const { return sqlite3_changes(db_.get()); }

 protected:
  db::Query q(std::string_view sql) override { return sql::query(db_, &stmts_, sql, path_); }
  db::Dialect dialect() const override { return db::Dialect::kSqlite; }
  std::string db_name() const override { return "database " + path_; }
  // BEGIN IMMEDIATE: one writer at a time; `bump_version` has no use here
  // (PRAGMA data_version moves with every commit).
  Result<void> transaction(const std::function<Result<void>()>& body, bool) override {
    return in_transaction<void>(body);
  }

 private:
  // Runs `body` inside BEGIN IMMEDIATE … COMMIT, rolling back on failure.
  template <class T>
  Result<T> in_transaction(const std::function<Result<T>()>& body);
  std::unexpected<Error> db_error(const Error& e) const {
    return fail(e.kind, "database {}: {}", path_, e.message);
  }
  // Decompresses and parses a stored zstd JSON document; kCorrupt naming
  // `what` (e.g. "facts of change 12") when it cannot be read.
  Result<nlohmann::json> read_doc(std::string_view blob, std::string_view what) const;
  // Steps `st` to completion and returns the first column of every row.
  Result<std::vector<std::int64_t>> column_ids(Stmt& st) const;
  // Runs `query` (?1 = repo_id) and passes the first column of each row to `take`.
  Result<void> each_sha(std::string_view query, std::int64_t repo_id,
                        const std::function<void(std::string)>& take);
  Result<Stmt> prepare(std::string_view q) const {
    auto s = Stmt::prepare(db_, q, &stmts_);
    if (!s) return db_error(s.error());
    return s;
  }
  Result<void> insert_change(std::int64_t repo_id, const Change& c, Stmt& ins_change,
                             Stmt& ins_file, Stmt& ins_commit, Stmt& ins_label, bool& inserted);
  struct ChildInserts {
    Stmt file, commit, label;
  };
  // The INSERT statements insert_children() takes.
  Result<ChildInserts> prepare_child_inserts();
  // Rewrites the change stored as a shallow boundary with sha `c.sha` from
  // `c`, a read of it with its parent (files, commits, counts; its facts are
  // dropped). Returns its id, or 0 when no such boundary row is stored.
  Result<std::int64_t> fill_boundary(std::int64_t repo_id, const Change& c, ChildInserts& kids);
  // Files, commits and labels of change `id` (rows must not exist yet).
  Result<void> insert_children(std::int64_t id, const Change& c, Stmt& ins_file, Stmt& ins_commit,
                               Stmt& ins_label);
  // PR state and conversation (sqlite_github.cc).
  Result<void> load_pull_state(std::int64_t id, Change& c);
  Result<void> insert_conversation(std::int64_t id, const Change& c);
  Result<void> write_sync_state(std::int64_t repo_id, const GithubSyncState& state);
  // repo_id 0 matches any repository.
  Result<std::optional<Change>> load_change(std::int64_t repo_id, std::string_view where,
                                            const std::function<void(Stmt&)>& bind);

  std::string path_;
  Db db_;
  mutable sql::StmtCache stmts_;  // after db_: destroyed before the connection closes
};

template <class T>
Result<T> SqliteStore::in_transaction(const std::function<Result<T>()>& body) {
  if (auto r = db_.exec("BEGIN IMMEDIATE"); !r) return db_error(r.error());
  auto result = body();
  if (!result) {
    (void)db_.exec("ROLLBACK");
    return result;
  }
  if (auto r = db_.exec("COMMIT"); !r) {
    (void)db_.exec("ROLLBACK");
    return db_error(r.error());
  }
  return result;
}

}  // namespace mergelens
