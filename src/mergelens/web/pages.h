// The pages: each page family (pages_*.cc, search.cc) turns a request into a
// view model, a JSON value that is both the body of /api/... and the data of
// the page's template (render.h). Links inside a view model come from
// `Links`, so the same model serves the live server (absolute paths with
// ?lang=en) and the static export (relative .html paths).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "mergelens/report/filter.h"
#include "mergelens/store/store.h"
#include "mergelens/util/error.h"
#include "mergelens/util/http.h"
#include "mergelens/web/i18n.h"
#include "mergelens/web/tz.h"

namespace mergelens::web {

// Where pages live. A site shows one repository or several: the pages of
// its *root* (the repository `--repo` names, the only one, or with several
// and none named every repository together) are at the site's root, as they
// always were; another repository's pages live under "r/NAME/" and the
// cross-repository pages under "all/" (a scope, below). Links are made for
// pages of one scope (`at`), from a page of one scope (the static export's
// relative links climb out of it).
class Links {
 public:
  // Live server: "/day/2026-09-16", with "?lang=xx" appended when `lang` is
  // not the server's default language. `root` is the path the site is
  // published under ("/ml" for --base-url https://host/ml; empty at a host's
  // root): every page, asset and form link starts with it.
  static Links server(Lang lang, Lang default_lang = Lang::kZh, std::string_view root = {});
  // Static export: relative links from a page `depth` folders below its
  // scope's folder (`scope`: "" the root, "all", "r/NAME"), itself under its
  // language root; English pages live under en/.
  static Links exported(Lang lang, int depth, std::string_view scope = "");
  // The same links, to the pages of `scope` ("" the root, "all" or
  // "r/NAME"; see Scopes::scope_of).
  Links at(std::string_view scope) const;

  bool is_static() const { return static_; }
  std::string home() const;
  std::string day(std::string_view date) const;
  std::string week(std::string_view iso_week) const;  // "/week/2026-W48"
  std::string week_latest() const;                    // "/week": the newest week
  std::string pr(std::string_view ref) const;
  std::string tags(std::string_view sort = "") const;
  // One tag or several combined ("quantization,moe").
  std::string tag(std::string_view names) const;
  std::string search(std::string_view q = "") const;  // empty in a static export
  // A form's action on the server: `path` ("/search") in the scope, without
  // the language (a hidden field carries it); empty in a static export.
  std::string action(std::string_view path) const;
  std::string css() const;
  std::string favicon() const;  // the site's icon (/favicon.ico, or the export's own copy)
  std::string feed_all() const;
  std::string feed_close() const;
  std::string feed_tag(std::string_view tag) const;
  std::string feed_week() const;  // "/week.xml": one entry per week
  // The same page in the other language: `self` is the server path without
  // query, scope included ("/r/o/r/day/2026-09-16"), or the export path in
  // the page's scope ("day/2026-09-16.html").
  std::string other_lang(std::string_view self, std::string_view query = "") const;

 private:
  std::string page(std::string_view path_server, std::string_view path_static) const;
  std::string up() const;  // static: from the page to its language root
  Lang lang_ = Lang::kZh, default_ = Lang::kZh;
  bool static_ = false;
  int depth_ = 0;
  std::string root_;   // the server's path prefix ("/ml"), empty at the root
  std::string here_;   // the scope of the page the links are on (static export)
  std::string there_;  // the scope of the pages linked to
};

// The repositories of a site and where the pages of each one live.
struct Scopes {
  std::vector<RepoRecord> repos;  // every repository of the store, by name
  std::int64_t root = 0;          // whose pages are at the root: a repository, or kAllRepos
  // "" for the root's pages, "all" for kAllRepos, else "r/" + the name.
  std::string scope_of(std::int64_t repo_id) const;
  // nullptr when the id is not a repository of `repos`.
  const RepoRecord* find(std::int64_t repo_id) const;
  // The repository whose scope `path` starts with ("/r/NAME/..." or
  // "/all/..."; the longest name that matches whole segments), with the
  // rest of the path ("/" when nothing is left); nullopt for a path outside
  // every scope (the root's pages). kAllRepos for "/all".
  struct Match {
    std::int64_t repo_id = kAllRepos;
    std::string prefix;  // the matched part as requested ("/r/o/r")
    std::string rest;
  };
  std::optional<Match> match(std::string_view path) const;
};

// What every page needs.
struct Site {
  Store& store;
  // The repository shown; id kAllRepos (with the name "all repositories" in
  // the site's language): every repository of `scopes` together.
  RepoRecord repo;
  const TimeZone& tz;
  Lang lang = Lang::kZh;
  Links links;  // to the pages of the site's own scope
  // Every repository (the switcher, each entry's repository on the pages of
  // every repository); empty for a site of one repository, which then has
  // no switcher and keeps everything at the root.
  Scopes scopes;
  // The site's public address ("https://example.org/digest", no trailing
  // '/'), for the absolute links of feeds; empty when unknown (an export
  // without --base-url keeps them relative).
  std::string base_url;
  // A reader's filter (report/filter.h) for the day, the week and the
  // feeds; nullptr: every change. Not owned.
  const report::Filter* filter = nullptr;
  // The name of the subscription `filter` comes from (/s/NAME/...; empty: a
  // filter in the query, or none): feeds are titled by it.
  std::string filter_name{};

  bool all() const { return repo.id == kAllRepos; }
  // Links to the pages of the repository `repo_id` belongs to: the site's
  // own, except on the pages of every repository.
  Links links_of(std::int64_t repo_id) const;
  // The name of repository `repo_id` (empty when unknown).
  std::string repo_name(std::int64_t repo_id) const;
};

// The site of every repository's pages together: `repo` named "all
// repositories" in `lang`, id kAllRepos.
RepoRecord all_repos_record(Lang lang);

struct Page {
  std::string template_name;  // "day", "pr", "tags", "tag", "search", "message"
  std::string title;          // the <title>
  nlohmann::json model;       // the view model
};

// Daily digest. `date` empty: the newest day with changes. kInvalidInput for
// a malformed date; a valid day without changes is a page saying so.
Result<Page> day_page(const Site& site, std::string_view date);
// The newest local day with changes, empty when the store has none.
Result<std::string> latest_day(const Site& site);
// Every local day with changes, newest first (for the export).
Result<std::vector<std::string>> all_days(const Site& site);

// The week page (/week/YYYY-Www; empty: the newest week with changes): the
// week's close reads grouped by tag with the day page's entries, the tags'
// movement, changed defaults and behaviour (report/week.h). With
// Site::filter, only what passes it, saying what was left out.
// kInvalidInput for a malformed week.
Result<Page> week_page(const Site& site, std::string_view week);

// A filtered page's link `href` with the site's filter query appended (as
// given: the filter makes a shareable URL); `href` unchanged without one.
std::string with_filter(const Site& site, std::string href);

// PR page: `ref` is a PR number or a sha prefix. kNotFound when unknown, and
// on the site of every repository (a PR page belongs to one repository).
Result<Page> pr_page(const Site& site, std::string_view ref);

// Tag list, sorted by "count" (default) or "name".
Result<Page> tags_page(const Site& site, std::string_view sort);

struct AggregateParams {
  std::string tags;  // "quantization" or "quantization,moe"
  std::string from, to, verdict, min;
};
// The store query of an aggregation: the tags split on commas (trimmed,
// without repeats), the days as local days of the site's time zone. kInvalidInput
// naming the filter for no tag, a malformed day, verdict or minimum score.
Result<AggregateQuery> aggregate_query(const Site& site, const AggregateParams& params);
// Aggregated results. kInvalidInput for bad filters.
Result<Page> tag_page(const Site& site, const AggregateParams& params);

// Succeeds when every tag of `tags` is on some change of the site's
// repository; kNotFound naming the first that is not (pages, feeds and the
// API answer 404 for an unknown tag).
Result<void> known_tags(const Site& site, const std::vector<std::string>& tags);

// Search results; kInvalidInput (with a message for the reader) for a
// malformed query.
Result<Page> search_page(const Site& site, std::string_view q);

// A page with one message (errors), in the site's language.
Page message_page(const Site& site, std::string_view title_key, std::string_view detail);

// kWeeks: one entry per week (the week's close reads and changed defaults).
enum class FeedKind { kAll, kCloseReads, kTag, kWeeks };
// Atom 1.0. `self` is the feed's own path from the site's root, as the
// reader fetches it ("/feed.xml?lang=en" on the server, "en/feed.xml" in an
// export); with `site.base_url` every link of the feed is absolute.
// kNotFound for an unknown tag.
Result<std::string> atom_feed(const Site& site, FeedKind kind, std::string_view tag,
                              std::string_view self);

// The week feed (FeedKind::kWeeks): the eight newest weeks, one entry each
// (figures, close reads by tag, changed defaults), filtered by Site::filter.
Result<std::string> week_feed(const Site& site, std::string_view self);
// A reader's filter in words, for feed titles: "quantization, moe ·
// selective reads and up" (tags by their names in `lang`, paths, labels,
// authors, the minimum); empty for a filter with no criterion.
std::string filter_words(Lang lang, const report::Filter& filter);
// A filtered feed's title: "REPO · NAME" for a named subscription, else
// "REPO · WORDS" (with `kind`, e.g. "Weekly", between them when not empty);
// `base` unchanged without a filter.
std::string filtered_title(const Site& site, std::string base, std::string_view kind);
// The page a filtered feed follows: /s/NAME/`page` for a named
// subscription, else `href` with the filter's query.
std::string filtered_alternate(const Site& site, std::string href, std::string_view page);

// With Site::filter: keeps the rows passing it (at most `keep`, in order)
// and names the filter in the feed's `title` and `id_part`; unchanged
// without one. Store errors pass through.
Result<void> filter_rows(const Site& site, std::vector<ChangeSummary>& rows, size_t keep,
                         std::string& title, std::string& id_part);

// --- helpers shared by the page families (view.cc) ---

// A --base-url / site_url checked: an http(s) URL with a host, returned
// without its trailing '/'; empty stays empty. kInvalidInput otherwise.
Result<std::string> site_base_url(std::string_view url);

// Links taken from stored data go through http::safe_url (util/http.h): an
// absolute http(s) URL, or empty.
using http::safe_url;
// Percent-encodes everything but unreserved characters (and '/' when `path`).
std::string url_encode(std::string_view s, bool path = false);
// clean_utf8_text (util/utf8.h): strict UTF-8 (encoded surrogates and overlong
// forms too) with U+FFFD for what is invalid, C0 controls except \n and \t
// dropped: safe as XML 1.0 text once escaped.
std::string clean_text(std::string_view s);
// `s` with &, <, >, " and ' as character references: safe as HTML or XML
// text and inside a quoted attribute.
std::string escape_html(std::string_view s);
// Text with `backticked` spans split out: [{"t": "...", "code": bool}, ...].
nlohmann::json rich(std::string_view text);
// The same text as HTML (code spans in <code>, everything escaped), and as
// plain text (code spans without their backticks), for feeds: no Markdown
// reaches a reader.
std::string rich_html(std::string_view text);
std::string rich_plain(std::string_view text);
// `href` as an absolute URL for a feed: as it is when already one; a server
// path ("/day/x") under `base` (which may end in a path: "https://h/ml"); a
// relative export link ("../day/x.html") resolved from the folder of `self`
// (the feed's path from the site's root). Unchanged when `base` is empty.
std::string absolute_url(std::string_view base, std::string_view self, std::string_view href);
// "#1234" or the 12-character short sha; `url_ref` is the form used in links:
// the number, or the short sha when a newer change carries the same number
// (ChangeSummary::number_reused).
std::string display_ref(const ChangeSummary& s);
std::string url_ref(const ChangeSummary& s);
// Lines `start`-`end` of `path` at the change's commit on the site's
// repository host (GitHub's blob URL with #L anchors); empty when the
// repository has no web address or `start` is not a line.
std::string blob_url(const Site& site, const Change& c, const std::string& path, int start,
                     int end);
// The author as shown: login when known, else the name.
std::string author_of(const Person& p);
// One list entry of a change (day, tag and search pages, feeds).
nlohmann::json change_item(const Site& site, const ChangeSummary& s,
                           const std::vector<std::string>& tags, const std::string& headline);
// Headlines in the site's language (else any language) and tags of `rows`,
// as list entries, in the order given.
Result<nlohmann::json> change_items(const Site& site, const std::vector<ChangeSummary>& rows);

}  // namespace mergelens::web
