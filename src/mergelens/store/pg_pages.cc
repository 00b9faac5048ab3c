// PgStore: the GitHub source's state (the page queries, the read snapshot
// and the data version are in sql_pages.cc) (the twin of sqlite_pages.cc
// and sqlite_github.cc).
//
// data_version (sql_pages.cc): PostgreSQL has no PRAGMA data_version. Every write
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

// --- GitHub source ---

Result<void> PgStore::load_pull_state(std::int64_t id, Change& c) {
  auto st = pq(
      "SELECT open, draft, head_sha, base_ref, merged_by, updated_at FROM changes WHERE id = $1");
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
