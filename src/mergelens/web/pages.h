// The pages: each page family (pages_*.cc, search.cc) turns a request into a
// view model, a JSON value that is both the body of /api/... and the data of
// the page's template (render.h). Links inside a view model come from
// `Links`, so the same model serves the live server (absolute paths with
// ?lang=en) and the static export (relative .html paths).
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "mergelens/store/store.h"
#include "mergelens/util/error.h"
#include "mergelens/web/i18n.h"
#include "mergelens/web/tz.h"

namespace mergelens::web {

class Links {
 public:
  // Live server: "/day/2026-09-16", with "?lang=xx" appended when `lang` is
  // not the server's default language.
  static Links server(Lang lang, Lang default_lang = Lang::kZh);
  // Static export: relative links from a page `depth` folders below its
  // language root; English pages live under en/.
  static Links exported(Lang lang, int depth);

  bool is_static() const { return static_; }
  std::string home() const;
  std::string day(std::string_view date) const;
  std::string pr(std::string_view ref) const;
  std::string tags(std::string_view sort = "") const;
  // One tag or several combined ("quantization,moe").
  std::string tag(std::string_view names) const;
  std::string search(std::string_view q = "") const;  // empty in a static export
  std::string css() const;
  std::string feed_all() const;
  std::string feed_close() const;
  std::string feed_tag(std::string_view tag) const;
  // The same page in the other language: `self` is the server path without
  // query ("/day/2026-09-16") or the export path ("day/2026-09-16.html").
  std::string other_lang(std::string_view self, std::string_view query = "") const;

 private:
  std::string page(std::string_view path_server, std::string_view path_static) const;
  Lang lang_ = Lang::kZh, default_ = Lang::kZh;
  bool static_ = false;
  int depth_ = 0;
};

// What every page needs.
struct Site {
  Store& store;
  RepoRecord repo;
  const TimeZone& tz;
  Lang lang = Lang::kZh;
  Links links;
};

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

// PR page: `ref` is a PR number or a sha prefix. kNotFound when unknown.
Result<Page> pr_page(const Site& site, std::string_view ref);

// Tag list, sorted by "count" (default) or "name".
Result<Page> tags_page(const Site& site, std::string_view sort);

struct AggregateParams {
  std::string tags;  // "quantization" or "quantization,moe"
  std::string from, to, verdict, min;
};
// Aggregated results. kInvalidInput for bad filters.
Result<Page> tag_page(const Site& site, const AggregateParams& params);

// Search results; kInvalidInput (with a message for the reader) for a
// malformed query.
Result<Page> search_page(const Site& site, std::string_view q);

// A page with one message (errors), in the site's language.
Page message_page(const Site& site, std::string_view title_key, std::string_view detail);

enum class FeedKind { kAll, kCloseReads, kTag };
// Atom 1.0. `self` is the feed's own address as the reader fetches it.
Result<std::string> atom_feed(const Site& site, FeedKind kind, std::string_view tag,
                              std::string_view self);

// --- helpers shared by the page families (view.cc) ---

// `url` when it is an absolute http(s) URL without control characters,
// otherwise empty (so javascript: and data: links are never emitted).
std::string safe_url(std::string_view url);
// Percent-encodes everything but unreserved characters (and '/' when `path`).
std::string url_encode(std::string_view s, bool path = false);
// Replaces invalid UTF-8 with U+FFFD and drops C0 controls except \n and \t.
std::string clean_text(std::string_view s);
// `s` with &, <, >, " and ' as character references: safe as HTML or XML
// text and inside a quoted attribute.
std::string escape_html(std::string_view s);
// Text with `backticked` spans split out: [{"t": "...", "code": bool}, ...].
nlohmann::json rich(std::string_view text);
// "#1234" or the 12-character short sha; `url_ref` is the form used in links.
std::string display_ref(const ChangeSummary& s);
std::string url_ref(const ChangeSummary& s);
// The author as shown: login when known, else the name.
std::string author_of(const Person& p);
// One list entry of a change (day, tag and search pages, feeds).
nlohmann::json change_item(const Site& site, const ChangeSummary& s,
                           const std::vector<std::string>& tags, const std::string& headline);
// Headlines in the site's language (else any language) and tags of `rows`,
// as list entries, in the order given.
Result<nlohmann::json> change_items(const Site& site, const std::vector<ChangeSummary>& rows);

}  // namespace mergelens::web
