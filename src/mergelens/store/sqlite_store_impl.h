// SqliteStore: the SQLite implementation of Store. Private to store/: what
// is not written once in SqlStore (sql_store.h) is split over
// sqlite_store.cc (opening, migrations), sqlite_pages.cc (snapshots, the
// data version) and sqlite_search.cc (FTS5).
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

 protected:
  db::Query q(std::string_view sql) override { return sql::query(db_, &stmts_, sql, path_); }
  db::Dialect dialect() const override { return db::Dialect::kSqlite; }
  std::string db_name() const override { return "database " + path_; }
  // BEGIN IMMEDIATE: one writer at a time; `bump_version` has no use here
  // (PRAGMA data_version moves with every commit).
  Result<void> transaction(const std::function<Result<void>()>& body, bool) override {
    return in_transaction<void>(body);
  }
  // One writer at a time: a unique index is never raced.
  bool last_was_unique_violation() const override { return false; }

 private:
  // Runs `body` inside BEGIN IMMEDIATE … COMMIT, rolling back on failure.
  template <class T>
  Result<T> in_transaction(const std::function<Result<T>()>& body);
  std::unexpected<Error> db_error(const Error& e) const {
    return fail(e.kind, "database {}: {}", path_, e.message);
  }
  // Steps `st` to completion and returns the first column of every row.
  Result<std::vector<std::int64_t>> column_ids(Stmt& st) const {
    std::vector<std::int64_t> out;
    for (;;) {
      auto row = st.step();
      if (!row) return db_error(row.error());
      if (!*row) return out;
      out.push_back(st.i64(0));
    }
  }
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
