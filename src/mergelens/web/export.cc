#include "mergelens/web/export.h"

#include <filesystem>
#include <fstream>
#include <set>

#include <fmt/format.h>

#include "mergelens/analysis/glossary.h"
#include "mergelens/web/digest.h"
#include "mergelens/web/render.h"

namespace mergelens::web {

namespace {

namespace fs = std::filesystem;

Result<void> write_file(const fs::path& path, std::string_view data) {
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  if (ec)
    return fail(ErrorKind::kIo, "cannot create {}: {}", path.parent_path().string(), ec.message());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
  out.close();
  if (!out) return fail(ErrorKind::kIo, "cannot write {}", path.string());
  return {};
}

struct Exporter {
  Store& store;
  const RepoRecord& repo;
  const TimeZone& tz;
  fs::path root;  // the language root
  Lang lang;
  ExportStats stats;

  Site site(int depth) const { return Site{store, repo, tz, lang, Links::exported(lang, depth)}; }

  Result<void> page(int depth, const std::string& rel, Result<Page> p) {
    if (!p) return std::unexpected(p.error());
    const Site s = site(depth);
    auto html = render_page(s, *p, rel);
    if (!html) return std::unexpected(html.error());
    ++stats.pages;
    return write_file(root / rel, *html);
  }

  Result<void> feed(int depth, const std::string& rel, FeedKind kind, const std::string& tag) {
    const Site s = site(depth);
    auto xml = atom_feed(s, kind, tag, fs::path(rel).filename().string());
    if (!xml) return std::unexpected(xml.error());
    ++stats.feeds;
    return write_file(root / rel, *xml);
  }
};

}  // namespace

Result<ExportStats> export_site(Store& store, const RepoRecord& repo, const ExportOptions& o) {
  if (o.out.empty()) return fail(ErrorKind::kInvalidInput, "--out is required");
  auto tz = TimeZone::named(o.tz);
  if (!tz) return std::unexpected(tz.error());
  if (!o.since.empty()) {
    if (auto b = tz->day_bounds(o.since); !b) return wrap(b.error(), "--since");
  }
  if (auto r = store.refresh_search_index(); !r) return std::unexpected(r.error());
  ExportStats total;
  const EmbeddedFile* css = embedded_file("style.css");
  if (auto r = write_file(fs::path(o.out) / "static" / "style.css", css ? css->data : ""); !r)
    return std::unexpected(r.error());
  for (const auto& code : o.langs) {
    if (code != "zh" && code != "en")
      return fail(ErrorKind::kInvalidInput, "language must be zh or en, not \"{}\"", code);
    const Lang lang = lang_from(code);
    Exporter ex{store, repo, *tz, lang == Lang::kEn ? fs::path(o.out) / "en" : fs::path(o.out),
                lang,  {}};
    const Site s0 = ex.site(0);
    auto days = all_days(s0);
    if (!days) return std::unexpected(days.error());
    if (auto r = ex.page(0, "index.html", day_page(s0, "")); !r) return std::unexpected(r.error());
    UnixSeconds since = INT64_MIN;
    if (!o.since.empty()) since = tz->day_bounds(o.since)->first;
    for (const auto& d : *days) {
      if (!o.since.empty() && d < o.since) continue;
      const Site s1 = ex.site(1);
      if (auto r = ex.page(1, fmt::format("day/{}.html", d), day_page(s1, d)); !r)
        return std::unexpected(r.error());
    }
    ListQuery q;
    if (since != INT64_MIN) q.since = since;
    auto rows = store.list_changes(repo.id, q);
    if (!rows) return std::unexpected(rows.error());
    for (const auto& c : *rows) {
      const Site s1 = ex.site(1);
      const std::string link = s1.links.pr(url_ref(c));  // "../pr/REF.html"
      if (auto r = ex.page(1, link.substr(3), pr_page(s1, url_ref(c))); !r)
        return std::unexpected(r.error());
    }
    if (auto r = ex.page(1, "tags/index.html", tags_page(ex.site(1), "")); !r)
      return std::unexpected(r.error());
    auto stats = store.tag_stats(repo.id, 1);
    if (!stats) return std::unexpected(stats.error());
    if (auto r = ex.feed(0, "feed.xml", FeedKind::kAll, ""); !r) return std::unexpected(r.error());
    if (auto r = ex.feed(1, "feed/close.xml", FeedKind::kCloseReads, ""); !r)
      return std::unexpected(r.error());
    for (const auto& t : *stats) {
      const Site s1 = ex.site(1);
      const std::string link = s1.links.tag(t.name).substr(3);  // "tags/NAME.html"
      if (auto r = ex.page(1, link, tag_page(s1, AggregateParams{t.name, "", "", "", ""})); !r)
        return std::unexpected(r.error());
      const std::string feed = ex.site(2).links.feed_tag(t.name).substr(6);  // "feed/tags/..."
      if (auto r = ex.feed(2, feed, FeedKind::kTag, t.name); !r) return std::unexpected(r.error());
    }
    total.pages += ex.stats.pages;
    total.feeds += ex.stats.feeds;
  }
  return total;
}

namespace {

// Markdown text with raw HTML and link syntax neutralised.
std::string md(std::string_view s) {
  std::string out;
  for (char c : clean_text(s)) {
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '[':
      case ']':
      case '*':
      case '_':
      case '`':
      case '\\':
      case '|':
        out += '\\';
        out += c;
        break;
      case '\n':
        out += ' ';
        break;
      default:
        out += c;
    }
  }
  return out;
}

// Guide prose as Markdown: its `code spans` (paths, identifiers) stay code
// spans, the rest is escaped as md() does. A span holding <, > or & is
// escaped too, so no raw HTML reaches a renderer that does not follow
// CommonMark's rule that code spans are literal.
std::string md_prose(std::string_view s) {
  std::string out;
  size_t i = 0;
  while (i < s.size()) {
    const size_t open = s.find('`', i);
    const size_t close = open == std::string_view::npos ? open : s.find('`', open + 1);
    if (close == std::string_view::npos) break;
    out += md(s.substr(i, open - i));
    const std::string_view code = s.substr(open + 1, close - open - 1);
    if (code.empty() || code.find_first_of("<>&\n") != std::string_view::npos)
      out += md(s.substr(open, close - open + 1));
    else
      out += "`" + clean_text(code) + "`";
    i = close + 1;
  }
  out += md(s.substr(std::min(i, s.size())));
  return out;
}

}  // namespace

Result<std::string> digest(Store& store, const RepoRecord& repo, std::string_view tz_name,
                           std::string_view lang_code_in, std::string_view date,
                           std::string_view format) {
  if (format != "md" && format != "json")
    return fail(ErrorKind::kInvalidInput, "--format must be md or json, not \"{}\"", format);
  if (lang_code_in != "zh" && lang_code_in != "en")
    return fail(ErrorKind::kInvalidInput, "--lang must be zh or en");
  auto tz = TimeZone::named(tz_name);
  if (!tz) return std::unexpected(tz.error());
  const Lang lang = lang_from(lang_code_in);
  const Site site{store, repo, *tz, lang, Links::server(lang)};
  if (date.empty()) return fail(ErrorKind::kInvalidInput, "--date is required");
  if (format == "json") {
    auto page = day_page(site, date);
    if (!page) return std::unexpected(page.error());
    return page->model.dump(2) + "\n";
  }
  auto d = day_digest(site, date);
  if (!d) return std::unexpected(d.error());
  std::string out =
      fmt::format("# {} · {}\n\n{}\n", md(repo.name), d->date, md(day_figures(lang, *d)));
  std::string close;
  for (const auto& e : d->entries)
    if (e.change.verdict == "close_read") close += " " + md(display_ref(e.change));
  if (!close.empty()) out += fmt::format("\n{}{}\n", tr(lang, "close_links"), close);
  int n = 0;
  std::string skipped;
  for (const auto& e : d->entries) {
    const std::string ref = md(display_ref(e.change));
    if (e.change.verdict == "skip") {
      skipped +=
          fmt::format("- {} {} · {}\n", ref, md_prose(e.headline), md(author_of(e.change.author)));
      continue;
    }
    out += fmt::format("\n## {}. {}\n\n", ++n, md_prose(e.headline));
    if (!e.paragraph.empty()) out += md_prose(e.paragraph) + "\n\n";
    std::string line = fmt::format("**{}**", md(verdict_label(lang, e.change.verdict)));
    if (!e.change.verdict.empty())
      line += fmt::format(" · {} {} · {} {}", tr(lang, "importance"), e.change.importance,
                          tr(lang, "insight"), e.change.insight);
    if (!e.tags.empty()) {
      line += fmt::format(" · {}{}", tr(lang, "tags"), lang == Lang::kEn ? ": " : "：");
      for (size_t i = 0; i < e.tags.size(); ++i)
        line += (i ? " · " : "") + md(tag_display_name(e.tags[i], lang_code(lang)));
    }
    out += line + "\n\n";
    const std::string url = safe_url(e.change.url);
    out += url.empty() ? fmt::format("{} {}", tr(lang, "original_pr"), ref)
                       : fmt::format("[{} {}](<{}>)", tr(lang, "original_pr"), ref, url);
    out += fmt::format(" · {} {} · {} {}\n", tr(lang, "author"), md(author_of(e.change.author)),
                       tr(lang, "merged_at"), site.tz.minute(e.change.merged_at));
  }
  if (!skipped.empty()) out += fmt::format("\n## {}\n\n{}", tr(lang, "skipped"), skipped);
  return out;
}

}  // namespace mergelens::web
