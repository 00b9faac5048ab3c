// The digest of a week for a weekly target (content.h), from report/week.h.
#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "mergelens/deliver/content.h"
#include "mergelens/deliver/deliver.h"
#include "mergelens/report/week.h"

namespace mergelens::deliver {

namespace {
constexpr size_t kWeekThemes = 5;
}  // namespace

Result<Content> build_week_content(Store& store, const RepoRecord& repo, const Target& target,
                                   std::string_view week) {
  if (auto start = report::iso_week_start(week); !start) return std::unexpected(start.error());
  auto tz = web::TimeZone::named(target.tz);
  if (!tz) return std::unexpected(tz.error());
  const web::Lang lang = web::lang_from(target.lang);
  auto links = target_links(store, repo, lang);
  if (!links) return std::unexpected(links.error());
  web::Site site{store, repo, *tz, lang, *links, {}, {}};
  if (!target.filter.empty()) site.filter = &target.filter;
  Content c = content_head(repo, target, week);
  Result<void> built;
  auto snap = store.read_snapshot([&] {
    auto w = report::load_week(store, repo.id, week, target.lang, site.filter);
    if (!w) {
      built = std::unexpected(w.error());
      return;
    }
    c.figures = web::week_figures(lang, *w);
    const bool en = lang == web::Lang::kEn;
    // What mattered this week: its themes, then its reads by their theme's rank.
    for (const auto& t : w->themes.themes) {
      if (c.themes.size() >= kWeekThemes) break;
      if (!t.substantive || t.reverted) continue;
      std::vector<std::string> refs;
      for (size_t i : t.entries) refs.push_back(web::display_ref(w->entries[i].change));
      std::string line = t.title;
      if (!t.highlight.empty() && t.highlight != t.title) line += (en ? ": " : "：") + t.highlight;
      line += fmt::format(fmt::runtime(en ? " ({})" : "（{}）"), fmt::join(refs, en ? ", " : "、"));
      c.themes.push_back(std::move(line));
    }
    c.themes_label =
        w->themes.source == "model"
            ? (en ? "Themes of the week (chosen by a model)" : "本周主题（模型选出）")
            : (en ? "Themes of the week (found by the analysis)" : "本周主题（静态分析归组）");
    // A week is read for its close and selective reads; the rest are counted.
    std::vector<size_t> reads;
    for (size_t i = 0; i < w->entries.size(); ++i)
      if (report::verdict_level(w->entries[i].change.verdict) >= 3) reads.push_back(i);
    std::ranges::stable_sort(
        reads, [&](size_t a, size_t b) { return w->themes.rank_of[a] < w->themes.rank_of[b]; });
    for (size_t i : reads) c.entries.push_back(entry_of(site, target, w->entries[i]));
  });
  if (!snap) return std::unexpected(snap.error());
  if (!built) return std::unexpected(built.error());
  if (!target.site_url.empty())
    c.day_url = web::with_filter(site, target.site_url + site.links.week(week));
  c.labels = labels_of(lang);
  c.labels.more = lang == web::Lang::kEn ? "The whole week on the web" : "在网页上查看这一周";
  return c;
}

}  // namespace mergelens::deliver

namespace mergelens::deliver {

Result<std::vector<std::string>> due_weeks(Store& store, const RepoRecord& repo, const Target& t,
                                           std::int64_t now) {
  constexpr std::int64_t kWeek = 7 * 86400;
  // The newest week that ended `delay_minutes` ago or earlier.
  const std::string newest = report::iso_week_of(now - t.delay_minutes * 60LL - kWeek);
  auto newest_start = report::iso_week_start(newest);
  if (!newest_start) return std::unexpected(newest_start.error());
  const UnixSeconds cutoff = *newest_start + kWeek;  // weeks starting before this are due
  std::vector<std::string> weeks;
  auto last = store.deliveries(repo.id, t.name, "");
  if (!last) return std::unexpected(last.error());
  std::string after;
  if (!last->empty()) {
    after = last->front().day;
    const bool sent = std::ranges::all_of(*last, [](const DeliveryPart& p) { return p.sent_at; });
    if (!sent && after <= newest) weeks.push_back(after);
  }
  std::set<std::string> due;
  if (after.empty()) {
    auto latest = store.adjacent_merge(repo.id, cutoff, /*before=*/true);
    if (!latest) return std::unexpected(latest.error());
    if (t.send_empty)
      due.insert(newest);
    else if (*latest && **latest > 0)
      due.insert(report::iso_week_of(**latest));
  } else {
    auto from = report::iso_week_start(after);
    if (!from) return std::unexpected(from.error());
    if (t.send_empty) {
      for (UnixSeconds w = *from + kWeek; w < cutoff; w += kWeek)
        due.insert(report::iso_week_of(w));
    } else {
      ListQuery q;
      q.since = *from + kWeek;
      q.until = cutoff;
      auto rows = store.list_changes(repo.id, q);
      if (!rows) return std::unexpected(rows.error());
      for (const auto& r : *rows)
        if (!r.open) due.insert(report::iso_week_of(r.merged_at));
    }
  }
  std::vector<std::string> later(due.begin(), due.end());
  if (later.size() > static_cast<size_t>(t.catch_up_days))
    later.erase(later.begin(), later.end() - t.catch_up_days);
  weeks.insert(weeks.end(), later.begin(), later.end());
  return weeks;
}

}  // namespace mergelens::deliver
