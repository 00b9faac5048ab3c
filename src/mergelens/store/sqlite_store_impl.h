// SqliteStore: the SQLite implementation of Store, private to store/. The
// queries are SqlStore's (sql_store.h), written once for both backends; this
// class supplies the connection (statements through a cache of prepared
// ones), BEGIN IMMEDIATE transactions, and opening and migrating the file
// (sqlite_store.cc, schema.cc).
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
  SqliteStore(std::string path, Db db, bool one_pass)
      : path_(std::move(path)), db_(std::move(db)), one_pass_(one_pass) {}

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
  bool ranks_in_one_pass() const override { return one_pass_; }

 private:
  // Runs `body` inside BEGIN IMMEDIATE … COMMIT, rolling back on failure.
  template <class T>
  Result<T> in_transaction(const std::function<Result<T>()>& body);
  std::unexpected<Error> db_error(const Error& e) const {
    return internal_error(Error{e.kind, fmt::format("database {}: {}", path_, e.message)});
  }

  std::string path_;
  Db db_;
  bool one_pass_ = false;         // sqlite_fts.h's function is registered
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
