// The job queue (store/jobs.h), written once for both backends. A claim runs
// in one write transaction: SQLite's BEGIN IMMEDIATE admits one claimer at a
// time; PostgreSQL locks the chosen row FOR UPDATE SKIP LOCKED, so several
// workers claim at once. Their race on one serial ends in a unique violation
// of jobs_one_running_per_serial; the loser tries again, so two jobs of one
// serial never run at once on either backend. The queue's writes do not
// move data_version: no page shows them.
#include <algorithm>

#include <fmt/format.h>

#include "mergelens/store/sql_store.h"

namespace mergelens {

namespace {

constexpr std::string_view kColumns =
    "id, kind, repo_id, change_id, lang, key, serial, payload, priority, not_before, "
    "max_attempts, state, attempts, owner, lease_until, last_error, created_at, updated_at";

std::optional<JobState> state_from_string(std::string_view s) {
  for (auto st : {JobState::kQueued, JobState::kRunning, JobState::kDone, JobState::kDead})
    if (s == to_string(st)) return st;
  return std::nullopt;
}

Job read_job(const db::Query& s) {
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

}  // namespace

Result<size_t> SqlStore::enqueue_jobs(std::span<const JobSpec> jobs, UnixSeconds now) {
  return tx<size_t>(
      [&]() -> Result<size_t> {
        size_t added = 0;
        auto st =
            q("INSERT INTO jobs(kind, repo_id, change_id, lang, key, serial, payload, priority, "
              "not_before, max_attempts, created_at, updated_at) VALUES($1,$2,$3,$4,$5,$6,$7,$8,"
              "$9,$10,$11,$11) ON CONFLICT DO NOTHING");
        for (const JobSpec& j : jobs) {
          st.bind(1, j.kind).bind(2, j.repo_id).bind(3, j.change_id).bind(4, j.lang);
          st.bind(5, j.key).bind(6, j.serial).bind(7, j.payload);
          st.bind(8, std::int64_t{j.priority}).bind(9, j.not_before);
          st.bind(10, std::int64_t{std::max(1, j.max_attempts)}).bind(11, now);
          auto n = st.run();
          if (!n) return std::unexpected(n.error());
          added += static_cast<size_t>(*n);
        }
        return added;
      },
      /*bump_version=*/false);
}

Result<std::optional<Job>> SqlStore::claim_job(std::string_view worker,
                                               std::span<const std::string> kinds, UnixSeconds now,
                                               int lease_seconds) {
  for (int attempt = 0;; ++attempt) {
    auto r = tx<std::optional<Job>>(
        [&]() -> Result<std::optional<Job>> {
          return claim_once(worker, kinds, now, lease_seconds);
        },
        /*bump_version=*/false);
    if (r || !last_was_unique_violation() || attempt >= 4) return r;
  }
}

Result<std::optional<Job>> SqlStore::claim_once(std::string_view worker,
                                                std::span<const std::string> kinds, UnixSeconds now,
                                                int lease) {
  std::string kind_list;
  for (size_t i = 0; i < kinds.size(); ++i) kind_list += fmt::format("{}${}", i ? "," : "", 10 + i);
  // SQLite has no row locks to skip: its claimers take turns.
  const std::string select = fmt::format(
      "SELECT id, state, attempts, max_attempts, last_error FROM jobs j WHERE ((state = "
      "'queued' AND not_before <= $1) OR (state = 'running' AND lease_until < $1)) {} AND "
      "(serial = '' OR NOT EXISTS (SELECT 1 FROM jobs r WHERE r.serial = j.serial AND "
      "r.state = 'running' AND r.id != j.id)) ORDER BY CASE WHEN state = 'running' THEN 0 "
      "ELSE 1 END, priority, id LIMIT 1{}",
      kinds.empty() ? "" : fmt::format("AND kind IN ({})", kind_list),
      pick("", " FOR UPDATE SKIP LOCKED"));
  // A job whose worker died too often is dead-lettered, and the next one tried.
  for (int skipped = 0; skipped < 16; ++skipped) {
    auto st = q(select);
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
      if (auto r = set_job_state(id, "dead", why, now, now); !r) return std::unexpected(r.error());
      continue;
    }
    auto up = q(fmt::format(
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

Result<bool> SqlStore::heartbeat_job(std::int64_t id, std::string_view worker, UnixSeconds now,
                                     int lease_seconds) {
  auto st =
      q("UPDATE jobs SET lease_until = $3, updated_at = $4 WHERE id = $1 AND owner = $2 AND "
        "state = 'running'");
  st.bind(1, id).bind(2, worker).bind(3, now + lease_seconds).bind(4, now);
  auto n = st.run();
  if (!n) return std::unexpected(n.error());
  return *n > 0;
}

Result<bool> SqlStore::complete_job(std::int64_t id, std::string_view worker, UnixSeconds now) {
  auto st =
      q("UPDATE jobs SET state = 'done', updated_at = $3, lease_until = 0 WHERE id = $1 AND "
        "owner = $2 AND state = 'running'");
  st.bind(1, id).bind(2, worker).bind(3, now);
  auto n = st.run();
  if (!n) return std::unexpected(n.error());
  return *n > 0;
}

Result<bool> SqlStore::fail_job(std::int64_t id, std::string_view worker, std::string_view error,
                                UnixSeconds now, int retry_in, bool permanent) {
  return tx<bool>(
      [&]() -> Result<bool> {
        auto st =
            q("SELECT attempts, max_attempts FROM jobs WHERE id = $1 AND owner = $2 AND "
              "state = 'running'");
        st.bind(1, id).bind(2, worker);
        auto row = st.step();
        if (!row) return std::unexpected(row.error());
        if (!*row) return false;
        const bool dead = permanent || st.i64(0) >= st.i64(1);
        if (dead) return set_job_state(id, "dead", error, now, now);
        return requeue_job(id, error, now, now + retry_in, /*refund=*/false);
      },
      /*bump_version=*/false);
}

Result<bool> SqlStore::release_job(std::int64_t id, std::string_view worker,
                                   UnixSeconds not_before) {
  return tx<bool>(
      [&]() -> Result<bool> {
        auto st = q("SELECT 1 FROM jobs WHERE id = $1 AND owner = $2 AND state = 'running'");
        st.bind(1, id).bind(2, worker);
        auto row = st.first_i64();
        if (!row) return std::unexpected(row.error());
        if (!*row) return false;
        return requeue_job(id, "", not_before, not_before, /*refund=*/true);
      },
      /*bump_version=*/false);
}

Result<std::vector<Job>> SqlStore::list_jobs(const JobQuery& query) {
  auto st =
      q(fmt::format("SELECT {} FROM jobs WHERE ($1 = '' OR state = $1) AND ($2 = '' OR kind = $2) "
                    "AND ($4 = 0 OR repo_id = $4) AND ($5 = '' OR serial = $5) "
                    "ORDER BY id DESC LIMIT $3",
                    kColumns));
  st.bind(1, query.state ? to_string(*query.state) : "").bind(2, query.kind);
  st.bind(3, static_cast<std::int64_t>(query.limit));
  st.bind(4, query.repo_id).bind(5, query.serial);
  return st.collect(read_job);
}

Result<std::vector<JobCount>> SqlStore::job_counts() {
  auto st = q("SELECT kind, state, count(*) FROM jobs GROUP BY kind, state ORDER BY 1, 2");
  return st.collect([](const db::Query& s) {
    return JobCount{s.text(0), state_from_string(s.text(1)).value_or(JobState::kQueued), s.i64(2)};
  });
}

Result<size_t> SqlStore::retry_dead_jobs(std::string_view kind, UnixSeconds now) {
  return tx<size_t>(
      [&]() -> Result<size_t> {
        auto st = q("SELECT id FROM jobs WHERE state = 'dead' AND ($1 = '' OR kind = $1)");
        st.bind(1, kind);
        auto ids = st.ids();
        if (!ids) return std::unexpected(ids.error());
        for (auto id : *ids) {
          auto zero = q("UPDATE jobs SET attempts = 0 WHERE id = $1");
          zero.bind(1, id);
          if (auto r = zero.run(); !r) return std::unexpected(r.error());
          if (auto r = requeue_job(id, "", now, now, false); !r) return std::unexpected(r.error());
        }
        return ids->size();
      },
      /*bump_version=*/false);
}

Result<size_t> SqlStore::prune_jobs(UnixSeconds before) {
  auto st = q("DELETE FROM jobs WHERE state = 'done' AND updated_at < $1");
  st.bind(1, before);
  auto n = st.run();
  if (!n) return std::unexpected(n.error());
  return static_cast<size_t>(*n);
}

Result<bool> SqlStore::set_job_state(std::int64_t id, std::string_view state,
                                     std::string_view error, UnixSeconds not_before,
                                     UnixSeconds now) {
  auto st =
      q("UPDATE jobs SET state = $2, last_error = $3, not_before = $4, updated_at = $5, "
        "owner = '', lease_until = 0 WHERE id = $1");
  st.bind(1, id).bind(2, state).bind(3, error).bind(4, not_before).bind(5, now);
  if (auto r = st.run(); !r) return std::unexpected(r.error());
  return true;
}

Result<bool> SqlStore::requeue_job(std::int64_t id, std::string_view error, UnixSeconds now,
                                   UnixSeconds not_before, bool refund) {
  auto other =
      q("SELECT o.id FROM jobs o JOIN jobs j ON j.key = o.key WHERE j.id = $1 AND o.id != $1 "
        "AND o.state = 'queued'");
  other.bind(1, id);
  auto superseded_by = other.first_i64();
  if (!superseded_by) return std::unexpected(superseded_by.error());
  if (*superseded_by)
    return set_job_state(id, "done", fmt::format("superseded by job {}", **superseded_by), now,
                         now);
  if (refund) {
    auto back = q("UPDATE jobs SET attempts = attempts - 1 WHERE id = $1 AND attempts > 0");
    back.bind(1, id);
    if (auto r = back.run(); !r) return std::unexpected(r.error());
  }
  if (!error.empty() || !refund) return set_job_state(id, "queued", error, not_before, now);
  auto st =
      q("UPDATE jobs SET state = 'queued', not_before = $2, owner = '', lease_until = 0 "
        "WHERE id = $1");
  st.bind(1, id).bind(2, not_before);
  if (auto r = st.run(); !r) return std::unexpected(r.error());
  return true;
}

}  // namespace mergelens
