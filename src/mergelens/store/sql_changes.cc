// Repositories and changes (store.h, ChangeStore): a change row with its
// files, commits and labels. Patches are stored per file as the hunk text of
// model/diff.h compressed with zstd, and parsed back on read. Text is ordered
// by code point on both databases (SQLite's BINARY; COLLATE "C" on
// PostgreSQL, whatever the database's collation).
#include <fmt/format.h>

#include "mergelens/model/diff.h"
#include "mergelens/store/sql_store.h"
#include "mergelens/util/compress.h"

namespace mergelens {

namespace {

constexpr std::string_view kRepoColumns = "id, name, path, web_base, branch, base_sha";

RepoRecord read_repo(const db::Query& s) {
  return RepoRecord{s.i64(0), s.text(1), s.text(2), s.text(3), s.text(4), s.text(5)};
}

std::string read_text(const db::Query& s) {
  return s.text(0);
}

FileChange read_file(const db::Query& s) {
  FileChange f;
  f.path = s.text(0);
  f.old_path = s.text(1);
  f.status = file_status_from_string(s.text(2)).value_or(FileStatus::kModified);
  f.binary = s.i64(3) != 0;
  f.truncated = s.i64(4) != 0;
  f.additions = static_cast<std::int32_t>(s.i64(5));
  f.deletions = static_cast<std::int32_t>(s.i64(6));
  if (!s.is_null(8)) f.unavailable = s.text(8);
  return f;
}

Commit read_commit(const db::Query& s) {
  Commit cm;
  cm.sha = s.text(0);
  cm.author.name = s.text(1);
  cm.author.email = s.text(2);
  cm.authored_at = s.i64(3);
  cm.committed_at = s.i64(4);
  cm.message = s.text(5);
  return cm;
}

}  // namespace

Result<RepoRecord> SqlStore::upsert_repo(const RepoRecord& repo) {
  return tx<RepoRecord>([&]() -> Result<RepoRecord> {
    auto st = q(fmt::format(
        "INSERT INTO repos(name, path, web_base, branch) VALUES($1, $2, $3, $4) "
        "ON CONFLICT(name) DO UPDATE SET path = excluded.path, web_base = excluded.web_base, "
        "branch = excluded.branch RETURNING {}",
        kRepoColumns));
    st.bind_all(repo.name, repo.path, repo.web_base, repo.branch);
    auto row = st.step();
    if (!row) return std::unexpected(row.error());
    if (!*row) return fail(ErrorKind::kInternal, "repository {} vanished after insert", repo.name);
    return read_repo(st);
  });
}

Result<std::vector<RepoRecord>> SqlStore::list_repos() {
  return q(fmt::format("SELECT {} FROM repos ORDER BY name{}", kRepoColumns, collate_c()))
      .collect(read_repo);
}

Result<std::optional<RepoRecord>> SqlStore::find_repo(std::string_view name) {
  auto st = q(fmt::format("SELECT {} FROM repos WHERE name = $1", kRepoColumns));
  st.bind(1, name);
  auto row = st.step();
  if (!row) return std::unexpected(row.error());
  if (!*row) return std::optional<RepoRecord>();
  return std::optional<RepoRecord>(read_repo(st));
}

Result<std::unordered_set<std::string>> SqlStore::known_shas(std::int64_t repo_id) {
  auto st = q("SELECT sha FROM changes WHERE repo_id = $1");
  st.bind(1, repo_id);
  auto shas = st.collect(read_text);
  if (!shas) return std::unexpected(shas.error());
  return std::unordered_set<std::string>(std::make_move_iterator(shas->begin()),
                                         std::make_move_iterator(shas->end()));
}

Result<std::vector<std::string>> SqlStore::shallow_boundaries(std::int64_t repo_id) {
  auto st = q("SELECT sha FROM changes WHERE repo_id = $1 AND shallow != 0 ORDER BY merged_at, id");
  st.bind(1, repo_id);
  return st.collect(read_text);
}

Result<std::vector<std::pair<std::string, size_t>>> SqlStore::incomplete_changes(
    std::int64_t repo_id) {
  auto st =
      q("SELECT c.sha, count(*) FROM change_files f JOIN changes c ON c.id = f.change_id "
        "WHERE c.repo_id = $1 AND f.unavailable IS NOT NULL GROUP BY c.id "
        "ORDER BY min(c.merged_at), c.id");
  st.bind(1, repo_id);
  return st.collect([](const db::Query& s) {
    return std::pair<std::string, size_t>(s.text(0), static_cast<size_t>(s.i64(1)));
  });
}

Result<std::int64_t> SqlStore::fill_boundary(std::int64_t repo_id, const Change& c) {
  auto st =
      q("UPDATE changes SET parent_sha = $3, file_count = $4, additions = $5, deletions = $6, "
        "files_truncated = $7, shallow = 0 WHERE repo_id = $1 AND sha = $2 AND (shallow != 0 OR "
        "EXISTS (SELECT 1 FROM change_files f WHERE f.change_id = changes.id AND "
        "f.unavailable IS NOT NULL)) RETURNING id");
  st.bind_all(repo_id, c.sha, c.parent_sha, c.files.size(), c.additions(), c.deletions(),
              c.files_truncated);
  auto found = st.first_i64();
  if (!found) return std::unexpected(found.error());
  if (!*found) return std::int64_t{0};
  const std::int64_t id = **found;
  // Labels and the conversation (from a sync) stay; facts go, so the next
  // analysis reads the diff (and the guides turn stale by trigger).
  for (const char* table : {"change_files", "change_commits", "facts"}) {
    auto del = q(fmt::format("DELETE FROM {} WHERE change_id = $1", table));
    del.bind(1, id);
    if (auto r = del.run(); !r) return std::unexpected(r.error());
  }
  Change children = c;
  children.labels.clear();
  if (auto r = insert_children(id, children); !r) return std::unexpected(r.error());
  return id;
}

Result<std::int64_t> SqlStore::insert_change(std::int64_t repo_id, const Change& c) {
  auto st =
      q("INSERT INTO changes(repo_id, kind, number, sha, parent_sha, title, body, author_name, "
        "author_email, author_login, merged_at, url, file_count, additions, deletions, "
        "files_truncated, shallow) "
        "VALUES($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17) "
        "ON CONFLICT (repo_id, sha) DO NOTHING RETURNING id");
  st.bind_all(repo_id, to_string(c.kind), c.number, c.sha, c.parent_sha, c.title, c.body,
              c.author.name, c.author.email, c.author.login, c.merged_at, c.url, c.files.size(),
              c.additions(), c.deletions(), c.files_truncated, c.shallow);
  auto id = st.first_i64();
  if (!id) return std::unexpected(id.error());
  if (!*id) return std::int64_t{0};  // already stored
  if (auto r = insert_children(**id, c); !r) return std::unexpected(r.error());
  return **id;
}

Result<void> SqlStore::insert_children(std::int64_t id, const Change& c) {
  auto file =
      q("INSERT INTO change_files(change_id, idx, path, old_path, status, \"binary\", truncated, "
        "additions, deletions, patch, unavailable) VALUES($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11)");
  for (size_t i = 0; i < c.files.size(); ++i) {
    const FileChange& f = c.files[i];
    file.bind_all(id, i, f.path, f.old_path, to_string(f.status), f.binary, f.truncated,
                  f.additions, f.deletions);
    if (!f.hunks.empty()) {
      auto z = zstd_compress(render_patch(f.hunks));
      if (!z) return std::unexpected(z.error());
      file.bind_blob(10, *z);
    } else {
      file.bind_blob(10, "").bind_null(10);  // a NULL of the column's type
    }
    file.bind(11, f.unavailable);
    if (f.unavailable.empty()) file.bind_null(11);
    if (auto r = file.run(); !r) return std::unexpected(r.error());
  }
  auto commit =
      q("INSERT INTO change_commits(change_id, idx, sha, author_name, author_email, authored_at, "
        "committed_at, message) VALUES($1,$2,$3,$4,$5,$6,$7,$8)");
  if (auto r = insert_each(commit, id, c.commits,
                           [](const Commit& cm) {
                             return std::tie(cm.sha, cm.author.name, cm.author.email,
                                             cm.authored_at, cm.committed_at, cm.message);
                           });
      !r)
    return r;
  auto label = q("INSERT INTO change_labels(change_id, name) VALUES($1,$2) ON CONFLICT DO NOTHING");
  for (const auto& name : c.labels) {
    label.bind_all(id, name);
    if (auto r = label.run(); !r) return std::unexpected(r.error());
  }
  return {};
}

Result<size_t> SqlStore::put_changes(std::int64_t repo_id, std::span<const Change> changes,
                                     const std::optional<std::string>& new_base) {
  return tx<size_t>([&]() -> Result<size_t> {
    std::vector<std::int64_t> fresh;  // the new rows: the ones to index
    size_t filled = 0;                // shallow boundaries rewritten from a deepened clone
    for (const Change& c : changes) {
      auto id = insert_change(repo_id, c);
      if (!id) return std::unexpected(id.error());
      if (*id) {
        fresh.push_back(*id);
      } else if (!c.shallow) {
        auto boundary = fill_boundary(repo_id, c);
        if (!boundary) return std::unexpected(boundary.error());
        filled += *boundary != 0;
      }
    }
    if (!fresh.empty())
      if (auto r = index_changes(fresh); !r) return std::unexpected(r.error());
    if (new_base) {
      auto up = q("UPDATE repos SET base_sha = $2 WHERE id = $1");
      up.bind_all(repo_id, *new_base);
      if (auto r = up.run(); !r) return std::unexpected(r.error());
    }
    return fresh.size() + filled;
  });
}

Result<std::vector<ChangeSummary>> SqlStore::list_changes(std::int64_t repo_id,
                                                          const ListQuery& lq) {
  // No LIMIT clause for "no limit": SQLite would take -1, PostgreSQL NULL.
  auto st = q(fmt::format("SELECT {} FROM {} WHERE ", kSummaryColumns, kJudgedFrom) +
              repo_filter(repo_id, "c.repo_id", "$1") +
              " AND ($2 IS NULL OR c.merged_at >= $2) AND ($3 IS NULL OR c.merged_at < $3) "
              "ORDER BY c.merged_at DESC, c.id DESC" +
              (lq.limit ? " LIMIT $4" : ""));
  st.bind_all(repo_id, lq.since, lq.until);
  if (lq.limit) st.bind(4, static_cast<std::int64_t>(lq.limit));
  return st.collect(read_summary<db::Query>);
}

Result<size_t> SqlStore::count_changes(std::int64_t repo_id) {
  auto st = q("SELECT count(*) FROM changes WHERE repo_id = $1");
  st.bind(1, repo_id);
  auto n = st.first_i64();
  if (!n) return std::unexpected(n.error());
  return static_cast<size_t>(n->value_or(0));
}

Result<std::optional<Change>> SqlStore::load_change(std::int64_t repo_id, std::string_view where,
                                                    const std::function<void(db::Query&)>& bind) {
  auto st = q(fmt::format(
      "SELECT c.id, c.kind, c.number, c.sha, c.parent_sha, c.title, c.body, c.author_name, "
      "c.author_email, c.author_login, c.merged_at, c.url, c.files_truncated, r.name, c.shallow "
      "FROM changes c JOIN repos r ON r.id = c.repo_id WHERE ($1 = 0 OR c.repo_id = $1) AND {} "
      "ORDER BY c.merged_at DESC, c.id DESC LIMIT 1",
      where));
  st.bind(1, repo_id);
  bind(st);
  auto row = st.step();
  if (!row) return std::unexpected(row.error());
  if (!*row) return std::optional<Change>();
  Change c;
  const std::int64_t id = st.i64(0);
  c.id = id;
  c.kind = change_kind_from_string(st.text(1)).value_or(ChangeKind::kCommit);
  c.number = st.opt_i64(2);
  c.sha = st.text(3);
  c.parent_sha = st.text(4);
  c.title = st.text(5);
  c.body = st.text(6);
  c.author = Person{st.text(7), st.text(8), st.text(9)};
  c.merged_at = st.i64(10);
  c.url = st.text(11);
  c.files_truncated = st.i64(12) != 0;
  c.repo = st.text(13);
  c.shallow = st.i64(14) != 0;

  auto files =
      q("SELECT path, old_path, status, \"binary\", truncated, additions, deletions, patch, "
        "unavailable FROM change_files WHERE change_id = $1 ORDER BY idx");
  files.bind(1, id);
  for (;;) {
    auto r = files.step();
    if (!r) return std::unexpected(r.error());
    if (!*r) break;
    FileChange f = read_file(files);
    if (!files.is_null(7)) {
      auto text = zstd_decompress(files.blob(7));
      auto parsed = text ? parse_patch(*text) : Result<ParsedPatch>(std::unexpected(text.error()));
      if (!parsed)
        return fail(ErrorKind::kCorrupt, "{}: patch of {} in {}: {}", db_name(), f.path, c.sha,
                    parsed.error().message);
      f.hunks = std::move(parsed->hunks);
    }
    c.files.push_back(std::move(f));
  }

  auto commits =
      q("SELECT sha, author_name, author_email, authored_at, committed_at, message "
        "FROM change_commits WHERE change_id = $1 ORDER BY idx");
  commits.bind(1, id);
  auto cms = commits.collect(read_commit);
  if (!cms) return std::unexpected(cms.error());
  c.commits = std::move(*cms);

  auto labels = q(fmt::format("SELECT name FROM change_labels WHERE change_id = $1 ORDER BY name{}",
                              collate_c()));
  labels.bind(1, id);
  auto names = labels.collect(read_text);
  if (!names) return std::unexpected(names.error());
  c.labels = std::move(*names);
  if (auto r = load_pull_state(id, c); !r) return std::unexpected(r.error());
  return std::optional<Change>(std::move(c));
}

Result<std::optional<Change>> SqlStore::get_change_by_number(std::int64_t repo_id,
                                                             std::int64_t number) {
  return load_change(repo_id, "c.number = $2", [&](db::Query& s) { s.bind(2, number); });
}

Result<std::optional<Change>> SqlStore::get_change_by_sha(std::int64_t repo_id,
                                                          std::string_view sha) {
  return load_change(repo_id, "c.sha = $2", [&](db::Query& s) { s.bind(2, sha); });
}

Result<std::optional<Change>> SqlStore::get_change_by_id(std::int64_t id) {
  return load_change(0, "c.id = $2", [&](db::Query& s) { s.bind(2, id); });
}

Result<std::vector<std::string>> SqlStore::find_shas(std::int64_t repo_id,
                                                     std::string_view prefix) {
  auto st = q(fmt::format(
      "SELECT sha FROM changes WHERE repo_id = $1 AND sha{0} >= $2 AND sha{0} < $2 || 'g' "
      "ORDER BY sha{0} LIMIT 10",
      collate_c()));
  st.bind_all(repo_id, prefix);
  return st.collect(read_text);
}

Result<void> SqlStore::remove_change(std::int64_t id) {
  // Child rows go with ON DELETE CASCADE (SQLite: foreign_keys is on).
  auto st = q("DELETE FROM changes WHERE id = $1");
  st.bind(1, id);
  if (auto r = st.run(); !r) return std::unexpected(r.error());
  // SQLite's FTS5 table has no foreign key: the search document goes here
  // (on PostgreSQL the cascade took it, and this finds nothing to write).
  return index_changes(std::span<const std::int64_t>(&id, 1));
}

Result<void> SqlStore::delete_change(std::int64_t id) {
  return tx<void>([&] { return remove_change(id); });
}

Result<std::vector<ChangeSummary>> SqlStore::changes_with_number(std::int64_t repo_id,
                                                                 std::int64_t number) {
  auto st =
      q(fmt::format("SELECT {} FROM {} WHERE c.repo_id = $1 AND c.number = $2 "
                    "ORDER BY c.merged_at DESC, c.id DESC",
                    kSummaryColumns, kJudgedFrom));
  st.bind(1, repo_id).bind(2, number);
  return st.collect(read_summary<db::Query>);
}

}  // namespace mergelens
