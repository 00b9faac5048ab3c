// SqliteStore: the queries behind the web pages (day navigation, tag counts
// per week, aggregation with filters, headlines without reading documents).
#include <algorithm>

#include <fmt/format.h>

#include "mergelens/store/rows.h"
#include "mergelens/store/sqlite_store_impl.h"

namespace mergelens {

UnixSeconds week_start(UnixSeconds t) {
  // 1970-01-01 was a Thursday: Monday 1969-12-29 is 3 days before the epoch.
  constexpr std::int64_t kWeek = 7 * 86400, kMonday = -3 * 86400;
  std::int64_t d = t - kMonday;
  std::int64_t w = d >= 0 ? d / kWeek : -((-d + kWeek - 1) / kWeek);
  return kMonday + w * kWeek;
}

Result<std::optional<UnixSeconds>> SqliteStore::adjacent_merge(std::int64_t repo_id, UnixSeconds t,
                                                               bool before) {
  // Open pull requests (merged_at 0) belong to no day.
  const std::string repo = repo_filter(repo_id, "repo_id", "?1");
  auto st = prepare(before ? "SELECT max(merged_at) FROM changes WHERE " + repo +
                                 " AND merged_at < ?2 AND open = 0"
                           : "SELECT min(merged_at) FROM changes WHERE " + repo +
                                 " AND merged_at >= ?2 AND open = 0");
  if (!st) return std::unexpected(st.error());
  st->bind(1, repo_id).bind(2, t);
  auto row = st->step();
  if (!row) return db_error(row.error());
  if (!*row || st->is_null(0)) return std::optional<UnixSeconds>();
  return std::optional<UnixSeconds>(st->i64(0));
}

Result<std::map<std::int64_t, std::vector<std::string>>> SqliteStore::tags_of(
    std::span<const std::int64_t> ids) {
  std::map<std::int64_t, std::vector<std::string>> out;
  if (ids.empty()) return out;
  // Ids are integers formatted by us: no user text in the statement.
  auto st = prepare("SELECT change_id, name FROM change_tags WHERE change_id IN (" + id_list(ids) +
                    ") ORDER BY change_id, name");
  if (!st) return std::unexpected(st.error());
  for (;;) {
    auto row = st->step();
    if (!row) return db_error(row.error());
    if (!*row) break;
    out[st->i64(0)].push_back(st->text(1));
  }
  return out;
}

Result<std::map<std::int64_t, std::vector<GuideLine>>> SqliteStore::guide_lines(
    std::span<const std::int64_t> ids) {
  std::map<std::int64_t, std::vector<GuideLine>> out;
  if (ids.empty()) return out;
  auto st = prepare("SELECT change_id, lang, headline, writer FROM guides WHERE change_id IN (" +
                    id_list(ids) + ") ORDER BY change_id, lang");
  if (!st) return std::unexpected(st.error());
  for (;;) {
    auto row = st->step();
    if (!row) return db_error(row.error());
    if (!*row) break;
    out[st->i64(0)].push_back(GuideLine{st->text(1), st->text(2), st->text(3)});
  }
  return out;
}

Result<std::vector<TagStat>> SqliteStore::tag_stats(std::int64_t repo_id, size_t weeks) {
  auto last = adjacent_merge(repo_id, INT64_MAX, /*before=*/true);
  if (!last) return std::unexpected(last.error());
  std::vector<TagStat> out;
  if (!*last) return out;
  constexpr std::int64_t kWeek = 7 * 86400;
  const UnixSeconds end_week = week_start(**last);
  const UnixSeconds first_week = end_week - static_cast<std::int64_t>(weeks - 1) * kWeek;
  const std::string repo = repo_filter(repo_id, "c.repo_id", "?1");
  auto st = prepare(
      "SELECT t.name, count(*), sum(f.verdict = 'close_read') FROM change_tags t "
      "JOIN changes c ON c.id = t.change_id LEFT JOIN judged f ON f.change_id = c.id "
      "WHERE " +
      repo + " GROUP BY t.name ORDER BY count(*) DESC, t.name");
  auto wk = prepare(
      "SELECT t.name, (c.merged_at - ?2) / 604800, count(*) FROM change_tags t "
      "JOIN changes c ON c.id = t.change_id WHERE " +
      repo + " AND c.merged_at >= ?2 GROUP BY t.name, 2");
  if (!st) return std::unexpected(st.error());
  if (!wk) return std::unexpected(wk.error());
  st->bind(1, repo_id);
  std::map<std::string, size_t> index;
  for (;;) {
    auto row = st->step();
    if (!row) return db_error(row.error());
    if (!*row) break;
    TagStat t;
    t.name = st->text(0);
    t.count = st->i64(1);
    t.close_reads = st->i64(2);
    t.weekly.assign(weeks, 0);
    index[t.name] = out.size();
    out.push_back(std::move(t));
  }
  wk->bind(1, repo_id).bind(2, first_week);
  for (;;) {
    auto row = wk->step();
    if (!row) return db_error(row.error());
    if (!*row) break;
    auto it = index.find(wk->text(0));
    const std::int64_t w = wk->i64(1);
    if (it == index.end() || w < 0 || w >= static_cast<std::int64_t>(weeks)) continue;
    out[it->second].weekly[static_cast<size_t>(w)] = wk->i64(2);
  }
  return out;
}

Result<Aggregate> SqliteStore::aggregate(std::int64_t repo_id, const AggregateQuery& q) {
  if (q.tags.size() > 8) return fail(ErrorKind::kInvalidInput, "at most 8 tags can be combined");
  // The filter, shared by every query below; tags are bound as ?5, ?6, ...
  std::string where = repo_filter(repo_id, "c.repo_id", "?1") +
                      " AND (?2 IS NULL OR c.merged_at >= ?2) AND (?3 IS NULL OR c.merged_at < "
                      "?3) AND (?4 = '' OR f.verdict = ?4) AND coalesce(f.importance, 0) >= ?9";
  if (!q.tags.empty()) {
    std::string list;
    for (size_t i = 0; i < q.tags.size(); ++i) list += fmt::format("{}?{}", i ? "," : "", 10 + i);
    where += fmt::format(
        " AND c.id IN (SELECT change_id FROM change_tags WHERE name IN ({}) GROUP BY change_id "
        "HAVING count(*) = {})",
        list, q.tags.size());
  }
  const std::string from =
      " FROM changes c LEFT JOIN judged f ON f.change_id = c.id WHERE " + where;
  auto bind = [&](sql::Stmt& st) {
    st.bind(1, repo_id).bind(2, q.since).bind(3, q.until).bind(4, q.verdict);
    st.bind(9, std::int64_t{q.min_score});
    for (size_t i = 0; i < q.tags.size(); ++i) st.bind(static_cast<int>(10 + i), q.tags[i]);
  };
  Aggregate out;
  {
    auto st = prepare(
        "SELECT count(*), coalesce(sum(f.verdict = 'close_read'), 0), avg(f.importance), "
        "avg(f.insight)" +
        from);
    if (!st) return std::unexpected(st.error());
    bind(*st);
    auto row = st->step();
    if (!row) return db_error(row.error());
    out.count = st->i64(0);
    out.close_reads = st->i64(1);
    out.mean_importance = st->f64(2);
    out.mean_insight = st->f64(3);
  }
  {
    // Weeks relative to the Monday before the epoch, so integer division rounds right.
    auto st = prepare(
        "SELECT (c.merged_at + 259200) / 604800, count(*), coalesce(avg(f.importance), 0), "
        "coalesce(avg(f.insight), 0)" +
        from + " GROUP BY 1 ORDER BY 1");
    if (!st) return std::unexpected(st.error());
    bind(*st);
    for (;;) {
      auto row = st->step();
      if (!row) return db_error(row.error());
      if (!*row) break;
      out.weeks.push_back(
          WeekStat{st->i64(0) * 604800 - 259200, st->i64(1), st->f64(2), st->f64(3)});
    }
  }
  auto list = [&](std::string_view order, size_t limit,
                  std::vector<ChangeSummary>& dst) -> Result<void> {
    auto st = prepare(fmt::format("SELECT {}{} ORDER BY {} LIMIT {}", kSummaryColumns, from, order,
                                  static_cast<std::int64_t>(limit)));
    if (!st) return std::unexpected(st.error());
    bind(*st);
    for (;;) {
      auto row = st->step();
      if (!row) return db_error(row.error());
      if (!*row) break;
      dst.push_back(read_summary(*st));
    }
    return {};
  };
  if (auto r = list("c.merged_at DESC, c.id DESC", q.limit, out.changes); !r)
    return std::unexpected(r.error());
  if (auto r = list(
          "coalesce(f.importance, 0) + coalesce(f.insight, 0) DESC, c.merged_at DESC, c.id DESC",
          q.top, out.top);
      !r)
    return std::unexpected(r.error());
  return out;
}

Result<void> SqliteStore::read_snapshot(const std::function<void()>& body) {
  if (auto r = db_.exec("BEGIN"); !r) return db_error(r.error());
  try {
    body();
  } catch (...) {
    (void)db_.exec("ROLLBACK");
    throw;
  }
  if (auto r = db_.exec("COMMIT"); !r) {
    (void)db_.exec("ROLLBACK");
    return db_error(r.error());
  }
  return {};
}

Result<std::int64_t> SqliteStore::data_version() {
  auto st = prepare("PRAGMA data_version");
  if (!st) return std::unexpected(st.error());
  auto row = st->step();
  if (!row) return db_error(row.error());
  return *row ? st->i64(0) : 0;
}

}  // namespace mergelens
