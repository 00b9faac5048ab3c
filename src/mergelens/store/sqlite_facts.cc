// SqliteStore: analysis facts. The facts document is stored as zstd-compressed
// JSON (analysis/facts_json.h); verdict, scores, tags and references are also
// kept in columns and side tables so pages and queries need not decode it.
#include <cctype>
#include <set>
#include "mergelens/analysis/facts_json.h"
#include "mergelens/model/json.h"
#include "mergelens/store/sqlite_store_impl.h"
#include "mergelens/util/compress.h"

namespace mergelens {

Result<std::vector<std::int64_t>> SqliteStore::changes_needing_analysis(std::int64_t repo_id,
                                                                        int version) {
  auto st = prepare(
      "SELECT c.id FROM changes c LEFT JOIN facts f ON f.change_id = c.id "
      "WHERE c.repo_id = ?1 AND (f.change_id IS NULL OR f.version != ?2) "
      "ORDER BY c.merged_at, c.id");
  if (!st) return std::unexpected(st.error());
  st->bind(1, repo_id).bind(2, std::int64_t{version});
  return column_ids(*st);
}

Result<size_t> SqliteStore::put_facts(std::span<const std::pair<std::int64_t, Facts>> items) {
  return in_transaction<size_t>([&]() -> Result<size_t> {
    size_t invalidated = 0;
    // Older changes this one fixes, follows up or reverts: drop their facts.
    // One statement per kind of reference, each an index lookup (a number on
    // changes_by_number, a sha prefix as a range on the (repo_id, sha) key):
    // an OR of both made SQLite read every older change, per reference.
    const char* kStaleOlder =
        "DELETE FROM facts WHERE change_id IN (SELECT t.id FROM changes c JOIN changes t "
        "ON t.repo_id = c.repo_id AND {} WHERE c.id = ?1 AND t.id != c.id AND "
        "t.merged_at <= c.merged_at)";
    auto stale_number = prepare(fmt::format(fmt::runtime(kStaleOlder), "t.number = ?2"));
    auto stale_sha = prepare(fmt::format(fmt::runtime(kStaleOlder), "t.sha >= ?2 AND t.sha < ?3"));
    auto ins = prepare(
        "INSERT OR REPLACE INTO facts(change_id, version, verdict, importance, insight, "
        "lines_worth_reading, doc) VALUES(?1,?2,?3,?4,?5,?6,?7)");
    auto del_tags = prepare("DELETE FROM change_tags WHERE change_id = ?1");
    auto ins_tag =
        prepare("INSERT OR IGNORE INTO change_tags(change_id, name, source) VALUES(?1,?2,?3)");
    auto old_refs =
        prepare("SELECT kind, relation, repo, number, sha FROM change_refs WHERE change_id = ?1");
    auto del_refs = prepare("DELETE FROM change_refs WHERE change_id = ?1");
    auto ins_ref = prepare(
        "INSERT INTO change_refs(change_id, kind, relation, repo, number, sha) "
        "VALUES(?1,?2,?3,?4,?5,?6)");
    for (auto* st :
         {&ins, &del_tags, &ins_tag, &old_refs, &del_refs, &ins_ref, &stale_number, &stale_sha})
      if (!*st) return std::unexpected(st->error());
    for (const auto& [id, facts] : items) {
      auto doc = zstd_compress(dump_json(facts_to_json(facts), -1));
      if (!doc) return std::unexpected(doc.error());
      ins->bind(1, id)
          .bind(2, std::int64_t{facts.version})
          .bind(3, to_string(facts.verdict))
          .bind(4, std::int64_t{facts.importance.value})
          .bind(5, std::int64_t{facts.insight.value})
          .bind(6, std::int64_t{facts.lines_worth_reading})
          .bind_blob(7, *doc);
      if (auto r = ins->run(); !r) return db_error(r.error());
      del_tags->bind(1, id);
      if (auto r = del_tags->run(); !r) return db_error(r.error());
      for (const auto& t : facts.tags) {
        ins_tag->bind(1, id).bind(2, t.name).bind(3, t.source);
        if (auto r = ins_tag->run(); !r) return db_error(r.error());
      }
      // References stored by an earlier analysis of this change were already
      // seen by the changes they name (their facts were dropped then): only
      // new ones invalidate. Without this, re-analysing a change dropped the
      // facts of the one it names again, one link of a chain per pass.
      std::set<std::string> known;
      auto ref_key = [](std::string_view kind, std::string_view relation, std::string_view repo,
                        std::int64_t number, std::string_view sha) {
        return fmt::format("{}|{}|{}|{}|{}", kind, relation, repo, number, sha);
      };
      old_refs->bind(1, id);
      for (;;) {
        auto row = old_refs->step();
        if (!row) return db_error(row.error());
        if (!*row) break;
        known.insert(ref_key(old_refs->text(0), old_refs->text(1), old_refs->text(2),
                             old_refs->i64(3), old_refs->text(4)));
      }
      old_refs->reset();
      del_refs->bind(1, id);
      if (auto r = del_refs->run(); !r) return db_error(r.error());
      for (const auto& ref : facts.references) {
        ins_ref->bind(1, id)
            .bind(2, ref.kind)
            .bind(3, ref.relation)
            .bind(4, ref.repo)
            .bind(5, ref.number)
            .bind(6, ref.sha);
        if (auto r = ins_ref->run(); !r) return db_error(r.error());
        if (!ref.repo.empty() || ref.relation == "mentions") continue;
        if (known.count(ref_key(ref.kind, ref.relation, ref.repo, ref.number, ref.sha))) continue;
        if (ref.kind != "pr" && ref.kind != "issue" && ref.kind != "commit") continue;
        Stmt* stale = nullptr;
        if (ref.kind != "commit" && ref.number > 0) {
          stale = &*stale_number;
          stale->bind(1, id).bind(2, ref.number);
        } else if (ref.kind == "commit" && ref.sha.size() >= 7) {
          std::string prefix = ref.sha;
          for (char& ch : prefix)
            ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
          stale = &*stale_sha;
          stale->bind(1, id).bind(2, prefix).bind(3, prefix + "~");  // '~' sorts after hex
        }
        if (!stale) continue;
        if (auto r = stale->run(); !r) return db_error(r.error());
        invalidated += static_cast<size_t>(sqlite3_changes(db_.get()));
      }
    }
    return invalidated;
  });
}

Result<std::optional<Facts>> SqliteStore::get_facts(std::int64_t change_id) {
  auto st = prepare("SELECT doc FROM facts WHERE change_id = ?1");
  if (!st) return std::unexpected(st.error());
  st->bind(1, change_id);
  auto row = st->step();
  if (!row) return db_error(row.error());
  if (!*row) return std::optional<Facts>();
  auto j = read_doc(st->blob(0), fmt::format("facts of change {}", change_id));
  if (!j) return std::unexpected(j.error());
  auto facts = facts_from_json(*j);
  if (!facts)
    return fail(ErrorKind::kCorrupt, "database {}: change {}: {}", path_, change_id,
                facts.error().message);
  return std::optional<Facts>(std::move(*facts));
}

Result<std::vector<std::int64_t>> SqliteStore::column_ids(Stmt& st) const {
  std::vector<std::int64_t> out;
  for (;;) {
    auto row = st.step();
    if (!row) return db_error(row.error());
    if (!*row) break;
    out.push_back(st.i64(0));
  }
  return out;
}

Result<nlohmann::json> SqliteStore::read_doc(std::string_view blob, std::string_view what) const {
  auto text = zstd_decompress(blob);
  if (!text)
    return fail(ErrorKind::kCorrupt, "database {}: {}: {}", path_, what, text.error().message);
  auto j = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded())
    return fail(ErrorKind::kCorrupt, "database {}: {} is not JSON", path_, what);
  return j;
}

Result<std::vector<Backlink>> SqliteStore::referenced_by(std::int64_t repo_id,
                                                         const Change& change) {
  // A sha reference matches by prefix (at least 7 hex digits were written).
  // Two indexed lookups: by PR/issue number, and by sha prefix (every prefix
  // p of a sha X with at least 7 digits satisfies X[:7] <= p <= X).
  auto st = prepare(
      "SELECT c.id, c.number, c.sha, c.title, r.relation, c.merged_at FROM (SELECT change_id "
      "FROM change_refs WHERE number = ?3 AND number > 0 AND kind IN ('pr', 'issue') AND "
      "repo = '' UNION SELECT change_id FROM change_refs WHERE sha != '' AND "
      "sha >= substr(?4, 1, 7) AND sha <= ?4 AND kind = 'commit' AND repo = '') m "
      "CROSS JOIN changes c ON c.id = m.change_id JOIN change_refs r ON r.change_id = c.id "
      "WHERE "
      "c.repo_id = ?1 AND c.id != ?2 AND r.repo = '' AND "
      "((r.kind IN ('pr', 'issue') AND r.number = ?3) OR "
      " (r.kind = 'commit' AND length(r.sha) >= 7 AND substr(?4, 1, length(r.sha)) = r.sha)) "
      "GROUP BY c.id ORDER BY c.merged_at, c.id");
  if (!st) return std::unexpected(st.error());
  st->bind(1, repo_id).bind(2, change.id).bind(3, change.number).bind(4, change.sha);
  std::vector<Backlink> out;
  for (;;) {
    auto row = st->step();
    if (!row) return db_error(row.error());
    if (!*row) break;
    Backlink b;
    b.change_id = st->i64(0);
    auto number = st->opt_i64(1);
    b.ref = number ? fmt::format("#{}", *number) : st->text(2).substr(0, 12);
    b.title = st->text(3);
    b.relation = st->text(4);
    b.merged_at = st->i64(5);
    out.push_back(std::move(b));
  }
  return out;
}

}  // namespace mergelens
