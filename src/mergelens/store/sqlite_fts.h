// Search ranking in one pass over an FTS5 index, private to store/
// (sqlite_fts.cc says why).
#pragma once

#include <sqlite3.h>

#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace mergelens::sql {

// Registers the FTS5 auxiliary function ml_bm25_parts(TABLE) on `db`.
// False when this SQLite has no FTS5 extension API (callers then rank with
// bm25()); `db` stays usable either way.
bool register_fts_functions(sqlite3* db);

// What ml_bm25_parts returned for one matched row.
struct FtsRowParts {
  double rows = 0;                // rows in the table
  double tokens = 0;              // tokens in the table, every column
  double row_tokens = 0;          // tokens in this row, every column
  std::vector<double> instances;  // per phrase of the query, its instances in this row
};

// The row's parts; nullopt when `blob` is not what ml_bm25_parts returns.
std::optional<FtsRowParts> read_bm25_parts(std::string_view blob);

// The value bm25(TABLE) (every column weighing 1.0) returns for each row, in
// the order given, when `rows` are all the rows the query matched and every
// row holding one of its phrases matches it (a phrase, or phrases joined by
// OR): a phrase's document count is then the number of these rows holding
// it. Lower is better, as bm25().
std::vector<double> fts_bm25(std::span<const FtsRowParts> rows);

}  // namespace mergelens::sql
