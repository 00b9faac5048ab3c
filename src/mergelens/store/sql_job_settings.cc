// The shared model rate limit and the repository settings (store/jobs.h),
// written once for both backends. Like the queue's, these writes do not
// move data_version: no page shows them.
#include <algorithm>

#include <fmt/format.h>

#include "mergelens/store/sql_store.h"

namespace mergelens {

namespace {

constexpr std::int64_t kDayMs = 86'400'000;

RepoSettings read_settings(const db::Query& st) {
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
  return s;
}

}  // namespace

Result<SqlStore::LimitRow> SqlStore::limit_row(std::string_view name) {
  auto ins = q("INSERT INTO model_limits(name) VALUES($1) ON CONFLICT DO NOTHING");
  ins.bind(1, name);
  if (auto r = ins.run(); !r) return std::unexpected(r.error());
  // PostgreSQL: the row stays locked until the transaction ends (SQLite's
  // BEGIN IMMEDIATE already holds the database).
  auto st = q(fmt::format("SELECT tat_ms, day, day_tokens FROM model_limits WHERE name = $1{}",
                          pick("", " FOR UPDATE")));
  st.bind(1, name);
  auto row = st.step();
  if (!row) return std::unexpected(row.error());
  if (!*row) return std::unexpected(Error{ErrorKind::kInternal, "model_limits row vanished"});
  return LimitRow{st.i64(0), st.i64(1), st.i64(2)};
}

Result<ModelGrant> SqlStore::take_model_slot(std::string_view name, const ModelLimits& limits,
                                             std::int64_t now_ms) {
  return tx<ModelGrant>(
      [&]() -> Result<ModelGrant> {
        auto row = limit_row(name);
        if (!row) return std::unexpected(row.error());
        auto [tat, day, tokens] = *row;
        const std::int64_t today = now_ms / kDayMs;
        if (day != today) tokens = 0;
        ModelGrant g;
        if (limits.tokens_per_day > 0 && tokens >= limits.tokens_per_day) {
          g.budget_spent = true;
          g.wait_ms = (today + 1) * kDayMs - now_ms;
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
        auto up =
            q("UPDATE model_limits SET tat_ms = $2, day = $3, day_tokens = $4, requests = "
              "requests + $5 WHERE name = $1");
        up.bind(1, name).bind(2, tat).bind(3, today).bind(4, tokens);
        up.bind(5, std::int64_t{g.granted});
        if (auto r = up.run(); !r) return std::unexpected(r.error());
        return g;
      },
      /*bump_version=*/false);
}

Result<void> SqlStore::add_model_tokens(std::string_view name, std::int64_t tokens,
                                        std::int64_t now_ms) {
  return tx<void>(
      [&]() -> Result<void> {
        if (auto row = limit_row(name); !row) return std::unexpected(row.error());
        auto up =
            q("UPDATE model_limits SET day_tokens = CASE WHEN day = $3 THEN day_tokens + $2 "
              "ELSE $2 END, day = $3 WHERE name = $1");
        up.bind(1, name).bind(2, tokens).bind(3, now_ms / kDayMs);
        if (auto r = up.run(); !r) return std::unexpected(r.error());
        return {};
      },
      /*bump_version=*/false);
}

Result<void> SqlStore::put_repo_settings(const RepoSettings& s) {
  std::string langs;
  for (const auto& l : s.langs) langs += (langs.empty() ? "" : ",") + l;
  auto st =
      q("INSERT INTO repo_settings(name, path, branch, github, schedule_seconds, langs, llm) "
        "VALUES($1,$2,$3,$4,$5,$6,$7) ON CONFLICT (name) DO UPDATE SET path = excluded.path, "
        "branch = excluded.branch, github = excluded.github, schedule_seconds = "
        "excluded.schedule_seconds, langs = excluded.langs, llm = excluded.llm");
  st.bind(1, s.name).bind(2, s.path).bind(3, s.branch).bind(4, s.github);
  st.bind(5, s.schedule_seconds).bind(6, langs).bind(7, std::int64_t{s.llm});
  if (auto r = st.run(); !r) return std::unexpected(r.error());
  return {};
}

Result<std::vector<RepoSettings>> SqlStore::list_repo_settings() {
  auto st =
      q("SELECT name, path, branch, github, schedule_seconds, langs, llm FROM repo_settings "
        "ORDER BY name");
  return st.collect(read_settings);
}

Result<bool> SqlStore::remove_repo_settings(std::string_view name) {
  return tx<bool>(
      [&]() -> Result<bool> {
        auto del = q("DELETE FROM repo_settings WHERE name = $1");
        del.bind(1, name);
        auto n = del.run();
        if (!n) return std::unexpected(n.error());
        auto jobs =
            q("DELETE FROM jobs WHERE state = 'queued' AND repo_id IN (SELECT id FROM repos "
              "WHERE name = $1)");
        jobs.bind(1, name);
        if (auto r = jobs.run(); !r) return std::unexpected(r.error());
        return *n > 0;
      },
      /*bump_version=*/false);
}

}  // namespace mergelens
