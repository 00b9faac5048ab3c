// SqliteStore: the job queue, the shared model limits and the repository
// settings (store/jobs.h), through the shared implementation in job_queue.h.
// Claims run in BEGIN IMMEDIATE transactions, so workers of one machine
// claim one at a time (SQLite has no row locks to skip).
#include "mergelens/store/job_queue.h"
#include "mergelens/store/sqlite_store_impl.h"

namespace mergelens {
namespace {

// "$12" -> "?12": job_queue.h writes PostgreSQL placeholders.
std::string sqlite_placeholders(std::string_view sql) {
  std::string out(sql);
  for (size_t i = 0; i + 1 < out.size(); ++i)
    if (out[i] == '$' && out[i + 1] >= '0' && out[i + 1] <= '9') out[i] = '?';
  return out;
}

}  // namespace

// The adapter job_queue.h expects (see there).
struct SqliteJobDb {
  static constexpr bool kPg = false;
  SqliteStore& store;

  struct St {
    SqliteStore* store;
    Result<sql::Stmt> st;
    template <class V>
    St& bind(int i, V&& v) {
      if (st) st->bind(i, std::forward<V>(v));
      return *this;
    }
    Result<bool> step() {
      if (!st) return std::unexpected(st.error());
      return st->step();
    }
    Result<std::int64_t> count() {
      if (!st) return std::unexpected(st.error());
      if (auto r = st->run(); !r) return std::unexpected(r.error());
      return store->last_changes();
    }
    std::int64_t i64(int c) const { return st->i64(c); }
    std::string text(int c) const { return st->text(c); }
  };
  St q(std::string_view sql) { return St{&store, store.prepare_stmt(sqlite_placeholders(sql))}; }
  template <class T>
  Result<T> tx(const std::function<Result<T>()>& body) {
    return store.run_transaction<T>(body);
  }
  bool unique_violation() const { return false; }  // one writer at a time
};

#define MERGELENS_JOBS_ADAPTER \
  SqliteJobDb {                \
    *this                      \
  }
MERGELENS_DEFINE_JOB_STORE(SqliteStore)
#undef MERGELENS_JOBS_ADAPTER

}  // namespace mergelens
