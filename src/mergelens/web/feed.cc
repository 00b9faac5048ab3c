// Atom 1.0 feeds (RFC 4287): every PR, close reads only, and per tag. Each
// entry carries the digest paragraph (web/digest.h): as text in <summary>,
// and as escaped HTML in <content> with the tags and the original-PR line.
#include <fmt/format.h>

#include <algorithm>
#include <tuple>

#include "mergelens/analysis/text/glossary.h"
#include "mergelens/web/digest.h"

namespace mergelens::web {

namespace {

constexpr size_t kFeedEntries = 50;

std::string xml(std::string_view s) {
  return escape_html(clean_text(s));
}

std::string html_text(std::string_view s) {
  return escape_html(s);
}

std::string html_rich(const nlohmann::json& segs) {
  std::string out;
  for (const auto& seg : segs) {
    const std::string t = html_text(seg["t"].get<std::string>());
    out += seg["code"].get<bool>() ? "<code>" + t + "</code>" : t;
  }
  return out;
}

}  // namespace

Result<std::string> atom_feed(const Site& site, FeedKind kind, std::string_view tag,
                              std::string_view self) {
  if (kind == FeedKind::kWeeks) return week_feed(site, self);
  // A filtered feed reads further back to fill its entries.
  const size_t wanted = site.filter && !site.filter->empty() ? kFeedEntries * 10 : kFeedEntries;
  std::vector<ChangeSummary> rows;
  std::string title = site.repo.name, id_part = "all", kind_label;
  if (kind == FeedKind::kAll) {
    ListQuery q;
    q.limit = wanted;
    auto r = site.store.list_changes(site.repo.id, q);
    if (!r) return std::unexpected(r.error());
    rows = std::move(*r);
    kind_label = tr(site.lang, "feed_all");
  } else {
    AggregateQuery q;
    q.limit = wanted;
    q.top = 0;
    if (kind == FeedKind::kCloseReads) {
      q.verdict = "close_read";
      kind_label = tr(site.lang, "feed_close");
      id_part = "close";
    } else {
      if (tag.empty()) return fail(ErrorKind::kInvalidInput, "no tag given");
      q.tags = {std::string(tag)};
      if (auto known = known_tags(site, q.tags); !known) return std::unexpected(known.error());
      kind_label = tag_display_name(tag, lang_code(site.lang));
      id_part = "tag:" + url_encode(tag);
    }
    auto r = site.store.aggregate(site.repo.id, q);
    if (!r) return std::unexpected(r.error());
    rows = std::move(r->changes);
  }
  if (auto r = filter_rows(site, rows, kFeedEntries, title, id_part); !r)
    return std::unexpected(r.error());
  // Titled in words: "sglang · quantization, moe · selective reads and up".
  if (site.filter && !site.filter->empty())
    title = filtered_title(site, title, kind == FeedKind::kAll ? "" : kind_label);
  else
    title += " · " + kind_label;
  // Within a day, the model's order of that day when it triaged it.
  {
    std::vector<std::int64_t> ids;
    for (const auto& r : rows) ids.push_back(r.id);
    auto triage = site.store.triage_of(ids);
    if (!triage) return std::unexpected(triage.error());
    auto key = [&](const ChangeSummary& c) {
      auto t = triage->find(c.id);
      return t == triage->end() ? std::tuple(format_day(c.merged_at), 1, 0)
                                : std::tuple(t->second.day, 0, t->second.rank);
    };
    std::stable_sort(rows.begin(), rows.end(), [&](const ChangeSummary& a, const ChangeSummary& b) {
      auto ka = key(a), kb = key(b);
      if (std::get<0>(ka) != std::get<0>(kb)) return std::get<0>(ka) > std::get<0>(kb);
      if (std::get<1>(ka) != std::get<1>(kb)) return std::get<1>(ka) < std::get<1>(kb);
      if (std::get<2>(ka) != std::get<2>(kb)) return std::get<2>(ka) < std::get<2>(kb);
      return a.merged_at > b.merged_at;
    });
  }
  auto items = change_items(site, rows);
  if (!items) return std::unexpected(items.error());
  if (auto r = add_paragraphs(site, *items); !r) return std::unexpected(r.error());
  // The feed of every repository has its own id; each entry keeps its
  // repository's (the same entry in both feeds).
  const std::string repo_id = site.all() ? std::string("all") : url_encode(site.repo.name);
  // An empty feed is as new as the request (never 1970).
  UnixSeconds newest = rows.empty() ? UnixSeconds(time(nullptr)) : 0;
  for (const auto& r : rows) newest = std::max(newest, r.merged_at);
  std::string out = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n";
  out += fmt::format("<feed xmlns=\"http://www.w3.org/2005/Atom\" xml:lang=\"{}\">\n",
                     html_lang(site.lang));
  out += fmt::format("  <id>urn:mergelens:{}:{}:{}</id>\n", repo_id, id_part, lang_code(site.lang));
  out += fmt::format("  <title>{}</title>\n", xml(title));
  out += fmt::format("  <updated>{}</updated>\n", format_utc(newest));
  auto link = [&](std::string_view href) { return xml(absolute_url(site.base_url, self, href)); };
  const std::string self_url =
      site.base_url.empty()
          ? std::string(self)
          : site.base_url + (self.starts_with("/") ? "" : "/") + std::string(self);
  out += fmt::format("  <link rel=\"self\" type=\"application/atom+xml\" href=\"{}\"/>\n",
                     xml(self_url));
  // The page the feed follows: the tag's page for a tag feed, else the
  // latest day (filtered as the feed is).
  out +=
      fmt::format("  <link rel=\"alternate\" type=\"text/html\" href=\"{}\"/>\n",
                  link(kind == FeedKind::kTag ? site.links.tag(tag)
                                              : filtered_alternate(site, site.links.home(), "")));
  if (site.filter && !site.filter->empty())
    out += fmt::format("  <subtitle>{}</subtitle>\n", xml(filter_words(site.lang, *site.filter)));
  out += "  <author><name>mergelens</name></author>\n";
  out += "  <generator>mergelens</generator>\n";
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& s = rows[i];
    const auto& it = (*items)[i];
    out += "  <entry>\n";
    const std::string repo_name = it["repo_name"].get<std::string>();
    // One id per language: the zh and en entries say different things.
    out += fmt::format("    <id>urn:mergelens:{}:change:{}:{}</id>\n",
                       url_encode(site.repo_name(s.repo_id)), s.sha, lang_code(site.lang));
    out += fmt::format("    <title>{}{}</title>\n", xml(repo_name.empty() ? "" : repo_name + " · "),
                       xml(rich_plain(it["headline"].get<std::string>())));
    out += fmt::format("    <updated>{}</updated>\n", format_utc(s.merged_at));
    out += fmt::format("    <published>{}</published>\n", format_utc(s.merged_at));
    out += fmt::format("    <link rel=\"alternate\" type=\"text/html\" href=\"{}\"/>\n",
                       link(it["href"].get<std::string>()));
    if (const std::string url = safe_url(s.url); !url.empty())
      out += fmt::format("    <link rel=\"via\" href=\"{}\"/>\n", xml(url));
    out += fmt::format("    <author><name>{}</name></author>\n",
                       xml(author_of(s.author).empty() ? "unknown" : author_of(s.author)));
    for (const auto& t : it["tags"])
      out += fmt::format("    <category term=\"{}\" label=\"{}\"/>\n",
                         xml(t["tag"].get<std::string>()), xml(t["name"].get<std::string>()));
    // The summary is the digest paragraph as plain text (code spans without
    // their backticks); the content is the same entry as the day page shows it.
    std::string scores;
    if (!s.verdict.empty())
      scores = fmt::format("{} {} · {} {}", tr(site.lang, "importance"), s.importance,
                           tr(site.lang, "insight"), s.insight);
    const std::string paragraph = it["paragraph_text"].get<std::string>();
    std::string summary =
        fmt::format("{} · {}", verdict_label(site.lang, s.verdict),
                    rich_plain(paragraph.empty() ? clean_text(s.title) : paragraph));
    out += fmt::format("    <summary>{}</summary>\n", xml(summary));
    std::string html =
        fmt::format("<p><strong>{}</strong></p>", html_text(verdict_label(site.lang, s.verdict)));
    if (!paragraph.empty()) html += "<p>" + html_rich(it["paragraph"]) + "</p>";
    std::string tags;
    for (const auto& t : it["tags"])
      tags += (tags.empty() ? "" : " · ") + html_text(t["name"].get<std::string>());
    if (!tags.empty()) html += fmt::format("<p>{}: {}</p>", html_text(tr(site.lang, "tags")), tags);
    const std::string url = safe_url(s.url);
    const std::string ref = html_text(display_ref(s));
    html += "<p>" +
            (url.empty() ? fmt::format("{} {}", html_text(tr(site.lang, "original_pr")), ref)
                         : fmt::format("<a href=\"{}\">{} {}</a>", html_text(url),
                                       html_text(tr(site.lang, "original_pr")), ref)) +
            fmt::format(" · {} {} · {} {}", html_text(tr(site.lang, "author")),
                        html_text(it["author"].get<std::string>()),
                        html_text(tr(site.lang, "merged_at")),
                        html_text(it["merged"].get<std::string>()));
    if (!scores.empty()) html += " · " + html_text(scores);
    html += "</p>";
    out += fmt::format("    <content type=\"html\">{}</content>\n", xml(html));
    out += "  </entry>\n";
  }
  out += "</feed>\n";
  return out;
}

}  // namespace mergelens::web
