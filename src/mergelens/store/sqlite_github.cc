// SqliteStore: what the GitHub source adds — PR state columns, the
// conversation tables (reviews, review comments, issue comments) and the
// per-repository sync state with its ETags.
#include "mergelens/store/sqlite_store_impl.h"

namespace mergelens {

namespace {

// Steps `st` to the end, calling `row` for each result row.
template <class Fn>
Result<void> each_row(sql::Stmt& st, Fn row) {
  for (;;) {
    auto r = st.step();
    if (!r) return std::unexpected(r.error());
    if (!*r) return {};
    row(st);
  }
}

}  // namespace

Result<void> SqliteStore::load_pull_state(std::int64_t id, Change& c) {
  auto st = prepare(
      "SELECT open, draft, head_sha, base_ref, merged_by, updated_at FROM changes WHERE id = ?1");
  auto reviews = prepare(
      "SELECT github_id, author, state, body, submitted_at FROM change_reviews "
      "WHERE change_id = ?1 ORDER BY idx");
  auto comments = prepare(
      "SELECT github_id, in_reply_to, author, path, line, original_line, diff_hunk, body, "
      "created_at FROM change_review_comments WHERE change_id = ?1 ORDER BY idx");
  auto issue = prepare(
      "SELECT github_id, author, body, created_at FROM change_comments WHERE change_id = ?1 "
      "ORDER BY idx");
  for (auto* s : {&st, &reviews, &comments, &issue}) {
    if (!*s) return std::unexpected(s->error());
    (*s)->bind(1, id);
  }
  auto r = each_row(*st, [&](sql::Stmt& s) {
    c.open = s.i64(0) != 0;
    c.draft = s.i64(1) != 0;
    c.head_sha = s.text(2);
    c.base_ref = s.text(3);
    c.merged_by = s.text(4);
    c.updated_at = s.i64(5);
  });
  if (r)
    r = each_row(*reviews, [&](sql::Stmt& s) {
      c.reviews.push_back({s.i64(0), s.text(1), s.text(2), s.text(3), s.i64(4)});
    });
  if (r)
    r = each_row(*comments, [&](sql::Stmt& s) {
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
    r = each_row(*issue, [&](sql::Stmt& s) {
      c.comments.push_back({s.i64(0), s.text(1), s.text(2), s.i64(3)});
    });
  if (!r) return db_error(r.error());
  return {};
}

Result<void> SqliteStore::insert_conversation(std::int64_t id, const Change& c) {
  auto rev = prepare(
      "INSERT INTO change_reviews(change_id, idx, github_id, author, state, body, submitted_at) "
      "VALUES(?1,?2,?3,?4,?5,?6,?7)");
  auto rc = prepare(
      "INSERT INTO change_review_comments(change_id, idx, github_id, in_reply_to, author, path, "
      "line, original_line, diff_hunk, body, created_at) "
      "VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11)");
  auto ic = prepare(
      "INSERT INTO change_comments(change_id, idx, github_id, author, body, created_at) "
      "VALUES(?1,?2,?3,?4,?5,?6)");
  for (auto* s : {&rev, &rc, &ic})
    if (!*s) return std::unexpected(s->error());
  for (size_t i = 0; i < c.reviews.size(); ++i) {
    const Review& r = c.reviews[i];
    rev->bind(1, id).bind(2, static_cast<std::int64_t>(i)).bind(3, r.id).bind(4, r.author);
    rev->bind(5, r.state).bind(6, r.body).bind(7, r.submitted_at);
    if (auto x = rev->run(); !x) return db_error(x.error());
  }
  for (size_t i = 0; i < c.review_comments.size(); ++i) {
    const ReviewComment& r = c.review_comments[i];
    rc->bind(1, id).bind(2, static_cast<std::int64_t>(i)).bind(3, r.id).bind(4, r.in_reply_to);
    rc->bind(5, r.author).bind(6, r.path).bind(7, std::int64_t{r.line});
    rc->bind(8, std::int64_t{r.original_line}).bind(9, r.diff_hunk).bind(10, r.body);
    rc->bind(11, r.created_at);
    if (auto x = rc->run(); !x) return db_error(x.error());
  }
  for (size_t i = 0; i < c.comments.size(); ++i) {
    const IssueComment& r = c.comments[i];
    ic->bind(1, id).bind(2, static_cast<std::int64_t>(i)).bind(3, r.id).bind(4, r.author);
    ic->bind(5, r.body).bind(6, r.created_at);
    if (auto x = ic->run(); !x) return db_error(x.error());
  }
  return {};
}

Result<std::vector<PullRow>> SqliteStore::pull_rows(std::int64_t repo_id, std::int64_t number) {
  auto st = prepare(
      "SELECT id, sha, open, head_sha, updated_at, file_count FROM changes "
      "WHERE repo_id = ?1 AND number = ?2 ORDER BY id DESC");
  if (!st) return std::unexpected(st.error());
  st->bind(1, repo_id).bind(2, number);
  std::vector<PullRow> out;
  auto r = each_row(*st, [&](sql::Stmt& s) {
    out.push_back({s.i64(0), s.text(1), s.i64(2) != 0, s.text(3), s.i64(4),
                   static_cast<std::int32_t>(s.i64(5))});
  });
  if (!r) return db_error(r.error());
  return out;
}

Result<std::int64_t> SqliteStore::put_pull(std::int64_t repo_id, const Change& c,
                                           std::span<const std::int64_t> absorb,
                                           const std::optional<GithubSyncState>& state) {
  return in_transaction<std::int64_t>([&]() -> Result<std::int64_t> {
    for (std::int64_t other : absorb) {
      if (other == c.id) continue;
      if (auto r = delete_change(other); !r) return std::unexpected(r.error());
    }
    std::int64_t id = c.id;
    if (id == 0) {
      auto same = prepare("SELECT id FROM changes WHERE repo_id = ?1 AND sha = ?2");
      if (!same) return std::unexpected(same.error());
      same->bind(1, repo_id).bind(2, c.sha);
      if (auto r = each_row(*same, [&](sql::Stmt& s) { id = s.i64(0); }); !r)
        return db_error(r.error());
    }
    // Columns 2..22 are the same for INSERT and UPDATE.
    constexpr std::string_view kCols =
        "kind, number, sha, parent_sha, title, body, author_name, author_email, author_login, "
        "merged_at, url, file_count, additions, deletions, files_truncated, open, draft, "
        "head_sha, base_ref, merged_by, updated_at";
    auto st = prepare(
        id ? fmt::format("UPDATE changes SET ({}) = (?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,"
                         "?15,?16,?17,?18,?19,?20,?21,?22) WHERE id = ?1 AND repo_id = ?23",
                         kCols)
           : fmt::format("INSERT INTO changes(repo_id, {}) VALUES(?23,?2,?3,?4,?5,?6,?7,?8,?9,"
                         "?10,?11,?12,?13,?14,?15,?16,?17,?18,?19,?20,?21,?22)",
                         kCols));
    if (!st) return std::unexpected(st.error());
    if (id) st->bind(1, id);
    st->bind(2, to_string(c.kind)).bind(3, c.number).bind(4, c.sha).bind(5, c.parent_sha);
    st->bind(6, c.title).bind(7, c.body).bind(8, c.author.name).bind(9, c.author.email);
    st->bind(10, c.author.login).bind(11, c.merged_at).bind(12, c.url);
    st->bind(13, static_cast<std::int64_t>(c.files.size())).bind(14, c.additions());
    st->bind(15, c.deletions()).bind(16, std::int64_t{c.files_truncated});
    st->bind(17, std::int64_t{c.open}).bind(18, std::int64_t{c.draft}).bind(19, c.head_sha);
    st->bind(20, c.base_ref).bind(21, c.merged_by).bind(22, c.updated_at).bind(23, repo_id);
    if (auto r = st->run(); !r) return db_error(r.error());
    if (id && sqlite3_changes(db_.get()) == 0)
      return fail(ErrorKind::kNotFound, "database {}: no change with id {} in this repository",
                  path_, id);
    if (!id) id = sqlite3_last_insert_rowid(db_.get());
    for (const char* table : {"change_files", "change_commits", "change_labels", "change_reviews",
                              "change_review_comments", "change_comments", "facts"}) {
      auto del = prepare(fmt::format("DELETE FROM {} WHERE change_id = ?1", table));
      if (!del) return std::unexpected(del.error());
      del->bind(1, id);
      if (auto r = del->run(); !r) return db_error(r.error());
    }
    auto kids = prepare_child_inserts();
    if (!kids) return std::unexpected(kids.error());
    if (auto r = insert_children(id, c, kids->file, kids->commit, kids->label); !r)
      return db_error(r.error());
    if (auto r = insert_conversation(id, c); !r) return std::unexpected(r.error());
    if (state)
      if (auto r = write_sync_state(repo_id, *state); !r) return std::unexpected(r.error());
    // The search document follows the row (sqlite_search.cc).
    if (auto r = index_changes(std::span<const std::int64_t>(&id, 1)); !r)
      return std::unexpected(r.error());
    return id;
  });
}

Result<void> SqliteStore::delete_change(std::int64_t id) {
  // Child rows go with ON DELETE CASCADE (foreign_keys is on).
  auto st = prepare("DELETE FROM changes WHERE id = ?1");
  if (!st) return std::unexpected(st.error());
  st->bind(1, id);
  if (auto r = st->run(); !r) return db_error(r.error());
  // FTS5 has no foreign keys: drop the search document with the row.
  return index_changes(std::span<const std::int64_t>(&id, 1));
}

Result<GithubSyncState> SqliteStore::get_sync_state(std::int64_t repo_id) {
  GithubSyncState out;
  auto st = prepare("SELECT closed_since, open_since FROM github_sync WHERE repo_id = ?1");
  auto tags = prepare("SELECT key, etag FROM github_etags WHERE repo_id = ?1");
  for (auto* s : {&st, &tags}) {
    if (!*s) return std::unexpected(s->error());
    (*s)->bind(1, repo_id);
  }
  auto r = each_row(*st, [&](sql::Stmt& s) {
    out.closed_since = s.i64(0);
    out.open_since = s.i64(1);
  });
  if (r) r = each_row(*tags, [&](sql::Stmt& s) { out.etags[s.text(0)] = s.text(1); });
  if (!r) return db_error(r.error());
  return out;
}

Result<void> SqliteStore::write_sync_state(std::int64_t repo_id, const GithubSyncState& state) {
  auto up = prepare(
      "INSERT INTO github_sync(repo_id, closed_since, open_since) VALUES(?1,?2,?3) "
      "ON CONFLICT(repo_id) DO UPDATE SET closed_since = excluded.closed_since, "
      "open_since = excluded.open_since");
  auto del = prepare("DELETE FROM github_etags WHERE repo_id = ?1");
  auto ins = prepare("INSERT INTO github_etags(repo_id, key, etag) VALUES(?1,?2,?3)");
  for (auto* s : {&up, &del, &ins})
    if (!*s) return std::unexpected(s->error());
  up->bind(1, repo_id).bind(2, state.closed_since).bind(3, state.open_since);
  del->bind(1, repo_id);
  auto r = up->run();
  if (r) r = del->run();
  for (const auto& [key, etag] : state.etags) {
    if (!r) break;
    ins->bind(1, repo_id).bind(2, key).bind(3, etag);
    r = ins->run();
  }
  if (!r) return db_error(r.error());
  return {};
}

Result<void> SqliteStore::put_sync_state(std::int64_t repo_id, const GithubSyncState& state) {
  return in_transaction<void>([&]() { return write_sync_state(repo_id, state); });
}

}  // namespace mergelens
