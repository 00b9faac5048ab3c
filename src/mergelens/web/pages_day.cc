// Daily digest page: the day's entries in the examples' form (web/digest.h),
// the most worth reading first, skip-verdict PRs last one line each, and a
// top line with the day's figures linking its close reads.
#include <algorithm>
#include <map>
#include <set>

#include "mergelens/web/digest.h"

namespace mergelens::web {

Result<std::string> latest_day(const Site& site) {
  auto t = site.store.adjacent_merge(site.repo.id, INT64_MAX, /*before=*/true);
  if (!t) return std::unexpected(t.error());
  return *t ? site.tz.day(**t) : std::string();
}

Result<std::vector<std::string>> all_days(const Site& site) {
  auto rows = site.store.list_changes(site.repo.id, ListQuery{});
  if (!rows) return std::unexpected(rows.error());
  std::set<std::string, std::greater<>> days;
  for (const auto& r : *rows)
    if (!r.open) days.insert(site.tz.day(r.merged_at));
  return std::vector<std::string>(days.begin(), days.end());
}

Result<Page> day_page(const Site& site, std::string_view date_in) {
  auto d = day_digest(site, date_in);
  if (!d) return std::unexpected(d.error());
  Page page;
  page.template_name = "day";
  nlohmann::json& m = page.model;
  m["date"] = d->date;
  m["repo"] = site.repo.name;
  m["items"] = nlohmann::json::array();
  m["skipped"] = nlohmann::json::array();
  m["open_items"] = nlohmann::json::array();
  m["close_links"] = nlohmann::json::array();
  m["prev"] = nullptr;
  m["next"] = nullptr;
  page.title =
      fmt::format("{} · {}", d->date.empty() ? tr(site.lang, "digest") : d->date, site.repo.name);
  // A revert folds under the change it reverts when both merged that day.
  std::map<std::int64_t, size_t> index;
  for (size_t i = 0; i < d->entries.size(); ++i) index[d->entries[i].change.id] = i;
  std::map<size_t, std::vector<size_t>> folded;  // change → its reverts of the day
  std::set<size_t> folded_away;
  for (size_t i = 0; i < d->entries.size(); ++i)
    for (const auto& n : d->entries[i].thread)
      if (n.relation == "reverts" && !n.later)
        if (auto t = index.find(n.other.id); t != index.end() && !folded_away.contains(t->second)) {
          folded[t->second].push_back(i);
          folded_away.insert(i);
          break;
        }
  // Most worth reading first; skip-verdict PRs at the bottom, one line each.
  for (size_t k = 0; k < d->entries.size(); ++k) {
    const auto& e = d->entries[k];
    if (folded_away.contains(k)) continue;
    nlohmann::json it = digest_item(site, e);
    it["folded"] = nlohmann::json::array();
    for (size_t r : folded[k]) {
      nlohmann::json f = digest_item(site, d->entries[r]);
      it["folded"].push_back({{"href", f["href"]},
                              {"ref", f["ref"]},
                              {"headline_rich", f["headline_rich"]},
                              {"author", f["author"]},
                              {"merged", f["merged"]}});
    }
    if (e.change.verdict == "skip") {
      m["skipped"].push_back(std::move(it));
      continue;
    }
    if (e.change.verdict == "close_read")
      m["close_links"].push_back(
          {{"ref", site.all() ? fmt::format("{} {}", it["repo_name"].get<std::string>(),
                                            it["ref"].get<std::string>())
                              : it["ref"].get<std::string>()},
           {"href", "#" + it["anchor"].get<std::string>()},
           {"headline_rich", it["headline_rich"]}});
    m["items"].push_back(std::move(it));
  }
  for (const auto& e : d->open) m["open_items"].push_back(digest_item(site, e));
  // The day of every repository: how many each one merged, linking its own day.
  m["repo_counts"] = nlohmann::json::array();
  if (site.all()) {
    std::map<std::int64_t, size_t> merged;
    for (const auto& e : d->entries) ++merged[e.change.repo_id];
    for (const auto& r : site.scopes.repos)
      if (auto it = merged.find(r.id); it != merged.end())
        m["repo_counts"].push_back({{"name", clean_text(r.name)},
                                    {"href", site.links_of(r.id).day(d->date)},
                                    {"merged", it->second}});
  }
  m["merged"] = d->entries.size();
  m["close_reads"] = d->close_reads;
  m["open"] = d->open.size();
  m["counts"] = day_counts(site.lang, d->entries.size(), d->close_reads, d->open.size());
  m["figures"] = day_figures(site.lang, *d);
  m["empty"] = d->entries.empty();
  // Whose judgment the reader sees: the model's triage, the analysis's, or both.
  m["judged_by_analysis"] = !d->entries.empty() && d->triaged == 0;
  m["partly_triaged"] = d->triaged > 0 && d->triaged < d->entries.size();
  m["triaged"] = d->triaged;
  // A filtered day: its links keep the filter, and it says what it left out.
  m["left_out"] = d->left_out;
  m["filter"] = site.filter ? site.filter->query() : "";
  if (d->prev)
    m["prev"] = {{"date", *d->prev}, {"href", with_filter(site, site.links.day(*d->prev))}};
  if (d->next)
    m["next"] = {{"date", *d->next}, {"href", with_filter(site, site.links.day(*d->next))}};
  return page;
}

}  // namespace mergelens::web
