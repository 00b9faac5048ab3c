// The same query through the sqlite3 C API (build-time probe).
#include <sqlite3.h>

#include <cstdio>
#include <string>

int main(int argc, char** argv) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(argc > 1 ? argv[1] : "va.db", &db, SQLITE_OPEN_READONLY, nullptr) !=
      SQLITE_OK)
    return 1;
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(db,
                     "SELECT title FROM changes WHERE repo_id = ?1 AND merged_at >= ?2 AND "
                     "merged_at < ?3 ORDER BY merged_at DESC LIMIT 1",
                     -1, &st, nullptr);
  const long long since = 1787356800;
  sqlite3_bind_int64(st, 1, 1);
  sqlite3_bind_int64(st, 2, since);
  sqlite3_bind_int64(st, 3, since + 86400);
  std::string title;
  if (sqlite3_step(st) == SQLITE_ROW)
    title.assign(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)),
                 sqlite3_column_bytes(st, 0));
  std::printf("%s\n", title.c_str());
  sqlite3_finalize(st);
  sqlite3_close(db);
}
