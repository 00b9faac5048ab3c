// SqliteStore: the model's triage records (the page queries are in
// sql_pages.cc).
#include <fmt/format.h>

#include "mergelens/store/rows.h"
#include "mergelens/store/sqlite_store_impl.h"

namespace mergelens {

Result<void> SqliteStore::put_triage(std::span<const TriageRecord> records) {
  return in_transaction<void>([&]() -> Result<void> {
    std::vector<std::int64_t> ids;
    for (const auto& r : records) ids.push_back(r.change_id);
    auto before = triage_of(ids);
    if (!before) return std::unexpected(before.error());
    auto ins =
        prepare(fmt::format("INSERT OR REPLACE INTO triage({}) VALUES(?1, ?2, ?3, ?4, ?5, "
                            "?6, ?7, ?8, ?9, ?10, ?11, ?12)",
                            kTriageColumns));
    auto stale = prepare("UPDATE guides SET stale = 1 WHERE change_id = ?1");
    if (!ins) return std::unexpected(ins.error());
    if (!stale) return std::unexpected(stale.error());
    for (const auto& r : records) {
      ins->bind(1, r.change_id).bind(2, r.day).bind(3, r.key).bind(4, std::int64_t{r.rank});
      ins->bind(5, std::int64_t{r.importance}).bind(6, std::int64_t{r.insight}).bind(7, r.verdict);
      ins->bind(8, r.scope).bind(9, r.reason_zh).bind(10, r.reason_en).bind(11, r.model);
      ins->bind(12, static_cast<std::int64_t>(r.at));
      if (auto x = ins->run(); !x) return db_error(x.error());
      auto old = before->find(r.change_id);
      if (old != before->end() && !triage_judgment_differs(old->second, r)) continue;
      stale->bind(1, r.change_id);
      if (auto x = stale->run(); !x) return db_error(x.error());
    }
    return {};
  });
}

Result<std::map<std::int64_t, TriageRecord>> SqliteStore::triage_of(
    std::span<const std::int64_t> ids) {
  std::map<std::int64_t, TriageRecord> out;
  if (ids.empty()) return out;
  // Ids are integers formatted by us: no user text in the statement.
  auto st = prepare(
      fmt::format("SELECT {} FROM triage WHERE change_id IN ({})", kTriageColumns, id_list(ids)));
  if (!st) return std::unexpected(st.error());
  for (;;) {
    auto row = st->step();
    if (!row) return db_error(row.error());
    if (!*row) break;
    out[st->i64(0)] = read_triage(*st);
  }
  return out;
}

}  // namespace mergelens
