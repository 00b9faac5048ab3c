// PgStore: the PostgreSQL implementation of Store, private to store/. The
// queries are SqlStore's (sql_store.h), written once for both backends; this
// class supplies the connection, the transactions below, and opening and
// migrating the database (pg_store.cc, pg_schema.cc).
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

  // Applies the migrations this build knows (pg_store.cc).
  Result<void> migrate();

 protected:
  db::Query q(std::string_view sql) override { return pg::query(conn_, std::string(sql)); }
  db::Dialect dialect() const override { return db::Dialect::kPostgres; }
  std::string db_name() const override { return conn_.where(); }
  Result<void> transaction(const std::function<Result<void>()>& body, bool bump_version) override {
    return in_transaction<void>(body, bump_version);
  }
  bool last_was_unique_violation() const override {
    return conn_.last_state() == pg::kUniqueViolation;
  }

 private:
  Stmt pq(std::string sql) { return Stmt(conn_, std::move(sql)); }
  // Runs `body` inside BEGIN … COMMIT, rolling back on failure and running it
  // again on a deadlock or serialization failure. Unless `bump_version` is
  // false, the transaction also moves data_version (sql_pages.cc) as its last
  // statement, so the new version becomes visible with the data it covers.
  template <class T>
  Result<T> in_transaction(const std::function<Result<T>()>& body, bool bump_version = true);
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
      result = std::unexpected(Error{ErrorKind::kIo, conn_.where() + ": COMMIT failed", true});
    }
    const std::string state = conn_.last_state();
    (void)conn_.exec("ROLLBACK");
    conn_.restore_state(state);
    const bool again = state == pg::kDeadlock || state == pg::kSerializationFailure;
    if (!again || attempt >= 4) return result;
  }
}

}  // namespace mergelens
