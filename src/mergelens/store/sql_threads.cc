// Threads and themes (store.h): the files changes added (what thread
// detection reads), the stored thread links with both ends named, and a
// model's themes of a window as one document. The links themselves are
// written by put_facts (sql_facts.cc) from Facts::thread.
#include <fmt/format.h>

#include "mergelens/store/rows.h"
#include "mergelens/store/sql_store.h"

namespace mergelens {

Result<std::vector<std::pair<std::string, std::string>>> SqlStore::added_files(std::int64_t repo_id,
                                                                               UnixSeconds since) {
  auto st =
      q("SELECT c.sha, f.path FROM changes c JOIN change_files f ON f.change_id = c.id "
        "WHERE c.repo_id = $1 AND c.open = 0 AND c.merged_at >= $2 AND f.status = 'added' "
        "ORDER BY c.merged_at, c.id, f.idx");
  st.bind(1, repo_id).bind(2, since);
  return st.collect([](const db::Query& r) { return std::pair{r.text(0), r.text(1)}; });
}

Result<std::vector<ThreadEdge>> SqlStore::thread_edges(std::span<const std::int64_t> ids) {
  if (ids.empty()) return std::vector<ThreadEdge>{};
  const std::string list = id_list(ids);
  auto st = q(fmt::format(
      "SELECT a.id, a.number, a.sha, a.title, a.merged_at, b.id, b.number, b.sha, b.title, "
      "b.merged_at, l.relation, l.detail FROM change_links l JOIN changes a ON a.id = l.change_id "
      "JOIN changes b ON b.id = l.target_id WHERE l.change_id IN ({0}) OR l.target_id IN ({0}) "
      "ORDER BY a.merged_at, a.id, b.merged_at, b.id",
      list));
  return st.collect([](const db::Query& r) {
    ThreadEdge e;
    e.from = {r.i64(0), r.opt_i64(1), r.text(2), r.text(3), r.i64(4)};
    e.to = {r.i64(5), r.opt_i64(6), r.text(7), r.text(8), r.i64(9)};
    e.relation = r.text(10);
    e.detail = r.text(11);
    return e;
  });
}

Result<void> SqlStore::put_themes(std::int64_t repo_id, const ThemeSet& set) {
  auto st =
      q("INSERT INTO themes(repo_id, span, key, model, at, doc) VALUES($1,$2,$3,$4,$5,$6) "
        "ON CONFLICT (repo_id, span) DO UPDATE SET key = excluded.key, model = excluded.model, "
        "at = excluded.at, doc = excluded.doc");
  st.bind_all(repo_id, set.span, set.key, set.model, set.at, set.doc);
  if (auto r = st.run(); !r) return std::unexpected(r.error());
  return {};
}

Result<std::optional<ThemeSet>> SqlStore::get_themes(std::int64_t repo_id, std::string_view span) {
  auto st = q("SELECT span, key, model, at, doc FROM themes WHERE repo_id = $1 AND span = $2");
  st.bind(1, repo_id).bind(2, span);
  auto rows = st.collect([](const db::Query& r) {
    return ThemeSet{r.text(0), r.text(1), r.text(2), r.i64(3), r.text(4)};
  });
  if (!rows) return std::unexpected(rows.error());
  if (rows->empty()) return std::optional<ThemeSet>();
  return std::optional<ThemeSet>(std::move(rows->front()));
}

}  // namespace mergelens
