// Tag list (counts with a weekly sparkline) and aggregated results for one
// tag or several combined (filters, figures, a weekly chart, top PRs).
// Charts are inline SVG built from numbers only: no text from the store
// reaches an SVG attribute.
#include <algorithm>

#include <fmt/format.h>

#include "mergelens/web/pages.h"

namespace mergelens::web {

namespace {

constexpr size_t kSparkWeeks = 26;

std::string points(const std::vector<double>& ys, double max, double width, double height) {
  std::string out;
  const double step = ys.size() > 1 ? width / static_cast<double>(ys.size() - 1) : 0;
  for (size_t i = 0; i < ys.size(); ++i) {
    const double y = height - 1 - (max > 0 ? ys[i] / max : 0) * (height - 2);
    out += fmt::format("{}{:.1f},{:.1f}", i ? " " : "", static_cast<double>(i) * step, y);
  }
  return out;
}

std::vector<std::string> split_tags(std::string_view s) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos <= s.size()) {
    size_t comma = s.find(',', pos);
    if (comma == std::string_view::npos) comma = s.size();
    std::string t(s.substr(pos, comma - pos));
    while (!t.empty() && t.back() == ' ') t.pop_back();
    while (!t.empty() && t.front() == ' ') t.erase(t.begin());
    if (!t.empty() && std::find(out.begin(), out.end(), t) == out.end()) out.push_back(t);
    pos = comma + 1;
  }
  return out;
}

}  // namespace

Result<Page> tags_page(const Site& site, std::string_view sort) {
  if (!sort.empty() && sort != "count" && sort != "name")
    return fail(ErrorKind::kInvalidInput, "sort must be \"count\" or \"name\"");
  auto stats = site.store.tag_stats(site.repo.id, kSparkWeeks);
  if (!stats) return std::unexpected(stats.error());
  if (sort == "name")
    std::sort(stats->begin(), stats->end(),
              [](const TagStat& a, const TagStat& b) { return a.name < b.name; });
  Page page;
  page.template_name = "tags";
  page.title = fmt::format("{} · {}", tr(site.lang, "tag_list"), site.repo.name);
  nlohmann::json items = nlohmann::json::array();
  for (const auto& t : *stats) {
    std::vector<double> ys(t.weekly.begin(), t.weekly.end());
    const double max = ys.empty() ? 0 : *std::max_element(ys.begin(), ys.end());
    items.push_back({{"name", clean_text(t.name)},
                     {"href", site.links.tag(t.name)},
                     {"feed", site.links.feed_tag(t.name)},
                     {"count", t.count},
                     {"close_reads", t.close_reads},
                     {"weekly", t.weekly},
                     {"spark", points(ys, max, 104, 20)}});
  }
  page.model = {{"items", items},
                {"sort", sort.empty() ? "count" : std::string(sort)},
                {"by_count", site.links.tags("count")},
                {"by_name", site.links.tags("name")},
                {"static", site.links.is_static()},
                {"weeks", kSparkWeeks}};
  return page;
}

Result<Page> tag_page(const Site& site, const AggregateParams& p) {
  AggregateQuery q;
  q.tags = split_tags(p.tags);
  if (q.tags.empty()) return fail(ErrorKind::kInvalidInput, "no tag given");
  for (const auto& t : q.tags)
    if (t.size() > 100) return fail(ErrorKind::kInvalidInput, "tag name too long");
  if (!p.from.empty()) {
    auto b = site.tz.day_bounds(p.from);
    if (!b) return wrap(b.error(), "from");
    q.since = b->first;
  }
  if (!p.to.empty()) {
    auto b = site.tz.day_bounds(p.to);
    if (!b) return wrap(b.error(), "to");
    q.until = b->second;
  }
  if (!p.verdict.empty()) {
    if (verdict_rank(p.verdict) > 3)
      return fail(ErrorKind::kInvalidInput,
                  "verdict must be close_read, selective_read, skim or skip");
    q.verdict = p.verdict;
  }
  if (!p.min.empty()) {
    int v = -1;
    if (p.min.size() <= 2 && std::all_of(p.min.begin(), p.min.end(), ::isdigit))
      v = std::stoi(p.min);
    if (v < 0 || v > 10) return fail(ErrorKind::kInvalidInput, "minimum score must be 0 to 10");
    q.min_score = v;
  }
  auto agg = site.store.aggregate(site.repo.id, q);
  if (!agg) return std::unexpected(agg.error());
  auto top = change_items(site, agg->top);
  if (!top) return std::unexpected(top.error());
  auto all = change_items(site, agg->changes);
  if (!all) return std::unexpected(all.error());

  std::string names;
  nlohmann::json tag_list = nlohmann::json::array();
  for (const auto& t : q.tags) {
    names += (names.empty() ? "" : ",") + t;
    tag_list.push_back({{"name", clean_text(t)}, {"href", site.links.tag(t)}});
  }
  // The chart: bars for weekly counts, lines for the mean scores (0-10).
  constexpr double kW = 600, kH = 160;
  nlohmann::json bars = nlohmann::json::array();
  std::vector<double> imp, ins;
  std::int64_t max_count = 1;
  for (const auto& w : agg->weeks) max_count = std::max(max_count, w.count);
  const double bw = agg->weeks.empty() ? 0 : kW / static_cast<double>(agg->weeks.size());
  for (size_t i = 0; i < agg->weeks.size(); ++i) {
    const auto& w = agg->weeks[i];
    const double h = (kH - 2) * static_cast<double>(w.count) / static_cast<double>(max_count);
    bars.push_back({{"x", fmt::format("{:.1f}", static_cast<double>(i) * bw)},
                    {"y", fmt::format("{:.1f}", kH - h)},
                    {"w", fmt::format("{:.1f}", std::max(1.0, bw - 1))},
                    {"h", fmt::format("{:.1f}", h)},
                    {"label", fmt::format("{} {}: {}", tr(site.lang, "week_of"), format_day(w.week),
                                          w.count)}});
    imp.push_back(w.importance);
    ins.push_back(w.insight);
  }
  const double share =
      agg->count ? 100.0 * static_cast<double>(agg->close_reads) / static_cast<double>(agg->count)
                 : 0;
  Page page;
  page.template_name = "tag";
  page.title = fmt::format("{} · {} · {}", names, tr(site.lang, "aggregate"), site.repo.name);
  page.model = {
      {"names", names},
      {"tags", tag_list},
      {"single", q.tags.size() == 1},
      {"feed", site.links.feed_tag(q.tags.front())},
      {"action", site.links.is_static() ? "" : fmt::format("/tags/{}", url_encode(names))},
      {"static", site.links.is_static()},
      {"en", site.lang == Lang::kEn},
      {"filters",
       {{"from", p.from},
        {"to", p.to},
        {"verdict", p.verdict},
        {"min", p.min},
        {"verdicts", nlohmann::json::array({
                         {{"value", "close_read"},
                          {"label", verdict_label(site.lang, "close_read")},
                          {"selected", p.verdict == "close_read"}},
                         {{"value", "selective_read"},
                          {"label", verdict_label(site.lang, "selective_read")},
                          {"selected", p.verdict == "selective_read"}},
                         {{"value", "skim"},
                          {"label", verdict_label(site.lang, "skim")},
                          {"selected", p.verdict == "skim"}},
                         {{"value", "skip"},
                          {"label", verdict_label(site.lang, "skip")},
                          {"selected", p.verdict == "skip"}},
                     })}}},
      {"figures",
       {{"count", agg->count},
        {"close_reads", agg->close_reads},
        {"mean_importance", fmt::format("{:.1f}", agg->mean_importance)},
        {"mean_insight", fmt::format("{:.1f}", agg->mean_insight)},
        {"close_share", fmt::format("{:.0f}%", share)}}},
      {"chart",
       {{"bars", bars},
        {"importance", points(imp, 10, kW, kH)},
        {"insight", points(ins, 10, kW, kH)},
        {"first", agg->weeks.empty() ? "" : format_day(agg->weeks.front().week)},
        {"last", agg->weeks.empty() ? "" : format_day(agg->weeks.back().week)},
        {"has", !agg->weeks.empty()}}},
      {"top", *top},
      {"items", *all},
      {"shown", all->size()},
  };
  return page;
}

}  // namespace mergelens::web
