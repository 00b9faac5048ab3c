// SQLite implementation of Store.
//
// One connection per Store, WAL journal so readers (the web server) keep
// reading while an ingest writes. Patches are stored per file as the hunk
// text of model/diff.h compressed with zstd, and parsed back on read.
#include <chrono>
#include <filesystem>
#include <functional>
#include <thread>

#include "mergelens/model/diff.h"
#include "mergelens/store/schema.h"
#include "mergelens/store/sqlite_store_impl.h"
#include "mergelens/store/sqlite_util.h"
#include "mergelens/util/compress.h"

namespace mergelens {
namespace {

using sql::Db;
using sql::Stmt;

RepoRecord repo_from_row(const Stmt& s) {
  return RepoRecord{s.i64(0), s.text(1), s.text(2), s.text(3), s.text(4), s.text(5)};
}

constexpr std::string_view kRepoColumns = "id, name, path, web_base, branch, base_sha";

}  // namespace

Result<RepoRecord> SqliteStore::upsert_repo(const RepoRecord& repo) {
  auto st = prepare(
      "INSERT INTO repos(name, path, web_base, branch) VALUES(?1, ?2, ?3, ?4) "
      "ON CONFLICT(name) DO UPDATE SET path = excluded.path, web_base = excluded.web_base, "
      "branch = excluded.branch");
  if (!st) return std::unexpected(st.error());
  st->bind(1, repo.name).bind(2, repo.path).bind(3, repo.web_base).bind(4, repo.branch);
  if (auto r = st->run(); !r) return db_error(r.error());
  auto found = find_repo(repo.name);
  if (!found) return std::unexpected(found.error());
  if (!*found) return fail(ErrorKind::kInternal, "repository {} vanished after insert", repo.name);
  return **found;
}

Result<std::vector<RepoRecord>> SqliteStore::list_repos() {
  auto st = prepare(fmt::format("SELECT {} FROM repos ORDER BY name", kRepoColumns));
  if (!st) return std::unexpected(st.error());
  std::vector<RepoRecord> out;
  for (;;) {
    auto row = st->step();
    if (!row) return db_error(row.error());
    if (!*row) break;
    out.push_back(repo_from_row(*st));
  }
  return out;
}

Result<std::optional<RepoRecord>> SqliteStore::find_repo(std::string_view name) {
  auto st = prepare(fmt::format("SELECT {} FROM repos WHERE name = ?1", kRepoColumns));
  if (!st) return std::unexpected(st.error());
  st->bind(1, name);
  auto row = st->step();
  if (!row) return db_error(row.error());
  if (!*row) return std::optional<RepoRecord>();
  return std::optional<RepoRecord>(repo_from_row(*st));
}

Result<void> SqliteStore::each_sha(std::string_view query, std::int64_t repo_id,
                                   const std::function<void(std::string)>& take) {
  auto st = prepare(query);
  if (!st) return std::unexpected(st.error());
  st->bind(1, repo_id);
  for (;;) {
    auto row = st->step();
    if (!row) return db_error(row.error());
    if (!*row) return {};
    take(st->text(0));
  }
}

Result<std::unordered_set<std::string>> SqliteStore::known_shas(std::int64_t repo_id) {
  std::unordered_set<std::string> out;
  auto r = each_sha("SELECT sha FROM changes WHERE repo_id = ?1", repo_id,
                    [&](std::string sha) { out.insert(std::move(sha)); });
  if (!r) return std::unexpected(r.error());
  return out;
}

Result<std::vector<std::string>> SqliteStore::shallow_boundaries(std::int64_t repo_id) {
  std::vector<std::string> out;
  auto r =
      each_sha("SELECT sha FROM changes WHERE repo_id = ?1 AND shallow != 0 ORDER BY merged_at, id",
               repo_id, [&](std::string sha) { out.push_back(std::move(sha)); });
  if (!r) return std::unexpected(r.error());
  return out;
}

Result<std::vector<std::pair<std::string, size_t>>> SqliteStore::incomplete_changes(
    std::int64_t repo_id) {
  auto st = prepare(
      "SELECT c.sha, count(*) FROM change_files f JOIN changes c ON c.id = f.change_id "
      "WHERE c.repo_id = ?1 AND f.unavailable IS NOT NULL GROUP BY c.id "
      "ORDER BY c.merged_at, c.id");
  if (!st) return std::unexpected(st.error());
  st->bind(1, repo_id);
  std::vector<std::pair<std::string, size_t>> out;
  for (;;) {
    auto row = st->step();
    if (!row) return db_error(row.error());
    if (!*row) break;
    out.emplace_back(st->text(0), static_cast<size_t>(st->i64(1)));
  }
  return out;
}

Result<std::int64_t> SqliteStore::fill_boundary(std::int64_t repo_id, const Change& c,
                                                ChildInserts& kids) {
  auto st = prepare(
      "UPDATE changes SET parent_sha = ?3, file_count = ?4, additions = ?5, deletions = ?6, "
      "files_truncated = ?7, shallow = 0 WHERE repo_id = ?1 AND sha = ?2 AND (shallow != 0 OR "
      "EXISTS (SELECT 1 FROM change_files f WHERE f.change_id = changes.id AND "
      "f.unavailable IS NOT NULL)) RETURNING id");
  if (!st) return std::unexpected(st.error());
  st->bind(1, repo_id).bind(2, c.sha).bind(3, c.parent_sha);
  st->bind(4, static_cast<std::int64_t>(c.files.size())).bind(5, c.additions());
  st->bind(6, c.deletions()).bind(7, std::int64_t{c.files_truncated});
  std::int64_t id = 0;
  for (;;) {
    auto row = st->step();
    if (!row) return std::unexpected(row.error());
    if (!*row) break;
    id = st->i64(0);
  }
  if (id == 0) return id;
  // Labels and the conversation (from a sync) stay; facts go, so the next
  // analysis reads the diff (and the guides turn stale by trigger).
  for (const char* table : {"change_files", "change_commits", "facts"}) {
    auto del = prepare(fmt::format("DELETE FROM {} WHERE change_id = ?1", table));
    if (!del) return std::unexpected(del.error());
    del->bind(1, id);
    if (auto r = del->run(); !r) return std::unexpected(r.error());
  }
  Change children = c;
  children.labels.clear();
  if (auto r = insert_children(id, children, kids.file, kids.commit, kids.label); !r)
    return std::unexpected(r.error());
  return id;
}

Result<void> SqliteStore::insert_change(std::int64_t repo_id, const Change& c, Stmt& ins_change,
                                        Stmt& ins_file, Stmt& ins_commit, Stmt& ins_label,
                                        bool& inserted) {
  ins_change.bind(1, repo_id)
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
  if (auto r = ins_change.run(); !r) return std::unexpected(r.error());
  inserted = sqlite3_changes(db_.get()) > 0;
  if (!inserted) return {};
  return insert_children(sqlite3_last_insert_rowid(db_.get()), c, ins_file, ins_commit, ins_label);
}

Result<void> SqliteStore::insert_children(std::int64_t id, const Change& c, Stmt& ins_file,
                                          Stmt& ins_commit, Stmt& ins_label) {
  for (size_t i = 0; i < c.files.size(); ++i) {
    const FileChange& f = c.files[i];
    ins_file.bind(1, id)
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
      ins_file.bind_blob(10, *z);
    } else {
      ins_file.bind_null(10);
    }
    if (f.unavailable.empty())
      ins_file.bind_null(11);
    else
      ins_file.bind(11, f.unavailable);
    if (auto r = ins_file.run(); !r) return std::unexpected(r.error());
  }
  for (size_t i = 0; i < c.commits.size(); ++i) {
    const Commit& cm = c.commits[i];
    ins_commit.bind(1, id)
        .bind(2, static_cast<std::int64_t>(i))
        .bind(3, cm.sha)
        .bind(4, cm.author.name)
        .bind(5, cm.author.email)
        .bind(6, cm.authored_at)
        .bind(7, cm.committed_at)
        .bind(8, cm.message);
    if (auto r = ins_commit.run(); !r) return std::unexpected(r.error());
  }
  for (const auto& label : c.labels) {
    ins_label.bind(1, id).bind(2, label);
    if (auto r = ins_label.run(); !r) return std::unexpected(r.error());
  }
  return {};
}

Result<SqliteStore::ChildInserts> SqliteStore::prepare_child_inserts() {
  auto file = prepare(
      "INSERT INTO change_files(change_id, idx, path, old_path, status, binary, truncated, "
      "additions, deletions, patch, unavailable) VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11)");
  auto commit = prepare(
      "INSERT INTO change_commits(change_id, idx, sha, author_name, author_email, authored_at, "
      "committed_at, message) VALUES(?1,?2,?3,?4,?5,?6,?7,?8)");
  auto label = prepare("INSERT OR IGNORE INTO change_labels(change_id, name) VALUES(?1,?2)");
  for (auto* s : {&file, &commit, &label})
    if (!*s) return std::unexpected(s->error());
  return ChildInserts{std::move(*file), std::move(*commit), std::move(*label)};
}

Result<size_t> SqliteStore::put_changes(std::int64_t repo_id, std::span<const Change> changes,
                                        const std::optional<std::string>& new_base) {
  return in_transaction<size_t>([&]() -> Result<size_t> {
    auto ins_change = prepare(
        "INSERT OR IGNORE INTO changes(repo_id, kind, number, sha, parent_sha, title, body, "
        "author_name, author_email, author_login, merged_at, url, file_count, additions, "
        "deletions, files_truncated, shallow) "
        "VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17)");
    if (!ins_change) return std::unexpected(ins_change.error());
    auto kids = prepare_child_inserts();
    if (!kids) return std::unexpected(kids.error());
    // New rows get ids above the largest one: they are the ones to index.
    auto top = prepare("SELECT coalesce(max(id), 0) FROM changes");
    if (!top) return std::unexpected(top.error());
    if (auto row = top->step(); !row) return db_error(row.error());
    const std::int64_t last_before = top->i64(0);
    size_t inserted = 0;
    std::vector<std::int64_t> filled;  // shallow boundaries rewritten from a deepened clone
    for (const Change& c : changes) {
      bool added = false;
      if (auto r =
              insert_change(repo_id, c, *ins_change, kids->file, kids->commit, kids->label, added);
          !r)
        return db_error(r.error());
      inserted += added;
      if (!added && !c.shallow) {
        auto id = fill_boundary(repo_id, c, *kids);
        if (!id) return db_error(id.error());
        if (*id) filled.push_back(*id);
      }
    }
    if (inserted) {
      auto fresh = prepare("SELECT id FROM changes WHERE id > ?1");
      if (!fresh) return std::unexpected(fresh.error());
      fresh->bind(1, last_before);
      auto ids = column_ids(*fresh);
      if (!ids) return std::unexpected(ids.error());
      if (auto r = index_changes(*ids); !r) return std::unexpected(r.error());
    }
    inserted += filled.size();
    if (new_base) {
      auto up = prepare("UPDATE repos SET base_sha = ?2 WHERE id = ?1");
      if (!up) return std::unexpected(up.error());
      up->bind(1, repo_id).bind(2, *new_base);
      if (auto r = up->run(); !r) return db_error(r.error());
    }
    return inserted;
  });
}

Result<std::vector<ChangeSummary>> SqliteStore::list_changes(std::int64_t repo_id,
                                                             const ListQuery& q) {
  auto st =
      prepare("SELECT " + std::string(kSummaryColumns) +
              " FROM changes c LEFT JOIN judged f ON f.change_id = c.id WHERE " +
              repo_filter(repo_id, "c.repo_id", "?1") +
              " AND (?2 IS NULL OR c.merged_at >= ?2) AND "
              "(?3 IS NULL OR c.merged_at < ?3) ORDER BY c.merged_at DESC, c.id DESC LIMIT ?4");
  if (!st) return std::unexpected(st.error());
  st->bind(1, repo_id).bind(2, q.since).bind(3, q.until);
  st->bind(4, q.limit ? static_cast<std::int64_t>(q.limit) : std::int64_t{-1});
  std::vector<ChangeSummary> out;
  for (;;) {
    auto row = st->step();
    if (!row) return db_error(row.error());
    if (!*row) break;
    ChangeSummary s = read_summary(*st);
    out.push_back(std::move(s));
  }
  return out;
}

Result<size_t> SqliteStore::count_changes(std::int64_t repo_id) {
  auto st = prepare("SELECT count(*) FROM changes WHERE repo_id = ?1");
  if (!st) return std::unexpected(st.error());
  st->bind(1, repo_id);
  auto row = st->step();
  if (!row) return db_error(row.error());
  return static_cast<size_t>(st->i64(0));
}

Result<std::optional<Change>> SqliteStore::load_change(std::int64_t repo_id, std::string_view where,
                                                       const std::function<void(Stmt&)>& bind) {
  auto st = prepare(fmt::format(
      "SELECT c.id, c.kind, c.number, c.sha, c.parent_sha, c.title, c.body, c.author_name, "
      "c.author_email, c.author_login, c.merged_at, c.url, c.files_truncated, r.name, c.shallow "
      "FROM changes c JOIN repos r ON r.id = c.repo_id WHERE (?1 = 0 OR c.repo_id = ?1) AND {} "
      "ORDER BY c.merged_at DESC, c.id DESC LIMIT 1",
      where));
  if (!st) return std::unexpected(st.error());
  st->bind(1, repo_id);
  bind(*st);
  auto row = st->step();
  if (!row) return db_error(row.error());
  if (!*row) return std::optional<Change>();
  Change c;
  const std::int64_t id = st->i64(0);
  c.id = id;
  c.kind = change_kind_from_string(st->text(1)).value_or(ChangeKind::kCommit);
  c.number = st->opt_i64(2);
  c.sha = st->text(3);
  c.parent_sha = st->text(4);
  c.title = st->text(5);
  c.body = st->text(6);
  c.author = Person{st->text(7), st->text(8), st->text(9)};
  c.merged_at = st->i64(10);
  c.url = st->text(11);
  c.files_truncated = st->i64(12) != 0;
  c.repo = st->text(13);
  c.shallow = st->i64(14) != 0;

  auto files = prepare(
      "SELECT path, old_path, status, binary, truncated, additions, deletions, patch, "
      "unavailable FROM change_files WHERE change_id = ?1 ORDER BY idx");
  if (!files) return std::unexpected(files.error());
  files->bind(1, id);
  for (;;) {
    auto r = files->step();
    if (!r) return db_error(r.error());
    if (!*r) break;
    FileChange f;
    f.path = files->text(0);
    f.old_path = files->text(1);
    f.status = file_status_from_string(files->text(2)).value_or(FileStatus::kModified);
    f.binary = files->i64(3) != 0;
    f.truncated = files->i64(4) != 0;
    f.additions = static_cast<std::int32_t>(files->i64(5));
    f.deletions = static_cast<std::int32_t>(files->i64(6));
    if (!files->is_null(8)) f.unavailable = files->text(8);
    if (!files->is_null(7)) {
      auto text = zstd_decompress(files->blob(7));
      if (!text)
        return fail(ErrorKind::kCorrupt, "database {}: patch of {} in {}: {}", path_, f.path, c.sha,
                    text.error().message);
      auto parsed = parse_patch(*text);
      if (!parsed)
        return fail(ErrorKind::kCorrupt, "database {}: patch of {} in {}: {}", path_, f.path, c.sha,
                    parsed.error().message);
      f.hunks = std::move(parsed->hunks);
    }
    c.files.push_back(std::move(f));
  }

  auto commits = prepare(
      "SELECT sha, author_name, author_email, authored_at, committed_at, message "
      "FROM change_commits WHERE change_id = ?1 ORDER BY idx");
  if (!commits) return std::unexpected(commits.error());
  commits->bind(1, id);
  for (;;) {
    auto r = commits->step();
    if (!r) return db_error(r.error());
    if (!*r) break;
    Commit cm;
    cm.sha = commits->text(0);
    cm.author.name = commits->text(1);
    cm.author.email = commits->text(2);
    cm.authored_at = commits->i64(3);
    cm.committed_at = commits->i64(4);
    cm.message = commits->text(5);
    c.commits.push_back(std::move(cm));
  }

  auto labels = prepare("SELECT name FROM change_labels WHERE change_id = ?1 ORDER BY name");
  if (!labels) return std::unexpected(labels.error());
  labels->bind(1, id);
  for (;;) {
    auto r = labels->step();
    if (!r) return db_error(r.error());
    if (!*r) break;
    c.labels.push_back(labels->text(0));
  }
  if (auto r = load_pull_state(id, c); !r) return std::unexpected(r.error());
  return std::optional<Change>(std::move(c));
}

Result<std::optional<Change>> SqliteStore::get_change_by_number(std::int64_t repo_id,
                                                                std::int64_t number) {
  return load_change(repo_id, "c.number = ?2", [&](Stmt& s) { s.bind(2, number); });
}

Result<std::optional<Change>> SqliteStore::get_change_by_sha(std::int64_t repo_id,
                                                             std::string_view sha) {
  return load_change(repo_id, "c.sha = ?2", [&](Stmt& s) { s.bind(2, sha); });
}

Result<std::optional<Change>> SqliteStore::get_change_by_id(std::int64_t id) {
  return load_change(0, "c.id = ?2", [&](Stmt& s) { s.bind(2, id); });
}

Result<std::vector<std::string>> SqliteStore::find_shas(std::int64_t repo_id,
                                                        std::string_view prefix) {
  auto st = prepare(
      "SELECT sha FROM changes WHERE repo_id = ?1 AND sha >= ?2 AND sha < ?2 || 'g' "
      "ORDER BY sha LIMIT 10");
  if (!st) return std::unexpected(st.error());
  st->bind(1, repo_id).bind(2, prefix);
  std::vector<std::string> out;
  for (;;) {
    auto row = st->step();
    if (!row) return db_error(row.error());
    if (!*row) break;
    out.push_back(st->text(0));
  }
  return out;
}

namespace {

// Reads one integer pragma.
Result<std::int64_t> pragma_int(const Db& db, std::string_view name) {
  auto st = Stmt::prepare(db, fmt::format("PRAGMA {}", name));
  if (!st) return std::unexpected(st.error());
  auto row = st->step();
  if (!row) return std::unexpected(row.error());
  return *row ? st->i64(0) : 0;
}

// Index of the migration adding changes.shallow (schema v8).
constexpr size_t kShallowMigration = 7;

// True for a store written by the branch that added changes.shallow before
// main's migrations 6 (deliveries) and 7 (jobs) came in: it numbered the
// column's migration 6, so the store is at v6 with the column and without
// the deliveries table.
Result<bool> shallow_numbered_six(const Db& db, std::int64_t version) {
  if (version != 6) return false;
  auto st = Stmt::prepare(db,
                          "SELECT (SELECT count(*) FROM pragma_table_info('changes') "
                          "WHERE name = 'shallow') > 0 AND NOT EXISTS (SELECT 1 FROM sqlite_master "
                          "WHERE type = 'table' AND name = 'deliveries')");
  if (!st) return std::unexpected(st.error());
  auto row = st->step();
  if (!row) return std::unexpected(row.error());
  return *row && st->i64(0) != 0;
}

// Runs the migrations from schema v`from` on, each in its own transaction;
// the one at index `done` (if any) is already applied and only recorded.
// Several processes may open a fresh store at once: each step takes the
// write lock (BEGIN IMMEDIATE) and reads the version again under it, so a
// step another process applied meanwhile is skipped, not applied twice.
Result<void> migrate(Db& db, std::int64_t from, std::optional<size_t> done = std::nullopt) {
  const auto steps = sql::migrations();
  for (size_t v = static_cast<size_t>(from); v < steps.size(); ++v) {
    if (auto r = db.exec("BEGIN IMMEDIATE"); !r) return r;
    auto now = pragma_int(db, "user_version");
    if (!now) {
      (void)db.exec("ROLLBACK");
      return fail(now.error().kind, "cannot read the schema version: {}", now.error().message);
    }
    // Done by another process meanwhile (not in the renumbering of `done`,
    // where the recorded version is the old numbering's).
    if (!done && *now > static_cast<std::int64_t>(v)) {
      if (auto r = db.exec("COMMIT"); !r) return r;
      v = static_cast<size_t>(*now) - 1;
      continue;
    }
    auto r = v == done ? Result<void>{} : db.exec(steps[v]);
    if (r) r = db.exec(fmt::format("PRAGMA user_version = {}", v + 1));
    if (r) r = db.exec(fmt::format("PRAGMA application_id = {}", sql::kApplicationId));
    if (r) r = db.exec("COMMIT");
    if (!r) {
      (void)db.exec("ROLLBACK");
      return fail(r.error().kind, "migration to schema v{} failed: {}", v + 1, r.error().message);
    }
  }
  return {};
}

}  // namespace

Result<std::unique_ptr<Store>> open_sqlite_store(const std::string& path,
                                                 const StoreOptions& options) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const bool exists = fs::exists(path, ec);
  if (!exists) {
    if (!options.create)
      return fail(ErrorKind::kNotFound, "no database at {} (run `mergelens ingest` first)", path);
    const fs::path parent = fs::path(path).parent_path();
    if (!parent.empty()) {
      fs::create_directories(parent, ec);
      if (ec)
        return fail(ErrorKind::kIo, "cannot create the database folder {}: {}", parent.string(),
                    ec.message());
    }
  } else if (fs::is_directory(path, ec)) {
    return fail(ErrorKind::kInvalidInput, "database path {} is a folder, not a file", path);
  }
  sqlite3* raw = nullptr;
  const int flags = SQLITE_OPEN_READWRITE | (options.create ? SQLITE_OPEN_CREATE : 0);
  const int rc = sqlite3_open_v2(path.c_str(), &raw, flags, nullptr);
  Db db(raw);
  if (rc != SQLITE_OK)
    return fail(ErrorKind::kIo, "cannot open database {}: {}", path, db.errmsg());
  sqlite3_busy_timeout(db.get(), 10000);
  sqlite3_extended_result_codes(db.get(), 1);

  auto app_id = pragma_int(db, "application_id");
  if (!app_id) {
    if (app_id.error().kind == ErrorKind::kCorrupt)
      return fail(ErrorKind::kCorrupt, "{} is not a mergelens database, or it is damaged ({})",
                  path, app_id.error().message);
    return fail(app_id.error().kind, "cannot read database {}: {}", path, app_id.error().message);
  }
  auto version = pragma_int(db, "user_version");
  auto tables = pragma_int(db, "schema_version");
  if (!version || !tables) return fail(ErrorKind::kCorrupt, "cannot read the schema of {}", path);
  // Another process creating the store at this moment commits its first
  // migration and the application id together, between our reads: an id
  // still 0 beside a schema is read again (a read transaction around the
  // three would hold a lock that makes the creators' switch to WAL fail).
  if (*app_id == 0 && (*version != 0 || *tables != 0)) {
    app_id = pragma_int(db, "application_id");
    if (!app_id) return fail(ErrorKind::kCorrupt, "cannot read the schema of {}", path);
  }
  const bool foreign =
      *app_id != sql::kApplicationId && (*app_id != 0 || *version != 0 || *tables != 0);
  if (foreign) return fail(ErrorKind::kCorrupt, "{} is a database of another program", path);
  const auto known = static_cast<std::int64_t>(sql::migrations().size());
  if (*version > known)
    return fail(ErrorKind::kUnsupported,
                "{} was written by a newer mergelens (schema v{}; this build knows up to v{})",
                path, *version, known);
  // mmap: pages are read in place instead of copied by read() on every
  // cache miss of each connection (the server keeps one per worker). The
  // whole file, up to SQLite's compiled limit (2 GiB in Debian's build): a
  // 256 MiB window left a 350 MB store's newest pages going through pread().
  // Switching a fresh file to WAL needs it to itself: while other processes
  // open the same fresh store, SQLite answers "locked" at once instead of
  // waiting, so the switch is tried again for up to about two seconds.
  const std::string setup = fmt::format(
      "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; "
      "PRAGMA mmap_size = {}",
      options.map_file ? 2147418112 : 0);
  Result<void> r = db.exec(setup);
  for (int tries = 0; !r && tries < 100; ++tries) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    r = db.exec(setup);
  }
  if (!r) return fail(r.error().kind, "cannot use database {}: {}", path, r.error().message);
  auto renumber = shallow_numbered_six(db, *version);
  if (!renumber) return fail(ErrorKind::kCorrupt, "cannot read the schema of {}", path);
  if (*renumber) {
    if (auto r = migrate(db, 5, kShallowMigration); !r)
      return fail(r.error().kind, "database {}: {}", path, r.error().message);
  } else if (*version < known) {
    if (auto r = migrate(db, *version); !r)
      return fail(r.error().kind, "database {}: {}", path, r.error().message);
  }
  return std::unique_ptr<Store>(new SqliteStore(path, std::move(db)));
}

}  // namespace mergelens
