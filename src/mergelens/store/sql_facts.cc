// Analysis facts (store.h, FactStore). The facts document is stored as
// zstd-compressed JSON (analysis/facts_json.h); verdict, scores, tags and
// references are also kept in columns and side tables so pages and queries
// need not decode it. A trigger on `facts` marks a change's guides stale
// when its facts change.
#include <cctype>
#include <set>

#include <fmt/format.h>

#include "mergelens/analysis/facts_json.h"
#include "mergelens/model/json.h"
#include "mergelens/store/sql_store.h"
#include "mergelens/util/compress.h"

namespace mergelens {

namespace {

std::string ref_key(std::string_view kind, std::string_view relation, std::string_view repo,
                    std::int64_t number, std::string_view sha) {
  return fmt::format("{}|{}|{}|{}|{}", kind, relation, repo, number, sha);
}

bool user_visible_signal(std::string_view kind) {
  return kind == "cli_flag" || kind == "env_var" || kind == "public_api";
}

std::string facts_brief_json(const Facts& facts) {
  nlohmann::json signals = nlohmann::json::array(), tags = nlohmann::json::array();
  for (const auto& s : facts.signals)
    if (user_visible_signal(s.kind))
      signals.push_back({s.kind, s.added ? 1 : 0, s.detail, s.at.path, s.at.line});
  for (const auto& t : facts.tags) tags.push_back({t.name, t.weight});
  // Keys sorted: "f" first (SqlStore::kFactsBriefCurrent tells this form by it).
  return dump_json(nlohmann::json{{"f", facts.focus.empty() ? "" : facts.focus.front().path},
                                  {"s", std::move(signals)},
                                  {"t", std::move(tags)}},
                   -1);
}

Store::FactsBrief facts_brief_of(const Facts& facts) {
  Store::FactsBrief b;
  for (const auto& s : facts.signals)
    if (user_visible_signal(s.kind)) b.signals.push_back(s);
  for (const auto& t : facts.tags) b.tag_weights.emplace_back(t.name, t.weight);
  if (!facts.focus.empty()) b.focus_path = facts.focus.front().path;
  return b;
}

Result<Store::FactsBrief> parse_facts_brief(std::string_view text) {
  try {
    const auto j = nlohmann::json::parse(text);
    Store::FactsBrief b;
    for (const auto& s : j.at("s")) {
      Signal sig;
      sig.kind = s.at(0).get<std::string>();
      sig.added = s.at(1).get<int>() != 0;
      sig.detail = s.at(2).get<std::string>();
      sig.at.path = s.at(3).get<std::string>();
      sig.at.line = s.at(4).get<std::int32_t>();
      b.signals.push_back(std::move(sig));
    }
    for (const auto& t : j.at("t")) b.tag_weights.emplace_back(t.at(0), t.at(1).get<double>());
    b.focus_path = j.at("f").get<std::string>();
    return b;
  } catch (const nlohmann::json::exception& e) {
    return fail(ErrorKind::kCorrupt, "{}", e.what());
  }
}

}  // namespace

Result<std::vector<std::int64_t>> SqlStore::changes_needing_analysis(std::int64_t repo_id,
                                                                     int version) {
  auto st =
      q("SELECT c.id FROM changes c LEFT JOIN facts f ON f.change_id = c.id "
        "WHERE c.repo_id = $1 AND (f.change_id IS NULL OR f.version != $2) "
        "ORDER BY c.merged_at, c.id");
  st.bind(1, repo_id).bind(2, std::int64_t{version});
  return st.ids();
}

Result<size_t> SqlStore::put_facts(std::span<const std::pair<std::int64_t, Facts>> items) {
  return tx<size_t>([&]() -> Result<size_t> {
    size_t invalidated = 0;
    // Older changes this one fixes, follows up or reverts: drop their facts.
    // One statement per kind of reference, each an index lookup (a number on
    // changes_by_number, a sha prefix as a range on the (repo_id, sha) key):
    // an OR of both made SQLite read every older change, per reference.
    constexpr std::string_view kStaleOlder =
        "DELETE FROM facts WHERE change_id IN (SELECT t.id FROM changes c JOIN changes t "
        "ON t.repo_id = c.repo_id AND {} WHERE c.id = $1 AND t.id != c.id AND "
        "t.merged_at <= c.merged_at)";
    auto stale_number = q(fmt::format(kStaleOlder, "t.number = $2"));
    auto stale_sha = q(fmt::format(kStaleOlder, "t.sha >= $2 AND t.sha < $3"));
    // SQLite replaces the row, so its AFTER INSERT trigger marks the guides
    // stale (it has no UPDATE trigger); PostgreSQL's trigger fires on UPDATE.
    auto ins = q(fmt::format(
        "{} INTO facts(change_id, version, verdict, importance, insight, lines_worth_reading, "
        "doc) VALUES($1,$2,$3,$4,$5,$6,$7){}",
        pick("INSERT OR REPLACE", "INSERT"),
        pick("",
             " ON CONFLICT (change_id) DO UPDATE SET version = excluded.version, verdict = "
             "excluded.verdict, importance = excluded.importance, insight = excluded.insight, "
             "lines_worth_reading = excluded.lines_worth_reading, doc = excluded.doc")));
    auto put_brief =
        q("INSERT INTO facts_briefs(change_id, brief) VALUES($1, $2) ON CONFLICT (change_id) DO "
          "UPDATE SET brief = excluded.brief");
    auto del_tags = q("DELETE FROM change_tags WHERE change_id = $1");
    // With the change's repository and merge time (the tag pages' index).
    auto ins_tag =
        q("INSERT INTO change_tags(change_id, name, source, repo_id, merged_at) "
          "SELECT id, $2, $3, repo_id, merged_at FROM changes WHERE id = $1 "
          "ON CONFLICT DO NOTHING");
    auto old_refs =
        q("DELETE FROM change_refs WHERE change_id = $1 RETURNING kind, relation, repo, number, "
          "sha");
    auto ins_ref =
        q("INSERT INTO change_refs(change_id, kind, relation, repo, number, sha) "
          "VALUES($1,$2,$3,$4,$5,$6)");
    auto del_origins = q("DELETE FROM switch_origins WHERE change_id = $1");
    auto ins_origin =
        q("INSERT INTO switch_origins(change_id, name) VALUES($1,$2) ON CONFLICT DO NOTHING");
    auto del_links = q("DELETE FROM change_links WHERE change_id = $1");
    auto ins_link =
        q("INSERT INTO change_links(change_id, target_id, relation, detail) SELECT c.id, t.id, "
          "$2, $3 FROM changes c JOIN changes t ON t.repo_id = c.repo_id AND t.sha = $4 "
          "WHERE c.id = $1 AND t.id != c.id ON CONFLICT DO NOTHING");
    for (const auto& [id, facts] : items) {
      auto doc = zstd_compress(dump_json(facts_to_json(facts), -1));
      if (!doc) return std::unexpected(doc.error());
      ins.bind(1, id)
          .bind(2, std::int64_t{facts.version})
          .bind(3, to_string(facts.verdict))
          .bind(4, std::int64_t{facts.importance.value})
          .bind(5, std::int64_t{facts.insight.value})
          .bind(6, std::int64_t{facts.lines_worth_reading})
          .bind_blob(7, *doc);
      if (auto r = ins.run(); !r) return std::unexpected(r.error());
      put_brief.bind(1, id).bind(2, facts_brief_json(facts));
      if (auto r = put_brief.run(); !r) return std::unexpected(r.error());
      del_tags.bind(1, id);
      if (auto r = del_tags.run(); !r) return std::unexpected(r.error());
      del_origins.bind(1, id);
      if (auto r = del_origins.run(); !r) return std::unexpected(r.error());
      for (const auto& sw : facts.switches)
        if (sw.change == "added") {
          ins_origin.bind(1, id).bind(2, switch_origin_key(sw, sw.after));
          if (auto r = ins_origin.run(); !r) return std::unexpected(r.error());
        }
      for (const auto& t : facts.tags) {
        ins_tag.bind(1, id).bind(2, t.name).bind(3, t.source);
        if (auto r = ins_tag.run(); !r) return std::unexpected(r.error());
      }
      del_links.bind(1, id);
      if (auto r = del_links.run(); !r) return std::unexpected(r.error());
      for (const auto& l : facts.thread) {
        ins_link.bind(1, id).bind(2, l.relation).bind(3, l.detail).bind(4, l.sha);
        if (auto r = ins_link.run(); !r) return std::unexpected(r.error());
      }
      // References stored by an earlier analysis of this change were already
      // seen by the changes they name (their facts were dropped then): only
      // new ones invalidate. Without this, re-analysing a change dropped the
      // facts of the one it names again, one link of a chain per pass.
      old_refs.bind(1, id);
      auto old = old_refs.collect([](const db::Query& r) {
        return ref_key(r.text(0), r.text(1), r.text(2), r.i64(3), r.text(4));
      });
      old_refs.reset();
      if (!old) return std::unexpected(old.error());
      const std::set<std::string> known(old->begin(), old->end());
      for (const auto& ref : facts.references) {
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
        db::Query* stale = nullptr;
        if (ref.kind != "commit" && ref.number > 0) {
          stale = &stale_number;
          stale->bind(1, id).bind(2, ref.number);
        } else if (ref.kind == "commit" && ref.sha.size() >= 7) {
          std::string prefix = ref.sha;
          for (char& ch : prefix)
            ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
          stale = &stale_sha;
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

Result<std::vector<SwitchOrigin>> SqlStore::switch_origins(std::int64_t repo_id) {
  auto st =
      q("SELECT s.name, c.id, c.number, c.sha, c.merged_at FROM switch_origins s JOIN changes c "
        "ON c.id = s.change_id WHERE c.repo_id = $1 ORDER BY s.name, c.merged_at, c.id");
  st.bind(1, repo_id);
  auto all = st.collect([](const db::Query& r) {
    SwitchOrigin o;
    o.name = r.text(0);
    o.change_id = r.i64(1);
    auto number = r.opt_i64(2);
    o.ref = number ? fmt::format("#{}", *number) : r.text(3).substr(0, 12);
    o.merged_at = r.i64(4);
    return o;
  });
  if (!all) return std::unexpected(all.error());
  std::erase_if(*all, [prev = std::string(), first = true](const SwitchOrigin& o) mutable {
    const bool dup = !first && o.name == prev;
    prev = o.name;
    first = false;
    return dup;
  });
  return std::move(*all);
}

Result<std::optional<Facts>> SqlStore::get_facts(std::int64_t change_id) {
  auto st = q("SELECT doc FROM facts WHERE change_id = $1");
  st.bind(1, change_id);
  return read_change_doc<Facts>(st, "facts", change_id, facts_from_json);
}

Result<std::map<std::int64_t, Store::FactsBrief>> SqlStore::facts_briefs(
    std::span<const std::int64_t> ids) {
  std::map<std::int64_t, FactsBrief> out;
  if (ids.empty()) return out;
  // The brief when written in the current form, else (facts stored before
  // briefs, or before its focus path) the document. A brief outlives facts
  // dropped for a new analysis: only facts that exist count.
  auto st =
      q(fmt::format("SELECT f.change_id, b.brief, CASE WHEN b.brief IS NULL THEN f.doc END "
                    "FROM facts f LEFT JOIN facts_briefs b "
                    "ON b.change_id = f.change_id AND {} WHERE {}",
                    kFactsBriefCurrent, in_ids("f.change_id", 1)));
  st.bind(1, ids_value(ids));
  for (;;) {
    auto row = st.step();
    if (!row) return std::unexpected(row.error());
    if (!*row) break;
    const std::int64_t id = st.i64(0);
    if (!st.is_null(1)) {
      auto b = parse_facts_brief(st.text(1));
      if (!b)
        return fail(ErrorKind::kCorrupt, "{}: brief of the facts of change {}: {}", db_name(), id,
                    b.error().message);
      out.emplace(id, std::move(*b));
      continue;
    }
    auto j = read_json_doc(st.blob(2), fmt::format("facts of change {}", id));
    if (!j) return std::unexpected(j.error());
    auto f = facts_from_json(*j);
    if (!f) return fail(ErrorKind::kCorrupt, "{}: change {}: {}", db_name(), id, f.error().message);
    out.emplace(id, facts_brief_of(*f));
  }
  return out;
}

Result<size_t> SqlStore::fill_facts_briefs(size_t batch) {
  auto sel =
      q(fmt::format("SELECT f.change_id, f.doc FROM facts f WHERE NOT EXISTS (SELECT 1 FROM "
                    "facts_briefs b WHERE b.change_id = f.change_id AND {}) "
                    "ORDER BY f.change_id LIMIT $1",
                    kFactsBriefCurrent));
  sel.bind(1, static_cast<std::int64_t>(batch));
  auto rows = sel.collect([](const db::Query& r) { return std::pair{r.i64(0), r.blob(1)}; });
  if (!rows) return std::unexpected(rows.error());
  auto up =
      q("INSERT INTO facts_briefs(change_id, brief) VALUES($1, $2) ON CONFLICT (change_id) DO "
        "UPDATE SET brief = excluded.brief");
  for (const auto& [id, doc] : *rows) {
    auto j = read_json_doc(doc, fmt::format("facts of change {}", id));
    if (!j) return std::unexpected(j.error());
    auto f = facts_from_json(*j);
    if (!f) return fail(ErrorKind::kCorrupt, "{}: change {}: {}", db_name(), id, f.error().message);
    up.bind(1, id).bind(2, facts_brief_json(*f));
    if (auto r = up.run(); !r) return std::unexpected(r.error());
  }
  return rows->size();
}

Result<std::vector<Backlink>> SqlStore::referenced_by(std::int64_t repo_id, const Change& change) {
  // A sha reference matches by prefix (at least 7 hex digits were written).
  // Two indexed lookups: by PR/issue number, and by sha prefix (every prefix
  // p of a sha X with at least 7 digits satisfies X[:7] <= p <= X). The
  // CROSS JOIN keeps SQLite's planner from starting at `changes`;
  // PostgreSQL plans it as an inner join. A change naming this one under
  // several relations shows the first by name. The number is cast because a
  // change without one binds a NULL, which PostgreSQL would take for text.
  // Only later changes: one merged before this one named it while it was
  // still open ("needed by #N"), and calling that a later change is false.
  auto st =
      q("SELECT c.id, c.number, c.sha, c.title, min(r.relation), c.merged_at FROM (SELECT "
        "change_id FROM change_refs WHERE number = CAST($3 AS BIGINT) AND number > 0 AND kind IN "
        "('pr', 'issue') "
        "AND repo = '' UNION SELECT change_id FROM change_refs WHERE sha != '' AND "
        "sha >= substr($4, 1, 7) AND sha <= $4 AND kind = 'commit' AND repo = '') m "
        "CROSS JOIN changes c JOIN change_refs r ON r.change_id = c.id WHERE c.id = m.change_id "
        "AND c.repo_id = $1 AND c.id != $2 AND r.repo = '' AND "
        "NOT (c.merged_at > 0 AND c.merged_at < CAST($5 AS BIGINT)) AND "
        "((r.kind IN ('pr', 'issue') AND r.number = CAST($3 AS BIGINT)) OR "
        " (r.kind = 'commit' AND length(r.sha) >= 7 AND substr($4, 1, length(r.sha)) = r.sha)) "
        "GROUP BY c.id ORDER BY c.merged_at, c.id");
  st.bind(1, repo_id).bind(2, change.id).bind(3, change.number).bind(4, change.sha);
  st.bind(5, change.merged_at);
  return st.collect([](const db::Query& r) {
    Backlink b;
    b.change_id = r.i64(0);
    auto number = r.opt_i64(1);
    b.ref = number ? fmt::format("#{}", *number) : r.text(2).substr(0, 12);
    b.title = r.text(3);
    b.relation = r.text(4);
    b.merged_at = r.i64(5);
    return b;
  });
}

}  // namespace mergelens
