// Guides, the model-answer cache and the ledger of write runs (store.h). A
// guide is stored as zstd-compressed JSON (guide/guide_json.h); a trigger on
// `facts` marks it stale when the facts it was written from change.
#include <ctime>

#include <fmt/format.h>

#include "mergelens/guide/guide_json.h"
#include "mergelens/model/json.h"
#include "mergelens/store/sql_store.h"
#include "mergelens/util/compress.h"

namespace mergelens {

Result<std::vector<std::int64_t>> SqlStore::changes_needing_guide(std::int64_t repo_id,
                                                                  std::string_view lang,
                                                                  bool want_llm, bool force) {
  auto st =
      q("SELECT c.id FROM changes c JOIN facts f ON f.change_id = c.id "
        "LEFT JOIN guides g ON g.change_id = c.id AND g.lang = $2 "
        "WHERE c.repo_id = $1 AND ($4 != 0 OR g.change_id IS NULL OR g.stale != 0 OR "
        "($3 != 0 AND g.writer != 'llm')) ORDER BY c.merged_at, c.id");
  st.bind(1, repo_id).bind(2, lang).bind(3, std::int64_t{want_llm}).bind(4, std::int64_t{force});
  return st.ids();
}

Result<void> SqlStore::put_guides(std::span<const std::pair<std::int64_t, Guide>> guides) {
  return tx<void>([&]() -> Result<void> {
    auto ins =
        q("INSERT INTO guides(change_id, lang, writer, headline, text, stale, written_at, doc) "
          "VALUES($1, $2, $3, $4, $5, 0, $6, $7) ON CONFLICT (change_id, lang) DO UPDATE SET "
          "writer = excluded.writer, headline = excluded.headline, text = excluded.text, "
          "stale = 0, written_at = excluded.written_at, doc = excluded.doc");
    const auto now = static_cast<std::int64_t>(std::time(nullptr));
    for (const auto& [id, guide] : guides) {
      auto doc = zstd_compress(dump_json(guide_to_json(guide), -1));
      if (!doc) return std::unexpected(doc.error());
      ins.bind(1, id)
          .bind(2, guide.lang)
          .bind(3, guide.writer.kind)
          .bind(4, guide.headline)
          .bind(5, guide_text(guide))
          .bind(6, now)
          .bind_blob(7, *doc);
      if (auto r = ins.run(); !r) return std::unexpected(r.error());
    }
    std::vector<std::int64_t> ids;
    for (const auto& item : guides) ids.push_back(item.first);
    return index_changes(ids);
  });
}

Result<std::optional<Guide>> SqlStore::get_guide(std::int64_t change_id, std::string_view lang) {
  auto st = q("SELECT doc FROM guides WHERE change_id = $1 AND lang = $2");
  st.bind(1, change_id).bind(2, lang);
  return read_change_doc<Guide>(st, "guide", change_id, guide_from_json);
}

Result<GuideState> SqlStore::guide_state(std::int64_t change_id, std::string_view lang) {
  auto st =
      q("SELECT (SELECT count(*) FROM facts WHERE change_id = $1), coalesce((SELECT writer FROM "
        "guides WHERE change_id = $1 AND lang = $2), ''), coalesce((SELECT stale FROM guides "
        "WHERE change_id = $1 AND lang = $2), -1)");
  st.bind(1, change_id).bind(2, lang);
  auto row = st.step();
  if (!row) return std::unexpected(row.error());
  GuideState g;
  g.analysed = st.i64(0) > 0;
  g.writer = st.text(1);
  g.exists = st.i64(2) >= 0;
  g.stale = st.i64(2) > 0;
  return g;
}

Result<std::optional<std::string>> SqlStore::cache_get(std::string_view key) {
  auto st = q("SELECT doc FROM llm_cache WHERE key = $1");
  st.bind(1, key);
  auto row = st.step();
  if (!row) return std::unexpected(row.error());
  if (!*row) return std::optional<std::string>();
  auto text = zstd_decompress(st.blob(0));
  if (!text)
    return fail(ErrorKind::kCorrupt, "{}: cache entry {}: {}", db_name(), key,
                text.error().message);
  return std::optional<std::string>(std::move(*text));
}

Result<void> SqlStore::cache_put(std::string_view key, std::string_view json) {
  auto doc = zstd_compress(json);
  if (!doc) return std::unexpected(doc.error());
  auto st =
      q("INSERT INTO llm_cache(key, written_at, doc) VALUES($1, $2, $3) ON CONFLICT (key) DO "
        "UPDATE SET written_at = excluded.written_at, doc = excluded.doc");
  st.bind(1, key).bind(2, static_cast<std::int64_t>(std::time(nullptr))).bind_blob(3, *doc);
  if (auto r = st.run(); !r) return std::unexpected(r.error());
  return {};
}

Result<std::vector<std::pair<std::string, std::string>>> SqlStore::cache_entries(
    std::string_view after, size_t limit) {
  // Keys in byte order: SQLite's default BINARY collation, PostgreSQL's "C".
  auto st =
      q(fmt::format("SELECT key, doc FROM llm_cache WHERE key{0} > $1 ORDER BY key{0} "
                    "LIMIT $2",
                    pick("", " COLLATE \"C\"")));
  st.bind(1, after).bind(2, static_cast<std::int64_t>(limit));
  std::vector<std::pair<std::string, std::string>> out;
  for (;;) {
    auto row = st.step();
    if (!row) return std::unexpected(row.error());
    if (!*row) break;
    auto text = zstd_decompress(st.blob(1));
    if (!text)
      return fail(ErrorKind::kCorrupt, "{}: cache entry {}: {}", db_name(), st.text(0),
                  text.error().message);
    out.emplace_back(st.text(0), std::move(*text));
  }
  return out;
}

Result<void> SqlStore::record_write_run(const WriteRunRecord& run) {
  auto st =
      q("INSERT INTO write_runs(started_at, finished_at, writer, model, guides, cached, fallbacks, "
        "requests, retries, failures, prompt_tokens, completion_tokens, usd, removed_citations) "
        "VALUES($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14)");
  st.bind(1, run.started_at)
      .bind(2, run.finished_at)
      .bind(3, run.writer)
      .bind(4, run.model)
      .bind(5, run.guides)
      .bind(6, run.cached)
      .bind(7, run.fallbacks)
      .bind(8, run.requests)
      .bind(9, run.retries)
      .bind(10, run.failures)
      .bind(11, run.prompt_tokens)
      .bind(12, run.completion_tokens)
      .bind_double(13, run.usd)
      .bind(14, run.removed_citations);
  if (auto r = st.run(); !r) return std::unexpected(r.error());
  return {};
}

Result<std::vector<WriteRunRecord>> SqlStore::write_runs(size_t limit) {
  auto st =
      q("SELECT started_at, finished_at, writer, model, guides, cached, fallbacks, requests, "
        "retries, failures, prompt_tokens, completion_tokens, usd, removed_citations FROM "
        "write_runs ORDER BY id DESC LIMIT $1");
  st.bind(1, static_cast<std::int64_t>(limit));
  return st.collect([](const db::Query& s) {
    WriteRunRecord r;
    r.started_at = s.i64(0);
    r.finished_at = s.i64(1);
    r.writer = s.text(2);
    r.model = s.text(3);
    r.guides = s.i64(4);
    r.cached = s.i64(5);
    r.fallbacks = s.i64(6);
    r.requests = s.i64(7);
    r.retries = s.i64(8);
    r.failures = s.i64(9);
    r.prompt_tokens = s.i64(10);
    r.completion_tokens = s.i64(11);
    r.usd = s.f64(12);
    r.removed_citations = s.i64(13);
    return r;
  });
}

}  // namespace mergelens
