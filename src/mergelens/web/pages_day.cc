// Daily digest: the day's changes, the most worth reading first.
#include <algorithm>
#include <set>

#include "mergelens/web/pages.h"

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
  std::string date(date_in);
  if (date.empty()) {
    auto latest = latest_day(site);
    if (!latest) return std::unexpected(latest.error());
    date = *latest;
  }
  Page page;
  page.template_name = "day";
  nlohmann::json& m = page.model;
  m["date"] = date;
  m["items"] = nlohmann::json::array();
  m["open_items"] = nlohmann::json::array();
  m["prev"] = nullptr;
  m["next"] = nullptr;
  m["repo"] = site.repo.name;
  page.title =
      fmt::format("{} · {}", date.empty() ? tr(site.lang, "digest") : date, site.repo.name);
  if (date.empty()) {  // an empty store
    m["counts"] = day_counts(site.lang, 0, 0, 0);
    m["empty"] = true;
    return page;
  }
  auto bounds = site.tz.day_bounds(date);
  if (!bounds) return std::unexpected(bounds.error());
  ListQuery q;
  q.since = bounds->first;
  q.until = bounds->second;
  auto rows = site.store.list_changes(site.repo.id, q);
  if (!rows) return std::unexpected(rows.error());
  auto items = change_items(site, *rows);
  if (!items) return std::unexpected(items.error());
  std::vector<nlohmann::json> sorted(items->begin(), items->end());
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
    const int ra = verdict_rank(a["verdict"].template get<std::string>());
    const int rb = verdict_rank(b["verdict"].template get<std::string>());
    if (ra != rb) return ra < rb;
    const int sa = a["importance"].template get<int>() + a["insight"].template get<int>();
    const int sb = b["importance"].template get<int>() + b["insight"].template get<int>();
    if (sa != sb) return sa > sb;
    return a["merged_utc"].template get<std::string>() >
           b["merged_utc"].template get<std::string>();
  });
  size_t close = 0;
  for (auto& it : sorted) {
    close += it["close_read"].get<bool>();
    m["items"].push_back(std::move(it));
  }
  // Open pull requests (GitHub source) belong to no day: the newest day lists
  // them apart, under the merged ones.
  size_t open = 0;
  if (auto latest = latest_day(site); latest && *latest == date) {
    ListQuery oq;
    oq.until = 1;  // merged_at 0
    auto open_rows = site.store.list_changes(site.repo.id, oq);
    if (!open_rows) return std::unexpected(open_rows.error());
    std::erase_if(*open_rows, [](const ChangeSummary& c) { return !c.open; });
    auto open_items = change_items(site, *open_rows);
    if (!open_items) return std::unexpected(open_items.error());
    m["open_items"] = *open_items;
    open = open_rows->size();
  }
  m["merged"] = rows->size();
  m["close_reads"] = close;
  m["open"] = open;
  m["counts"] = day_counts(site.lang, rows->size(), close, open);
  m["empty"] = rows->empty();
  auto prev = site.store.adjacent_merge(site.repo.id, bounds->first, /*before=*/true);
  if (!prev) return std::unexpected(prev.error());
  auto next = site.store.adjacent_merge(site.repo.id, bounds->second, /*before=*/false);
  if (!next) return std::unexpected(next.error());
  if (*prev) {
    const std::string d = site.tz.day(**prev);
    m["prev"] = {{"date", d}, {"href", site.links.day(d)}};
  }
  if (*next) {
    const std::string d = site.tz.day(**next);
    m["next"] = {{"date", d}, {"href", site.links.day(d)}};
  }
  return page;
}

}  // namespace mergelens::web
