// SQLite implementation of Store: opening and migrations.
//
// One connection per Store, WAL journal so readers (the web server) keep
// reading while an ingest writes.
#include <chrono>
#include <filesystem>
#include <thread>

#include "mergelens/store/schema.h"
#include "mergelens/store/sqlite_fts.h"
#include "mergelens/store/sqlite_store_impl.h"
#include "mergelens/store/sqlite_util.h"
#include "mergelens/util/deadline.h"

namespace mergelens {

using sql::Db;
using sql::Stmt;

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
  // A statement running past the deadline of its thread's work (a web
  // request, a job: util/deadline.h) is interrupted (SQLITE_INTERRUPT).
  sqlite3_progress_handler(
      db.get(), 4096, [](void*) { return deadline_passed() ? 1 : 0; }, nullptr);
  sqlite3_extended_result_codes(db.get(), 1);
  // Without it, search ranks with bm25() (store/sqlite_fts.h).
  const bool one_pass = sql::register_fts_functions(db.get());

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
  return std::unique_ptr<Store>(new SqliteStore(path, std::move(db), one_pass));
}

}  // namespace mergelens
