// Thin RAII layer over the SQLite C API, private to store/.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

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

class Stmt {
 public:
  Stmt() = default;
  Stmt(Stmt&& o) noexcept : st_(o.st_), db_(o.db_) { o.st_ = nullptr; }
  Stmt& operator=(Stmt&& o) noexcept {
    std::swap(st_, o.st_);
    std::swap(db_, o.db_);
    return *this;
  }
  ~Stmt() {
    if (st_) sqlite3_finalize(st_);
  }
  static Result<Stmt> prepare(const Db& db, std::string_view sql);

  // Binds by 1-based index. An empty optional binds NULL.
  Stmt& bind(int i, std::int64_t v);
  Stmt& bind(int i, std::string_view v);
  Stmt& bind_blob(int i, std::string_view v);
  Stmt& bind(int i, const std::optional<std::int64_t>& v);
  Stmt& bind_null(int i);
  Stmt& bind_double(int i, double v);

  // Steps once: true when a row is available, false when done.
  Result<bool> step();
  // Steps to completion, for statements without rows.
  Result<void> run();
  void reset();

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
};

}  // namespace mergelens::sql
