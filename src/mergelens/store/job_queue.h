// The job queue, model limits and repository settings written once for both
// backends (private to store/). `Db` adapts a connection:
//   q(sql)        a statement; placeholders are written $1, $2, ... (the
//                 SQLite adapter turns them into ?1, ?2, ...), with bind(i,
//                 int64), bind(i, string_view), step() -> Result<bool>,
//                 count() -> Result<int64> (run, rows affected), i64(c), text(c);
//   tx<T>(body)   runs body in one write transaction (SQLite: BEGIN
//                 IMMEDIATE, so one claimer at a time; PostgreSQL: rows are
//                 locked FOR UPDATE SKIP LOCKED and several claim at once);
//   kPg           true for PostgreSQL.
// The claim's race on one serial between two PostgreSQL transactions ends
// in a unique violation of jobs_one_running_per_serial; the loser tries
// again, so two jobs of one serial never run at once on either backend.
#pragma once

#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "mergelens/store/jobs.h"

namespace mergelens::jobq {

inline constexpr std::string_view kColumns =
    "id, kind, repo_id, change_id, lang, key, serial, payload, priority, not_before, "
    "max_attempts, state, attempts, owner, lease_until, last_error, created_at, updated_at";

std::optional<JobState> state_from_string(std::string_view s);

template <class St>
Job read_job(const St& s) {
  Job j;
  j.id = s.i64(0);
  j.spec.kind = s.text(1);
  j.spec.repo_id = s.i64(2);
  j.spec.change_id = s.i64(3);
  j.spec.lang = s.text(4);
  j.spec.key = s.text(5);
  j.spec.serial = s.text(6);
  j.spec.payload = s.text(7);
  j.spec.priority = static_cast<int>(s.i64(8));
  j.spec.not_before = s.i64(9);
  j.spec.max_attempts = static_cast<int>(s.i64(10));
  j.state = state_from_string(s.text(11)).value_or(JobState::kQueued);
  j.attempts = static_cast<int>(s.i64(12));
  j.owner = s.text(13);
  j.lease_until = s.i64(14);
  j.last_error = s.text(15);
  j.created_at = s.i64(16);
  j.updated_at = s.i64(17);
  return j;
}

template <class Db>
class Queue {
 public:
  explicit Queue(Db& db) : db_(db) {}

  Result<size_t> enqueue(std::span<const JobSpec> jobs, UnixSeconds now) {
    return db_.template tx<size_t>([&]() -> Result<size_t> {
      size_t added = 0;
      for (const JobSpec& j : jobs) {
        auto st = db_.q(
            "INSERT INTO jobs(kind, repo_id, change_id, lang, key, serial, payload, priority, "
            "not_before, max_attempts, created_at, updated_at) VALUES($1,$2,$3,$4,$5,$6,$7,$8,"
            "$9,$10,$11,$11) ON CONFLICT DO NOTHING");
        st.bind(1, j.kind).bind(2, j.repo_id).bind(3, j.change_id).bind(4, j.lang);
        st.bind(5, j.key).bind(6, j.serial).bind(7, j.payload);
        st.bind(8, std::int64_t{j.priority}).bind(9, j.not_before);
        st.bind(10, std::int64_t{std::max(1, j.max_attempts)}).bind(11, now);
        auto n = st.count();
        if (!n) return std::unexpected(n.error());
        added += static_cast<size_t>(*n);
      }
      return added;
    });
  }

  Result<std::optional<Job>> claim(std::string_view worker, std::span<const std::string> kinds,
                                   UnixSeconds now, int lease) {
    for (int attempt = 0;; ++attempt) {
      auto r = db_.template tx<std::optional<Job>>(
          [&]() -> Result<std::optional<Job>> { return claim_once(worker, kinds, now, lease); });
      if (r || !db_.unique_violation() || attempt >= 4) return r;
    }
  }

  Result<bool> heartbeat(std::int64_t id, std::string_view worker, UnixSeconds now, int lease) {
    auto st = db_.q(
        "UPDATE jobs SET lease_until = $3, updated_at = $4 WHERE id = $1 AND owner = $2 AND "
        "state = 'running'");
    st.bind(1, id).bind(2, worker).bind(3, now + lease).bind(4, now);
    auto n = st.count();
    if (!n) return std::unexpected(n.error());
    return *n > 0;
  }

  Result<bool> complete(std::int64_t id, std::string_view worker, UnixSeconds now) {
    auto st = db_.q(
        "UPDATE jobs SET state = 'done', updated_at = $3, lease_until = 0 WHERE id = $1 AND "
        "owner = $2 AND state = 'running'");
    st.bind(1, id).bind(2, worker).bind(3, now);
    auto n = st.count();
    if (!n) return std::unexpected(n.error());
    return *n > 0;
  }

  Result<bool> fail(std::int64_t id, std::string_view worker, std::string_view error,
                    UnixSeconds now, int retry_in, bool permanent) {
    return db_.template tx<bool>([&]() -> Result<bool> {
      auto st = db_.q(
          "SELECT attempts, max_attempts FROM jobs WHERE id = $1 AND owner = $2 AND "
          "state = 'running'");
      st.bind(1, id).bind(2, worker);
      auto row = st.step();
      if (!row) return std::unexpected(row.error());
      if (!*row) return false;
      const bool dead = permanent || st.i64(0) >= st.i64(1);
      if (dead) return set_state(id, "dead", error, now, now);
      return requeue(id, error, now, now + retry_in, /*refund=*/false);
    });
  }

  Result<bool> release(std::int64_t id, std::string_view worker, UnixSeconds not_before) {
    return db_.template tx<bool>([&]() -> Result<bool> {
      auto st = db_.q("SELECT 1 FROM jobs WHERE id = $1 AND owner = $2 AND state = 'running'");
      st.bind(1, id).bind(2, worker);
      auto row = st.step();
      if (!row) return std::unexpected(row.error());
      if (!*row) return false;
      return requeue(id, "", not_before, not_before, /*refund=*/true);
    });
  }

  Result<std::vector<Job>> list(const JobQuery& query) {
    auto st = db_.q(
        fmt::format("SELECT {} FROM jobs WHERE ($1 = '' OR state = $1) AND ($2 = '' OR kind = $2) "
                    "ORDER BY id DESC LIMIT $3",
                    kColumns));
    st.bind(1, query.state ? to_string(*query.state) : "").bind(2, query.kind);
    st.bind(3, static_cast<std::int64_t>(query.limit));
    std::vector<Job> out;
    for (;;) {
      auto row = st.step();
      if (!row) return std::unexpected(row.error());
      if (!*row) break;
      out.push_back(read_job(st));
    }
    return out;
  }

  Result<std::vector<JobCount>> counts() {
    auto st = db_.q("SELECT kind, state, count(*) FROM jobs GROUP BY kind, state ORDER BY 1, 2");
    std::vector<JobCount> out;
    for (;;) {
      auto row = st.step();
      if (!row) return std::unexpected(row.error());
      if (!*row) break;
      out.push_back(
          {st.text(0), state_from_string(st.text(1)).value_or(JobState::kQueued), st.i64(2)});
    }
    return out;
  }

  Result<size_t> retry_dead(std::string_view kind, UnixSeconds now) {
    return db_.template tx<size_t>([&]() -> Result<size_t> {
      auto st = db_.q("SELECT id FROM jobs WHERE state = 'dead' AND ($1 = '' OR kind = $1)");
      st.bind(1, kind);
      std::vector<std::int64_t> ids;
      for (;;) {
        auto row = st.step();
        if (!row) return std::unexpected(row.error());
        if (!*row) break;
        ids.push_back(st.i64(0));
      }
      for (auto id : ids) {
        auto zero = db_.q("UPDATE jobs SET attempts = 0 WHERE id = $1");
        zero.bind(1, id);
        if (auto r = zero.count(); !r) return std::unexpected(r.error());
        if (auto r = requeue(id, "", now, now, false); !r) return std::unexpected(r.error());
      }
      return ids.size();
    });
  }

  Result<size_t> prune(UnixSeconds before) {
    auto st = db_.q("DELETE FROM jobs WHERE state = 'done' AND updated_at < $1");
    st.bind(1, before);
    auto n = st.count();
    if (!n) return std::unexpected(n.error());
    return static_cast<size_t>(*n);
  }

  Result<ModelGrant> take_slot(std::string_view name, const ModelLimits& limits,
                               std::int64_t now_ms) {
    return db_.template tx<ModelGrant>([&]() -> Result<ModelGrant> {
      auto row = limit_row(name);
      if (!row) return std::unexpected(row.error());
      auto [tat, day, tokens] = *row;
      const std::int64_t today = now_ms / 86'400'000;
      if (day != today) tokens = 0;
      ModelGrant g;
      if (limits.tokens_per_day > 0 && tokens >= limits.tokens_per_day) {
        g.budget_spent = true;
        g.wait_ms = (today + 1) * 86'400'000 - now_ms;
      } else if (limits.requests_per_minute > 0) {
        const auto interval = static_cast<std::int64_t>(60'000.0 / limits.requests_per_minute);
        const std::int64_t tolerance = interval * std::max(0, limits.burst - 1);
        tat = std::max(tat, now_ms);
        if (tat - now_ms > tolerance) {
          g.wait_ms = tat - now_ms - tolerance;
        } else {
          tat += interval;
          g.granted = true;
        }
      } else {
        g.granted = true;
      }
      auto up = db_.q(
          "UPDATE model_limits SET tat_ms = $2, day = $3, day_tokens = $4, requests = requests + "
          "$5 WHERE name = $1");
      up.bind(1, name).bind(2, tat).bind(3, today).bind(4, tokens);
      up.bind(5, std::int64_t{g.granted});
      if (auto r = up.count(); !r) return std::unexpected(r.error());
      return g;
    });
  }

  Result<void> add_tokens(std::string_view name, std::int64_t used, std::int64_t now_ms) {
    return db_.template tx<void>([&]() -> Result<void> {
      if (auto row = limit_row(name); !row) return std::unexpected(row.error());
      auto up = db_.q(
          "UPDATE model_limits SET day_tokens = CASE WHEN day = $3 THEN day_tokens + $2 ELSE $2 "
          "END, day = $3 WHERE name = $1");
      up.bind(1, name).bind(2, used).bind(3, now_ms / 86'400'000);
      if (auto r = up.count(); !r) return std::unexpected(r.error());
      return {};
    });
  }

  Result<void> put_settings(const RepoSettings& s) {
    std::string langs;
    for (const auto& l : s.langs) langs += (langs.empty() ? "" : ",") + l;
    auto st = db_.q(
        "INSERT INTO repo_settings(name, path, branch, github, schedule_seconds, langs, llm) "
        "VALUES($1,$2,$3,$4,$5,$6,$7) ON CONFLICT (name) DO UPDATE SET path = excluded.path, "
        "branch = excluded.branch, github = excluded.github, schedule_seconds = "
        "excluded.schedule_seconds, langs = excluded.langs, llm = excluded.llm");
    st.bind(1, s.name).bind(2, s.path).bind(3, s.branch).bind(4, s.github);
    st.bind(5, s.schedule_seconds).bind(6, langs).bind(7, std::int64_t{s.llm});
    if (auto r = st.count(); !r) return std::unexpected(r.error());
    return {};
  }

  Result<std::vector<RepoSettings>> list_settings() {
    auto st = db_.q(
        "SELECT name, path, branch, github, schedule_seconds, langs, llm FROM repo_settings "
        "ORDER BY name");
    std::vector<RepoSettings> out;
    for (;;) {
      auto row = st.step();
      if (!row) return std::unexpected(row.error());
      if (!*row) break;
      RepoSettings s;
      s.name = st.text(0);
      s.path = st.text(1);
      s.branch = st.text(2);
      s.github = st.text(3);
      s.schedule_seconds = st.i64(4);
      s.langs.clear();
      const std::string langs = st.text(5);
      for (size_t a = 0; a < langs.size();) {
        size_t b = langs.find(',', a);
        if (b == std::string::npos) b = langs.size();
        if (b > a) s.langs.push_back(langs.substr(a, b - a));
        a = b + 1;
      }
      s.llm = st.i64(6) != 0;
      out.push_back(std::move(s));
    }
    return out;
  }

  Result<bool> remove_settings(std::string_view name) {
    return db_.template tx<bool>([&]() -> Result<bool> {
      auto del = db_.q("DELETE FROM repo_settings WHERE name = $1");
      del.bind(1, name);
      auto n = del.count();
      if (!n) return std::unexpected(n.error());
      auto jobs = db_.q(
          "DELETE FROM jobs WHERE state = 'queued' AND repo_id IN (SELECT id FROM repos WHERE "
          "name = $1)");
      jobs.bind(1, name);
      if (auto r = jobs.count(); !r) return std::unexpected(r.error());
      return *n > 0;
    });
  }

  Result<GuideState> guide_state(std::int64_t change_id, std::string_view lang) {
    auto st = db_.q(
        "SELECT (SELECT count(*) FROM facts WHERE change_id = $1), coalesce((SELECT writer FROM "
        "guides WHERE change_id = $1 AND lang = $2), ''), coalesce((SELECT stale FROM guides "
        "WHERE change_id = $1 AND lang = $2), -1)");
    st.bind(1, change_id).bind(2, lang);
    auto row = st.step();
    if (!row) return std::unexpected(row.error());
    GuideState g;
    g.analysed = st.i64(0) > 0;
    g.writer = st.text(1);
    g.exists = st.i64(2) >= 0;
    g.stale = st.i64(2) > 0;
    return g;
  }

 private:
  Result<std::optional<Job>> claim_once(std::string_view worker, std::span<const std::string> kinds,
                                        UnixSeconds now, int lease) {
    std::string kind_list;
    for (size_t i = 0; i < kinds.size(); ++i)
      kind_list += fmt::format("{}${}", i ? "," : "", 10 + i);
    const std::string select = fmt::format(
        "SELECT id, state, attempts, max_attempts, last_error FROM jobs j WHERE ((state = "
        "'queued' AND not_before <= $1) OR (state = 'running' AND lease_until < $1)) {} AND "
        "(serial = '' OR NOT EXISTS (SELECT 1 FROM jobs r WHERE r.serial = j.serial AND "
        "r.state = 'running' AND r.id != j.id)) ORDER BY CASE WHEN state = 'running' THEN 0 "
        "ELSE 1 END, priority, id LIMIT 1{}",
        kinds.empty() ? "" : fmt::format("AND kind IN ({})", kind_list),
        Db::kPg ? " FOR UPDATE SKIP LOCKED" : "");
    // A job whose worker died too often is dead-lettered, and the next one tried.
    for (int skipped = 0; skipped < 16; ++skipped) {
      auto st = db_.q(select);
      st.bind(1, now);
      for (size_t i = 0; i < kinds.size(); ++i) st.bind(static_cast<int>(10 + i), kinds[i]);
      auto row = st.step();
      if (!row) return std::unexpected(row.error());
      if (!*row) return std::optional<Job>();
      const std::int64_t id = st.i64(0);
      if (st.text(1) == "running" && st.i64(2) >= st.i64(3)) {
        const std::string why =
            fmt::format("its worker stopped before finishing it {} times (lease expired){}{}",
                        st.i64(2), st.text(4).empty() ? "" : "; last error: ", st.text(4));
        if (auto r = set_state(id, "dead", why, now, now); !r) return std::unexpected(r.error());
        continue;
      }
      auto up = db_.q(fmt::format(
          "UPDATE jobs SET state = 'running', owner = $2, lease_until = $3, attempts = attempts "
          "+ 1, updated_at = $4 WHERE id = $1 RETURNING {}",
          kColumns));
      up.bind(1, id).bind(2, worker).bind(3, now + lease).bind(4, now);
      auto got = up.step();
      if (!got) return std::unexpected(got.error());
      if (!*got) return std::optional<Job>();
      return std::optional<Job>(read_job(up));
    }
    return std::optional<Job>();
  }

  Result<bool> set_state(std::int64_t id, std::string_view state, std::string_view error,
                         UnixSeconds not_before, UnixSeconds now) {
    auto st = db_.q(
        "UPDATE jobs SET state = $2, last_error = $3, not_before = $4, updated_at = $5, "
        "owner = '', lease_until = 0 WHERE id = $1");
    st.bind(1, id).bind(2, state).bind(3, error).bind(4, not_before).bind(5, now);
    if (auto r = st.count(); !r) return std::unexpected(r.error());
    return true;
  }

  // Queues job `id` again, or marks it done when another job with its key is
  // already queued (that one will do the same work). `refund`: the attempt
  // does not count.
  Result<bool> requeue(std::int64_t id, std::string_view error, UnixSeconds now,
                       UnixSeconds not_before, bool refund) {
    auto other = db_.q(
        "SELECT o.id FROM jobs o JOIN jobs j ON j.key = o.key WHERE j.id = $1 AND o.id != $1 "
        "AND o.state = 'queued'");
    other.bind(1, id);
    auto row = other.step();
    if (!row) return std::unexpected(row.error());
    if (*row)
      return set_state(id, "done", fmt::format("superseded by job {}", other.i64(0)), now, now);
    if (refund) {
      auto back = db_.q("UPDATE jobs SET attempts = attempts - 1 WHERE id = $1 AND attempts > 0");
      back.bind(1, id);
      if (auto r = back.count(); !r) return std::unexpected(r.error());
    }
    if (!error.empty() || !refund) return set_state(id, "queued", error, not_before, now);
    auto st = db_.q(
        "UPDATE jobs SET state = 'queued', not_before = $2, owner = '', lease_until = 0 "
        "WHERE id = $1");
    st.bind(1, id).bind(2, not_before);
    if (auto r = st.count(); !r) return std::unexpected(r.error());
    return true;
  }

  // (tat_ms, day, day_tokens) of a model, its row created when missing and
  // locked for the transaction on PostgreSQL.
  Result<std::tuple<std::int64_t, std::int64_t, std::int64_t>> limit_row(std::string_view name) {
    auto ins = db_.q("INSERT INTO model_limits(name) VALUES($1) ON CONFLICT DO NOTHING");
    ins.bind(1, name);
    if (auto r = ins.count(); !r) return std::unexpected(r.error());
    auto st =
        db_.q(std::string("SELECT tat_ms, day, day_tokens FROM model_limits WHERE name = $1") +
              (Db::kPg ? " FOR UPDATE" : ""));
    st.bind(1, name);
    auto row = st.step();
    if (!row) return std::unexpected(row.error());
    if (!*row) return std::unexpected(Error{ErrorKind::kInternal, "model_limits row vanished"});
    return std::tuple{st.i64(0), st.i64(1), st.i64(2)};
  }

  Db& db_;
};

}  // namespace mergelens::jobq

// Defines every JobStore method of `Class` through Queue<adapter>, the
// adapter being what MERGELENS_JOBS_ADAPTER builds (e.g. `PgJobDb{*this,
// conn_}`); define that macro before expanding this one.
#define MERGELENS_JOBS(expr)           \
  auto db = MERGELENS_JOBS_ADAPTER;    \
  jobq::Queue<decltype(db)> queue(db); \
  return queue.expr
#define MERGELENS_DEFINE_JOB_STORE(Class)                                                          \
  Result<size_t> Class::enqueue_jobs(std::span<const JobSpec> jobs, UnixSeconds now) {             \
    MERGELENS_JOBS(enqueue(jobs, now));                                                            \
  }                                                                                                \
  Result<std::optional<Job>> Class::claim_job(std::string_view worker,                             \
                                              std::span<const std::string> kinds, UnixSeconds now, \
                                              int lease_seconds) {                                 \
    MERGELENS_JOBS(claim(worker, kinds, now, lease_seconds));                                      \
  }                                                                                                \
  Result<bool> Class::heartbeat_job(std::int64_t id, std::string_view worker, UnixSeconds now,     \
                                    int lease_seconds) {                                           \
    MERGELENS_JOBS(heartbeat(id, worker, now, lease_seconds));                                     \
  }                                                                                                \
  Result<bool> Class::complete_job(std::int64_t id, std::string_view worker, UnixSeconds now) {    \
    MERGELENS_JOBS(complete(id, worker, now));                                                     \
  }                                                                                                \
  Result<bool> Class::fail_job(std::int64_t id, std::string_view worker, std::string_view error,   \
                               UnixSeconds now, int retry_in, bool permanent) {                    \
    MERGELENS_JOBS(fail(id, worker, error, now, retry_in, permanent));                             \
  }                                                                                                \
  Result<bool> Class::release_job(std::int64_t id, std::string_view worker,                        \
                                  UnixSeconds not_before) {                                        \
    MERGELENS_JOBS(release(id, worker, not_before));                                               \
  }                                                                                                \
  Result<std::vector<Job>> Class::list_jobs(const JobQuery& query) {                               \
    MERGELENS_JOBS(list(query));                                                                   \
  }                                                                                                \
  Result<std::vector<JobCount>> Class::job_counts() {                                              \
    MERGELENS_JOBS(counts());                                                                      \
  }                                                                                                \
  Result<size_t> Class::retry_dead_jobs(std::string_view kind, UnixSeconds now) {                  \
    MERGELENS_JOBS(retry_dead(kind, now));                                                         \
  }                                                                                                \
  Result<size_t> Class::prune_jobs(UnixSeconds before) {                                           \
    MERGELENS_JOBS(prune(before));                                                                 \
  }                                                                                                \
  Result<ModelGrant> Class::take_model_slot(std::string_view name, const ModelLimits& limits,      \
                                            std::int64_t now_ms) {                                 \
    MERGELENS_JOBS(take_slot(name, limits, now_ms));                                               \
  }                                                                                                \
  Result<void> Class::add_model_tokens(std::string_view name, std::int64_t tokens,                 \
                                       std::int64_t now_ms) {                                      \
    MERGELENS_JOBS(add_tokens(name, tokens, now_ms));                                              \
  }                                                                                                \
  Result<void> Class::put_repo_settings(const RepoSettings& settings) {                            \
    MERGELENS_JOBS(put_settings(settings));                                                        \
  }                                                                                                \
  Result<std::vector<RepoSettings>> Class::list_repo_settings() {                                  \
    MERGELENS_JOBS(list_settings());                                                               \
  }                                                                                                \
  Result<bool> Class::remove_repo_settings(std::string_view name) {                                \
    MERGELENS_JOBS(remove_settings(name));                                                         \
  }                                                                                                \
  Result<GuideState> Class::guide_state(std::int64_t change_id, std::string_view lang) {           \
    MERGELENS_JOBS(guide_state(change_id, lang));                                                  \
  }
