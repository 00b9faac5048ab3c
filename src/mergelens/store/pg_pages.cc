// PgStore: the queries behind the web pages, the read snapshot and the data
// version (the twin of sqlite_pages.cc).
//
// data_version: PostgreSQL has no PRAGMA data_version. Every write
// transaction of this store (in_transaction, pg_store_impl.h) ends by adding
// one to the single row of mergelens_version, so the count moves with each
// commit, from any process on any machine, and only then: a reader sees the
// new count together with the data it covers, never before (a page cached
// under the old count is dropped once the commit shows), and reads, other
// databases on the server and the job queue's own writes leave it alone.
#include <algorithm>

#include "mergelens/store/pg_store_impl.h"
#include "mergelens/store/rows.h"

namespace mergelens {

namespace {

// Integers formatted by us: no user text in the statement.
std::string id_array(std::span<const std::int64_t> ids) {
  std::string out = "{";
  for (const auto id : ids) {
    if (out.size() > 1) out += ',';
    out += std::to_string(id);
  }
  return out + "}";
}

template <class Fn>
Result<void> each_row(pg::Stmt& st, Fn row) {
  for (;;) {
    auto r = st.step();
    if (!r) return std::unexpected(r.error());
    if (!*r) return {};
    row(st);
  }
}

}  // namespace

Result<std::optional<UnixSeconds>> PgStore::adjacent_merge(std::int64_t repo_id, UnixSeconds t,
                                                           bool before) {
  const std::string repo = repo_filter(repo_id, "repo_id", "$1");
  auto st = pq(before ? "SELECT max(merged_at) FROM changes WHERE " + repo +
                           " AND merged_at < $2 AND open = 0"
                     : "SELECT min(merged_at) FROM changes WHERE " + repo +
                           " AND merged_at >= $2 AND open = 0");
  st.bind(1, repo_id).bind(2, t);
  auto row = st.step();
  if (!row) return std::unexpected(row.error());
  if (!*row || st.is_null(0)) return std::optional<UnixSeconds>();
  return std::optional<UnixSeconds>(st.i64(0));
}

Result<std::map<std::int64_t, std::vector<std::string>>> PgStore::tags_of(
    std::span<const std::int64_t> ids) {
  std::map<std::int64_t, std::vector<std::string>> out;
  if (ids.empty()) return out;
  auto st =
      pq("SELECT change_id, name FROM change_tags WHERE change_id = ANY($1::bigint[]) "
        "ORDER BY change_id, name COLLATE \"C\"");
  st.bind(1, id_array(ids));
  auto r = each_row(st, [&](pg::Stmt& s) { out[s.i64(0)].push_back(s.text(1)); });
  if (!r) return std::unexpected(r.error());
  return out;
}

Result<std::map<std::int64_t, std::vector<GuideLine>>> PgStore::guide_lines(
    std::span<const std::int64_t> ids) {
  std::map<std::int64_t, std::vector<GuideLine>> out;
  if (ids.empty()) return out;
  auto st =
      pq("SELECT change_id, lang, headline, writer FROM guides WHERE change_id = ANY($1::bigint[]) "
        "ORDER BY change_id, lang COLLATE \"C\"");
  st.bind(1, id_array(ids));
  auto r = each_row(st, [&](pg::Stmt& s) {
    out[s.i64(0)].push_back(GuideLine{s.text(1), s.text(2), s.text(3)});
  });
  if (!r) return std::unexpected(r.error());
  return out;
}

Result<std::vector<TagStat>> PgStore::tag_stats(std::int64_t repo_id, size_t weeks) {
  auto last = adjacent_merge(repo_id, INT64_MAX, /*before=*/true);
  if (!last) return std::unexpected(last.error());
  std::vector<TagStat> out;
  if (!*last) return out;
  constexpr std::int64_t kWeek = 7 * 86400;
  const UnixSeconds end_week = week_start(**last);
  const UnixSeconds first_week = end_week - static_cast<std::int64_t>(weeks - 1) * kWeek;
  const std::string repo = repo_filter(repo_id, "c.repo_id", "$1");
  auto st =
      pq("SELECT t.name, count(*), count(*) FILTER (WHERE f.verdict = 'close_read') FROM "
        "change_tags t JOIN changes c ON c.id = t.change_id LEFT JOIN judged f ON f.change_id = "
        "c.id WHERE " +
        repo + " GROUP BY t.name ORDER BY count(*) DESC, t.name COLLATE \"C\"");
  st.bind(1, repo_id);
  std::map<std::string, size_t> index;
  auto r = each_row(st, [&](pg::Stmt& s) {
    TagStat t;
    t.name = s.text(0);
    t.count = s.i64(1);
    t.close_reads = s.i64(2);
    t.weekly.assign(weeks, 0);
    index[t.name] = out.size();
    out.push_back(std::move(t));
  });
  if (!r) return std::unexpected(r.error());
  auto wk =
      pq("SELECT t.name, (c.merged_at - $2) / 604800, count(*) FROM change_tags t "
        "JOIN changes c ON c.id = t.change_id WHERE " +
        repo + " AND c.merged_at >= $2 GROUP BY 1, 2");
  wk.bind(1, repo_id).bind(2, first_week);
  r = each_row(wk, [&](pg::Stmt& s) {
    auto it = index.find(s.text(0));
    const std::int64_t w = s.i64(1);
    if (it == index.end() || w < 0 || w >= static_cast<std::int64_t>(weeks)) return;
    out[it->second].weekly[static_cast<size_t>(w)] = s.i64(2);
  });
  if (!r) return std::unexpected(r.error());
  return out;
}

Result<Aggregate> PgStore::aggregate(std::int64_t repo_id, const AggregateQuery& aq) {
  if (aq.tags.size() > 8) return fail(ErrorKind::kInvalidInput, "at most 8 tags can be combined");
  // The filter shared by every query below; the tags are one array parameter.
  std::string where_sql =
      repo_filter(repo_id, "c.repo_id", "$1") +
      " AND ($2::bigint IS NULL OR c.merged_at >= $2) AND ($3::bigint IS NULL OR "
      "c.merged_at < $3) AND ($4 = '' OR f.verdict = $4) AND coalesce(f.importance, 0) >= $5";
  std::string tag_array;
  if (!aq.tags.empty()) {
    where_sql += fmt::format(
        " AND c.id IN (SELECT change_id FROM change_tags WHERE name = ANY($6::text[]) GROUP BY "
        "change_id HAVING count(*) = {})",
        aq.tags.size());
    // A text[] literal: each tag double-quoted, with quotes and backslashes escaped.
    tag_array.push_back('{');
    for (size_t i = 0; i < aq.tags.size(); ++i) {
      if (i) tag_array += ',';  // (a conditional char* here trips GCC 12's -Wrestrict)
      tag_array += '"';
      for (char ch : aq.tags[i]) {
        if (ch == '"' || ch == '\\') tag_array += '\\';
        tag_array += ch;
      }
      tag_array += '"';
    }
    tag_array += "}";
  }
  const std::string from =
      " FROM changes c LEFT JOIN judged f ON f.change_id = c.id WHERE " + where_sql;
  auto bind = [&](pg::Stmt& st) {
    st.bind(1, repo_id).bind(2, aq.since).bind(3, aq.until).bind(4, aq.verdict);
    st.bind(5, std::int64_t{aq.min_score});
    if (!aq.tags.empty()) st.bind(6, tag_array);
  };
  Aggregate out;
  {
    auto st =
        pq("SELECT count(*), count(*) FILTER (WHERE f.verdict = 'close_read'), "
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
    // Weeks relative to the Monday before the epoch; floor division as in SQLite for t >= 0.
    auto st =
        pq("SELECT (c.merged_at + 259200) / 604800, count(*), coalesce(avg(f.importance), 0), "
          "coalesce(avg(f.insight), 0)" +
          from + " GROUP BY 1 ORDER BY 1");
    bind(st);
    auto r = each_row(st, [&](pg::Stmt& s) {
      out.weeks.push_back(WeekStat{s.i64(0) * 604800 - 259200, s.i64(1), s.f64(2), s.f64(3)});
    });
    if (!r) return std::unexpected(r.error());
  }
  auto list = [&](std::string_view order, size_t limit,
                  std::vector<ChangeSummary>& dst) -> Result<void> {
    auto st = pq(fmt::format("SELECT {}{} ORDER BY {} LIMIT {}", kSummaryColumns, from, order,
                            static_cast<std::int64_t>(limit)));
    bind(st);
    return each_row(st, [&](pg::Stmt& s) { dst.push_back(read_summary(s)); });
  };
  if (auto r = list("c.merged_at DESC, c.id DESC", aq.limit, out.changes); !r)
    return std::unexpected(r.error());
  if (auto r = list(
          "coalesce(f.importance, 0) + coalesce(f.insight, 0) DESC, c.merged_at DESC, c.id DESC",
          aq.top, out.top);
      !r)
    return std::unexpected(r.error());
  return out;
}

Result<void> PgStore::read_snapshot(const std::function<void()>& body) {
  if (auto r = conn_.exec("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"); !r)
    return std::unexpected(r.error());
  try {
    body();
  } catch (...) {
    (void)conn_.exec("ROLLBACK");
    throw;
  }
  if (auto r = conn_.exec("COMMIT"); !r) {
    (void)conn_.exec("ROLLBACK");
    return std::unexpected(r.error());
  }
  return {};
}

Result<std::int64_t> PgStore::data_version() {
  auto st = pq("SELECT n FROM mergelens_version");
  auto row = st.step();
  if (!row) return std::unexpected(row.error());
  if (!*row) return fail(ErrorKind::kCorrupt, "{}: mergelens_version has no row", where());
  return st.i64(0);
}

}  // namespace mergelens
