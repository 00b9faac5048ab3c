// The week page (/week/YYYY-Www): report/week.h's week with the day page's
// entries, its labels kept here (week-only words) rather than in i18n.cc.
#include <fmt/format.h>

#include "mergelens/analysis/text/glossary.h"
#include "mergelens/report/week.h"
#include "mergelens/web/digest.h"

namespace mergelens::web {

namespace {

nlohmann::json week_words(Lang lang) {
  const bool en = lang == Lang::kEn;
  return {{"week", en ? "Week" : "周"},
          {"close_by_tag", en ? "Close reads by tag" : "本周值得精读（按标签）"},
          {"no_close", en ? "No close read this week." : "本周没有值得精读的 PR。"},
          {"moves", en ? "Tags against the four weeks before" : "各标签与前四周相比"},
          {"visible",
           en ? "Changed defaults and user-visible behaviour" : "默认值与用户可见行为的变化"},
          {"more", en ? "Also worth a look" : "其余可选读"},
          {"prev", en ? "Previous week" : "上一周"},
          {"next", en ? "Next week" : "下一周"},
          {"untagged", en ? "Untagged" : "未分类"},
          {"empty", en ? "No pull requests were merged that week." : "这一周没有合并的 PR。"},
          {"feed", en ? "Weekly feed" : "每周订阅"},
          {"themes", en ? "What mattered this week" : "本周要点"},
          {"themes_model", en ? "Themes chosen by a model in one pass over the week ({})."
                              : "主题由模型对整周的一次评审选出（{}）。"},
          {"themes_analysis",
           en ? "Themes found by the analysis: threads (series, reverts, follow-ups, work on "
                "added files), tags and paths; no model theme pass for this week."
              : "主题由静态分析按关联（系列、回滚、跟进、对新增文件的后续修改）、标签和路径归组；"
                "这一周没有模型的主题评审。"},
          {"moves_caption",
           en ? "Merged pull requests per tag this week and in each of the four weeks before "
                "(oldest first): ↑ up, ↓ down, ★ new, ∅ none this week, → steady."
              : "各标签本周合并的 PR 数，与此前四周（由远及近）逐周相比：↑ 上升，↓ 下降，★ "
                "新出现，∅ 本周没有，→ 持平。"},
          {"tag", en ? "Tag" : "标签"},
          {"this_week", en ? "This week" : "本周"},
          {"trend", en ? "Trend" : "趋势"}};
}

std::string trend_word(Lang lang, const std::string& trend) {
  const bool en = lang == Lang::kEn;
  if (trend == "up") return en ? "up" : "上升";
  if (trend == "down") return en ? "down" : "下降";
  if (trend == "new") return en ? "new" : "新出现";
  if (trend == "gone") return en ? "none this week" : "本周没有";
  return en ? "steady" : "持平";
}

std::string trend_mark(const std::string& trend) {
  if (trend == "up") return "↑";
  if (trend == "down") return "↓";
  if (trend == "new") return "★";
  if (trend == "gone") return "∅";
  return "→";
}

}  // namespace

std::string week_figures(Lang lang, const report::Week& w) {
  DayDigest counts;
  counts.close_reads = w.close_reads;
  counts.selective_reads = w.selective_reads;
  counts.skims = w.skims;
  counts.skips = w.skips;
  counts.left_out = w.left_out;
  counts.entries = w.entries;
  return day_figures(lang, counts);
}

std::string with_filter(const Site& site, std::string href) {
  if (!site.filter || site.links.is_static()) return href;
  // The language travels in the link already (?lang=): the filter without it.
  report::Filter f = *site.filter;
  f.lang.clear();
  const std::string q = f.query();
  if (q.empty()) return href;
  return href + (href.find('?') == std::string::npos ? "?" : "&") + q;
}

Result<Page> week_page(const Site& site, std::string_view week_in) {
  auto w = report::load_week(site.store, site.repo.id, week_in, lang_code(site.lang), site.filter);
  if (!w) return std::unexpected(w.error());
  Page page;
  page.template_name = "week";
  page.title =
      fmt::format("{} · {}", w->week.empty() ? tr(site.lang, "digest") : w->week, site.repo.name);
  nlohmann::json& m = page.model;
  m["w"] = week_words(site.lang);
  m["week"] = w->week;
  m["repo"] = site.repo.name;
  m["since"] = w->week.empty() ? "" : format_day(w->since);
  m["until"] = w->week.empty() ? "" : format_day(w->until - 1);
  m["figures"] = week_figures(site.lang, *w);
  m["empty"] = w->entries.empty();
  m["left_out"] = w->left_out;
  m["filter"] = site.filter ? site.filter->query() : "";
  // What mattered this week: its themes, most important first.
  m["themes"] = nlohmann::json::array();
  for (const auto& t : w->themes.themes) {
    if (m["themes"].size() >= report::kWeekThemes) break;
    if (!t.substantive || t.reverted) continue;
    nlohmann::json refs = nlohmann::json::array();
    for (size_t k = 0; k < t.entries.size(); ++k) {
      const auto& c = w->entries[t.entries[k]].change;
      refs.push_back({{"ref", display_ref(c)},
                      {"href", site.links.pr(url_ref(c))},
                      {"sep", k + 1 < t.entries.size() ? ", " : ""}});
    }
    const std::string highlight = t.highlight == t.title ? "" : clean_text(t.highlight);
    m["themes"].push_back({{"rank", t.rank},
                           {"title", clean_text(t.title)},
                           {"title_rich", rich(clean_text(t.title))},
                           {"highlight", highlight},
                           {"highlight_rich", rich(highlight)},
                           {"refs", std::move(refs)}});
  }
  m["themes_by"] = w->themes.source == "model"
                       ? fmt::format(fmt::runtime(m["w"]["themes_model"].get<std::string>()),
                                     clean_text(w->themes.model))
                       : m["w"]["themes_analysis"].get<std::string>();
  m["groups"] = nlohmann::json::array();
  for (const auto& g : w->close_by_tag) {
    nlohmann::json items = nlohmann::json::array();
    for (size_t i : g.entries) items.push_back(digest_item(site, w->entries[i]));
    m["groups"].push_back(
        {{"tag", g.tag},
         {"name", g.tag.empty() ? m["w"]["untagged"].get<std::string>()
                                : clean_text(tag_display_name(g.tag, lang_code(site.lang)))},
         {"href", g.tag.empty() ? "" : site.links.tag(g.tag)},
         {"items", std::move(items)}});
  }
  m["no_close"] = w->close_by_tag.empty() && !w->entries.empty();
  // Selective reads, one line each (their entries are on their days' pages).
  m["more"] = nlohmann::json::array();
  for (const auto& e : w->entries)
    if (e.change.verdict == "selective_read") {
      nlohmann::json it = digest_item(site, e);
      m["more"].push_back(std::move(it));
    }
  m["moves"] = nlohmann::json::array();
  // The four weeks before, oldest first: the table's column headers.
  m["before"] = nlohmann::json::array();
  if (auto start = report::iso_week_start(w->week); start)
    for (int k = 4; k >= 1; --k)
      m["before"].push_back({{"week", report::iso_week_of(*start - k * 7 * 86400)}});
  for (const auto& mv : w->moves) {
    std::string prev;
    nlohmann::json counts = nlohmann::json::array();
    for (auto n : mv.previous) {
      prev += (prev.empty() ? "" : " ") + std::to_string(n);
      counts.push_back({{"n", n}});
    }
    m["moves"].push_back({{"tag", mv.tag},
                          {"counts", counts},
                          {"trend_word", trend_word(site.lang, mv.trend)},
                          {"name", clean_text(tag_display_name(mv.tag, lang_code(site.lang)))},
                          {"href", site.links.tag(mv.tag)},
                          {"count", mv.count},
                          {"previous", prev},
                          {"mean", fmt::format("{:.1f}", mv.previous_mean)},
                          {"trend", mv.trend},
                          {"mark", trend_mark(mv.trend)}});
  }
  m["visible"] = nlohmann::json::array();
  for (const auto& v : w->visible) {
    nlohmann::json it = digest_item(site, w->entries[v.entry]);
    it["what"] = v.what.summary();
    m["visible"].push_back(std::move(it));
  }
  m["prev"] = nullptr;
  m["next"] = nullptr;
  if (w->prev)
    m["prev"] = {{"week", *w->prev}, {"href", with_filter(site, site.links.week(*w->prev))}};
  if (w->next)
    m["next"] = {{"week", *w->next}, {"href", with_filter(site, site.links.week(*w->next))}};
  m["feed"] = with_filter(site, site.links.feed_week());
  // The layout announces the week feed (autodiscovery).
  m["alternate_feed"] = {
      {"href", m["feed"]},
      {"title", fmt::format("{} · {}", site.repo.name, m["w"]["feed"].get<std::string>())}};
  m["data"] = report::week_json(*w);
  return page;
}

}  // namespace mergelens::web
