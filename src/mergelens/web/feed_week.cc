// Feeds for readers with a filter, and the week feed (one entry per ISO
// week): the parts of feed.cc that issue 24 added, kept apart.
#include <fmt/format.h>

#include "mergelens/analysis/text/glossary.h"
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
  (void)title;  // filtered_title names the filter in words
  id_part += ":" + url_encode(site.filter->query());
  return {};
}

std::string filter_words(Lang lang, const report::Filter& f) {
  const bool en = lang == Lang::kEn;
  std::vector<std::string> parts;
  auto list = [](const std::vector<std::string>& v) {
    std::string out;
    for (const auto& x : v) out += (out.empty() ? "" : ", ") + x;
    return out;
  };
  if (!f.tags.empty()) {
    std::vector<std::string> names;
    for (const auto& t : f.tags) names.push_back(tag_display_name(t, lang_code(lang)));
    parts.push_back(list(names));
  }
  if (!f.paths.empty()) parts.push_back((en ? "files " : "文件 ") + list(f.paths));
  if (!f.labels.empty()) parts.push_back((en ? "labels " : "标签 ") + list(f.labels));
  if (!f.authors.empty()) parts.push_back((en ? "by " : "作者 ") + list(f.authors));
  if (!f.min_verdict.empty()) {
    static const std::pair<const char*, std::pair<const char*, const char*>> kMin[] = {
        {"close_read", {"仅值得精读", "close reads only"}},
        {"selective_read", {"选读及以上", "selective reads and up"}},
        {"skim", {"浏览及以上", "skims and up"}},
        {"skip", {"全部结论", "every verdict"}}};
    for (const auto& [v, words] : kMin)
      if (f.min_verdict == v) parts.push_back(en ? words.second : words.first);
  }
  if (f.min_importance > 0)
    parts.push_back(en ? fmt::format("importance {} and up", f.min_importance)
                       : fmt::format("重要度 {} 及以上", f.min_importance));
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : " · ") + p;
  return out;
}

std::string filtered_title(const Site& site, std::string base, std::string_view kind) {
  if (!site.filter || site.filter->empty()) return base;
  if (!kind.empty()) base += " · " + std::string(kind);
  if (!site.filter_name.empty()) return base + " · " + site.filter_name;
  return base + " · " + filter_words(site.lang, *site.filter);
}

std::string filtered_alternate(const Site& site, std::string href, std::string_view page) {
  if (!site.filter_name.empty() && !site.links.is_static()) {
    // "/s/NAME" for the home (the server redirects "/s/NAME/" there).
    std::string out = "/s/" + url_encode(site.filter_name);
    if (!page.empty()) out += "/" + std::string(page);
    if (const size_t q = href.find("lang="); q != std::string::npos) out += "?" + href.substr(q, 7);
    return out;
  }
  return with_filter(site, std::move(href));
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
  const std::string title =
      filtered_title(site, site.repo.name + " · " + (en ? "Weekly" : "每周"), "");
  auto link = [&](std::string_view href) { return xml(absolute_url(site.base_url, self, href)); };
  const std::string self_url =
      site.base_url.empty()
          ? std::string(self)
          : site.base_url + (self.starts_with("/") ? "" : "/") + std::string(self);
  std::string out = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n";
  out += fmt::format("<feed xmlns=\"http://www.w3.org/2005/Atom\" xml:lang=\"{}\">\n",
                     html_lang(site.lang));
  out += fmt::format("  <id>urn:mergelens:{}:weeks{}:{}</id>\n", repo_id,
                     filter.empty() ? "" : ":" + url_encode(filter), lang);
  out += fmt::format("  <title>{}</title>\n", xml(title));
  if (site.filter && !site.filter->empty())
    out += fmt::format("  <subtitle>{}</subtitle>\n", xml(filter_words(site.lang, *site.filter)));
  out += fmt::format(
      "  <updated>{}</updated>\n",
      format_utc(weeks.empty() ? UnixSeconds(time(nullptr))
                               : std::min(weeks.front().until, UnixSeconds(time(nullptr)))));
  out += fmt::format("  <link rel=\"self\" type=\"application/atom+xml\" href=\"{}\"/>\n",
                     xml(self_url));
  // The page the feed follows: the newest week's.
  out += fmt::format("  <link rel=\"alternate\" type=\"text/html\" href=\"{}\"/>\n",
                     link(filtered_alternate(site, site.links.week_latest(), "week")));
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
                       link(filtered_alternate(site, site.links.week(w.week), "week/" + w.week)));
    const std::string figures = week_figures(site.lang, w);
    out += fmt::format("    <summary>{}</summary>\n", xml(figures));
    // The content: the week's close reads by tag, each with its digest
    // paragraph and original-PR line as on the day page (code spans as
    // <code>: no Markdown reaches the reader).
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
      themes += "<li><strong>" + rich_html(t.title) + "</strong>";
      if (!t.highlight.empty() && t.highlight != t.title) themes += " " + rich_html(t.highlight);
      themes += fmt::format(" ({})</li>", fmt::join(refs, ", "));
    }
    if (!themes.empty())
      html +=
          fmt::format("<h3>{}</h3><ol>{}</ol>",
                      w.themes.source == "model"
                          ? (en ? "Themes (chosen by a model)" : "本周主题（模型选出）")
                          : (en ? "Themes (found by the analysis)" : "本周主题（静态分析归组）"),
                      themes);
    for (const auto& g : w.close_by_tag) {
      html += fmt::format("<h3>{}</h3><ul>",
                          escape_html(g.tag.empty() ? (en ? "Untagged" : "未分类")
                                                    : clean_text(tag_display_name(g.tag, lang))));
      for (size_t i : g.entries) {
        const auto& e = w.entries[i];
        const std::string url = safe_url(e.change.url);
        html += "<li><strong>" + rich_html(e.headline) + "</strong>";
        if (!e.paragraph.empty()) html += "<br/>" + rich_html(e.paragraph);
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
                rich_html(w.entries[v.entry].headline) + " · <code>" +
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
