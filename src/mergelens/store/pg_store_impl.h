// PgStore: the PostgreSQL implementation of Store, private to store/. Its
// methods are split like SqliteStore's: pg_store.cc (opening, migrations,
// repositories, changes), pg_facts.cc (facts, guides, answer cache, write
// ledger), pg_pages.cc (GitHub state), pg_jobs.cc (the job
// queue, model limits, repository settings). Adding a Store method means declaring it here and
// writing it in the file of its family, with the SQL in `$N` form.
//
// One connection per PgStore (not thread-safe, like SqliteStore): the web
// server and the workers open one store per thread. Write transactions run
// READ COMMITTED and are re-run (at most 5 times) when PostgreSQL reports a
// deadlock or a serialization failure; a lost connection is re-opened before
// the next statement outside a transaction.
#pragma once

#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "mergelens/store/pg_util.h"
#include "mergelens/store/rows.h"
#include "mergelens/store/sql_store.h"
#include "mergelens/store/store.h"

namespace mergelens {

namespace pgsql {
std::span<const std::string_view> migrations();
}

class PgStore final : public SqlStore {
  using Stmt = pg::Stmt;

 public:
  explicit PgStore(pg::Conn conn) : conn_(std::move(conn)) {}

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

  // JobStore (pg_jobs.cc)
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

  // For the job queue's adapter (pg_jobs.cc).
  template <class T>
  // The queue's writes (claims, heartbeats) do not move data_version: no page shows them.
  Result<T> run_transaction(const std::function<Result<T>()>& body) {
    return in_transaction<T>(body, /*bump_version=*/false);
  }

  // Applies the migrations this build knows (pg_store.cc).
  Result<void> migrate();

 protected:
  db::Query q(std::string_view sql) override { return pg::query(conn_, std::string(sql)); }
  db::Dialect dialect() const override { return db::Dialect::kPostgres; }
  std::string db_name() const override { return conn_.where(); }
  Result<void> transaction(const std::function<Result<void>()>& body, bool bump_version) override {
    return in_transaction<void>(body, bump_version);
  }

 private:
  Stmt pq(std::string sql) { return Stmt(conn_, std::move(sql)); }
  // Runs `body` inside BEGIN … COMMIT, rolling back on failure and running it
  // again on a deadlock or serialization failure. Unless `bump_version` is
  // false, the transaction also moves data_version (sql_pages.cc) as its last
  // statement, so the new version becomes visible with the data it covers.
  template <class T>
  Result<T> in_transaction(const std::function<Result<T>()>& body, bool bump_version = true);
  Result<nlohmann::json> read_doc(std::string_view blob, std::string_view what) const;
  Result<std::vector<std::int64_t>> column_ids(Stmt& st) const;
  Result<std::int64_t> insert_change(std::int64_t repo_id, const Change& c);
  Result<void> insert_children(std::int64_t id, const Change& c);
  // Rewrites the change stored as a shallow boundary with sha `c.sha` from
  // `c`, a read of it with its parent (files, commits, counts; its facts are
  // dropped). Returns its id, or 0 when no such boundary row is stored.
  Result<std::int64_t> fill_boundary(std::int64_t repo_id, const Change& c);
  Result<void> load_pull_state(std::int64_t id, Change& c);
  Result<void> insert_conversation(std::int64_t id, const Change& c);
  Result<void> write_sync_state(std::int64_t repo_id, const GithubSyncState& state);
  Result<std::optional<Change>> load_change(std::int64_t repo_id, std::string_view where,
                                            const std::function<void(Stmt&)>& bind);
  const std::string& where() const { return conn_.where(); }

  pg::Conn conn_;
};

template <class T>
Result<T> PgStore::in_transaction(const std::function<Result<T>()>& body, bool bump_version) {
  for (int attempt = 0;; ++attempt) {
    if (auto r = conn_.exec("BEGIN"); !r) return std::unexpected(r.error());
    auto result = body();
    if (result && bump_version) {
      // Last, so the one-row lock is held only for the COMMIT.
      if (auto r = conn_.exec("UPDATE mergelens_version SET n = n + 1"); !r)
        result = std::unexpected(r.error());
    }
    if (result) {
      if (auto r = conn_.exec("COMMIT"); r) return result;
      result = std::unexpected(Error{ErrorKind::kIo, conn_.where() + ": COMMIT failed"});
    }
    const std::string state = conn_.last_state();
    (void)conn_.exec("ROLLBACK");
    conn_.restore_state(state);
    const bool again = state == pg::kDeadlock || state == pg::kSerializationFailure;
    if (!again || attempt >= 4) return result;
  }
}

}  // namespace mergelens
