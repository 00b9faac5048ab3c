// The delivery records (store.h, DeliveryStore). One row per part of a day's
// message for a target. A day is planned in one transaction that inserts
// nothing when the day already has rows, so two plans of the same day cannot
// both insert: SQLite's BEGIN IMMEDIATE admits one writer at a time;
// PostgreSQL first takes an advisory lock on (repository, target, day), so
// the second planner waits and then sees the first's parts.
#include "mergelens/store/sql_store.h"

#include <fmt/format.h>

namespace mergelens {

namespace {

constexpr std::string_view kColumns =
    "target, day, part, parts, payload, planned_at, sent_at, attempts, last_error";

DeliveryPart read_part(const db::Query& st) {
  DeliveryPart p;
  p.target = st.text(0);
  p.day = st.text(1);
  p.part = static_cast<int>(st.i64(2));
  p.parts = static_cast<int>(st.i64(3));
  p.payload = st.blob(4);
  p.planned_at = st.i64(5);
  p.sent_at = st.i64(6);
  p.attempts = static_cast<int>(st.i64(7));
  p.last_error = st.text(8);
  return p;
}

}  // namespace

Result<std::vector<DeliveryPart>> SqlStore::read_parts(std::int64_t repo_id,
                                                       std::string_view target,
                                                       std::string_view day) {
  auto st = q(fmt::format(
      "SELECT {} FROM deliveries WHERE repo_id = $1 AND target = $2 AND day = "
      "coalesce(nullif($3, ''), (SELECT max(day) FROM deliveries WHERE repo_id = $1 AND target = "
      "$2)) ORDER BY part",
      kColumns));
  st.bind(1, repo_id).bind(2, target).bind(3, day);
  return st.collect(read_part);
}

Result<std::vector<DeliveryPart>> SqlStore::plan_delivery(std::int64_t repo_id,
                                                          std::span<const DeliveryPart> parts) {
  if (parts.empty()) return fail(ErrorKind::kInvalidInput, "a delivery needs at least one part");
  for (size_t i = 0; i < parts.size(); ++i) {
    const auto& p = parts[i];
    if (p.target != parts[0].target || p.day != parts[0].day || p.part != static_cast<int>(i) ||
        p.parts != static_cast<int>(parts.size()) || p.target.empty() || p.day.empty())
      return fail(ErrorKind::kInvalidInput,
                  "delivery parts must be one target's day, numbered 0 to {}", parts.size() - 1);
  }
  const std::string target = parts[0].target, day = parts[0].day;
  return tx<std::vector<DeliveryPart>>([&]() -> Result<std::vector<DeliveryPart>> {
    if (is_pg()) {
      auto lock =
          q("SELECT pg_advisory_xact_lock(hashtextextended($1 || '|' || $2 || '|' || $3, 0))");
      lock.bind(1, std::to_string(repo_id)).bind(2, target).bind(3, day);
      if (auto r = lock.step(); !r) return std::unexpected(r.error());
    }
    auto existing = read_parts(repo_id, target, day);
    if (!existing || !existing->empty()) return existing;
    auto ins =
        q("INSERT INTO deliveries(repo_id, target, day, part, parts, payload, planned_at) "
          "VALUES($1, $2, $3, $4, $5, $6, $7)");
    for (const auto& p : parts) {
      ins.bind(1, repo_id)
          .bind(2, p.target)
          .bind(3, p.day)
          .bind(4, std::int64_t{p.part})
          .bind(5, std::int64_t{p.parts})
          .bind_blob(6, p.payload)
          .bind(7, p.planned_at);
      if (auto r = ins.run(); !r) return std::unexpected(r.error());
    }
    return read_parts(repo_id, target, day);
  });
}

Result<void> SqlStore::record_delivery_attempt(std::int64_t repo_id, std::string_view target,
                                               std::string_view day, int part, UnixSeconds at,
                                               std::string_view error) {
  // One statement: atomic without a transaction of its own.
  auto st =
      q("UPDATE deliveries SET attempts = attempts + 1, "
        "sent_at = CASE WHEN $5 = '' THEN $6 ELSE sent_at END, last_error = $5 "
        "WHERE repo_id = $1 AND target = $2 AND day = $3 AND part = $4");
  st.bind(1, repo_id).bind(2, target).bind(3, day).bind(4, std::int64_t{part}).bind(5, error);
  st.bind(6, at);
  auto n = st.run();
  if (!n) return std::unexpected(n.error());
  if (*n == 0)
    return fail(ErrorKind::kNotFound, "no planned part {} of {} for target {}", part, day, target);
  return {};
}

Result<std::vector<DeliveryPart>> SqlStore::deliveries(std::int64_t repo_id,
                                                       std::string_view target,
                                                       std::string_view day) {
  return read_parts(repo_id, target, day);
}

Result<size_t> SqlStore::forget_delivery(std::int64_t repo_id, std::string_view target,
                                         std::string_view day) {
  auto st = q("DELETE FROM deliveries WHERE repo_id = $1 AND target = $2 AND day = $3");
  st.bind(1, repo_id).bind(2, target).bind(3, day);
  auto n = st.run();
  if (!n) return std::unexpected(n.error());
  return static_cast<size_t>(*n);
}

}  // namespace mergelens
