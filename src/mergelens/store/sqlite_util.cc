#include "mergelens/store/sqlite_util.h"

#include <optional>

#include "mergelens/store/statement.h"
#include "mergelens/util/deadline.h"

namespace mergelens::sql {
namespace {

ErrorKind kind_of(int rc) {
  switch (rc & 0xff) {
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      return ErrorKind::kCorrupt;
    case SQLITE_READONLY:
    case SQLITE_CANTOPEN:
    case SQLITE_IOERR:
    case SQLITE_FULL:
    case SQLITE_PERM:
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return ErrorKind::kIo;
    case SQLITE_INTERRUPT:  // the progress handler: the work's deadline passed
      return ErrorKind::kTimeout;
    default:
      return ErrorKind::kInternal;
  }
}

}  // namespace

Result<void> Db::exec(std::string_view sql) {
  // BEGIN, COMMIT and ROLLBACK run whatever the deadline: a transaction
  // must end the way its owner says.
  const Deadline none;
  const DeadlineScope no_deadline(none);
  char* err = nullptr;
  const std::string s(sql);
  const int rc = sqlite3_exec(db_, s.c_str(), nullptr, nullptr, &err);
  if (rc != SQLITE_OK) {
    std::string msg = err ? err : sqlite3_errstr(rc);
    sqlite3_free(err);
    return internal_error(Error{kind_of(rc), msg});
  }
  return {};
}

StmtCache::~StmtCache() {
  for (auto& [sql, slot] : slots_)
    for (sqlite3_stmt* st : slot->idle) sqlite3_finalize(st);
}

std::pair<StmtCache::Slot*, sqlite3_stmt*> StmtCache::take(std::string_view sql) {
  auto it = slots_.find(sql);
  if (it == slots_.end()) {
    it = slots_.emplace(std::string(sql), std::make_unique<Slot>()).first;
    it->second->sql = it->first;
  }
  Slot* slot = it->second.get();
  ++slot->out;
  if (slot->idle.empty()) return {slot, nullptr};
  sqlite3_stmt* st = slot->idle.back();
  slot->idle.pop_back();
  --idle_;
  return {slot, st};
}

void StmtCache::give(Slot* slot, sqlite3_stmt* st) {
  sqlite3_reset(st);
  sqlite3_clear_bindings(st);
  --slot->out;
  slot->idle.push_back(st);
  slot->used = ++clock_;
  ++idle_;
  while (idle_ > capacity_) evict_one();
}

void StmtCache::give_up(Slot* slot) {
  if (--slot->out == 0 && slot->idle.empty()) slots_.erase(slots_.find(slot->sql));
}

void StmtCache::evict_one() {
  // The least recently returned statement; a slot left with no statement,
  // idle or out, goes with it. Rare (past `capacity_` distinct statements),
  // so a scan.
  auto oldest = slots_.end();
  for (auto it = slots_.begin(); it != slots_.end(); ++it)
    if (!it->second->idle.empty() &&
        (oldest == slots_.end() || it->second->used < oldest->second->used))
      oldest = it;
  if (oldest == slots_.end()) return;
  Slot& slot = *oldest->second;
  sqlite3_finalize(slot.idle.front());
  slot.idle.erase(slot.idle.begin());
  --idle_;
  if (slot.idle.empty() && slot.out == 0) slots_.erase(oldest);
}

Stmt::~Stmt() {
  if (!st_) {
    if (slot_) cache_->give_up(slot_);
    return;
  }
  if (cache_)
    cache_->give(slot_, st_);
  else
    sqlite3_finalize(st_);
}

Result<Stmt> Stmt::prepare(const Db& db, std::string_view sql, StmtCache* cache) {
  Stmt s;
  s.db_ = db.get();
  if (cache) {
    s.cache_ = cache;
    auto [slot, st] = cache->take(sql);
    s.slot_ = slot;
    if ((s.st_ = st) != nullptr) return s;
  }
  // Prepared once per connection (then kept): the ?N form is made only here.
  const std::string text = sqlite_placeholders(sql);
  const int rc =
      sqlite3_prepare_v2(db.get(), text.data(), static_cast<int>(text.size()), &s.st_, nullptr);
  if (rc != SQLITE_OK) return internal_error(Error{kind_of(rc), db.errmsg()});
  return s;
}

Stmt& Stmt::bind(int i, std::int64_t v) {
  sqlite3_bind_int64(st_, i, v);
  return *this;
}
Stmt& Stmt::bind(int i, std::string_view v) {
  sqlite3_bind_text(st_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
  return *this;
}
Stmt& Stmt::bind_blob(int i, std::string_view v) {
  sqlite3_bind_blob(st_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
  return *this;
}
Stmt& Stmt::bind(int i, const std::optional<std::int64_t>& v) {
  return v ? bind(i, *v) : bind_null(i);
}
Stmt& Stmt::bind_null(int i) {
  sqlite3_bind_null(st_, i);
  return *this;
}

Stmt& Stmt::bind_double(int i, double v) {
  sqlite3_bind_double(st_, i, v);
  return *this;
}

Result<bool> Stmt::step() {
  // A statement is not started once the work's deadline has passed; one
  // already running is interrupted by the progress handler (sqlite_store.cc).
  // BEGIN, COMMIT and ROLLBACK run whatever the deadline.
  const char* sql = sqlite3_sql(st_);
  const bool control = sql && db::is_transaction_control(sql);
  if (!control && !sqlite3_stmt_busy(st_) && deadline_passed())
    return fail(ErrorKind::kTimeout, "interrupted: the work ran past its deadline");
  const Deadline none;
  std::optional<DeadlineScope> pause;
  if (control) pause.emplace(none);
  const int rc = sqlite3_step(st_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return internal_error(Error{kind_of(rc), sqlite3_errmsg(db_)});
}

Result<std::int64_t> Stmt::run() {
  for (;;) {
    auto r = step();
    if (!r) {
      reset();
      return std::unexpected(r.error());
    }
    if (!*r) break;
  }
  reset();
  return sqlite3_changes(db_);
}

void Stmt::reset() {
  sqlite3_reset(st_);
  sqlite3_clear_bindings(st_);
}

std::string Stmt::text(int col) const {
  const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(st_, col));
  return p ? std::string(p, static_cast<size_t>(sqlite3_column_bytes(st_, col))) : std::string();
}

std::string Stmt::blob(int col) const {
  const auto* p = static_cast<const char*>(sqlite3_column_blob(st_, col));
  return p ? std::string(p, static_cast<size_t>(sqlite3_column_bytes(st_, col))) : std::string();
}

std::string sqlite_placeholders(std::string_view sql) {
  std::string out(sql);
  for (size_t i = 0; i + 1 < out.size(); ++i)
    if (out[i] == '$' && out[i + 1] >= '0' && out[i + 1] <= '9') out[i] = '?';
  return out;
}

namespace {

// SQLite's statements name the database in their errors, report the rows a
// statement changed, and keep their bindings across run() and reset().
class SqliteStatement final : public db::StatementOf<Stmt> {
 public:
  SqliteStatement(Stmt st, sqlite3* db, const std::string& where)
      : StatementOf(std::move(st)), db_(db), where_(where) {}
  Result<bool> step() override {
    auto r = st_.step();
    if (!r) return named(r.error());
    return r;
  }
  Result<std::int64_t> run() override {
    for (;;) {
      auto r = st_.step();
      if (!r) {
        sqlite3_reset(st_.handle());
        return named(r.error());
      }
      if (!*r) break;
    }
    sqlite3_reset(st_.handle());
    return sqlite3_changes(db_);
  }
  void reset() override { sqlite3_reset(st_.handle()); }

 private:
  std::unexpected<Error> named(const Error& e) const {
    return internal_error(Error{e.kind, fmt::format("database {}: {}", where_, e.message)});
  }
  sqlite3* db_;
  const std::string& where_;
};

}  // namespace

db::Query query(const Db& db, StmtCache* cache, std::string_view sql, const std::string& where) {
  auto st = Stmt::prepare(db, sql, cache);
  if (!st) {
    auto e = internal_error(
        Error{st.error().kind, fmt::format("database {}: {}", where, st.error().message)});
    return db::Query(std::move(e.error()));
  }
  return db::Query(std::make_unique<SqliteStatement>(std::move(*st), db.get(), where));
}

}  // namespace mergelens::sql
