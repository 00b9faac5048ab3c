// The statement interface both backends implement, private to store/.
//
// Every query of the store is written once, in PostgreSQL's placeholder form
// ($1, $2, ...), against db::Query; the SQLite backend rewrites the
// placeholders to ?1, ?2, ... when it prepares the statement. A Query owns
// its backend statement (a cached sqlite3_stmt handed back when the Query is
// destroyed, or a libpq parameter list); it is not thread-safe, like the
// connection it came from, and must not outlive it.
//
// A statement that failed to prepare is still a Query: binds do nothing and
// the first step() or run() returns the preparation's error, so callers
// handle one error path. Every error names the database (SQLite: its path;
// PostgreSQL: host, port and database, never the password).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "mergelens/util/error.h"

namespace mergelens::db {

enum class Dialect { kSqlite, kPostgres };

// True for BEGIN, COMMIT, END, ROLLBACK, SAVEPOINT and RELEASE: statements
// that run whatever the work's deadline (util/deadline.h), since a
// transaction must end the way its owner says.
inline bool is_transaction_control(std::string_view sql) {
  while (!sql.empty() && (sql.front() == ' ' || sql.front() == '\n')) sql.remove_prefix(1);
  for (std::string_view word : {"BEGIN", "COMMIT", "END", "ROLLBACK", "SAVEPOINT", "RELEASE"}) {
    if (sql.size() < word.size()) continue;
    bool same = true;
    for (size_t i = 0; i < word.size() && same; ++i) same = (sql[i] & ~0x20) == word[i];
    if (same && (sql.size() == word.size() || sql[word.size()] == ' ' || sql[word.size()] == ';'))
      return true;
  }
  return false;
}

// What each backend implements. Columns are 0-based, parameters 1-based.
class Statement {
 public:
  virtual ~Statement() = default;
  virtual void bind_i64(int i, std::int64_t v) = 0;
  virtual void bind_text(int i, std::string_view v) = 0;
  virtual void bind_blob(int i, std::string_view v) = 0;
  virtual void bind_null(int i) = 0;
  virtual void bind_double(int i, double v) = 0;
  // Executes on the first call; then true while a row is available.
  virtual Result<bool> step() = 0;
  // Executes to the end, for statements without rows; returns the number of
  // rows inserted, updated or deleted. Resets the statement (bindings stay).
  virtual Result<std::int64_t> run() = 0;
  // Forgets the rows read so far (bindings stay), so step() executes again.
  virtual void reset() = 0;
  virtual std::int64_t i64(int col) const = 0;
  virtual double f64(int col) const = 0;
  virtual bool is_null(int col) const = 0;
  virtual std::string text(int col) const = 0;
  virtual std::string blob(int col) const = 0;
};

// A Statement over a backend's own statement type S, which has the
// accessors below under these names (sql::Stmt, pg::Stmt). A backend whose
// step(), run() or reset() needs more than forwarding overrides them.
template <class S>
class StatementOf : public Statement {
 public:
  explicit StatementOf(S st) : st_(std::move(st)) {}
  void bind_i64(int i, std::int64_t v) override { st_.bind(i, v); }
  void bind_text(int i, std::string_view v) override { st_.bind(i, v); }
  void bind_blob(int i, std::string_view v) override { st_.bind_blob(i, v); }
  void bind_null(int i) override { st_.bind_null(i); }
  void bind_double(int i, double v) override { st_.bind_double(i, v); }
  Result<bool> step() override { return st_.step(); }
  Result<std::int64_t> run() override { return st_.run(); }
  void reset() override { st_.reset(); }
  std::int64_t i64(int col) const override { return st_.i64(col); }
  double f64(int col) const override { return st_.f64(col); }
  bool is_null(int col) const override { return st_.is_null(col); }
  std::string text(int col) const override { return st_.text(col); }
  std::string blob(int col) const override { return st_.blob(col); }

 protected:
  S st_;
};

class Query {
 public:
  explicit Query(std::unique_ptr<Statement> st) : st_(std::move(st)) {}
  explicit Query(Error prepare_error) : error_(std::move(prepare_error)) {}

  // Binds by 1-based index. An empty optional binds an integer NULL (typed,
  // so PostgreSQL reads `$2 IS NULL OR x >= $2` without a cast).
  Query& bind(int i, std::int64_t v) {
    if (st_) st_->bind_i64(i, v);
    return *this;
  }
  Query& bind(int i, std::string_view v) {
    if (st_) st_->bind_text(i, v);
    return *this;
  }
  Query& bind(int i, const std::optional<std::int64_t>& v) {
    return v ? bind(i, *v) : bind(i, std::int64_t{0}).bind_null(i);
  }
  // Binds `args` to $1, $2, ... in order, each as bind() above does.
  template <class... A>
  Query& bind_all(const A&... args) {
    int i = 0;
    (bind(++i, args), ...);
    return *this;
  }
  Query& bind_blob(int i, std::string_view v) {
    if (st_) st_->bind_blob(i, v);
    return *this;
  }
  Query& bind_null(int i) {
    if (st_) st_->bind_null(i);
    return *this;
  }
  Query& bind_double(int i, double v) {
    if (st_) st_->bind_double(i, v);
    return *this;
  }

  Result<bool> step() {
    if (!st_) return std::unexpected(*error_);
    return st_->step();
  }
  Result<std::int64_t> run() {
    if (!st_) return std::unexpected(*error_);
    return st_->run();
  }
  void reset() {
    if (st_) st_->reset();
  }

  // Column access, valid after step() returned true.
  std::int64_t i64(int col) const { return st_->i64(col); }
  double f64(int col) const { return st_->f64(col); }
  bool is_null(int col) const { return st_->is_null(col); }
  std::optional<std::int64_t> opt_i64(int col) const {
    if (is_null(col)) return std::nullopt;
    return i64(col);
  }
  std::string text(int col) const { return st_->text(col); }
  std::string blob(int col) const { return st_->blob(col); }

  // Steps to the end and returns read(*this) of every row, in order.
  template <class F>
  auto collect(F&& read) -> Result<std::vector<std::decay_t<std::invoke_result_t<F&, Query&>>>> {
    std::vector<std::decay_t<std::invoke_result_t<F&, Query&>>> out;
    for (;;) {
      auto row = step();
      if (!row) return std::unexpected(row.error());
      if (!*row) return out;
      out.push_back(read(*this));
    }
  }
  // The first column of every row, as integers (ids).
  Result<std::vector<std::int64_t>> ids() {
    return collect([](const Query& q) { return q.i64(0); });
  }
  // The first row's first column, or nullopt when there is no row.
  Result<std::optional<std::int64_t>> first_i64() {
    auto row = step();
    if (!row) return std::unexpected(row.error());
    if (!*row) return std::optional<std::int64_t>{};
    std::optional<std::int64_t> v = i64(0);
    reset();
    return v;
  }

 private:
  std::unique_ptr<Statement> st_;
  std::optional<Error> error_;
};

}  // namespace mergelens::db
