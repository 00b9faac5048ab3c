// PostgreSQL implementation of Store: opening and migrations (the twin of
// sqlite_store.cc).
//
// The database uses the UTF8 encoding: commit text is kept byte for byte
// (git allows any bytes, and the SQLite store keeps them) through the escape
// of pg_util.h. A SQL_ASCII database, which stores before that scheme needed,
// still opens and keeps raw bytes; any other encoding is refused. Text is
// ordered with COLLATE "C" (by code point, as in SQLite) whatever the
// database's collation.
#include <fmt/format.h>

#include "mergelens/store/pg_store_impl.h"

namespace mergelens {
namespace {

using pg::Stmt;

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

}  // namespace mergelens
