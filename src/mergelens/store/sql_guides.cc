// Guides, the model-answer cache and the ledger of write runs (store.h). A
// guide is stored as zstd-compressed JSON (guide/guide_json.h); a trigger on
// `facts` marks it stale when the facts it was written from change.
#include <ctime>

#include <fmt/format.h>

#include "mergelens/guide/digest.h"
#include "mergelens/guide/guide_json.h"
#include "mergelens/model/json.h"
#include "mergelens/store/sql_store.h"
#include "mergelens/util/compress.h"
#include "mergelens/util/strings.h"

namespace mergelens {

namespace {

// The guide's brief as stored in guides.brief (what guide_briefs reads).
std::string guide_brief_json(const Guide& g) {
  const std::string_view digest = trim(g.digest);
  return dump_json(nlohmann::json{{"p", digest.empty() ? compose_digest(g) : std::string(digest)},
                                  {"v", g.verdict},
                                  {"i", g.importance.value},
                                  {"s", g.insight.value},
                                  {"ir", g.importance.reason},
                                  {"sr", g.insight.reason},
                                  {"av", g.analysis.verdict},
                                  {"ai", g.analysis.importance.value},
                                  {"as", g.analysis.insight.value}},
                   -1);
}

GuideBrief brief_of(const Guide& g) {
  GuideBrief b;
  b.lang = g.lang;
  b.headline = g.headline;
  const std::string_view digest = trim(g.digest);
  b.paragraph = digest.empty() ? compose_digest(g) : std::string(digest);
  b.verdict = g.verdict;
  b.importance = g.importance.value;
  b.insight = g.insight.value;
  b.importance_reason = g.importance.reason;
  b.insight_reason = g.insight.reason;
  // The judgment the guide started from: the triage's when it started from
  // one (guide.h GuideTriage), else the analysis's (a guide stored before
  // guides recorded their triage holds the triage's values there).
  if (!g.triage.verdict.empty()) {
    b.analysis_verdict = g.triage.verdict;
    b.analysis_importance = g.triage.importance;
    b.analysis_insight = g.triage.insight;
  } else {
    b.analysis_verdict = g.analysis.verdict;
    b.analysis_importance = g.analysis.importance.value;
    b.analysis_insight = g.analysis.insight.value;
  }
  return b;
}

Result<void> read_guide_brief(std::string_view text, GuideBrief& b) {
  try {
    const auto j = nlohmann::json::parse(text);
    b.paragraph = j.at("p").get<std::string>();
    b.verdict = j.at("v").get<std::string>();
    b.importance = j.at("i").get<int>();
    b.insight = j.at("s").get<int>();
    b.importance_reason = j.at("ir").get<std::string>();
    b.insight_reason = j.at("sr").get<std::string>();
    b.analysis_verdict = j.at("av").get<std::string>();
    b.analysis_importance = j.at("ai").get<int>();
    b.analysis_insight = j.at("as").get<int>();
    return {};
  } catch (const nlohmann::json::exception& e) {
    return fail(ErrorKind::kCorrupt, "{}", e.what());
  }
}

}  // namespace

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
    auto put_brief =
        q("INSERT INTO guide_briefs(change_id, lang, brief) VALUES($1, $2, $3) "
          "ON CONFLICT (change_id, lang) DO UPDATE SET brief = excluded.brief");
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
      put_brief.bind(1, id).bind(2, guide.lang).bind(3, guide_brief_json(guide));
      if (auto r = put_brief.run(); !r) return std::unexpected(r.error());
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

Result<std::map<std::int64_t, GuideBrief>> SqlStore::guide_briefs(std::span<const std::int64_t> ids,
                                                                  std::string_view lang) {
  std::map<std::int64_t, GuideBrief> out;
  if (ids.empty()) return out;
  const std::string_view other = lang == "en" ? "zh" : "en";
  // `lang` first, then the other language; the document only where no brief
  // was written (guides stored before the column).
  auto st = q(fmt::format(
      "SELECT g.change_id, g.lang, g.headline, b.brief, CASE WHEN b.brief IS NULL THEN g.doc "
      "END FROM guides g LEFT JOIN guide_briefs b ON b.change_id = g.change_id AND b.lang = g.lang "
      "WHERE {} AND g.lang IN ($1, $2) ORDER BY g.change_id, g.lang != $1",
      in_ids("g.change_id", 3)));
  st.bind(1, lang).bind(2, other).bind(3, ids_value(ids));
  for (;;) {
    auto row = st.step();
    if (!row) return std::unexpected(row.error());
    if (!*row) break;
    const std::int64_t id = st.i64(0);
    if (out.contains(id)) continue;  // the other language's, after this one's
    if (st.is_null(3)) {
      auto j = read_json_doc(st.blob(4), fmt::format("guide of change {}", id));
      if (!j) return std::unexpected(j.error());
      auto g = guide_from_json(*j);
      if (!g)
        return fail(ErrorKind::kCorrupt, "{}: change {}: {}", db_name(), id, g.error().message);
      out.emplace(id, brief_of(*g));
      continue;
    }
    GuideBrief b;
    b.lang = st.text(1);
    b.headline = st.text(2);
    if (auto r = read_guide_brief(st.text(3), b); !r)
      return fail(ErrorKind::kCorrupt, "{}: brief of the guide of change {}: {}", db_name(), id,
                  r.error().message);
    out.emplace(id, std::move(b));
  }
  return out;
}

Result<size_t> SqlStore::fill_guide_briefs(size_t batch) {
  auto sel =
      q("SELECT g.change_id, g.lang, g.doc FROM guides g WHERE NOT EXISTS (SELECT 1 FROM "
        "guide_briefs b WHERE b.change_id = g.change_id AND b.lang = g.lang) "
        "ORDER BY g.change_id, g.lang LIMIT $1");
  sel.bind(1, static_cast<std::int64_t>(batch));
  auto rows = sel.collect([](const db::Query& r) {
    return std::tuple{r.i64(0), r.text(1), r.blob(2)};
  });
  if (!rows) return std::unexpected(rows.error());
  auto up = q("INSERT INTO guide_briefs(change_id, lang, brief) VALUES($1, $2, $3)");
  for (const auto& [id, lang, doc] : *rows) {
    auto j = read_json_doc(doc, fmt::format("guide of change {}", id));
    if (!j) return std::unexpected(j.error());
    auto g = guide_from_json(*j);
    if (!g) return fail(ErrorKind::kCorrupt, "{}: change {}: {}", db_name(), id, g.error().message);
    up.bind(1, id).bind(2, lang).bind(3, guide_brief_json(*g));
    if (auto r = up.run(); !r) return std::unexpected(r.error());
  }
  return rows->size();
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
