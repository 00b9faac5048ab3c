// PgStore: the queries behind the web pages, the read snapshot, the data
// version, and the GitHub source's state (the twin of sqlite_pages.cc and
// sqlite_github.cc).
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

// --- GitHub source ---

Result<void> PgStore::load_pull_state(std::int64_t id, Change& c) {
  auto st =
      pq("SELECT open, draft, head_sha, base_ref, merged_by, updated_at FROM changes WHERE id = $1");
  auto reviews =
      pq("SELECT github_id, author, state, body, submitted_at FROM change_reviews "
        "WHERE change_id = $1 ORDER BY idx");
  auto comments =
      pq("SELECT github_id, in_reply_to, author, path, line, original_line, diff_hunk, body, "
        "created_at FROM change_review_comments WHERE change_id = $1 ORDER BY idx");
  auto issue =
      pq("SELECT github_id, author, body, created_at FROM change_comments WHERE change_id = $1 "
        "ORDER BY idx");
  for (auto* s : {&st, &reviews, &comments, &issue}) s->bind(1, id);
  auto r = each_row(st, [&](pg::Stmt& s) {
    c.open = s.i64(0) != 0;
    c.draft = s.i64(1) != 0;
    c.head_sha = s.text(2);
    c.base_ref = s.text(3);
    c.merged_by = s.text(4);
    c.updated_at = s.i64(5);
  });
  if (r)
    r = each_row(reviews, [&](pg::Stmt& s) {
      c.reviews.push_back({s.i64(0), s.text(1), s.text(2), s.text(3), s.i64(4)});
    });
  if (r)
    r = each_row(comments, [&](pg::Stmt& s) {
      ReviewComment rc;
      rc.id = s.i64(0);
      rc.in_reply_to = s.i64(1);
      rc.author = s.text(2);
      rc.path = s.text(3);
      rc.line = static_cast<std::int32_t>(s.i64(4));
      rc.original_line = static_cast<std::int32_t>(s.i64(5));
      rc.diff_hunk = s.text(6);
      rc.body = s.text(7);
      rc.created_at = s.i64(8);
      c.review_comments.push_back(std::move(rc));
    });
  if (r)
    r = each_row(issue, [&](pg::Stmt& s) {
      c.comments.push_back({s.i64(0), s.text(1), s.text(2), s.i64(3)});
    });
  return r;
}

Result<void> PgStore::insert_conversation(std::int64_t id, const Change& c) {
  for (size_t i = 0; i < c.reviews.size(); ++i) {
    const Review& r = c.reviews[i];
    auto st =
        pq("INSERT INTO change_reviews(change_id, idx, github_id, author, state, body, "
          "submitted_at) VALUES($1,$2,$3,$4,$5,$6,$7)");
    st.bind(1, id).bind(2, static_cast<std::int64_t>(i)).bind(3, r.id).bind(4, r.author);
    st.bind(5, r.state).bind(6, r.body).bind(7, r.submitted_at);
    if (auto x = st.run(); !x) return std::unexpected(x.error());
  }
  for (size_t i = 0; i < c.review_comments.size(); ++i) {
    const ReviewComment& r = c.review_comments[i];
    auto st =
        pq("INSERT INTO change_review_comments(change_id, idx, github_id, in_reply_to, author, "
          "path, line, original_line, diff_hunk, body, created_at) "
          "VALUES($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11)");
    st.bind(1, id).bind(2, static_cast<std::int64_t>(i)).bind(3, r.id).bind(4, r.in_reply_to);
    st.bind(5, r.author).bind(6, r.path).bind(7, std::int64_t{r.line});
    st.bind(8, std::int64_t{r.original_line}).bind(9, r.diff_hunk).bind(10, r.body);
    st.bind(11, r.created_at);
    if (auto x = st.run(); !x) return std::unexpected(x.error());
  }
  for (size_t i = 0; i < c.comments.size(); ++i) {
    const IssueComment& r = c.comments[i];
    auto st =
        pq("INSERT INTO change_comments(change_id, idx, github_id, author, body, created_at) "
          "VALUES($1,$2,$3,$4,$5,$6)");
    st.bind(1, id).bind(2, static_cast<std::int64_t>(i)).bind(3, r.id).bind(4, r.author);
    st.bind(5, r.body).bind(6, r.created_at);
    if (auto x = st.run(); !x) return std::unexpected(x.error());
  }
  return {};
}

Result<std::vector<PullRow>> PgStore::pull_rows(std::int64_t repo_id, std::int64_t number) {
  auto st =
      pq("SELECT id, sha, open, head_sha, updated_at, file_count FROM changes "
        "WHERE repo_id = $1 AND number = $2 ORDER BY id DESC");
  st.bind(1, repo_id).bind(2, number);
  std::vector<PullRow> out;
  auto r = each_row(st, [&](pg::Stmt& s) {
    out.push_back({s.i64(0), s.text(1), s.i64(2) != 0, s.text(3), s.i64(4),
                   static_cast<std::int32_t>(s.i64(5))});
  });
  if (!r) return std::unexpected(r.error());
  return out;
}

Result<std::int64_t> PgStore::put_pull(std::int64_t repo_id, const Change& c,
                                       std::span<const std::int64_t> absorb,
                                       const std::optional<GithubSyncState>& state) {
  return in_transaction<std::int64_t>([&]() -> Result<std::int64_t> {
    for (std::int64_t other : absorb) {
      if (other == c.id) continue;
      if (auto r = delete_change(other); !r) return std::unexpected(r.error());
    }
    std::int64_t id = c.id;
    if (id == 0) {
      auto same = pq("SELECT id FROM changes WHERE repo_id = $1 AND sha = $2");
      same.bind(1, repo_id).bind(2, c.sha);
      if (auto r = each_row(same, [&](pg::Stmt& s) { id = s.i64(0); }); !r)
        return std::unexpected(r.error());
    }
    constexpr std::string_view kCols =
        "kind, number, sha, parent_sha, title, body, author_name, author_email, author_login, "
        "merged_at, url, file_count, additions, deletions, files_truncated, open, draft, "
        "head_sha, base_ref, merged_by, updated_at";
    constexpr std::string_view kVals =
        "$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19,$20,$21,$22";
    auto st = pq(id ? fmt::format("UPDATE changes SET ({}) = ROW({}) WHERE id = $1 AND repo_id = "
                                 "$23 RETURNING id",
                                 kCols, kVals)
                   : fmt::format("INSERT INTO changes(repo_id, {}) VALUES($23, {}) RETURNING id",
                                 kCols, kVals));
    st.bind(1, id);
    st.bind(2, to_string(c.kind)).bind(3, c.number).bind(4, c.sha).bind(5, c.parent_sha);
    st.bind(6, c.title).bind(7, c.body).bind(8, c.author.name).bind(9, c.author.email);
    st.bind(10, c.author.login).bind(11, c.merged_at).bind(12, c.url);
    st.bind(13, static_cast<std::int64_t>(c.files.size())).bind(14, c.additions());
    st.bind(15, c.deletions()).bind(16, std::int64_t{c.files_truncated});
    st.bind(17, std::int64_t{c.open}).bind(18, std::int64_t{c.draft}).bind(19, c.head_sha);
    st.bind(20, c.base_ref).bind(21, c.merged_by).bind(22, c.updated_at).bind(23, repo_id);
    auto row = st.step();
    if (!row) return std::unexpected(row.error());
    if (!*row)
      return fail(ErrorKind::kNotFound, "{}: no change with id {} in this repository", where(), id);
    id = st.i64(0);
    for (const char* table : {"change_files", "change_commits", "change_labels", "change_reviews",
                              "change_review_comments", "change_comments", "facts"}) {
      auto del = pq(fmt::format("DELETE FROM {} WHERE change_id = $1", table));
      del.bind(1, id);
      if (auto r = del.run(); !r) return std::unexpected(r.error());
    }
    if (auto r = insert_children(id, c); !r) return std::unexpected(r.error());
    if (auto r = insert_conversation(id, c); !r) return std::unexpected(r.error());
    if (state)
      if (auto r = write_sync_state(repo_id, *state); !r) return std::unexpected(r.error());
    if (auto r = index_changes(std::span<const std::int64_t>(&id, 1)); !r)
      return std::unexpected(r.error());
    return id;
  });
}

Result<void> PgStore::delete_change(std::int64_t id) {
  // Child rows and the search document go with ON DELETE CASCADE.
  return in_transaction<void>([&]() -> Result<void> {
    auto st = pq("DELETE FROM changes WHERE id = $1");
    st.bind(1, id);
    if (auto r = st.run(); !r) return std::unexpected(r.error());
    return {};
  });
}

Result<GithubSyncState> PgStore::get_sync_state(std::int64_t repo_id) {
  GithubSyncState out;
  auto st = pq("SELECT closed_since, open_since FROM github_sync WHERE repo_id = $1");
  auto tags = pq("SELECT key, etag FROM github_etags WHERE repo_id = $1");
  st.bind(1, repo_id);
  tags.bind(1, repo_id);
  auto r = each_row(st, [&](pg::Stmt& s) {
    out.closed_since = s.i64(0);
    out.open_since = s.i64(1);
  });
  if (r) r = each_row(tags, [&](pg::Stmt& s) { out.etags[s.text(0)] = s.text(1); });
  if (!r) return std::unexpected(r.error());
  return out;
}

Result<void> PgStore::write_sync_state(std::int64_t repo_id, const GithubSyncState& state) {
  auto up =
      pq("INSERT INTO github_sync(repo_id, closed_since, open_since) VALUES($1,$2,$3) "
        "ON CONFLICT(repo_id) DO UPDATE SET closed_since = excluded.closed_since, "
        "open_since = excluded.open_since");
  auto del = pq("DELETE FROM github_etags WHERE repo_id = $1");
  up.bind(1, repo_id).bind(2, state.closed_since).bind(3, state.open_since);
  del.bind(1, repo_id);
  auto r = up.run();
  if (r) r = del.run();
  for (const auto& [key, etag] : state.etags) {
    if (!r) break;
    auto ins = pq("INSERT INTO github_etags(repo_id, key, etag) VALUES($1,$2,$3)");
    ins.bind(1, repo_id).bind(2, key).bind(3, etag);
    r = ins.run();
  }
  if (!r) return std::unexpected(r.error());
  return {};
}

Result<void> PgStore::put_sync_state(std::int64_t repo_id, const GithubSyncState& state) {
  return in_transaction<void>([&]() { return write_sync_state(repo_id, state); });
}

Result<void> PgStore::put_triage(std::span<const TriageRecord> records) {
  return in_transaction<void>([&]() -> Result<void> {
    std::vector<std::int64_t> ids;
    for (const auto& r : records) ids.push_back(r.change_id);
    auto before = triage_of(ids);
    if (!before) return std::unexpected(before.error());
    for (const auto& r : records) {
      auto ins = pq(fmt::format(
          "INSERT INTO triage({}) VALUES($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) "
          "ON CONFLICT (change_id) DO UPDATE SET day = excluded.day, key = excluded.key, "
          "rank = excluded.rank, importance = excluded.importance, insight = excluded.insight, "
          "verdict = excluded.verdict, scope = excluded.scope, reason_zh = excluded.reason_zh, "
          "reason_en = excluded.reason_en, model = excluded.model, at = excluded.at",
          kTriageColumns));
      ins.bind(1, r.change_id).bind(2, r.day).bind(3, r.key).bind(4, std::int64_t{r.rank});
      ins.bind(5, std::int64_t{r.importance}).bind(6, std::int64_t{r.insight}).bind(7, r.verdict);
      ins.bind(8, r.scope).bind(9, r.reason_zh).bind(10, r.reason_en).bind(11, r.model);
      ins.bind(12, static_cast<std::int64_t>(r.at));
      if (auto x = ins.run(); !x) return std::unexpected(x.error());
      auto old = before->find(r.change_id);
      if (old != before->end() && !triage_judgment_differs(old->second, r)) continue;
      auto stale = pq("UPDATE guides SET stale = 1 WHERE change_id = $1");
      stale.bind(1, r.change_id);
      if (auto x = stale.run(); !x) return std::unexpected(x.error());
    }
    return {};
  });
}

Result<std::map<std::int64_t, TriageRecord>> PgStore::triage_of(std::span<const std::int64_t> ids) {
  std::map<std::int64_t, TriageRecord> out;
  if (ids.empty()) return out;
  auto st =
      pq(fmt::format("SELECT {} FROM triage WHERE change_id = ANY($1::bigint[])", kTriageColumns));
  st.bind(1, id_array(ids));
  auto r = each_row(st, [&](pg::Stmt& s) { out[s.i64(0)] = read_triage(s); });
  if (!r) return std::unexpected(r.error());
  return out;
}

}  // namespace mergelens
