// SqlStore: the Store written once for both databases, private to store/.
//
// Each query and each row-to-struct reader is written here once, over
// db::Query (statement.h), with PostgreSQL's $N placeholders. The two
// backends derive from SqlStore and supply only what really differs: the
// connection (q), the transaction (SQLite: BEGIN IMMEDIATE; PostgreSQL:
// READ COMMITTED, re-run on deadlock, moving data_version), and, where the
// SQL itself differs (full-text search, the job claim, schema types), a
// per-dialect string chosen with pick() or a branch on dialect() beside the
// shared code, never a second copy of the method.
//
// The methods are split by family over sql_*.cc files; see ARCHITECTURE.md,
// "How to add a query".
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "mergelens/store/rows.h"
#include "mergelens/store/statement.h"
#include "mergelens/store/store.h"

namespace mergelens {

// Runs `insert` once per item of `items`, bound to (`id`, the item's index,
// the fields `fields(item)` returns as a tuple): the child rows of a change.
template <class T, class F>
Result<void> insert_each(db::Query& insert, std::int64_t id, const std::vector<T>& items,
                         F fields) {
  for (size_t i = 0; i < items.size(); ++i) {
    std::apply([&](const auto&... v) { insert.bind_all(id, i, v...); }, fields(items[i]));
    if (auto r = insert.run(); !r) return std::unexpected(r.error());
  }
  return {};
}

class SqlStore : public Store {
 public:
  // Repositories and changes (sql_changes.cc).
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
  Result<std::vector<ChangeSummary>> changes_with_number(std::int64_t repo_id,
                                                         std::int64_t number) override;
  Result<std::vector<std::string>> find_shas(std::int64_t repo_id,
                                             std::string_view prefix) override;
  Result<std::optional<Change>> get_change_by_sha(std::int64_t repo_id,
                                                  std::string_view sha) override;
  Result<std::optional<Change>> get_change_by_id(std::int64_t id) override;
  Result<void> delete_change(std::int64_t id) override;

  // GitHub source: PR state, conversation, sync state, triage (sql_github.cc).
  Result<std::vector<PullRow>> pull_rows(std::int64_t repo_id, std::int64_t number) override;
  Result<std::int64_t> put_pull(std::int64_t repo_id, const Change& change,
                                std::span<const std::int64_t> absorb,
                                const std::optional<GithubSyncState>& state) override;
  Result<void> put_triage(std::span<const TriageRecord> records) override;
  Result<std::map<std::int64_t, TriageRecord>> triage_of(
      std::span<const std::int64_t> ids) override;
  Result<GithubSyncState> get_sync_state(std::int64_t repo_id) override;
  Result<void> put_sync_state(std::int64_t repo_id, const GithubSyncState& state) override;

  // Deliveries (sql_deliveries.cc).
  Result<std::vector<DeliveryPart>> plan_delivery(std::int64_t repo_id,
                                                  std::span<const DeliveryPart> parts) override;
  Result<void> record_delivery_attempt(std::int64_t repo_id, std::string_view target,
                                       std::string_view day, int part, UnixSeconds at,
                                       std::string_view error) override;
  Result<std::vector<DeliveryPart>> deliveries(std::int64_t repo_id, std::string_view target,
                                               std::string_view day) override;
  Result<size_t> forget_delivery(std::int64_t repo_id, std::string_view target,
                                 std::string_view day) override;

  // Facts (sql_facts.cc).
  Result<std::vector<std::int64_t>> changes_needing_analysis(std::int64_t repo_id,
                                                             int version) override;
  Result<size_t> put_facts(std::span<const std::pair<std::int64_t, Facts>> facts) override;
  Result<std::vector<SwitchOrigin>> switch_origins(std::int64_t repo_id) override;
  Result<std::optional<Facts>> get_facts(std::int64_t change_id) override;
  Result<std::map<std::int64_t, FactsBrief>> facts_briefs(
      std::span<const std::int64_t> ids) override;
  Result<std::vector<Backlink>> referenced_by(std::int64_t repo_id, const Change& change) override;

  // Threads and themes (sql_threads.cc).
  Result<std::vector<std::pair<std::string, std::string>>> added_files(std::int64_t repo_id,
                                                                       UnixSeconds since) override;
  Result<std::vector<ThreadEdge>> thread_edges(std::span<const std::int64_t> ids) override;
  Result<void> put_themes(std::int64_t repo_id, const ThemeSet& set) override;
  Result<std::optional<ThemeSet>> get_themes(std::int64_t repo_id, std::string_view span) override;

  // Guides, the answer cache, the write ledger (sql_guides.cc).
  Result<std::vector<std::int64_t>> changes_needing_guide(std::int64_t repo_id,
                                                          std::string_view lang, bool want_llm,
                                                          bool force) override;
  Result<void> put_guides(std::span<const std::pair<std::int64_t, Guide>> guides) override;
  Result<std::optional<Guide>> get_guide(std::int64_t change_id, std::string_view lang) override;
  Result<std::map<std::int64_t, GuideBrief>> guide_briefs(std::span<const std::int64_t> ids,
                                                          std::string_view lang) override;
  Result<GuideState> guide_state(std::int64_t change_id, std::string_view lang) override;
  Result<std::optional<std::string>> cache_get(std::string_view key) override;
  Result<void> cache_put(std::string_view key, std::string_view json) override;
  Result<std::vector<std::pair<std::string, std::string>>> cache_entries(std::string_view after,
                                                                         size_t limit) override;
  Result<void> record_write_run(const WriteRunRecord& run) override;
  Result<std::vector<WriteRunRecord>> write_runs(size_t limit) override;

  // The job queue (sql_jobs.cc); model limits, repository settings (sql_job_settings.cc).
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

  // Pages (sql_pages.cc).
  Result<std::optional<UnixSeconds>> adjacent_merge(std::int64_t repo_id, UnixSeconds t,
                                                    bool before) override;
  Result<std::map<std::int64_t, std::vector<std::string>>> tags_of(
      std::span<const std::int64_t> ids) override;
  Result<std::map<std::int64_t, std::vector<GuideLine>>> guide_lines(
      std::span<const std::int64_t> ids) override;
  Result<std::vector<TagStat>> tag_stats(std::int64_t repo_id, size_t weeks) override;
  Result<Aggregate> aggregate(std::int64_t repo_id, const AggregateQuery& query) override;
  // SQLite: PRAGMA data_version; PostgreSQL: the mergelens_version row.
  Result<std::int64_t> data_version() override;
  // SQLite: a read transaction; PostgreSQL: REPEATABLE READ READ ONLY, so
  // every query of `body` sees one snapshot.
  Result<void> read_snapshot(const std::function<void()>& body) override;

  // Search (sql_search.cc).
  Result<size_t> refresh_search_index() override;
  Result<size_t> fill_page_rows() override;
  Result<std::vector<SearchHit>> search(std::int64_t repo_id, std::span<const SearchTerm> terms,
                                        std::string_view lang, size_t limit) override;

 protected:
  // A statement for `sql`, written with $1, $2, ... placeholders.
  virtual db::Query q(std::string_view sql) = 0;
  virtual db::Dialect dialect() const = 0;
  // Runs `body` in one write transaction and commits when it succeeds;
  // rolls back and returns its error otherwise. PostgreSQL may run `body`
  // more than once (deadlock, serialization failure), so it must not keep
  // state across attempts; unless `bump_version` is false it also moves the
  // data version pages are cached by.
  virtual Result<void> transaction(const std::function<Result<void>()>& body,
                                   bool bump_version) = 0;

  // `body`'s value, computed in one transaction (see transaction()).
  template <class T>
  Result<T> tx(const std::function<Result<T>()>& body, bool bump_version = true) {
    if constexpr (std::is_void_v<T>) {
      return transaction(body, bump_version);
    } else {
      std::optional<T> out;
      auto r = transaction(
          [&]() -> Result<void> {
            out.reset();
            auto v = body();
            if (!v) return std::unexpected(v.error());
            out.emplace(std::move(*v));
            return {};
          },
          bump_version);
      if (!r) return std::unexpected(r.error());
      return std::move(*out);
    }
  }
  // `sqlite` or `pg`, by this store's dialect: for the few statements
  // whose SQL differs between the two.
  std::string_view pick(std::string_view sqlite, std::string_view pg) const {
    return dialect() == db::Dialect::kSqlite ? sqlite : pg;
  }
  bool is_pg() const { return dialect() == db::Dialect::kPostgres; }
  // The database for messages: "database <path>" or "PostgreSQL at host:port/db".
  virtual std::string db_name() const = 0;
  // Decompresses and parses a stored zstd JSON document; kCorrupt naming
  // the database and `what` (e.g. "facts of change 12") when it cannot be read.
  Result<nlohmann::json> read_json_doc(std::string_view blob, std::string_view what) const;
  // ` COLLATE "C"` on PostgreSQL, "" on SQLite: appended to a text column
  // to order and compare it by code point (SQLite's default) whatever the
  // PostgreSQL database's collation.
  std::string_view collate_c() const { return pick("", " COLLATE \"C\""); }
  // `column` is one of a list of ids bound as parameter $`n` (ids_value()):
  // one statement text whatever the ids, so it is prepared once per
  // connection (SQLite: json_each of a JSON array; PostgreSQL: ANY of an array).
  std::string in_ids(std::string_view column, int n) const {
    return fmt::format(fmt::runtime(pick("{} IN (SELECT value FROM json_each(${}))",
                                         "{} = ANY(CAST(${} AS BIGINT[]))")),
                       column, n);
  }
  // The value of in_ids()'s parameter: "[1,2,3]" or "{1,2,3}".
  std::string ids_value(std::span<const std::int64_t> ids) const {
    return fmt::format(fmt::runtime(pick("[{}]", "{{{}}}")), id_list(ids));
  }

  // Whether the last statement failed on a unique index (PostgreSQL's
  // SQLSTATE 23505): two claimers raced for one serial (sql_jobs.cc).
  virtual bool last_was_unique_violation() const = 0;

  // Search (sql_search.cc).
  // (Re)writes the search documents of these changes; call it inside the
  // write transaction that changed them.
  Result<void> index_changes(std::span<const std::int64_t> ids);
  // Whether the connection ranks a one-term search in one pass (SQLite with
  // the function of sqlite_fts.h registered); the search then takes it.
  virtual bool ranks_in_one_pass() const { return false; }

 private:
  // Search (sql_search.cc).
  // "FROM changes c WHERE" no search document is stored for c.
  std::string unindexed_changes() const;
  // Indexes the changes that have no search document; returns how many.
  Result<size_t> index_missing();
  // One term over every row, where ranks_in_one_pass(): the matches read
  // once and ranked as bm25() ranks them (sqlite_fts.h).
  Result<std::vector<SearchHit>> search_one_pass(const std::string& match, std::string_view lang,
                                                 size_t limit);

  // Changes (sql_changes.cc).
  // Inserts `c` with its files, commits and labels; its id, or 0 when a
  // change with its sha is already stored (then nothing is written).
  Result<std::int64_t> insert_change(std::int64_t repo_id, const Change& c);
  // Files, commits and labels of change `id` (file and commit rows must not exist yet).
  Result<void> insert_children(std::int64_t id, const Change& c);
  // Rewrites the change stored as a shallow boundary with sha `c.sha` from
  // `c`, a read of it with its parent (files, commits, counts; its facts are
  // dropped). Returns its id, or 0 when no such boundary row is stored.
  Result<std::int64_t> fill_boundary(std::int64_t repo_id, const Change& c);
  // The newest change matching `where` (which `bind` binds from $2 on);
  // repo_id 0 matches any repository.
  Result<std::optional<Change>> load_change(std::int64_t repo_id, std::string_view where,
                                            const std::function<void(db::Query&)>& bind);
  // delete_change() without a transaction of its own.
  Result<void> remove_change(std::int64_t id);

  // Facts and guides (sql_facts.cc, sql_guides.cc): fill the brief of up to
  // `batch` rows stored without one (or, for facts, with a brief of an older
  // form: kFactsBriefCurrent false); how many were filled (fill_page_rows).
  Result<size_t> fill_facts_briefs(size_t batch);
  // SQL true for a facts brief `b` of the current form: its JSON keys are
  // sorted, and the focus path ("f") is the first.
  static constexpr const char* kFactsBriefCurrent = "b.brief LIKE '{\"f\":%'";
  Result<size_t> fill_guide_briefs(size_t batch);

  // GitHub source (sql_github.cc).
  Result<void> load_pull_state(std::int64_t id, Change& c);
  Result<void> insert_conversation(std::int64_t id, const Change& c);
  Result<void> write_sync_state(std::int64_t repo_id, const GithubSyncState& state);

  // The delivery parts of (target, day); day empty: the newest day.
  Result<std::vector<DeliveryPart>> read_parts(std::int64_t repo_id, std::string_view target,
                                               std::string_view day);

  // The stored zstd JSON document in the first column of `st`'s first row,
  // read by `parse`; nullopt when there is no row; kCorrupt naming the
  // database and change `change_id` when it cannot be read (get_facts,
  // get_guide).
  template <class T>
  Result<std::optional<T>> read_change_doc(db::Query& st, std::string_view noun,
                                           std::int64_t change_id,
                                           Result<T> (*parse)(const nlohmann::json&)) {
    auto row = st.step();
    if (!row) return std::unexpected(row.error());
    if (!*row) return std::optional<T>();
    auto j = read_json_doc(st.blob(0), fmt::format("{} of change {}", noun, change_id));
    if (!j) return std::unexpected(j.error());
    auto v = parse(*j);
    if (!v)
      return fail(ErrorKind::kCorrupt, "{}: change {}: {}", db_name(), change_id,
                  v.error().message);
    return std::optional<T>(std::move(*v));
  }
  // The job queue's steps (sql_jobs.cc, sql_job_settings.cc).
  Result<std::optional<Job>> claim_once(std::string_view worker, std::span<const std::string> kinds,
                                        UnixSeconds now, int lease);
  // Sets job `id`'s state and frees its lease; always true.
  Result<bool> set_job_state(std::int64_t id, std::string_view state, std::string_view error,
                             UnixSeconds not_before, UnixSeconds now);
  // Queues job `id` again, or marks it done when another job with its key is
  // already queued (that one will do the same work). `refund`: the attempt
  // does not count.
  Result<bool> requeue_job(std::int64_t id, std::string_view error, UnixSeconds now,
                           UnixSeconds not_before, bool refund);
  struct LimitRow {
    std::int64_t tat_ms, day, day_tokens;
  };
  // A model's row of model_limits, created when missing and, on PostgreSQL,
  // locked for the transaction.
  Result<LimitRow> limit_row(std::string_view name);
};

}  // namespace mergelens
