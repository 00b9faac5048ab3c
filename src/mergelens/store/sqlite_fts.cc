// The FTS5 auxiliary function behind the one-pass search ranking
// (sqlite_fts.h).
//
// SQLite's bm25() finds each phrase's document count by running the phrase
// again over the whole index (xQueryPhrase), so a ranked search evaluates its
// phrases twice, three times with the count that decides whether to rank; for
// a phrase of common Chinese bigrams that is most of the request. When every
// row holding a phrase matches the query (a phrase, or phrases joined by OR),
// that count is the number of matched rows in which the phrase occurs: the
// caller can count it over the rows it reads anyway. This function hands it,
// per row, what bm25() reads: the table's row and token counts, the row's
// token count and each phrase's instances, so the caller computes the very
// value bm25() would (sqlite_fts.h, fts_bm25). Hand-written because SQLite's
// bm25() has no form that takes the document counts from its caller.
#include "mergelens/store/sqlite_fts.h"

#include <cmath>
#include <cstring>
#include <vector>

namespace mergelens::sql {

namespace {

// ml_bm25_parts(search_docs): a blob of doubles [rows, tokens, row tokens,
// instances of phrase 0, of phrase 1, ...].
void bm25_parts(const Fts5ExtensionApi* api, Fts5Context* fts, sqlite3_context* ctx, int,
                sqlite3_value**) {
  const int phrases = api->xPhraseCount(fts);
  std::vector<double> out(3 + static_cast<size_t>(phrases), 0.0);
  sqlite3_int64 rows = 0, tokens = 0;
  int rc = api->xRowCount(fts, &rows);
  if (rc == SQLITE_OK) rc = api->xColumnTotalSize(fts, -1, &tokens);
  int row_tokens = 0;
  if (rc == SQLITE_OK) rc = api->xColumnSize(fts, -1, &row_tokens);
  int inst = 0;
  if (rc == SQLITE_OK) rc = api->xInstCount(fts, &inst);
  for (int i = 0; rc == SQLITE_OK && i < inst; ++i) {
    int phrase = 0, column = 0, offset = 0;
    rc = api->xInst(fts, i, &phrase, &column, &offset);
    if (rc == SQLITE_OK && phrase >= 0 && phrase < phrases) out[3 + phrase] += 1.0;
  }
  if (rc != SQLITE_OK) {
    sqlite3_result_error_code(ctx, rc);
    return;
  }
  out[0] = static_cast<double>(rows);
  out[1] = static_cast<double>(tokens);
  out[2] = static_cast<double>(row_tokens);
  sqlite3_result_blob(ctx, out.data(), static_cast<int>(out.size() * sizeof(double)),
                      SQLITE_TRANSIENT);
}

fts5_api* fts5_of(sqlite3* db) {
  fts5_api* api = nullptr;
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &st, nullptr) == SQLITE_OK) {
    sqlite3_bind_pointer(st, 1, static_cast<void*>(&api), "fts5_api_ptr", nullptr);
    sqlite3_step(st);
  }
  sqlite3_finalize(st);
  return api;
}

}  // namespace

bool register_fts_functions(sqlite3* db) {
  fts5_api* api = fts5_of(db);
  if (!api || api->iVersion < 2) return false;
  return api->xCreateFunction(api, "ml_bm25_parts", nullptr, bm25_parts, nullptr) == SQLITE_OK;
}

std::optional<FtsRowParts> read_bm25_parts(std::string_view blob) {
  if (blob.size() < 3 * sizeof(double) || blob.size() % sizeof(double) != 0) return std::nullopt;
  std::vector<double> v(blob.size() / sizeof(double));
  std::memcpy(v.data(), blob.data(), blob.size());
  FtsRowParts p;
  p.rows = v[0];
  p.tokens = v[1];
  p.row_tokens = v[2];
  p.instances.assign(v.begin() + 3, v.end());
  return p;
}

std::vector<double> fts_bm25(std::span<const FtsRowParts> rows) {
  // As fts5_aux.c's bm25() with every column weighing 1.0, k1 1.2, b 0.75,
  // operation for operation, so the values are the same doubles.
  const double k1 = 1.2;
  const double b = 0.75;
  std::vector<double> out;
  if (rows.empty()) return out;
  const size_t phrases = rows.front().instances.size();
  const double avgdl = rows.front().tokens / rows.front().rows;
  std::vector<double> idf(phrases);
  for (size_t i = 0; i < phrases; ++i) {
    std::int64_t hits = 0;
    for (const auto& r : rows) hits += r.instances.size() > i && r.instances[i] > 0 ? 1 : 0;
    double x = std::log((rows.front().rows - static_cast<double>(hits) + 0.5) /
                        (static_cast<double>(hits) + 0.5));
    if (x <= 0.0) x = 1e-6;
    idf[i] = x;
  }
  out.reserve(rows.size());
  for (const auto& r : rows) {
    double score = 0.0;
    const double D = r.row_tokens;
    for (size_t i = 0; i < phrases; ++i) {
      const double f = i < r.instances.size() ? r.instances[i] : 0.0;
      score += idf[i] * ((f * (k1 + 1.0)) / (f + k1 * (1 - b + b * D / avgdl)));
    }
    out.push_back(-1.0 * score);
  }
  return out;
}

}  // namespace mergelens::sql
