// The queries behind the web pages (store.h, "pages"): day navigation, tags
// and guide headlines of listed changes, tag counts per week, aggregation
// with filters, the data version pages are cached by, and the read snapshot.
// Written once for both databases; the differences are a few words: text is
// ordered by bytes (SQLite's BINARY, PostgreSQL's COLLATE "C"); the data
// version is SQLite's PRAGMA data_version or PostgreSQL's mergelens_version
// row, which every write transaction of PgStore moves (pg_store_impl.h); and
// a snapshot is SQLite's read transaction or PostgreSQL's REPEATABLE READ.
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include "mergelens/store/sql_store.h"

namespace mergelens {

UnixSeconds week_start(UnixSeconds t) {
  // 1970-01-01 was a Thursday: Monday 1969-12-29 is 3 days before the epoch.
  constexpr std::int64_t kWeek = 7 * 86400, kMonday = -3 * 86400;
  std::int64_t d = t - kMonday;
  std::int64_t w = d >= 0 ? d / kWeek : -((-d + kWeek - 1) / kWeek);
  return kMonday + w * kWeek;
}

Result<std::optional<UnixSeconds>> SqlStore::adjacent_merge(std::int64_t repo_id, UnixSeconds t,
                                                            bool before) {
  // Open pull requests (merged_at 0) belong to no day.
  const std::string repo = repo_filter(repo_id, "repo_id", "$1");
  auto st = q(before ? "SELECT max(merged_at) FROM changes WHERE " + repo +
                           " AND merged_at < $2 AND open = 0"
                     : "SELECT min(merged_at) FROM changes WHERE " + repo +
                           " AND merged_at >= $2 AND open = 0");
  st.bind(1, repo_id).bind(2, t);
  auto row = st.step();
  if (!row) return std::unexpected(row.error());
  if (!*row) return std::optional<UnixSeconds>();
  return st.opt_i64(0);
}

Result<std::map<std::int64_t, std::vector<std::string>>> SqlStore::tags_of(
    std::span<const std::int64_t> ids) {
  std::map<std::int64_t, std::vector<std::string>> out;
  if (ids.empty()) return out;
  auto st = q(fmt::format(
      "SELECT change_id, name FROM change_tags WHERE change_id IN ({}) ORDER BY change_id, name{}",
      id_list(ids), collate_c()));
  auto rows = st.collect([](const db::Query& s) { return std::pair{s.i64(0), s.text(1)}; });
  if (!rows) return std::unexpected(rows.error());
  for (auto& [id, name] : *rows) out[id].push_back(std::move(name));
  return out;
}

Result<std::map<std::int64_t, std::vector<GuideLine>>> SqlStore::guide_lines(
    std::span<const std::int64_t> ids) {
  std::map<std::int64_t, std::vector<GuideLine>> out;
  if (ids.empty()) return out;
  auto st =
      q(fmt::format("SELECT change_id, lang, headline, writer FROM guides WHERE change_id IN ({}) "
                    "ORDER BY change_id, lang{}",
                    id_list(ids), collate_c()));
  auto rows = st.collect([](const db::Query& s) {
    return std::pair{s.i64(0), GuideLine{s.text(1), s.text(2), s.text(3)}};
  });
  if (!rows) return std::unexpected(rows.error());
  for (auto& [id, line] : *rows) out[id].push_back(std::move(line));
  return out;
}

Result<std::vector<TagStat>> SqlStore::tag_stats(std::int64_t repo_id, size_t weeks) {
  auto last = adjacent_merge(repo_id, INT64_MAX, /*before=*/true);
  if (!last) return std::unexpected(last.error());
  if (!*last) return std::vector<TagStat>{};
  constexpr std::int64_t kWeek = 7 * 86400;
  const UnixSeconds end_week = week_start(**last);
  const UnixSeconds first_week = end_week - static_cast<std::int64_t>(weeks - 1) * kWeek;
  const std::string repo = repo_filter(repo_id, "c.repo_id", "$1");
  auto st = q(fmt::format(
      "SELECT t.name, count(*), count(*) FILTER (WHERE f.verdict = 'close_read') FROM "
      "change_tags t JOIN changes c ON c.id = t.change_id LEFT JOIN judged f ON f.change_id = "
      "c.id WHERE {} GROUP BY t.name ORDER BY count(*) DESC, t.name{}",
      repo, collate_c()));
  st.bind(1, repo_id);
  auto out = st.collect([&](const db::Query& s) {
    TagStat t;
    t.name = s.text(0);
    t.count = s.i64(1);
    t.close_reads = s.i64(2);
    t.weekly.assign(weeks, 0);
    return t;
  });
  if (!out) return std::unexpected(out.error());
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < out->size(); ++i) index[(*out)[i].name] = i;
  auto wk =
      q("SELECT t.name, (c.merged_at - $2) / 604800, count(*) FROM change_tags t "
        "JOIN changes c ON c.id = t.change_id WHERE " +
        repo + " AND c.merged_at >= $2 GROUP BY 1, 2");
  wk.bind(1, repo_id).bind(2, first_week);
  auto counts = wk.collect([](const db::Query& s) {
    return std::tuple{s.text(0), s.i64(1), s.i64(2)};
  });
  if (!counts) return std::unexpected(counts.error());
  for (const auto& [name, w, n] : *counts) {
    auto it = index.find(name);
    if (it == index.end() || w < 0 || w >= static_cast<std::int64_t>(weeks)) continue;
    (*out)[it->second].weekly[static_cast<size_t>(w)] = n;
  }
  return out;
}

Result<Aggregate> SqlStore::aggregate(std::int64_t repo_id, const AggregateQuery& aq) {
  if (aq.tags.size() > 8) return fail(ErrorKind::kInvalidInput, "at most 8 tags can be combined");
  // The filter shared by every query below; the tags are bound as $6, $7, ...
  // (PostgreSQL takes a NULL bound for since/until as text: hence the casts.)
  std::string where =
      repo_filter(repo_id, "c.repo_id", "$1") +
      " AND (CAST($2 AS BIGINT) IS NULL OR c.merged_at >= CAST($2 AS BIGINT)) AND (CAST($3 AS "
      "BIGINT) IS NULL OR c.merged_at < CAST($3 AS BIGINT)) AND ($4 = '' OR f.verdict = $4) AND "
      "coalesce(f.importance, 0) >= $5";
  if (!aq.tags.empty()) {
    std::string list;
    for (size_t i = 0; i < aq.tags.size(); ++i) list += fmt::format("{}${}", i ? "," : "", 6 + i);
    where += fmt::format(
        " AND c.id IN (SELECT change_id FROM change_tags WHERE name IN ({}) GROUP BY change_id "
        "HAVING count(*) = {})",
        list, aq.tags.size());
  }
  const std::string from =
      " FROM changes c LEFT JOIN judged f ON f.change_id = c.id WHERE " + where;
  auto bind = [&](db::Query& st) {
    st.bind(1, repo_id).bind(2, aq.since).bind(3, aq.until).bind(4, aq.verdict);
    st.bind(5, std::int64_t{aq.min_score});
    for (size_t i = 0; i < aq.tags.size(); ++i) st.bind(static_cast<int>(6 + i), aq.tags[i]);
  };
  Aggregate out;
  {
    auto st =
        q("SELECT count(*), count(*) FILTER (WHERE f.verdict = 'close_read'), "
          "coalesce(avg(f.importance), 0), coalesce(avg(f.insight), 0)" +
          from);
    bind(st);
    auto row = st.step();
    if (!row) return std::unexpected(row.error());
    out.count = st.i64(0);
    out.close_reads = st.i64(1);
    out.mean_importance = st.f64(2);
    out.mean_insight = st.f64(3);
  }
  {
    // Weeks relative to the Monday before the epoch, so integer division rounds right.
    auto st =
        q("SELECT (c.merged_at + 259200) / 604800, count(*), coalesce(avg(f.importance), 0), "
          "coalesce(avg(f.insight), 0)" +
          from + " GROUP BY 1 ORDER BY 1");
    bind(st);
    auto weeks = st.collect([](const db::Query& s) {
      return WeekStat{s.i64(0) * 604800 - 259200, s.i64(1), s.f64(2), s.f64(3)};
    });
    if (!weeks) return std::unexpected(weeks.error());
    out.weeks = std::move(*weeks);
  }
  auto list = [&](std::string_view order, size_t limit) {
    auto st = q(fmt::format("SELECT {}{} ORDER BY {} LIMIT {}", kSummaryColumns, from, order,
                            static_cast<std::int64_t>(limit)));
    bind(st);
    return st.collect(read_summary<db::Query>);
  };
  auto changes = list("c.merged_at DESC, c.id DESC", aq.limit);
  if (!changes) return std::unexpected(changes.error());
  out.changes = std::move(*changes);
  auto top =
      list("coalesce(f.importance, 0) + coalesce(f.insight, 0) DESC, c.merged_at DESC, c.id DESC",
           aq.top);
  if (!top) return std::unexpected(top.error());
  out.top = std::move(*top);
  return out;
}

Result<std::int64_t> SqlStore::data_version() {
  auto st = q(pick("PRAGMA data_version", "SELECT n FROM mergelens_version"));
  auto row = st.step();
  if (!row) return std::unexpected(row.error());
  if (!*row) return fail(ErrorKind::kCorrupt, "{}: the data version has no row", db_name());
  return st.i64(0);
}

Result<void> SqlStore::read_snapshot(const std::function<void()>& body) {
  auto begin = q(pick("BEGIN", "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")).run();
  if (!begin) return std::unexpected(begin.error());
  try {
    body();
  } catch (...) {
    (void)q("ROLLBACK").run();
    throw;
  }
  if (auto r = q("COMMIT").run(); !r) {
    (void)q("ROLLBACK").run();
    return std::unexpected(r.error());
  }
  return {};
}

}  // namespace mergelens
