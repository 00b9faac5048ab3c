// Tag list (count, activity in the last four weeks and a weekly sparkline;
// ordered by count, recent activity or name) and aggregated results for one
// tag or several combined (filters, figures, a weekly chart with axes, top
// PRs; every entry with its digest paragraph and its scores with reasons).
// Charts are inline SVG built from numbers only: no text from the store
// reaches an SVG attribute.
#include <algorithm>

#include <fmt/format.h>

#include "mergelens/analysis/text/glossary.h"
#include "mergelens/web/charts.h"
#include "mergelens/web/digest.h"

namespace mergelens::web {

namespace {

constexpr size_t kSparkWeeks = 26;
// "Recent activity": changes in the last this many weeks of the sparkline.
constexpr size_t kRecentWeeks = 4;

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
  if (!sort.empty() && sort != "count" && sort != "name" && sort != "recent")
    return fail(ErrorKind::kInvalidInput, "sort must be \"count\", \"recent\" or \"name\"");
  auto stats = site.store.tag_stats(site.repo.id, kSparkWeeks);
  if (!stats) return std::unexpected(stats.error());
  auto newest = site.store.adjacent_merge(site.repo.id, INT64_MAX, /*before=*/true);
  if (!newest) return std::unexpected(newest.error());
  const UnixSeconds last_week = week_start(newest->value_or(0));
  auto recent = [](const TagStat& t) {
    std::int64_t n = 0;
    for (size_t i = t.weekly.size() > kRecentWeeks ? t.weekly.size() - kRecentWeeks : 0;
         i < t.weekly.size(); ++i)
      n += t.weekly[i];
    return n;
  };
  if (sort == "name")
    std::sort(stats->begin(), stats->end(),
              [](const TagStat& a, const TagStat& b) { return a.name < b.name; });
  if (sort == "recent")
    std::stable_sort(stats->begin(), stats->end(), [&](const TagStat& a, const TagStat& b) {
      const auto ra = recent(a), rb = recent(b);
      if (ra != rb) return ra > rb;
      return a.count > b.count;
    });
  Page page;
  page.template_name = "tags";
  page.title = fmt::format("{} · {}", tr(site.lang, "tag_list"), site.repo.name);
  nlohmann::json items = nlohmann::json::array();
  for (const auto& t : *stats) {
    const std::string shown = clean_text(tag_display_name(t.name, lang_code(site.lang)));
    items.push_back({{"name", shown},
                     {"tag", clean_text(t.name)},
                     {"show_tag", shown != clean_text(t.name)},
                     {"href", site.links.tag(t.name)},
                     {"feed", site.links.feed_tag(t.name)},
                     {"count", t.count},
                     {"recent", recent(t)},
                     {"close_reads", t.close_reads},
                     {"weekly", t.weekly},
                     {"spark", sparkline(site.lang, t.weekly, last_week)}});
  }
  const std::string by = sort.empty() ? "count" : std::string(sort);
  page.model = {{"items", items},
                {"sort", by},
                {"sorts", nlohmann::json::array({
                              {{"href", site.links.tags("count")},
                               {"id", "sort-count"},
                               {"label", tr(site.lang, "sort_by_count")},
                               {"current", by == "count"}},
                              {{"href", site.links.tags("recent")},
                               {"id", "sort-recent"},
                               {"label", tr(site.lang, "sort_by_recent")},
                               {"current", by == "recent"}},
                              {{"href", site.links.tags("name")},
                               {"id", "sort-name"},
                               {"label", tr(site.lang, "sort_by_name")},
                               {"current", by == "name"}},
                          })},
                {"static", site.links.is_static()},
                {"weeks", kSparkWeeks},
                {"recent_weeks", kRecentWeeks}};
  return page;
}

Result<void> known_tags(const Site& site, const std::vector<std::string>& tags) {
  auto stats = site.store.tag_stats(site.repo.id, 0);  // names and counts only
  if (!stats) return std::unexpected(stats.error());
  for (const auto& t : tags)
    if (std::none_of(stats->begin(), stats->end(), [&](const TagStat& s) { return s.name == t; }))
      return fail(ErrorKind::kNotFound, "no change has the tag \"{}\"", clean_text(t));
  return {};
}

Result<AggregateQuery> aggregate_query(const Site& site, const AggregateParams& p) {
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
  // Both days are inclusive: `to` before `from` is a mistake, not an empty page.
  if (auto r = check_range(q.since, q.until, "from " + p.from, "to " + p.to); !r)
    return std::unexpected(r.error());
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
  // A malformed request is answered as such (400) before the tags are looked up (404).
  if (auto known = known_tags(site, q.tags); !known) return std::unexpected(known.error());
  return q;
}

Result<Page> tag_page(const Site& site, const AggregateParams& p) {
  auto parsed = aggregate_query(site, p);
  if (!parsed) return std::unexpected(parsed.error());
  const AggregateQuery& q = *parsed;
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
    tag_list.push_back({{"name", clean_text(tag_display_name(t, lang_code(site.lang)))},
                        {"href", site.links.tag(t)}});
  }
  if (auto r = add_paragraphs(site, *top); !r) return std::unexpected(r.error());
  if (auto r = add_paragraphs(site, *all); !r) return std::unexpected(r.error());
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
      {"feed_title",
       fmt::format("{} · {}", tr(site.lang, "tag_feed"),
                   clean_text(tag_display_name(q.tags.front(), lang_code(site.lang))))},
      {"action", site.links.action(fmt::format("/tags/{}", url_encode(names)))},
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
      {"chart", weekly_chart(site.lang, agg->weeks)},
      {"reasons", true},
      {"top", *top},
      {"items", *all},
      {"shown", all->size()},
  };
  return page;
}

}  // namespace mergelens::web
