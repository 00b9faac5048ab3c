// Feeds for readers with a filter, and the week feed (one entry per ISO
// week): the parts of feed.cc that issue 24 added, kept apart.
#include <fmt/format.h>

#include "mergelens/report/week.h"
#include "mergelens/web/digest.h"

namespace mergelens::web {

namespace {

constexpr size_t kFeedWeeks = 8;

std::string xml(std::string_view s) {
  return escape_html(clean_text(s));
}

}  // namespace

Result<void> filter_rows(const Site& site, std::vector<ChangeSummary>& rows, size_t keep,
                         std::string& title, std::string& id_part) {
  if (!site.filter || site.filter->empty()) return {};
  auto entries = report::load_entries(site.store, lang_code(site.lang), rows);
  if (!entries) return std::unexpected(entries.error());
  if (auto r = report::apply_filter(site.store, *site.filter, *entries); !r)
    return std::unexpected(r.error());
  rows.clear();
  for (auto& e : *entries) {
    if (rows.size() >= keep) break;
    rows.push_back(std::move(e.change));
  }
  const std::string q = site.filter->query();
  title += " · " + q;
  id_part += ":" + url_encode(q);
  return {};
}

Result<std::string> week_feed(const Site& site, std::string_view self) {
  const std::string lang = lang_code(site.lang);
  const bool en = site.lang == Lang::kEn;
  std::vector<report::Week> weeks;
  std::string at;  // "" the newest week
  for (size_t i = 0; i < kFeedWeeks; ++i) {
    auto w = report::load_week(site.store, site.repo.id, at, lang, site.filter);
    if (!w) return std::unexpected(w.error());
    if (w->week.empty()) break;
    std::optional<std::string> prev = w->prev;
    weeks.push_back(std::move(*w));
    if (!prev) break;
    at = *prev;
  }
  const std::string filter = site.filter ? site.filter->query() : "";
  const std::string repo_id = site.all() ? std::string("all") : url_encode(site.repo.name);
  std::string title = site.repo.name + " · " + (en ? "Weekly" : "每周");
  if (!filter.empty()) title += " · " + filter;
  std::string out = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n";
  out += fmt::format("<feed xmlns=\"http://www.w3.org/2005/Atom\" xml:lang=\"{}\">\n",
                     html_lang(site.lang));
  out += fmt::format("  <id>urn:mergelens:{}:weeks{}:{}</id>\n", repo_id,
                     filter.empty() ? "" : ":" + url_encode(filter), lang);
  out += fmt::format("  <title>{}</title>\n", xml(title));
  out += fmt::format(
      "  <updated>{}</updated>\n",
      format_utc(weeks.empty() ? 0 : std::min(weeks.front().until, UnixSeconds(time(nullptr)))));
  out += fmt::format("  <link rel=\"self\" href=\"{}\"/>\n", xml(self));
  out += "  <author><name>mergelens</name></author>\n";
  out += "  <generator>mergelens</generator>\n";
  for (const auto& w : weeks) {
    UnixSeconds updated = w.since;
    for (const auto& e : w.entries) updated = std::max(updated, e.change.merged_at);
    out += "  <entry>\n";
    out += fmt::format("    <id>urn:mergelens:{}:week:{}{}:{}</id>\n", repo_id, w.week,
                       filter.empty() ? "" : ":" + url_encode(filter), lang);
    out +=
        fmt::format("    <title>{}</title>\n", xml(fmt::format("{} · {}", site.repo.name, w.week)));
    out += fmt::format("    <updated>{}</updated>\n", format_utc(updated));
    out += fmt::format("    <link rel=\"alternate\" type=\"text/html\" href=\"{}\"/>\n",
                       xml(with_filter(site, site.links.week(w.week))));
    const std::string figures = week_figures(site.lang, w);
    out += fmt::format("    <summary>{}</summary>\n", xml(figures));
    // The content: the week's close reads by tag, each with its digest
    // paragraph and original-PR line as on the day page.
    std::string html = "<p>" + escape_html(figures) + "</p>";
    // What mattered this week: its themes first, by rank.
    std::string themes;
    size_t listed = 0;
    for (const auto& t : w.themes.themes) {
      if (listed >= 5) break;
      if (!t.substantive || t.reverted) continue;
      ++listed;
      std::vector<std::string> refs;
      for (size_t i : t.entries) refs.push_back(escape_html(display_ref(w.entries[i].change)));
      themes += "<li><strong>" + escape_html(t.title) + "</strong>";
      if (!t.highlight.empty() && t.highlight != t.title) themes += " " + escape_html(t.highlight);
      themes += fmt::format(" ({})</li>", fmt::join(refs, ", "));
    }
    if (!themes.empty())
      html += fmt::format("<h3>{}</h3><ol>{}</ol>",
                          w.themes.source == "model"
                              ? (en ? "Themes (chosen by a model)" : "本周主题（模型选出）")
                              : (en ? "Themes (found by the analysis)" : "本周主题（静态分析归组）"),
                          themes);
    for (const auto& g : w.close_by_tag) {
      html += fmt::format("<h3>{}</h3><ul>", escape_html(g.tag.empty() ? "-" : g.tag));
      for (size_t i : g.entries) {
        const auto& e = w.entries[i];
        const std::string url = safe_url(e.change.url);
        html += "<li><strong>" + escape_html(e.headline) + "</strong>";
        if (!e.paragraph.empty()) html += "<br/>" + escape_html(e.paragraph);
        html += "<br/>" +
                (url.empty() ? escape_html(display_ref(e.change))
                             : fmt::format("<a href=\"{}\">{} {}</a>", escape_html(url),
                                           escape_html(tr(site.lang, "original_pr")),
                                           escape_html(display_ref(e.change)))) +
                " · " + escape_html(author_of(e.change.author)) + "</li>";
      }
      html += "</ul>";
    }
    if (!w.visible.empty()) {
      html += fmt::format("<p>{}</p><ul>",
                          en ? "Changed defaults and behaviour" : "默认值与用户可见行为的变化");
      for (const auto& v : w.visible)
        html += "<li>" + escape_html(display_ref(w.entries[v.entry].change)) + " " +
                escape_html(w.entries[v.entry].headline) + " · <code>" +
                escape_html(v.what.summary()) + "</code></li>";
      html += "</ul>";
    }
    out += fmt::format("    <content type=\"html\">{}</content>\n", xml(html));
    out += "  </entry>\n";
  }
  out += "</feed>\n";
  return out;
}

}  // namespace mergelens::web
