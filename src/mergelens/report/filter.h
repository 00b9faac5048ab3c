// A reader's filter: which entries of a digest, a week, a feed or a delivery
// one reader wants. It combines
//   tags     tag names as stored ("quantization"); an entry carrying any of them
//   paths    path globs (analysis/glob.h); an entry touching a file any matches
//   labels   GitHub labels, case-insensitive; an entry carrying any of them
//   authors  logins or names, case-insensitive; an entry by any of them
//   min      a verdict ("selective_read": that much reading or more) or an
//            importance 1-10 ("7": importance 7 or more)
//   lang     the language the reader reads ("zh" or "en"; empty: the site's)
// An entry passes when it satisfies every criterion given (any value of a
// list). A filter with no criterion passes everything.
//
// The same filter is written three ways:
//   URL query    tags=quantization,moe&paths=python/sglang/srt/layers/**&min=selective_read
//   TOML table   { tags = ["quantization", "moe"], min = "selective_read" }
//   canonical    Filter::query(), the shareable form of the first
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <toml++/toml.h>

#include "mergelens/analysis/glob.h"
#include "mergelens/report/entry.h"
#include "mergelens/store/store.h"
#include "mergelens/util/error.h"

namespace mergelens::report {

struct Filter {
  std::vector<std::string> tags, paths, labels, authors;  // as given (tags, labels lower-cased)
  std::string min_verdict;                                // "" or a verdict
  int min_importance = 0;                                 // 0: none
  std::string lang;                                       // "", "zh" or "en"
  std::vector<Glob> globs;                                // `paths` compiled

  // No criterion (a language alone filters nothing).
  bool empty() const;
  // Matching needs the change's files or labels (read from the store).
  bool needs_change() const { return !paths.empty() || !labels.empty(); }
  // The filter as a URL query without leading '?', keys in a fixed order
  // (tags, paths, labels, authors, min, lang), values percent-encoded; empty
  // for a filter with no criterion and no language.
  std::string query() const;
};

// Reads a filter from decoded query parameters (name, value), as a server
// receives them. Keys other than tags, paths, labels, authors, min and lang
// are ignored (a page's own parameters); a repeated key adds its values;
// lists are comma-separated, blanks dropped; in `paths` a comma inside a
// brace list ("**/*.{py,md}", actions/labeler's syntax) or after '\' does not
// separate. kInvalidInput naming the key for
// an unknown verdict, an importance outside 1-10, a language other than zh/en,
// a malformed glob, globs of more than 16384 automaton states together
// (analysis/glob.h, Glob::states), or more than 32 values in one list.
Result<Filter> parse_filter(const std::vector<std::pair<std::string, std::string>>& params);

// The same from a raw query ("a=b&c=d", percent-encoded, '+' a space).
Result<Filter> parse_filter_query(std::string_view query);

// Reads a filter from a TOML table (`where` names it in messages:
// "mergelens.toml: [subscriptions.sched]"). Keys as in a query, each list an
// array of strings (or one string), `min` a string or an integer; each item
// is one value (a `paths` glob may hold commas in braces; a tag, label or
// author may hold none). Unknown keys are refused (kInvalidInput naming the
// key).
Result<Filter> filter_from_toml(const toml::table& table, std::string_view where);

// The named filters of the TOML file at `path`: every [subscriptions.NAME]
// table (NAME of [A-Za-z0-9._-]), read as filter_from_toml. A missing file
// or one without [subscriptions] gives none. kInvalidInput naming the file
// and table for a malformed file, name or filter; kIo when it cannot be read.
Result<std::map<std::string, Filter>> read_subscriptions(const std::string& path);

// What matching an entry needs beyond the entry itself: the change's labels
// and file paths (old paths of renames included).
struct ChangeFacets {
  std::vector<std::string> labels, paths;
};

// True when `entry` passes `filter`; `facets` is read only when
// filter.needs_change(). Once the deadline of the thread's work has passed
// (util/deadline.h) the answer is meaningless: the caller checks it.
bool matches(const Filter& filter, const Entry& entry, const ChangeFacets& facets);

// Keeps the entries of `entries` that pass `filter`, in order, reading each
// change's labels and files from `store` when the filter needs them. Returns
// how many were left out. Store errors pass through (entries unchanged), and
// kTimeout when the thread's deadline passes meanwhile.
Result<size_t> apply_filter(Store& store, const Filter& filter, std::vector<Entry>& entries);

// What a filtered list says it left out: "另有 41 个 PR 未列出" (zh) or
// "41 more PRs not listed" ("1 more PR not listed") in English, with
// `why` in parentheses when given. Empty when `count` is 0.
std::string not_listed(std::string_view lang, size_t count, std::string_view why = "");

}  // namespace mergelens::report
