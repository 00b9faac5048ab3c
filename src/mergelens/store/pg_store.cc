// PostgreSQL implementation of Store: opening, migrations, repositories and
// changes (the twin of sqlite_store.cc).
//
// The database uses the UTF8 encoding: commit text is kept byte for byte
// (git allows any bytes, and the SQLite store keeps them) through the escape
// of pg_util.h. A SQL_ASCII database, which stores before that scheme needed,
// still opens and keeps raw bytes; any other encoding is refused. Text is
// ordered with COLLATE "C" (by code point, as in SQLite) whatever the
// database's collation.
#include <fmt/format.h>

#include "mergelens/model/diff.h"
#include "mergelens/store/pg_store_impl.h"
#include "mergelens/util/compress.h"

namespace mergelens {
namespace {

using pg::Stmt;

RepoRecord repo_from_row(const Stmt& s) {
  return RepoRecord{s.i64(0), s.text(1), s.text(2), s.text(3), s.text(4), s.text(5)};
}

constexpr std::string_view kRepoColumns = "id, name, path, web_base, branch, base_sha";
// Serialises migrations of several processes opening the store at once.
constexpr std::int64_t kMigrationLock = 0x6d65726765;  // "merge"

}  // namespace

bool is_pg_url(std::string_view location) {
  return location.starts_with("postgresql://") || location.starts_with("postgres://");
}

Result<std::unique_ptr<Store>> open_store_at(const std::string& location,
                                             const StoreOptions& options) {
  if (is_pg_url(location)) return open_pg_store(location, options);
  return open_sqlite_store(location, options);
}

Result<void> PgStore::migrate() {
  return in_transaction<void>(
      [&]() -> Result<void> {
        auto lock = pq("SELECT pg_advisory_xact_lock($1)");
        lock.bind(1, kMigrationLock);
        if (auto r = lock.step(); !r) return std::unexpected(r.error());
        if (auto r = conn_.exec("CREATE TABLE IF NOT EXISTS mergelens_meta (key TEXT PRIMARY KEY, "
                                "value TEXT NOT NULL)");
            !r)
          return r;
        auto version = pq("SELECT value FROM mergelens_meta WHERE key = 'schema_version'");
        auto row = version.step();
        if (!row) return std::unexpected(row.error());
        const std::int64_t have = *row ? std::stoll(version.text(0)) : 0;
        if (have == 0) {
          // A database with tables but no version of ours belongs to someone else.
          auto other =
              pq("SELECT count(*) FROM information_schema.tables WHERE table_schema = "
                "current_schema() "
                "AND table_name != 'mergelens_meta'");
          if (auto r = other.step(); !r) return std::unexpected(r.error());
          if (other.i64(0) > 0)
            return fail(ErrorKind::kCorrupt, "{} holds tables of another program", where());
        }
        const auto steps = pgsql::migrations();
        const auto known = static_cast<std::int64_t>(steps.size());
        if (have > known)
          return fail(
              ErrorKind::kUnsupported,
              "{} was written by a newer mergelens (schema v{}; this build knows up to v{})",
              where(), have, known);
        for (auto v = have; v < known; ++v) {
          if (auto r = conn_.exec(steps[static_cast<size_t>(v)]); !r)
            return fail(r.error().kind, "migration to schema v{} failed: {}", v + 1,
                        r.error().message);
        }
        if (have < known) {
          auto up =
              pq("INSERT INTO mergelens_meta(key, value) VALUES('schema_version', $1) ON CONFLICT "
                "(key) "
                "DO UPDATE SET value = excluded.value");
          up.bind(1, std::to_string(known));
          if (auto r = up.run(); !r) return std::unexpected(r.error());
        }
        return {};
      },
      /*bump_version=*/false);  // mergelens_version may not exist yet
}

Result<std::unique_ptr<Store>> open_pg_store(const std::string& url, const StoreOptions&) {
  auto conn = pg::Conn::connect(url);
  if (!conn) return std::unexpected(conn.error());
  {
    Stmt enc(*conn, "SHOW server_encoding");
    auto row = enc.step();
    if (!row) return std::unexpected(row.error());
    const std::string encoding = *row ? enc.text(0) : "";
    if (encoding == "UTF8") {
      conn->set_text_scheme(pg::TextScheme::kEscaped);
    } else if (encoding != "SQL_ASCII") {
      return fail(ErrorKind::kUnsupported,
                  "{} uses the {} encoding, which cannot hold every character of commit text; "
                  "mergelens needs a UTF8 database (CREATE DATABASE mergelens ENCODING 'UTF8' "
                  "TEMPLATE template0), and `mergelens migrate-store --to URL` copies a store "
                  "into one",
                  conn->where(), encoding);
    }
    // No conversion on the way: the client speaks the database's encoding.
    if (auto r = conn->exec(encoding == "UTF8" ? "SET client_encoding = 'UTF8'"
                                               : "SET client_encoding = 'SQL_ASCII'");
        !r)
      return std::unexpected(r.error());
  }
  auto store = std::make_unique<PgStore>(std::move(*conn));
  if (auto r = store->migrate(); !r) return std::unexpected(r.error());
  return std::unique_ptr<Store>(std::move(store));
}

Result<RepoRecord> PgStore::upsert_repo(const RepoRecord& repo) {
  return in_transaction<RepoRecord>([&]() -> Result<RepoRecord> {
    auto st = pq(fmt::format(
        "INSERT INTO repos(name, path, web_base, branch) VALUES($1, $2, $3, $4) "
        "ON CONFLICT(name) DO UPDATE SET path = excluded.path, web_base = excluded.web_base, "
        "branch = excluded.branch RETURNING {}",
        kRepoColumns));
    st.bind(1, repo.name).bind(2, repo.path).bind(3, repo.web_base).bind(4, repo.branch);
    auto row = st.step();
    if (!row) return std::unexpected(row.error());
    if (!*row) return fail(ErrorKind::kInternal, "repository {} vanished after insert", repo.name);
    return repo_from_row(st);
  });
}

Result<std::vector<RepoRecord>> PgStore::list_repos() {
  auto st = pq(fmt::format("SELECT {} FROM repos ORDER BY name COLLATE \"C\"", kRepoColumns));
  std::vector<RepoRecord> out;
  for (;;) {
    auto row = st.step();
    if (!row) return std::unexpected(row.error());
    if (!*row) break;
    out.push_back(repo_from_row(st));
  }
  return out;
}

Result<std::optional<RepoRecord>> PgStore::find_repo(std::string_view name) {
  auto st = pq(fmt::format("SELECT {} FROM repos WHERE name = $1", kRepoColumns));
  st.bind(1, name);
  auto row = st.step();
  if (!row) return std::unexpected(row.error());
  if (!*row) return std::optional<RepoRecord>();
  return std::optional<RepoRecord>(repo_from_row(st));
}

Result<std::unordered_set<std::string>> PgStore::known_shas(std::int64_t repo_id) {
  auto st = pq("SELECT sha FROM changes WHERE repo_id = $1");
  st.bind(1, repo_id);
  std::unordered_set<std::string> out;
  for (;;) {
    auto row = st.step();
    if (!row) return std::unexpected(row.error());
    if (!*row) break;
    out.insert(st.text(0));
  }
  return out;
}

Result<std::vector<std::string>> PgStore::shallow_boundaries(std::int64_t repo_id) {
  auto st = pq("SELECT sha FROM changes WHERE repo_id = $1 AND shallow != 0 ORDER BY merged_at, id");
  st.bind(1, repo_id);
  std::vector<std::string> out;
  for (;;) {
    auto row = st.step();
    if (!row) return std::unexpected(row.error());
    if (!*row) break;
    out.push_back(st.text(0));
  }
  return out;
}

Result<std::vector<std::pair<std::string, size_t>>> PgStore::incomplete_changes(
    std::int64_t repo_id) {
  auto st =
      pq("SELECT c.sha, count(*) FROM change_files f JOIN changes c ON c.id = f.change_id "
        "WHERE c.repo_id = $1 AND f.unavailable IS NOT NULL GROUP BY c.id "
        "ORDER BY min(c.merged_at), c.id");
  st.bind(1, repo_id);
  std::vector<std::pair<std::string, size_t>> out;
  for (;;) {
    auto row = st.step();
    if (!row) return std::unexpected(row.error());
    if (!*row) break;
    out.emplace_back(st.text(0), static_cast<size_t>(st.i64(1)));
  }
  return out;
}

Result<std::int64_t> PgStore::fill_boundary(std::int64_t repo_id, const Change& c) {
  auto st =
      pq("UPDATE changes SET parent_sha = $3, file_count = $4, additions = $5, deletions = $6, "
        "files_truncated = $7, shallow = 0 WHERE repo_id = $1 AND sha = $2 AND (shallow != 0 OR "
        "EXISTS (SELECT 1 FROM change_files f WHERE f.change_id = changes.id AND "
        "f.unavailable IS NOT NULL)) RETURNING id");
  st.bind(1, repo_id).bind(2, c.sha).bind(3, c.parent_sha);
  st.bind(4, static_cast<std::int64_t>(c.files.size())).bind(5, c.additions());
  st.bind(6, c.deletions()).bind(7, std::int64_t{c.files_truncated});
  std::int64_t id = 0;
  for (;;) {
    auto row = st.step();
    if (!row) return std::unexpected(row.error());
    if (!*row) break;
    id = st.i64(0);
  }
  if (id == 0) return id;
  // As SqliteStore::fill_boundary: labels and the conversation stay; facts
  // go, so the next analysis reads the diff (and the guides turn stale).
  for (const char* table : {"change_files", "change_commits", "facts"}) {
    auto del = pq(fmt::format("DELETE FROM {} WHERE change_id = $1", table));
    del.bind(1, id);
    if (auto r = del.run(); !r) return std::unexpected(r.error());
  }
  Change children = c;
  children.labels.clear();
  if (auto r = insert_children(id, children); !r) return std::unexpected(r.error());
  return id;
}

Result<std::int64_t> PgStore::insert_change(std::int64_t repo_id, const Change& c) {
  auto st =
      pq("INSERT INTO changes(repo_id, kind, number, sha, parent_sha, title, body, author_name, "
        "author_email, author_login, merged_at, url, file_count, additions, deletions, "
        "files_truncated, shallow) "
        "VALUES($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17) "
        "ON CONFLICT (repo_id, sha) DO NOTHING RETURNING id");
  st.bind(1, repo_id)
      .bind(2, to_string(c.kind))
      .bind(3, c.number)
      .bind(4, c.sha)
      .bind(5, c.parent_sha)
      .bind(6, c.title)
      .bind(7, c.body)
      .bind(8, c.author.name)
      .bind(9, c.author.email)
      .bind(10, c.author.login)
      .bind(11, c.merged_at)
      .bind(12, c.url)
      .bind(13, static_cast<std::int64_t>(c.files.size()))
      .bind(14, c.additions())
      .bind(15, c.deletions())
      .bind(16, std::int64_t{c.files_truncated})
      .bind(17, std::int64_t{c.shallow});
  auto row = st.step();
  if (!row) return std::unexpected(row.error());
  if (!*row) return std::int64_t{0};  // already stored
  const std::int64_t id = st.i64(0);
  if (auto r = insert_children(id, c); !r) return std::unexpected(r.error());
  return id;
}

Result<void> PgStore::insert_children(std::int64_t id, const Change& c) {
  for (size_t i = 0; i < c.files.size(); ++i) {
    const FileChange& f = c.files[i];
    auto st =
        pq("INSERT INTO change_files(change_id, idx, path, old_path, status, \"binary\", truncated, "
          "additions, deletions, patch, unavailable) VALUES($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11)");
    st.bind(1, id)
        .bind(2, static_cast<std::int64_t>(i))
        .bind(3, f.path)
        .bind(4, f.old_path)
        .bind(5, to_string(f.status))
        .bind(6, std::int64_t{f.binary})
        .bind(7, std::int64_t{f.truncated})
        .bind(8, std::int64_t{f.additions})
        .bind(9, std::int64_t{f.deletions});
    if (!f.hunks.empty()) {
      auto z = zstd_compress(render_patch(f.hunks));
      if (!z) return std::unexpected(z.error());
      st.bind_blob(10, *z);
    } else {
      st.bind_blob(10, "").bind_null(10);
    }
    st.bind(11, f.unavailable);
    if (f.unavailable.empty()) st.bind_null(11);
    if (auto r = st.run(); !r) return std::unexpected(r.error());
  }
  for (size_t i = 0; i < c.commits.size(); ++i) {
    const Commit& cm = c.commits[i];
    auto st =
        pq("INSERT INTO change_commits(change_id, idx, sha, author_name, author_email, authored_at, "
          "committed_at, message) VALUES($1,$2,$3,$4,$5,$6,$7,$8)");
    st.bind(1, id)
        .bind(2, static_cast<std::int64_t>(i))
        .bind(3, cm.sha)
        .bind(4, cm.author.name)
        .bind(5, cm.author.email)
        .bind(6, cm.authored_at)
        .bind(7, cm.committed_at)
        .bind(8, cm.message);
    if (auto r = st.run(); !r) return std::unexpected(r.error());
  }
  for (const auto& label : c.labels) {
    auto st = pq("INSERT INTO change_labels(change_id, name) VALUES($1,$2) ON CONFLICT DO NOTHING");
    st.bind(1, id).bind(2, label);
    if (auto r = st.run(); !r) return std::unexpected(r.error());
  }
  return {};
}

Result<size_t> PgStore::put_changes(std::int64_t repo_id, std::span<const Change> changes,
                                    const std::optional<std::string>& new_base) {
  return in_transaction<size_t>([&]() -> Result<size_t> {
    std::vector<std::int64_t> fresh;
    size_t filled = 0;  // shallow boundaries rewritten from a deepened clone
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
    if (auto r = index_changes(fresh); !r) return std::unexpected(r.error());
    if (new_base) {
      auto up = pq("UPDATE repos SET base_sha = $2 WHERE id = $1");
      up.bind(1, repo_id).bind(2, *new_base);
      if (auto r = up.run(); !r) return std::unexpected(r.error());
    }
    return fresh.size() + filled;
  });
}

Result<std::vector<ChangeSummary>> PgStore::list_changes(std::int64_t repo_id,
                                                         const ListQuery& lq) {
  auto st = pq("SELECT " + std::string(kSummaryColumns) +
              " FROM changes c LEFT JOIN judged f ON f.change_id = c.id WHERE " +
              repo_filter(repo_id, "c.repo_id", "$1") +
              " AND ($2::bigint IS NULL OR c.merged_at >= $2) AND "
              "($3::bigint IS NULL OR c.merged_at < $3) ORDER BY c.merged_at DESC, c.id DESC "
              "LIMIT $4");
  st.bind(1, repo_id).bind(2, lq.since).bind(3, lq.until);
  if (lq.limit)
    st.bind(4, static_cast<std::int64_t>(lq.limit));
  else
    st.bind(4, std::optional<std::int64_t>());  // LIMIT NULL: no limit
  std::vector<ChangeSummary> out;
  for (;;) {
    auto row = st.step();
    if (!row) return std::unexpected(row.error());
    if (!*row) break;
    out.push_back(read_summary(st));
  }
  return out;
}

Result<size_t> PgStore::count_changes(std::int64_t repo_id) {
  auto st = pq("SELECT count(*) FROM changes WHERE repo_id = $1");
  st.bind(1, repo_id);
  auto row = st.step();
  if (!row) return std::unexpected(row.error());
  return static_cast<size_t>(st.i64(0));
}

Result<std::optional<Change>> PgStore::load_change(std::int64_t repo_id, std::string_view where_sql,
                                                   const std::function<void(Stmt&)>& bind) {
  auto st = pq(fmt::format(
      "SELECT c.id, c.kind, c.number, c.sha, c.parent_sha, c.title, c.body, c.author_name, "
      "c.author_email, c.author_login, c.merged_at, c.url, c.files_truncated, r.name, "
      "c.shallow FROM changes c JOIN repos r ON r.id = c.repo_id WHERE ($1 = 0 OR c.repo_id = $1) "
      "AND {} "
      "ORDER BY c.merged_at DESC, c.id DESC LIMIT 1",
      where_sql));
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
      pq("SELECT path, old_path, status, \"binary\", truncated, additions, deletions, patch, "
        "unavailable FROM change_files WHERE change_id = $1 ORDER BY idx");
  files.bind(1, id);
  for (;;) {
    auto r = files.step();
    if (!r) return std::unexpected(r.error());
    if (!*r) break;
    FileChange f;
    f.path = files.text(0);
    f.old_path = files.text(1);
    f.status = file_status_from_string(files.text(2)).value_or(FileStatus::kModified);
    f.binary = files.i64(3) != 0;
    f.truncated = files.i64(4) != 0;
    f.additions = static_cast<std::int32_t>(files.i64(5));
    f.deletions = static_cast<std::int32_t>(files.i64(6));
    if (!files.is_null(8)) f.unavailable = files.text(8);
    if (!files.is_null(7)) {
      auto text = zstd_decompress(files.blob(7));
      auto parsed = text ? parse_patch(*text) : Result<ParsedPatch>(std::unexpected(text.error()));
      if (!parsed)
        return fail(ErrorKind::kCorrupt, "{}: patch of {} in {}: {}", where(), f.path, c.sha,
                    parsed.error().message);
      f.hunks = std::move(parsed->hunks);
    }
    c.files.push_back(std::move(f));
  }

  auto commits =
      pq("SELECT sha, author_name, author_email, authored_at, committed_at, message "
        "FROM change_commits WHERE change_id = $1 ORDER BY idx");
  commits.bind(1, id);
  for (;;) {
    auto r = commits.step();
    if (!r) return std::unexpected(r.error());
    if (!*r) break;
    Commit cm;
    cm.sha = commits.text(0);
    cm.author.name = commits.text(1);
    cm.author.email = commits.text(2);
    cm.authored_at = commits.i64(3);
    cm.committed_at = commits.i64(4);
    cm.message = commits.text(5);
    c.commits.push_back(std::move(cm));
  }

  auto labels =
      pq("SELECT name FROM change_labels WHERE change_id = $1 ORDER BY name COLLATE \"C\"");
  labels.bind(1, id);
  for (;;) {
    auto r = labels.step();
    if (!r) return std::unexpected(r.error());
    if (!*r) break;
    c.labels.push_back(labels.text(0));
  }
  if (auto r = load_pull_state(id, c); !r) return std::unexpected(r.error());
  return std::optional<Change>(std::move(c));
}

Result<std::optional<Change>> PgStore::get_change_by_number(std::int64_t repo_id,
                                                            std::int64_t number) {
  return load_change(repo_id, "c.number = $2", [&](Stmt& s) { s.bind(2, number); });
}

Result<std::optional<Change>> PgStore::get_change_by_sha(std::int64_t repo_id,
                                                         std::string_view sha) {
  return load_change(repo_id, "c.sha = $2", [&](Stmt& s) { s.bind(2, sha); });
}

Result<std::optional<Change>> PgStore::get_change_by_id(std::int64_t id) {
  return load_change(0, "c.id = $2", [&](Stmt& s) { s.bind(2, id); });
}

Result<std::vector<std::string>> PgStore::find_shas(std::int64_t repo_id, std::string_view prefix) {
  auto st =
      pq("SELECT sha FROM changes WHERE repo_id = $1 AND sha COLLATE \"C\" >= $2 AND sha COLLATE "
        "\"C\" < $2 || 'g' ORDER BY sha COLLATE \"C\" LIMIT 10");
  st.bind(1, repo_id).bind(2, prefix);
  std::vector<std::string> out;
  for (;;) {
    auto row = st.step();
    if (!row) return std::unexpected(row.error());
    if (!*row) break;
    out.push_back(st.text(0));
  }
  return out;
}

}  // namespace mergelens
