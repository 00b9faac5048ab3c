// What the GitHub source adds (store.h, GithubStore): PR state columns, the
// conversation tables (reviews, review comments, issue comments), the
// per-repository sync state with its ETags, and the model's triage.
#include <fmt/format.h>

#include "mergelens/store/sql_store.h"

namespace mergelens {

namespace {

ReviewComment read_review_comment(const db::Query& s) {
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
  return rc;
}

}  // namespace

Result<void> SqlStore::load_pull_state(std::int64_t id, Change& c) {
  auto st =
      q("SELECT open, draft, head_sha, base_ref, merged_by, updated_at FROM changes WHERE id = $1");
  st.bind(1, id);
  auto row = st.step();
  if (!row) return std::unexpected(row.error());
  if (*row) {
    c.open = st.i64(0) != 0;
    c.draft = st.i64(1) != 0;
    c.head_sha = st.text(2);
    c.base_ref = st.text(3);
    c.merged_by = st.text(4);
    c.updated_at = st.i64(5);
  }
  // Every row of `sql` ($1 = the change) into `out`, in order.
  auto read_into = [&](std::string_view sql, auto& out, auto read) -> Result<void> {
    auto list = q(sql);
    list.bind(1, id);
    auto rows = list.collect(read);
    if (!rows) return std::unexpected(rows.error());
    out = std::move(*rows);
    return {};
  };
  auto r = read_into(
      "SELECT github_id, author, state, body, submitted_at FROM change_reviews "
      "WHERE change_id = $1 ORDER BY idx",
      c.reviews, [](const db::Query& s) {
        return Review{s.i64(0), s.text(1), s.text(2), s.text(3), s.i64(4)};
      });
  if (r)
    r = read_into(
        "SELECT github_id, in_reply_to, author, path, line, original_line, diff_hunk, body, "
        "created_at FROM change_review_comments WHERE change_id = $1 ORDER BY idx",
        c.review_comments, read_review_comment);
  if (r)
    r = read_into(
        "SELECT github_id, author, body, created_at FROM change_comments WHERE change_id = $1 "
        "ORDER BY idx",
        c.comments, [](const db::Query& s) {
          return IssueComment{s.i64(0), s.text(1), s.text(2), s.i64(3)};
        });
  return r;
}

Result<void> SqlStore::insert_conversation(std::int64_t id, const Change& c) {
  auto rev =
      q("INSERT INTO change_reviews(change_id, idx, github_id, author, state, body, submitted_at) "
        "VALUES($1,$2,$3,$4,$5,$6,$7)");
  auto r = insert_each(rev, id, c.reviews, [](const Review& v) {
    return std::tie(v.id, v.author, v.state, v.body, v.submitted_at);
  });
  if (!r) return r;
  auto rc =
      q("INSERT INTO change_review_comments(change_id, idx, github_id, in_reply_to, author, path, "
        "line, original_line, diff_hunk, body, created_at) "
        "VALUES($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11)");
  r = insert_each(rc, id, c.review_comments, [](const ReviewComment& v) {
    return std::tie(v.id, v.in_reply_to, v.author, v.path, v.line, v.original_line, v.diff_hunk,
                    v.body, v.created_at);
  });
  if (!r) return r;
  auto ic =
      q("INSERT INTO change_comments(change_id, idx, github_id, author, body, created_at) "
        "VALUES($1,$2,$3,$4,$5,$6)");
  return insert_each(ic, id, c.comments, [](const IssueComment& v) {
    return std::tie(v.id, v.author, v.body, v.created_at);
  });
}

Result<std::vector<PullRow>> SqlStore::pull_rows(std::int64_t repo_id, std::int64_t number) {
  auto st =
      q("SELECT id, sha, open, head_sha, updated_at, file_count FROM changes "
        "WHERE repo_id = $1 AND number = $2 ORDER BY id DESC");
  st.bind_all(repo_id, number);
  return st.collect([](const db::Query& s) {
    return PullRow{s.i64(0),  s.text(1), s.i64(2) != 0,
                   s.text(3), s.i64(4),  static_cast<std::int32_t>(s.i64(5))};
  });
}

Result<std::int64_t> SqlStore::put_pull(std::int64_t repo_id, const Change& c,
                                        std::span<const std::int64_t> absorb,
                                        const std::optional<GithubSyncState>& state) {
  return tx<std::int64_t>([&]() -> Result<std::int64_t> {
    for (std::int64_t other : absorb) {
      if (other == c.id) continue;
      if (auto r = remove_change(other); !r) return std::unexpected(r.error());
    }
    std::int64_t id = c.id;
    if (id == 0) {
      auto same = q("SELECT id FROM changes WHERE repo_id = $1 AND sha = $2");
      same.bind_all(repo_id, c.sha);
      auto found = same.first_i64();
      if (!found) return std::unexpected(found.error());
      id = found->value_or(0);
    }
    // Columns 2..22 are the same for INSERT and UPDATE.
    constexpr std::string_view kCols =
        "kind, number, sha, parent_sha, title, body, author_name, author_email, author_login, "
        "merged_at, url, file_count, additions, deletions, files_truncated, open, draft, "
        "head_sha, base_ref, merged_by, updated_at";
    constexpr std::string_view kVals =
        "$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19,$20,$21,$22";
    auto st = q(id ? fmt::format("UPDATE changes SET ({}) = ({}) WHERE id = $1 AND repo_id = $23 "
                                 "RETURNING id",
                                 kCols, kVals)
                   : fmt::format("INSERT INTO changes(repo_id, {}) VALUES($23, {}) RETURNING id",
                                 kCols, kVals));
    st.bind_all(id, to_string(c.kind), c.number, c.sha, c.parent_sha, c.title, c.body,
                c.author.name, c.author.email, c.author.login, c.merged_at, c.url, c.files.size(),
                c.additions(), c.deletions(), c.files_truncated, c.open, c.draft, c.head_sha,
                c.base_ref, c.merged_by, c.updated_at, repo_id);
    auto written = st.first_i64();
    if (!written) return std::unexpected(written.error());
    if (!*written)
      return fail(ErrorKind::kNotFound, "{}: no change with id {} in this repository", db_name(),
                  id);
    id = **written;
    for (const char* table : {"change_files", "change_commits", "change_labels", "change_reviews",
                              "change_review_comments", "change_comments", "facts"}) {
      auto del = q(fmt::format("DELETE FROM {} WHERE change_id = $1", table));
      del.bind(1, id);
      if (auto r = del.run(); !r) return std::unexpected(r.error());
    }
    if (auto r = insert_children(id, c); !r) return std::unexpected(r.error());
    if (auto r = insert_conversation(id, c); !r) return std::unexpected(r.error());
    if (state)
      if (auto r = write_sync_state(repo_id, *state); !r) return std::unexpected(r.error());
    // The search document follows the row.
    if (auto r = index_changes(std::span<const std::int64_t>(&id, 1)); !r)
      return std::unexpected(r.error());
    return id;
  });
}

Result<GithubSyncState> SqlStore::get_sync_state(std::int64_t repo_id) {
  GithubSyncState out;
  auto st = q("SELECT closed_since, open_since FROM github_sync WHERE repo_id = $1");
  st.bind(1, repo_id);
  auto row = st.step();
  if (!row) return std::unexpected(row.error());
  if (*row) {
    out.closed_since = st.i64(0);
    out.open_since = st.i64(1);
  }
  auto tags = q("SELECT key, etag FROM github_etags WHERE repo_id = $1");
  tags.bind(1, repo_id);
  auto etags = tags.collect(
      [](const db::Query& s) { return std::pair<std::string, std::string>(s.text(0), s.text(1)); });
  if (!etags) return std::unexpected(etags.error());
  for (auto& [key, etag] : *etags) out.etags[std::move(key)] = std::move(etag);
  return out;
}

Result<void> SqlStore::write_sync_state(std::int64_t repo_id, const GithubSyncState& state) {
  auto up =
      q("INSERT INTO github_sync(repo_id, closed_since, open_since) VALUES($1,$2,$3) "
        "ON CONFLICT(repo_id) DO UPDATE SET closed_since = excluded.closed_since, "
        "open_since = excluded.open_since");
  up.bind_all(repo_id, state.closed_since, state.open_since);
  if (auto r = up.run(); !r) return std::unexpected(r.error());
  auto del = q("DELETE FROM github_etags WHERE repo_id = $1");
  del.bind(1, repo_id);
  if (auto r = del.run(); !r) return std::unexpected(r.error());
  auto ins = q("INSERT INTO github_etags(repo_id, key, etag) VALUES($1,$2,$3)");
  for (const auto& [key, etag] : state.etags) {
    ins.bind_all(repo_id, key, etag);
    if (auto r = ins.run(); !r) return std::unexpected(r.error());
  }
  return {};
}

Result<void> SqlStore::put_sync_state(std::int64_t repo_id, const GithubSyncState& state) {
  return tx<void>([&] { return write_sync_state(repo_id, state); });
}

Result<void> SqlStore::put_triage(std::span<const TriageRecord> records) {
  return tx<void>([&]() -> Result<void> {
    std::vector<std::int64_t> ids;
    for (const auto& r : records) ids.push_back(r.change_id);
    auto before = triage_of(ids);
    if (!before) return std::unexpected(before.error());
    auto ins = q(fmt::format(
        "INSERT INTO triage({}) VALUES($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) "
        "ON CONFLICT (change_id) DO UPDATE SET day = excluded.day, key = excluded.key, "
        "rank = excluded.rank, importance = excluded.importance, insight = excluded.insight, "
        "verdict = excluded.verdict, scope = excluded.scope, reason_zh = excluded.reason_zh, "
        "reason_en = excluded.reason_en, model = excluded.model, at = excluded.at, "
        "scope_zh = excluded.scope_zh",
        kTriageColumns));
    auto stale = q("UPDATE guides SET stale = 1 WHERE change_id = $1");
    for (const auto& r : records) {
      ins.bind_all(r.change_id, r.day, r.key, r.rank, r.importance, r.insight, r.verdict, r.scope,
                   r.reason_zh, r.reason_en, r.model, r.at, r.scope_zh);
      if (auto x = ins.run(); !x) return std::unexpected(x.error());
      auto old = before->find(r.change_id);
      if (old != before->end() && !triage_judgment_differs(old->second, r)) continue;
      stale.bind(1, r.change_id);
      if (auto x = stale.run(); !x) return std::unexpected(x.error());
    }
    return {};
  });
}

namespace {

// "a, b, c" → {"a", "b", "c"}.
std::vector<std::string_view> split_columns(std::string_view list) {
  std::vector<std::string_view> out;
  while (!list.empty()) {
    const size_t comma = list.find(',');
    std::string_view c = list.substr(0, comma);
    while (!c.empty() && c.front() == ' ') c.remove_prefix(1);
    out.push_back(c);
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return out;
}

}  // namespace

Result<std::map<std::int64_t, TriageRecord>> SqlStore::triage_of(
    std::span<const std::int64_t> ids) {
  std::map<std::int64_t, TriageRecord> out;
  if (ids.empty()) return out;
  // The analysis's own judgment beside each record (facts' columns).
  std::string cols;
  for (std::string_view c : split_columns(kTriageColumns)) cols += fmt::format("t.{}, ", c);
  auto st = q(
      fmt::format("SELECT {}f.verdict, f.importance, f.insight FROM triage t LEFT JOIN facts f ON "
                  "f.change_id = t.change_id WHERE {}",
                  cols, in_ids("t.change_id", 1)));
  st.bind(1, ids_value(ids));
  constexpr int kAfter = 13;  // the columns of kTriageColumns
  auto rows = st.collect([](const db::Query& s) {
    TriageRecord t = read_triage(s);
    if (!s.is_null(kAfter)) {
      t.analysis_verdict = s.text(kAfter);
      t.analysis_importance = static_cast<int>(s.i64(kAfter + 1));
      t.analysis_insight = static_cast<int>(s.i64(kAfter + 2));
    }
    return t;
  });
  if (!rows) return std::unexpected(rows.error());
  for (auto& t : *rows) out[t.change_id] = std::move(t);
  return out;
}

}  // namespace mergelens
