// PgStore: the job queue, the shared model limits and the repository
// settings (store/jobs.h), through the shared implementation in job_queue.h.
#include "mergelens/store/job_queue.h"
#include "mergelens/store/pg_store_impl.h"

namespace mergelens {

// The adapter job_queue.h expects (see there).
struct PgJobDb {
  static constexpr bool kPg = true;
  PgStore& store;
  pg::Conn& conn;

  struct St {
    pg::Stmt st;
    template <class V>
    St& bind(int i, V&& v) {
      st.bind(i, std::forward<V>(v));
      return *this;
    }
    Result<bool> step() { return st.step(); }
    Result<std::int64_t> count() { return st.run(); }
    std::int64_t i64(int c) const { return st.i64(c); }
    std::string text(int c) const { return st.text(c); }
  };
  St q(std::string_view sql) { return St{pg::Stmt(conn, std::string(sql))}; }
  template <class T>
  Result<T> tx(const std::function<Result<T>()>& body) {
    return store.run_transaction<T>(body);
  }
  bool unique_violation() const { return conn.last_state() == pg::kUniqueViolation; }
};

#define MERGELENS_JOBS_ADAPTER \
  PgJobDb {                    \
    *this, conn_               \
  }
MERGELENS_DEFINE_JOB_STORE(PgStore)
#undef MERGELENS_JOBS_ADAPTER

}  // namespace mergelens
