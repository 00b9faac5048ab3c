// Static export: the server's pages as files with relative links, so a
// digest can be published on any static host (no search page: it needs the
// server). Chinese pages at the root, English ones under en/.
//
//   index.html            the newest day      day/YYYY-MM-DD.html
//   pr/REF.html           REF = number or sha tags/index.html, tags/TAG.html
//   feed.xml, feed/close.xml, feed/tags/TAG.xml   static/style.css
//
// A store of several repositories is written whole, laid out as the server
// lays it out: the root repository's pages as above (or, when none is
// named, every repository's together), each other repository's the same
// way under r/OWNER/NAME/, the cross-repository ones under all/ (their
// day pages, tags and feeds; PR pages live in each repository's folder).
#pragma once

#include <string>
#include <vector>

#include "mergelens/report/filter.h"
#include "mergelens/store/store.h"
#include "mergelens/util/error.h"

namespace mergelens::web {

struct ExportOptions {
  std::string out;   // folder, created when missing
  std::string repo;  // the root repository; empty: the only one, or with several all together
  std::string tz = "UTC";
  std::vector<std::string> langs = {"zh", "en"};
  std::string since;  // only days (and their PRs) on or after this date, empty: all
  // Where the site will be published ("https://example.org/digest"): the
  // feeds' links are absolute under it. Empty: they stay relative.
  std::string base_url;
};

struct ExportStats {
  size_t pages = 0;  // HTML files
  size_t feeds = 0;
};

// Writes the site of every repository of the store. kInvalidInput for a bad
// option, kNotFound for an unknown `repo` or an empty store, kIo when a file
// cannot be written.
Result<ExportStats> export_site(Store& store, const ExportOptions& options);

// One day's digest for posting elsewhere: "md" (Markdown, raw HTML in
// titles neutralised) or "json" (the day page's view model). With
// `filter`, only what passes it (the figures say what was left out).
Result<std::string> digest(Store& store, const RepoRecord& repo, std::string_view tz,
                           std::string_view lang, std::string_view date, std::string_view format,
                           const report::Filter* filter = nullptr);

// One ISO week's digest ("2026-W48"; empty: the newest week): "md" (close
// reads by tag in the day's entry form, changed defaults, tag movement) or
// "json" (the week page's view model, report::week_json under "data").
// kInvalidInput for a bad format, language or week.
Result<std::string> week_digest(Store& store, const RepoRecord& repo, std::string_view lang,
                                std::string_view week, std::string_view format,
                                const report::Filter* filter = nullptr);

}  // namespace mergelens::web
