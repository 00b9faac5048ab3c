// SqliteStore: the delivery records (store.h, DeliveryStore). One row per
// part of a day's message for a target; a day is planned in one transaction
// that inserts nothing when the day already has rows, so two plans of the
// same day cannot interleave.
#include "mergelens/store/sqlite_store_impl.h"

namespace mergelens {

namespace {

constexpr std::string_view kColumns =
    "target, day, part, parts, payload, planned_at, sent_at, attempts, last_error";

DeliveryPart read_part(const sql::Stmt& st) {
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

Result<std::vector<DeliveryPart>> SqliteStore::read_parts(std::int64_t repo_id,
                                                          std::string_view target,
                                                          std::string_view day) {
  auto st = prepare(fmt::format(
      "SELECT {} FROM deliveries WHERE repo_id = ?1 AND target = ?2 AND day = "
      "coalesce(nullif(?3, ''), (SELECT max(day) FROM deliveries WHERE repo_id = ?1 AND target = "
      "?2)) ORDER BY part",
      kColumns));
  if (!st) return std::unexpected(st.error());
  st->bind(1, repo_id).bind(2, target).bind(3, day);
  std::vector<DeliveryPart> out;
  for (;;) {
    auto row = st->step();
    if (!row) return db_error(row.error());
    if (!*row) break;
    out.push_back(read_part(*st));
  }
  return out;
}

Result<std::vector<DeliveryPart>> SqliteStore::plan_delivery(std::int64_t repo_id,
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
  return in_transaction<std::vector<DeliveryPart>>([&]() -> Result<std::vector<DeliveryPart>> {
    auto existing = read_parts(repo_id, target, day);
    if (!existing || !existing->empty()) return existing;
    auto ins = prepare(
        "INSERT INTO deliveries(repo_id, target, day, part, parts, payload, planned_at) "
        "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)");
    if (!ins) return std::unexpected(ins.error());
    for (const auto& p : parts) {
      ins->bind(1, repo_id)
          .bind(2, p.target)
          .bind(3, p.day)
          .bind(4, std::int64_t{p.part})
          .bind(5, std::int64_t{p.parts})
          .bind_blob(6, p.payload)
          .bind(7, p.planned_at);
      if (auto r = ins->run(); !r) return db_error(r.error());
    }
    return read_parts(repo_id, target, day);
  });
}

Result<void> SqliteStore::record_delivery_attempt(std::int64_t repo_id, std::string_view target,
                                                  std::string_view day, int part, UnixSeconds at,
                                                  std::string_view error) {
  return in_transaction<void>([&]() -> Result<void> {
    auto st = prepare(
        "UPDATE deliveries SET attempts = attempts + 1, "
        "sent_at = CASE WHEN ?5 = '' THEN ?6 ELSE sent_at END, last_error = ?5 "
        "WHERE repo_id = ?1 AND target = ?2 AND day = ?3 AND part = ?4");
    if (!st) return std::unexpected(st.error());
    st->bind(1, repo_id).bind(2, target).bind(3, day).bind(4, std::int64_t{part}).bind(5, error);
    st->bind(6, at);
    if (auto r = st->run(); !r) return db_error(r.error());
    if (sqlite3_changes(db_.get()) == 0)
      return fail(ErrorKind::kNotFound, "no planned part {} of {} for target {}", part, day,
                  target);
    return {};
  });
}

Result<std::vector<DeliveryPart>> SqliteStore::deliveries(std::int64_t repo_id,
                                                          std::string_view target,
                                                          std::string_view day) {
  return read_parts(repo_id, target, day);
}

Result<size_t> SqliteStore::forget_delivery(std::int64_t repo_id, std::string_view target,
                                            std::string_view day) {
  return in_transaction<size_t>([&]() -> Result<size_t> {
    auto st = prepare("DELETE FROM deliveries WHERE repo_id = ?1 AND target = ?2 AND day = ?3");
    if (!st) return std::unexpected(st.error());
    st->bind(1, repo_id).bind(2, target).bind(3, day);
    if (auto r = st->run(); !r) return db_error(r.error());
    return static_cast<size_t>(sqlite3_changes(db_.get()));
  });
}

}  // namespace mergelens
