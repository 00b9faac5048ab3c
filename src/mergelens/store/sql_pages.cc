// The queries behind the web pages (store.h, "pages"): day navigation, tags
// and guide headlines of listed changes, tag counts per week, aggregation
// with filters, the data version pages are cached by, and the read snapshot.
// Written once for both databases; the differences are a few words: text is
// ordered by bytes (SQLite's BINARY, PostgreSQL's COLLATE "C"); the data
// version is SQLite's PRAGMA data_version or PostgreSQL's mergelens_version
// row, which every write transaction of PgStore moves (pg_store_impl.h); and
// a snapshot is SQLite's read transaction or PostgreSQL's REPEATABLE READ.
#include <algorithm>
#include <tuple>
#include <unordered_map>
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
  auto st =
      q(fmt::format("SELECT change_id, name FROM change_tags WHERE {} ORDER BY change_id, name{}",
                    in_ids("change_id", 1), collate_c()));
  st.bind(1, ids_value(ids));
  auto rows = st.collect([](const db::Query& s) { return std::pair{s.i64(0), s.text(1)}; });
  if (!rows) return std::unexpected(rows.error());
  for (auto& [id, name] : *rows) out[id].push_back(std::move(name));
  return out;
}

Result<std::map<std::int64_t, std::vector<GuideLine>>> SqlStore::guide_lines(
    std::span<const std::int64_t> ids) {
  std::map<std::int64_t, std::vector<GuideLine>> out;
  if (ids.empty()) return out;
  auto st = q(fmt::format(
      "SELECT change_id, lang, headline, writer FROM guides WHERE {} ORDER BY change_id, lang{}",
      in_ids("change_id", 1), collate_c()));
  st.bind(1, ids_value(ids));
  auto rows = st.collect([](const db::Query& s) {
    return std::pair{s.i64(0), GuideLine{s.text(1), s.text(2), s.text(3)}};
  });
  if (!rows) return std::unexpected(rows.error());
  for (auto& [id, line] : *rows) out[id].push_back(std::move(line));
  return out;
}

Result<std::vector<TagStat>> SqlStore::tag_stats(std::int64_t repo_id, size_t weeks) {
  // Every query reads change_tags alone (its rows carry the change's
  // repository and merge time) through the change_tags_by_repo index, and
  // the close reads through the verdict indexes: no scan of every change.
  const std::string repo = repo_filter(repo_id, "repo_id", "$1");
  auto st = q(fmt::format("SELECT name, count(*) FROM change_tags WHERE {} GROUP BY name", repo));
  st.bind(1, repo_id);
  auto out = st.collect([&](const db::Query& s) {
    TagStat t;
    t.name = s.text(0);
    t.count = s.i64(1);
    t.weekly.assign(weeks, 0);
    return t;
  });
  if (!out) return std::unexpected(out.error());
  // Most used first, then by name in byte order (std::string's order).
  std::ranges::sort(*out, [](const TagStat& a, const TagStat& b) {
    return a.count != b.count ? a.count > b.count : a.name < b.name;
  });
  std::unordered_map<std::string, size_t> index;
  for (size_t i = 0; i < out->size(); ++i) index.emplace((*out)[i].name, i);
  // Close reads: the changes whose judgment (the triage's, else the
  // analysis's; none without facts, as kJudgedFrom) is a close read.
  auto close = q(fmt::format(
      "SELECT t.name, count(*) FROM change_tags t WHERE {} AND t.change_id IN ("
      "SELECT fa.change_id FROM facts fa WHERE fa.verdict = 'close_read' AND NOT EXISTS "
      "(SELECT 1 FROM triage tr WHERE tr.change_id = fa.change_id) UNION ALL "
      "SELECT tr.change_id FROM triage tr WHERE tr.verdict = 'close_read' AND EXISTS "
      "(SELECT 1 FROM facts fa WHERE fa.change_id = tr.change_id)) GROUP BY t.name",
      repo_filter(repo_id, "t.repo_id", "$1")));
  close.bind(1, repo_id);
  for (;;) {
    auto row = close.step();
    if (!row) return std::unexpected(row.error());
    if (!*row) break;
    if (auto it = index.find(close.text(0)); it != index.end())
      (*out)[it->second].close_reads = close.i64(1);
  }
  if (weeks == 0 || out->empty()) return out;
  auto last = adjacent_merge(repo_id, INT64_MAX, /*before=*/true);
  if (!last) return std::unexpected(last.error());
  if (!*last) return out;
  constexpr std::int64_t kWeek = 7 * 86400;
  const UnixSeconds end_week = week_start(**last);
  const UnixSeconds first_week = end_week - static_cast<std::int64_t>(weeks - 1) * kWeek;
  // The tags of the last weeks' changes, counted here: a GROUP BY of tag
  // and week would sort them all first.
  auto wk = q("SELECT name, merged_at FROM change_tags WHERE " + repo + " AND merged_at >= $2");
  wk.bind(1, repo_id).bind(2, first_week);
  std::string name;
  TagStat* at = nullptr;
  for (;;) {
    auto row = wk.step();
    if (!row) return std::unexpected(row.error());
    if (!*row) break;
    if (!at || wk.text(0) != name) {  // rows come grouped by tag (the index's order)
      name = wk.text(0);
      auto it = index.find(name);
      at = it == index.end() ? nullptr : &(*out)[it->second];
      if (!at) continue;
    }
    const std::int64_t w = (wk.i64(1) - first_week) / kWeek;
    if (w >= 0 && w < static_cast<std::int64_t>(weeks)) ++at->weekly[static_cast<size_t>(w)];
  }
  return out;
}

Result<Aggregate> SqlStore::aggregate(std::int64_t repo_id, const AggregateQuery& aq) {
  if (aq.tags.size() > 8) return fail(ErrorKind::kInvalidInput, "at most 8 tags can be combined");
  // One tag (a tag's page, its feed): its changes come from the tag's index
  // newest first, so the list stops at its limit. Several: the changes
  // carrying all of them. None: every change.
  const bool one_tag = aq.tags.size() == 1;
  std::string from, where;
  if (one_tag) {
    // SQLite's CROSS JOIN keeps its planner on the tag's index first; it
    // takes no ON in PostgreSQL, which plans an inner join the same way.
    from = fmt::format("change_tags t {} changes c ON c.id = t.change_id{}",
                       pick("CROSS JOIN", "JOIN"), kJudgedJoins);
    where = repo_filter(repo_id, "t.repo_id", "$1") + " AND t.name = $6";
  } else {
    from = std::string(kJudgedFrom);
    where = repo_filter(repo_id, "c.repo_id", "$1");
    if (!aq.tags.empty()) {
      std::string list;
      for (size_t i = 0; i < aq.tags.size(); ++i) list += fmt::format("{}${}", i ? "," : "", 6 + i);
      where += fmt::format(
          " AND c.id IN (SELECT change_id FROM change_tags WHERE {} AND name IN ({}) "
          "GROUP BY change_id HAVING count(*) = {})",
          repo_filter(repo_id, "repo_id", "$1"), list, aq.tags.size());
    }
  }
  // The filter shared by every query below; the tags are bound as $6, $7, ...
  // (PostgreSQL takes a NULL bound for since/until as text: hence the casts.)
  const std::string time = one_tag ? "t.merged_at" : "c.merged_at";
  where += fmt::format(
      " AND (CAST($2 AS BIGINT) IS NULL OR {0} >= CAST($2 AS BIGINT)) AND (CAST($3 AS BIGINT) IS "
      "NULL OR {0} < CAST($3 AS BIGINT)) AND ($4 = '' OR {1} = $4) AND coalesce({2}, 0) >= $5",
      time, kJudgedVerdict, kJudgedImportance);
  const std::string from_where = fmt::format(" FROM {} WHERE {}", from, where);
  auto bind = [&](db::Query& st) {
    st.bind(1, repo_id).bind(2, aq.since).bind(3, aq.until).bind(4, aq.verdict);
    st.bind(5, std::int64_t{aq.min_score});
    for (size_t i = 0; i < aq.tags.size(); ++i) st.bind(static_cast<int>(6 + i), aq.tags[i]);
  };
  Aggregate out;
  if (aq.figures) {
    // The figures by week in one pass (weeks relative to the Monday before
    // the epoch, so integer division rounds right); the totals are their sums.
    auto st = q(fmt::format(
        "SELECT (c.merged_at + 259200) / 604800, count(*), count(*) FILTER (WHERE {0} = "
        "'close_read'), count({1}), coalesce(sum({1}), 0), count({2}), coalesce(sum({2}), 0){3} "
        "GROUP BY 1 ORDER BY 1",
        kJudgedVerdict, kJudgedImportance, kJudgedInsight, from_where));
    bind(st);
    std::int64_t scored_i = 0, sum_i = 0, scored_s = 0, sum_s = 0;
    for (;;) {
      auto row = st.step();
      if (!row) return std::unexpected(row.error());
      if (!*row) break;
      const std::int64_t n = st.i64(1), ni = st.i64(3), si = st.i64(4), ns = st.i64(5),
                         ss = st.i64(6);
      auto mean = [](std::int64_t sum, std::int64_t count) {
        return count ? static_cast<double>(sum) / static_cast<double>(count) : 0.0;
      };
      out.weeks.push_back(WeekStat{st.i64(0) * 604800 - 259200, n, mean(si, ni), mean(ss, ns)});
      out.count += n;
      out.close_reads += st.i64(2);
      scored_i += ni;
      sum_i += si;
      scored_s += ns;
      sum_s += ss;
    }
    out.mean_importance = scored_i ? static_cast<double>(sum_i) / static_cast<double>(scored_i) : 0;
    out.mean_insight = scored_s ? static_cast<double>(sum_s) / static_cast<double>(scored_s) : 0;
  }
  auto list = [&](std::string_view order, size_t limit) {
    auto st = q(fmt::format("SELECT {}{} ORDER BY {} LIMIT {}", kSummaryColumns, from_where, order,
                            static_cast<std::int64_t>(limit)));
    bind(st);
    return st.collect(read_summary<db::Query>);
  };
  // Newest first; for one tag in the order of its index (t.merged_at is c.merged_at).
  auto changes = list(
      one_tag ? "t.merged_at DESC, t.change_id DESC" : "c.merged_at DESC, c.id DESC", aq.limit);
  if (!changes) return std::unexpected(changes.error());
  out.changes = std::move(*changes);
  if (aq.top > 0) {
    auto top = list(fmt::format("coalesce({}, 0) + coalesce({}, 0) DESC, c.merged_at DESC, "
                                "c.id DESC",
                                kJudgedImportance, kJudgedInsight),
                    aq.top);
    if (!top) return std::unexpected(top.error());
    out.top = std::move(*top);
  }
  return out;
}

Result<size_t> SqlStore::fill_page_rows() {
  // Batches of their own transaction: a long fill (a whole history written
  // before the briefs existed) never holds the write lock for long, and a
  // killed one keeps what it did.
  constexpr size_t kBatch = 500;
  // A quick look first, so a reader does not take the write lock for nothing.
  auto any =
      q(fmt::format("SELECT EXISTS (SELECT 1 FROM facts f WHERE NOT EXISTS (SELECT 1 FROM "
                    "facts_briefs b WHERE b.change_id = f.change_id AND {})) OR EXISTS (SELECT 1 "
                    "FROM guides g WHERE NOT EXISTS (SELECT 1 FROM guide_briefs b WHERE "
                    "b.change_id = g.change_id AND b.lang = g.lang))",
                    kFactsBriefCurrent))
          .first_i64();
  if (!any) return std::unexpected(any.error());
  if (any->value_or(0) == 0) return size_t{0};
  size_t filled = 0;
  using Fill = Result<size_t> (SqlStore::*)(size_t);
  for (const Fill fill : {&SqlStore::fill_facts_briefs, &SqlStore::fill_guide_briefs}) {
    for (;;) {
      // Pages read the same either way: cached pages stay valid.
      auto n = tx<size_t>([&]() -> Result<size_t> { return (this->*fill)(kBatch); },
                          /*bump_version=*/false);
      if (!n) return std::unexpected(n.error());
      filled += *n;
      if (*n < kBatch) break;
    }
  }
  return filled;
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
