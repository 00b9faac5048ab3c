// PgStore: analysis facts, guides, the model-answer cache and the ledger of
// write runs (the twin of sqlite_facts.cc and sqlite_guides.cc). A trigger
// on `facts` marks a change's guides stale when its facts change.
#include <cctype>
#include <ctime>
#include <set>

#include "mergelens/analysis/facts_json.h"
#include "mergelens/guide/guide_json.h"
#include "mergelens/model/json.h"
#include "mergelens/store/pg_store_impl.h"
#include "mergelens/util/compress.h"

namespace mergelens {

Result<std::vector<std::int64_t>> PgStore::column_ids(Stmt& st) const {
  std::vector<std::int64_t> out;
  for (;;) {
    auto row = st.step();
    if (!row) return std::unexpected(row.error());
    if (!*row) break;
    out.push_back(st.i64(0));
  }
  return out;
}

Result<nlohmann::json> PgStore::read_doc(std::string_view blob, std::string_view what) const {
  auto text = zstd_decompress(blob);
  if (!text) return fail(ErrorKind::kCorrupt, "{}: {}: {}", where(), what, text.error().message);
  auto j = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return fail(ErrorKind::kCorrupt, "{}: {} is not JSON", where(), what);
  return j;
}

Result<std::vector<std::int64_t>> PgStore::changes_needing_analysis(std::int64_t repo_id,
                                                                    int version) {
  auto st =
      pq("SELECT c.id FROM changes c LEFT JOIN facts f ON f.change_id = c.id "
        "WHERE c.repo_id = $1 AND (f.change_id IS NULL OR f.version != $2) "
        "ORDER BY c.merged_at, c.id");
  st.bind(1, repo_id).bind(2, std::int64_t{version});
  return column_ids(st);
}

Result<size_t> PgStore::put_facts(std::span<const std::pair<std::int64_t, Facts>> items) {
  return in_transaction<size_t>([&]() -> Result<size_t> {
    size_t invalidated = 0;
    // Older changes this one fixes, follows up or reverts lose their facts
    // (see sqlite_facts.cc for why only new references count).
    constexpr std::string_view kStaleOlder =
        "DELETE FROM facts WHERE change_id IN (SELECT t.id FROM changes c JOIN changes t "
        "ON t.repo_id = c.repo_id AND {} WHERE c.id = $1 AND t.id != c.id AND "
        "t.merged_at <= c.merged_at)";
    for (const auto& [id, facts] : items) {
      auto doc = zstd_compress(dump_json(facts_to_json(facts), -1));
      if (!doc) return std::unexpected(doc.error());
      auto ins =
          pq("INSERT INTO facts(change_id, version, verdict, importance, insight, "
            "lines_worth_reading, doc) VALUES($1,$2,$3,$4,$5,$6,$7) ON CONFLICT (change_id) DO "
            "UPDATE SET version = excluded.version, verdict = excluded.verdict, importance = "
            "excluded.importance, insight = excluded.insight, lines_worth_reading = "
            "excluded.lines_worth_reading, doc = excluded.doc");
      ins.bind(1, id)
          .bind(2, std::int64_t{facts.version})
          .bind(3, to_string(facts.verdict))
          .bind(4, std::int64_t{facts.importance.value})
          .bind(5, std::int64_t{facts.insight.value})
          .bind(6, std::int64_t{facts.lines_worth_reading})
          .bind_blob(7, *doc);
      if (auto r = ins.run(); !r) return std::unexpected(r.error());
      auto del_tags = pq("DELETE FROM change_tags WHERE change_id = $1");
      del_tags.bind(1, id);
      if (auto r = del_tags.run(); !r) return std::unexpected(r.error());
      for (const auto& t : facts.tags) {
        auto ins_tag =
            pq("INSERT INTO change_tags(change_id, name, source) VALUES($1,$2,$3) "
              "ON CONFLICT DO NOTHING");
        ins_tag.bind(1, id).bind(2, t.name).bind(3, t.source);
        if (auto r = ins_tag.run(); !r) return std::unexpected(r.error());
      }
      std::set<std::string> known;
      auto ref_key = [](std::string_view kind, std::string_view relation, std::string_view repo,
                        std::int64_t number, std::string_view sha) {
        return fmt::format("{}|{}|{}|{}|{}", kind, relation, repo, number, sha);
      };
      auto old_refs =
          pq("DELETE FROM change_refs WHERE change_id = $1 RETURNING kind, relation, repo, number, "
            "sha");
      old_refs.bind(1, id);
      for (;;) {
        auto row = old_refs.step();
        if (!row) return std::unexpected(row.error());
        if (!*row) break;
        known.insert(ref_key(old_refs.text(0), old_refs.text(1), old_refs.text(2), old_refs.i64(3),
                             old_refs.text(4)));
      }
      for (const auto& ref : facts.references) {
        auto ins_ref =
            pq("INSERT INTO change_refs(change_id, kind, relation, repo, number, sha) "
              "VALUES($1,$2,$3,$4,$5,$6)");
        ins_ref.bind(1, id)
            .bind(2, ref.kind)
            .bind(3, ref.relation)
            .bind(4, ref.repo)
            .bind(5, ref.number)
            .bind(6, ref.sha);
        if (auto r = ins_ref.run(); !r) return std::unexpected(r.error());
        if (!ref.repo.empty() || ref.relation == "mentions") continue;
        if (known.count(ref_key(ref.kind, ref.relation, ref.repo, ref.number, ref.sha))) continue;
        if (ref.kind != "pr" && ref.kind != "issue" && ref.kind != "commit") continue;
        std::optional<Stmt> stale;
        if (ref.kind != "commit" && ref.number > 0) {
          stale.emplace(pq(fmt::format(kStaleOlder, "t.number = $2")));
          stale->bind(1, id).bind(2, ref.number);
        } else if (ref.kind == "commit" && ref.sha.size() >= 7) {
          std::string prefix = ref.sha;
          for (char& ch : prefix)
            ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
          stale.emplace(pq(fmt::format(kStaleOlder, "t.sha >= $2 AND t.sha < $3")));
          stale->bind(1, id).bind(2, prefix).bind(3, prefix + "~");  // '~' sorts after hex
        }
        if (!stale) continue;
        auto n = stale->run();
        if (!n) return std::unexpected(n.error());
        invalidated += static_cast<size_t>(*n);
      }
    }
    return invalidated;
  });
}

Result<std::optional<Facts>> PgStore::get_facts(std::int64_t change_id) {
  auto st = pq("SELECT doc FROM facts WHERE change_id = $1");
  st.bind(1, change_id);
  auto row = st.step();
  if (!row) return std::unexpected(row.error());
  if (!*row) return std::optional<Facts>();
  auto j = read_doc(st.blob(0), fmt::format("facts of change {}", change_id));
  if (!j) return std::unexpected(j.error());
  auto facts = facts_from_json(*j);
  if (!facts)
    return fail(ErrorKind::kCorrupt, "{}: change {}: {}", where(), change_id,
                facts.error().message);
  return std::optional<Facts>(std::move(*facts));
}

Result<std::vector<Backlink>> PgStore::referenced_by(std::int64_t repo_id, const Change& change) {
  // As in sqlite_facts.cc: a number lookup and a sha-prefix range, both indexed.
  auto st =
      pq("SELECT c.id, c.number, c.sha, c.title, min(r.relation), c.merged_at FROM (SELECT "
        "change_id FROM change_refs WHERE number = $3 AND number > 0 AND kind IN ('pr', 'issue') "
        "AND repo = '' UNION SELECT change_id FROM change_refs WHERE sha != '' AND "
        "sha >= substr($4, 1, 7) AND sha <= $4 AND kind = 'commit' AND repo = '') m "
        "JOIN changes c ON c.id = m.change_id JOIN change_refs r ON r.change_id = c.id WHERE "
        "c.repo_id = $1 AND c.id != $2 AND r.repo = '' AND "
        "((r.kind IN ('pr', 'issue') AND r.number = $3) OR "
        " (r.kind = 'commit' AND length(r.sha) >= 7 AND substr($4, 1, length(r.sha)) = r.sha)) "
        "GROUP BY c.id ORDER BY c.merged_at, c.id");
  st.bind(1, repo_id).bind(2, change.id).bind(3, change.number).bind(4, change.sha);
  std::vector<Backlink> out;
  for (;;) {
    auto row = st.step();
    if (!row) return std::unexpected(row.error());
    if (!*row) break;
    Backlink b;
    b.change_id = st.i64(0);
    auto number = st.opt_i64(1);
    b.ref = number ? fmt::format("#{}", *number) : st.text(2).substr(0, 12);
    b.title = st.text(3);
    b.relation = st.text(4);
    b.merged_at = st.i64(5);
    out.push_back(std::move(b));
  }
  return out;
}

Result<std::vector<std::int64_t>> PgStore::changes_needing_guide(std::int64_t repo_id,
                                                                 std::string_view lang,
                                                                 bool want_llm, bool force) {
  auto st =
      pq("SELECT c.id FROM changes c JOIN facts f ON f.change_id = c.id "
        "LEFT JOIN guides g ON g.change_id = c.id AND g.lang = $2 "
        "WHERE c.repo_id = $1 AND ($4 != 0 OR g.change_id IS NULL OR g.stale != 0 OR "
        "($3 != 0 AND g.writer != 'llm')) ORDER BY c.merged_at, c.id");
  st.bind(1, repo_id).bind(2, lang).bind(3, std::int64_t{want_llm}).bind(4, std::int64_t{force});
  return column_ids(st);
}

Result<void> PgStore::put_guides(std::span<const std::pair<std::int64_t, Guide>> guides) {
  return in_transaction<void>([&]() -> Result<void> {
    const auto now = static_cast<std::int64_t>(std::time(nullptr));
    for (const auto& [id, guide] : guides) {
      auto doc = zstd_compress(dump_json(guide_to_json(guide), -1));
      if (!doc) return std::unexpected(doc.error());
      auto ins =
          pq("INSERT INTO guides(change_id, lang, writer, headline, text, stale, written_at, doc) "
            "VALUES($1, $2, $3, $4, $5, 0, $6, $7) ON CONFLICT (change_id, lang) DO UPDATE SET "
            "writer = excluded.writer, headline = excluded.headline, text = excluded.text, "
            "stale = 0, written_at = excluded.written_at, doc = excluded.doc");
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

Result<std::optional<Guide>> PgStore::get_guide(std::int64_t change_id, std::string_view lang) {
  auto st = pq("SELECT doc FROM guides WHERE change_id = $1 AND lang = $2");
  st.bind(1, change_id).bind(2, lang);
  auto row = st.step();
  if (!row) return std::unexpected(row.error());
  if (!*row) return std::optional<Guide>();
  auto j = read_doc(st.blob(0), fmt::format("guide of change {}", change_id));
  if (!j) return std::unexpected(j.error());
  auto guide = guide_from_json(*j);
  if (!guide)
    return fail(ErrorKind::kCorrupt, "{}: change {}: {}", where(), change_id,
                guide.error().message);
  return std::optional<Guide>(std::move(*guide));
}

Result<std::optional<std::string>> PgStore::cache_get(std::string_view key) {
  auto st = pq("SELECT doc FROM llm_cache WHERE key = $1");
  st.bind(1, key);
  auto row = st.step();
  if (!row) return std::unexpected(row.error());
  if (!*row) return std::optional<std::string>();
  auto text = zstd_decompress(st.blob(0));
  if (!text)
    return fail(ErrorKind::kCorrupt, "{}: cache entry {}: {}", where(), key, text.error().message);
  return std::optional<std::string>(std::move(*text));
}

Result<void> PgStore::cache_put(std::string_view key, std::string_view json) {
  auto doc = zstd_compress(json);
  if (!doc) return std::unexpected(doc.error());
  auto st =
      pq("INSERT INTO llm_cache(key, written_at, doc) VALUES($1, $2, $3) ON CONFLICT (key) DO "
        "UPDATE SET written_at = excluded.written_at, doc = excluded.doc");
  st.bind(1, key).bind(2, static_cast<std::int64_t>(std::time(nullptr))).bind_blob(3, *doc);
  if (auto r = st.run(); !r) return std::unexpected(r.error());
  return {};
}

Result<std::vector<std::pair<std::string, std::string>>> PgStore::cache_entries(
    std::string_view after, size_t limit) {
  auto st =
      pq("SELECT key, doc FROM llm_cache WHERE key COLLATE \"C\" > $1 ORDER BY key COLLATE \"C\" "
        "LIMIT $2");
  st.bind(1, after).bind(2, static_cast<std::int64_t>(limit));
  std::vector<std::pair<std::string, std::string>> out;
  for (;;) {
    auto row = st.step();
    if (!row) return std::unexpected(row.error());
    if (!*row) break;
    auto text = zstd_decompress(st.blob(1));
    if (!text)
      return fail(ErrorKind::kCorrupt, "{}: cache entry {}: {}", where(), st.text(0),
                  text.error().message);
    out.emplace_back(st.text(0), std::move(*text));
  }
  return out;
}

Result<void> PgStore::record_write_run(const WriteRunRecord& run) {
  auto st =
      pq("INSERT INTO write_runs(started_at, finished_at, writer, model, guides, cached, fallbacks, "
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

Result<std::vector<WriteRunRecord>> PgStore::write_runs(size_t limit) {
  auto st =
      pq("SELECT started_at, finished_at, writer, model, guides, cached, fallbacks, requests, "
        "retries, failures, prompt_tokens, completion_tokens, usd, removed_citations FROM "
        "write_runs ORDER BY id DESC LIMIT $1");
  st.bind(1, static_cast<std::int64_t>(limit));
  std::vector<WriteRunRecord> out;
  for (;;) {
    auto row = st.step();
    if (!row) return std::unexpected(row.error());
    if (!*row) break;
    WriteRunRecord r;
    r.started_at = st.i64(0);
    r.finished_at = st.i64(1);
    r.writer = st.text(2);
    r.model = st.text(3);
    r.guides = st.i64(4);
    r.cached = st.i64(5);
    r.fallbacks = st.i64(6);
    r.requests = st.i64(7);
    r.retries = st.i64(8);
    r.failures = st.i64(9);
    r.prompt_tokens = st.i64(10);
    r.completion_tokens = st.i64(11);
    r.usd = st.f64(12);
    r.removed_citations = st.i64(13);
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace mergelens
