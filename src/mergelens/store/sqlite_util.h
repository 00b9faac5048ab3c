// Thin RAII layer over the SQLite C API, private to store/.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "mergelens/store/statement.h"
#include "mergelens/util/error.h"

namespace mergelens::sql {

class Db {
 public:
  Db() = default;
  explicit Db(sqlite3* db) : db_(db) {}
  Db(Db&& o) noexcept : db_(o.db_) { o.db_ = nullptr; }
  Db& operator=(Db&& o) noexcept {
    std::swap(db_, o.db_);
    return *this;
  }
  ~Db() {
    if (db_) sqlite3_close_v2(db_);
  }
  sqlite3* get() const { return db_; }
  std::string errmsg() const { return db_ ? sqlite3_errmsg(db_) : "no database"; }

  // Runs one or more statements without results.
  Result<void> exec(std::string_view sql);

 private:
  sqlite3* db_ = nullptr;
};

// Prepared statements of one connection kept for reuse, keyed by the SQL
// their callers wrote ($N placeholders and all): preparing costs tens of
// microseconds, a page or an analysis batch prepares the same few statements
// again and again. A lookup hashes the caller's text in place; the text is
// copied once, when a statement is first prepared, and the ?N form SQLite
// reads is made only then. Holds at most `capacity` idle statements (the
// least recently returned are finalized), all reset, so none keeps a read
// snapshot open. Not thread-safe, like the connection; must be destroyed
// before it, and after every Stmt taken from it.
class StmtCache {
 public:
  // One SQL text's statements; its address is stable while a Stmt holds it.
  struct Slot;

  explicit StmtCache(size_t capacity = 64) : capacity_(capacity) {}
  StmtCache(const StmtCache&) = delete;
  StmtCache& operator=(const StmtCache&) = delete;
  ~StmtCache();
  // The slot of `sql` (made when new) and, when one is kept there, an idle
  // statement for it (the caller owns it until give()), else nullptr.
  std::pair<Slot*, sqlite3_stmt*> take(std::string_view sql);
  // Resets `st` and keeps it in `slot` (from take()).
  void give(Slot* slot, sqlite3_stmt* st);
  // Forgets a take() of `slot` that gave no statement back (it failed to prepare).
  void give_up(Slot* slot);
  // Statements kept idle (for tests).
  size_t idle() const { return idle_; }

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  void evict_one();

  size_t capacity_;
  size_t idle_ = 0;
  std::uint64_t clock_ = 0;
  std::unordered_map<std::string, std::unique_ptr<Slot>, Hash, std::equal_to<>> slots_;
};

struct StmtCache::Slot {
  std::string_view sql;  // the key it is kept under
  std::vector<sqlite3_stmt*> idle;
  size_t out = 0;          // statements of this slot held by a Stmt
  std::uint64_t used = 0;  // when a statement last came back
};

class Stmt {
 public:
  Stmt() = default;
  Stmt(Stmt&& o) noexcept : st_(o.st_), db_(o.db_), cache_(o.cache_), slot_(o.slot_) {
    o.st_ = nullptr;
    o.slot_ = nullptr;
  }
  Stmt& operator=(Stmt&& o) noexcept {
    std::swap(st_, o.st_);
    std::swap(db_, o.db_);
    std::swap(cache_, o.cache_);
    std::swap(slot_, o.slot_);
    return *this;
  }
  ~Stmt();
  // A statement for `sql`, whose $N placeholders are read as ?N. With a
  // cache, the statement comes from it when one is kept there and goes back
  // to it when this Stmt is destroyed.
  static Result<Stmt> prepare(const Db& db, std::string_view sql, StmtCache* cache = nullptr);

  // Binds by 1-based index. An empty optional binds NULL.
  Stmt& bind(int i, std::int64_t v);
  Stmt& bind(int i, std::string_view v);
  Stmt& bind_blob(int i, std::string_view v);
  Stmt& bind(int i, const std::optional<std::int64_t>& v);
  Stmt& bind_null(int i);
  Stmt& bind_double(int i, double v);

  // Steps once: true when a row is available, false when done.
  Result<bool> step();
  // Steps to completion (statements without rows) and resets (bindings are
  // cleared); returns the rows the statement inserted, updated or deleted.
  Result<std::int64_t> run();
  void reset();
  sqlite3_stmt* handle() const { return st_; }

  std::int64_t i64(int col) const { return sqlite3_column_int64(st_, col); }
  double f64(int col) const { return sqlite3_column_double(st_, col); }
  bool is_null(int col) const { return sqlite3_column_type(st_, col) == SQLITE_NULL; }
  std::optional<std::int64_t> opt_i64(int col) const {
    if (is_null(col)) return std::nullopt;
    return i64(col);
  }
  std::string text(int col) const;
  std::string blob(int col) const;

 private:
  sqlite3_stmt* st_ = nullptr;
  sqlite3* db_ = nullptr;
  StmtCache* cache_ = nullptr;
  StmtCache::Slot* slot_ = nullptr;  // where in cache_ it goes back
};

// "$12" -> "?12": shared queries are written with PostgreSQL's placeholders.
std::string sqlite_placeholders(std::string_view sql);

// A db::Query for `sql` (written with $N placeholders) on `db`, prepared
// through `cache` (may be null). Errors, of preparing or stepping, read
// "database <where>: <SQLite's message>". The Query must not outlive `db`,
// `cache` or `where`.
db::Query query(const Db& db, StmtCache* cache, std::string_view sql, const std::string& where);

}  // namespace mergelens::sql
