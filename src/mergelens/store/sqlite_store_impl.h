// SqliteStore: the SQLite implementation of Store. Private to store/: what
// is not yet written once in SqlStore (sql_store.h) is split over
// sqlite_store.cc (opening, migrations), sqlite_facts.cc (facts),
// sqlite_guides.cc (guides, the answer cache and the write ledger),
// sqlite_pages.cc (queries behind the web pages), sqlite_search.cc (FTS5).
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

  Result<std::optional<UnixSeconds>> adjacent_merge(std::int64_t repo_id, UnixSeconds t,
                                                    bool before) override;
  Result<std::map<std::int64_t, std::vector<std::string>>> tags_of(
      std::span<const std::int64_t> ids) override;
  Result<std::map<std::int64_t, std::vector<GuideLine>>> guide_lines(
      std::span<const std::int64_t> ids) override;
  Result<std::vector<TagStat>> tag_stats(std::int64_t repo_id, size_t weeks) override;
  Result<Aggregate> aggregate(std::int64_t repo_id, const AggregateQuery& query) override;
  Result<std::int64_t> data_version() override;
  Result<void> read_snapshot(const std::function<void()>& body) override;
  Result<size_t> refresh_search_index() override;
  Result<std::vector<SearchHit>> search(std::int64_t repo_id, std::span<const SearchTerm> terms,
                                        std::string_view lang, size_t limit) override;

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
  Result<Stmt> prepare(std::string_view q) const {
    auto s = Stmt::prepare(db_, q, &stmts_);
    if (!s) return db_error(s.error());
    return s;
  }
  // (Re)writes the search documents of these changes (sqlite_search.cc).
  Result<void> index_changes(std::span<const std::int64_t> ids) override;
  // Indexes the changes that have no search document; returns how many.
  Result<size_t> index_missing();

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
