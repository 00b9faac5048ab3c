#include "mergelens/web/export.h"

#include <filesystem>
#include <fstream>
#include <set>

#include <fmt/format.h>

#include "mergelens/analysis/text/glossary.h"
#include "mergelens/web/digest.h"
#include "mergelens/web/render.h"

#include "mergelens/report/week.h"

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
  fs::path root;      // the scope's folder
  std::string scope;  // "" (the root's), "all" or "r/NAME"
  const Scopes& scopes;
  Lang lang;
  fs::path out;          // the export's root folder
  std::string base_url;  // the site's public address, empty when not given
  ExportStats stats;

  Site site(int depth) const {
    return Site{store, repo, tz, lang, Links::exported(lang, depth, scope), scopes, base_url};
  }

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
    // With a base URL the feed names itself by its path from the site's root.
    const std::string self = base_url.empty()
                                 ? fs::path(rel).filename().string()
                                 : (root / rel).lexically_relative(out).generic_string();
    auto xml = atom_feed(s, kind, tag, self);
    if (!xml) return std::unexpected(xml.error());
    ++stats.feeds;
    return write_file(root / rel, *xml);
  }

  // Every page of the scope: its days, its PRs (a repository's scope only),
  // the tag list, the tag pages and the feeds.
  Result<void> write_all(const std::string& since_day, UnixSeconds since) {
    const Site s0 = site(0);
    auto days = all_days(s0);
    if (!days) return std::unexpected(days.error());
    if (auto r = page(0, "index.html", day_page(s0, "")); !r) return r;
    for (const auto& d : *days) {
      if (!since_day.empty() && d < since_day) continue;
      if (auto r = page(1, fmt::format("day/{}.html", d), day_page(site(1), d)); !r) return r;
    }
    // Every week with changes, newest first (the newest also as
    // week/index.html, the page the navigation's "this week" opens), and
    // the week feed.
    std::string at;
    for (bool newest = true;; newest = false) {
      auto w = week_page(site(1), at);
      if (!w) return std::unexpected(w.error());
      const nlohmann::json& m = w->model;
      const std::string week = m.value("week", "");
      if (week.empty()) break;
      if (!since_day.empty() && m.value("until", "") < since_day) break;
      const std::string prev =
          m.contains("prev") && m["prev"].is_object() ? m["prev"]["week"].get<std::string>() : "";
      if (newest)
        if (auto r = page(1, "week/index.html", Result<Page>(*w)); !r) return r;
      if (auto r = page(1, fmt::format("week/{}.html", week), std::move(w)); !r) return r;
      if (prev.empty()) break;
      at = prev;
    }
    if (auto r = feed(0, "week.xml", FeedKind::kWeeks, ""); !r) return r;
    if (repo.id != kAllRepos) {
      ListQuery q;
      if (since != INT64_MIN) q.since = since;
      auto rows = store.list_changes(repo.id, q);
      if (!rows) return std::unexpected(rows.error());
      for (const auto& c : *rows) {
        const Site s1 = site(1);
        const std::string link = s1.links.pr(url_ref(c));  // "../pr/REF.html"
        if (auto r = page(1, link.substr(3), pr_page(s1, url_ref(c))); !r) return r;
      }
    }
    if (auto r = page(1, "tags/index.html", tags_page(site(1), "")); !r) return r;
    auto tag_stats = store.tag_stats(repo.id, 1);
    if (!tag_stats) return std::unexpected(tag_stats.error());
    if (auto r = feed(0, "feed.xml", FeedKind::kAll, ""); !r) return r;
    if (auto r = feed(1, "feed/close.xml", FeedKind::kCloseReads, ""); !r) return r;
    for (const auto& t : *tag_stats) {
      const Site s1 = site(1);
      const std::string link = s1.links.tag(t.name).substr(3);  // "tags/NAME.html"
      if (auto r = page(1, link, tag_page(s1, AggregateParams{t.name, "", "", "", ""})); !r)
        return r;
      const std::string f = site(2).links.feed_tag(t.name).substr(6);  // "feed/tags/..."
      if (auto r = feed(2, f, FeedKind::kTag, t.name); !r) return r;
    }
    return {};
  }
};

// The folder of `scope` under a language root ("r/o/r/", "all/", "").
fs::path scope_folder(const fs::path& lang_root, std::string_view scope) {
  // Links know the layout: the home page of the scope, seen from the root's
  // home page, is "<folder>index.html".
  const std::string home = Links::exported(Lang::kZh, 0).at(scope).home();
  return lang_root / home.substr(0, home.size() - std::string_view("index.html").size());
}

}  // namespace

Result<ExportStats> export_site(Store& store, const ExportOptions& o) {
  if (o.out.empty()) return fail(ErrorKind::kInvalidInput, "--out is required");
  auto tz = TimeZone::named(o.tz);
  if (!tz) return std::unexpected(tz.error());
  if (!o.since.empty()) {
    if (auto b = tz->day_bounds(o.since); !b) return wrap(b.error(), "--since");
  }
  for (const auto& code : o.langs)
    if (code != "zh" && code != "en")
      return fail(ErrorKind::kInvalidInput, "language must be zh or en, not \"{}\"", code);
  auto repos = store.list_repos();
  if (!repos) return std::unexpected(repos.error());
  Scopes scopes{*repos, kAllRepos};
  if (!o.repo.empty() || repos->size() < 2) {
    auto root = resolve_repo(store, o.repo);
    if (!root) return std::unexpected(root.error());
    scopes.root = root->id;
  }
  // What is written: the root first, then every other repository, then all
  // of them together (a store of one repository: the root only, as before).
  std::vector<std::int64_t> order{scopes.root};
  if (repos->size() > 1) {
    for (const auto& r : *repos)
      if (r.id != scopes.root) order.push_back(r.id);
    if (scopes.root != kAllRepos) order.push_back(kAllRepos);
  } else {
    scopes.repos.clear();  // no switcher, no repository labels
  }
  if (auto r = store.refresh_search_index(); !r) return std::unexpected(r.error());
  ExportStats total;
  auto base_url = site_base_url(o.base_url);
  if (!base_url) return std::unexpected(base_url.error());
  for (const auto& [file, at] :
       {std::pair{"style.css", "static/style.css"}, std::pair{"favicon.ico", "favicon.ico"}}) {
    const EmbeddedFile* f = embedded_file(file);
    if (auto r = write_file(fs::path(o.out) / at, f ? f->data : ""); !r)
      return std::unexpected(r.error());
  }
  UnixSeconds since = INT64_MIN;
  if (!o.since.empty()) since = tz->day_bounds(o.since)->first;
  for (const auto& code : o.langs) {
    const Lang lang = lang_from(code);
    const fs::path lang_root = lang == Lang::kEn ? fs::path(o.out) / "en" : fs::path(o.out);
    for (const std::int64_t id : order) {
      // From the store's list: a store of one repository keeps no scopes.
      const Scopes every{*repos, scopes.root};
      const RepoRecord* found = every.find(id);
      const RepoRecord repo = found ? *found : all_repos_record(lang);
      const std::string scope = scopes.scope_of(id);
      Exporter ex{store,     repo,   *tz,  scope_folder(lang_root, scope),
                  scope,     scopes, lang, fs::path(o.out),
                  *base_url, {}};
      if (auto r = ex.write_all(o.since, since); !r) return std::unexpected(r.error());
      total.pages += ex.stats.pages;
      total.feeds += ex.stats.feeds;
    }
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

// One entry of a digest in Markdown: "## N. headline", the paragraph, the
// verdict with scores and tags, the triage's reason, the original-PR line.
std::string md_entry(const Site& site, const DigestEntry& e, int n) {
  const Lang lang = site.lang;
  const std::string ref = md(display_ref(e.change));
  std::string out = fmt::format("\n## {}. {}\n\n", n, md_prose(e.headline));
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
  if (!e.triage_reason.empty())
    out += fmt::format("{} {}\n\n", md(tr(lang, "triage")), md_prose(e.triage_reason));
  const std::string url = safe_url(e.change.url);
  out += url.empty() ? fmt::format("{} {}", tr(lang, "original_pr"), ref)
                     : fmt::format("[{} {}](<{}>)", tr(lang, "original_pr"), ref, url);
  out += fmt::format(" · {} {} · {} {}\n", tr(lang, "author"), md(author_of(e.change.author)),
                     tr(lang, "merged_at"), site.tz.minute(e.change.merged_at));
  return out;
}

}  // namespace

Result<std::string> digest(Store& store, const RepoRecord& repo, std::string_view tz_name,
                           std::string_view lang_code_in, std::string_view date,
                           std::string_view format, const report::Filter* filter) {
  if (format != "md" && format != "json")
    return fail(ErrorKind::kInvalidInput, "--format must be md or json, not \"{}\"", format);
  if (lang_code_in != "zh" && lang_code_in != "en")
    return fail(ErrorKind::kInvalidInput, "--lang must be zh or en");
  auto tz = TimeZone::named(tz_name);
  if (!tz) return std::unexpected(tz.error());
  const Lang lang = lang_from(lang_code_in);
  Site site{store, repo, *tz, lang, Links::server(lang), {}, {}};
  site.filter = filter;
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
  // Whose judgment orders the day: the model's triage, or the analysis's.
  if (!d->entries.empty() && d->triaged < d->entries.size())
    out += fmt::format("\n{}\n", md(tr(lang, d->triaged == 0 ? "no_triage" : "part_triage")));
  std::string close;
  for (const auto& e : d->entries)
    if (e.change.verdict == "close_read") close += " " + md(display_ref(e.change));
  if (!close.empty()) out += fmt::format("\n{}{}\n", tr(lang, "close_links"), close);
  int n = 0;
  std::string skipped;
  for (const auto& e : d->entries) {
    if (e.change.verdict == "skip") {
      skipped += fmt::format("- {} {} · {}\n", md(display_ref(e.change)), md_prose(e.headline),
                             md(author_of(e.change.author)));
      continue;
    }
    out += md_entry(site, e, ++n);
  }
  if (!skipped.empty()) out += fmt::format("\n## {}\n\n{}", tr(lang, "skipped"), skipped);
  return out;
}

Result<std::string> week_digest(Store& store, const RepoRecord& repo, std::string_view lang_code_in,
                                std::string_view week, std::string_view format,
                                const report::Filter* filter) {
  if (format != "md" && format != "json")
    return fail(ErrorKind::kInvalidInput, "--format must be md or json, not \"{}\"", format);
  if (lang_code_in != "zh" && lang_code_in != "en")
    return fail(ErrorKind::kInvalidInput, "--lang must be zh or en");
  auto tz = TimeZone::named("UTC");  // weeks are UTC weeks
  if (!tz) return std::unexpected(tz.error());
  const Lang lang = lang_from(lang_code_in);
  Site site{store, repo, *tz, lang, Links::server(lang), {}, {}};
  site.filter = filter;
  auto page = week_page(site, week);
  if (!page) return std::unexpected(page.error());
  const nlohmann::json& m = page->model;
  if (format == "json") return m.dump(2) + "\n";
  auto w = report::load_week(store, repo.id, week, lang_code_in, filter);
  if (!w) return std::unexpected(w.error());
  std::string out = fmt::format("# {} · {} ({} – {})\n\n{}\n", md(repo.name), w->week,
                                m["since"].get<std::string>(), m["until"].get<std::string>(),
                                md(m["figures"].get<std::string>()));
  const auto& words = m["w"];
  int n = 0;
  if (!w->close_by_tag.empty())
    out += fmt::format("\n# {}\n", md(words["close_by_tag"].get<std::string>()));
  for (size_t g = 0; g < w->close_by_tag.size(); ++g) {
    out += fmt::format("\n### {}\n", md(m["groups"][g]["name"].get<std::string>()));
    for (size_t i : w->close_by_tag[g].entries) out += md_entry(site, w->entries[i], ++n);
  }
  if (!w->visible.empty()) {
    out += fmt::format("\n# {}\n\n", md(words["visible"].get<std::string>()));
    for (const auto& v : w->visible) {
      const auto& e = w->entries[v.entry];
      out += fmt::format("- {} {} · `{}`\n", md(display_ref(e.change)), md_prose(e.headline),
                         v.what.summary());
    }
  }
  if (!w->moves.empty()) {
    out += fmt::format("\n# {}\n\n", md(words["moves"].get<std::string>()));
    for (const auto& mv : m["moves"])
      out += fmt::format("- {} {} {} ({})\n", md(mv["name"].get<std::string>()),
                         mv["count"].get<std::int64_t>(), mv["mark"].get<std::string>(),
                         mv["previous"].get<std::string>());
  }
  return out;
}

}  // namespace mergelens::web
