// A repository's ISO week (UTC, Monday to Monday, as every weekly figure of
// mergelens): its close reads most worth reading first grouped by tag, how
// each tag moved against the previous four weeks, and what changed defaults
// or user-visible behaviour; every entry an Entry as on the day page. The
// web page /week/YYYY-Www, `digest --week`, the weekly delivery, the week
// feed and the MCP tool `week` all read this one value.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "mergelens/report/entry.h"
#include "mergelens/report/filter.h"
#include "mergelens/report/themes.h"
#include "mergelens/report/visible.h"
#include "mergelens/store/store.h"
#include "mergelens/util/error.h"

namespace mergelens::report {

// "2026-W48" → Monday 00:00 UTC of that ISO week. kInvalidInput for anything
// else (week 53 only in years that have one; years 0001-9999). util/time.h,
// parse_iso_week.
Result<UnixSeconds> iso_week_start(std::string_view week);
// The ISO week holding `t` (UTC): "2026-W48".
std::string iso_week_of(UnixSeconds t);

// A tag's count this week beside its counts in the four weeks before.
struct TagMove {
  std::string tag;
  std::int64_t count = 0;              // this week
  std::vector<std::int64_t> previous;  // the four weeks before, oldest first
  double previous_mean = 0;
  // "new" (none in the four weeks before), "up" (at least half again the
  // mean and 2 more), "down" (at most half the mean and 2 fewer), "steady";
  // "gone" for a tag of the weeks before that has none this week.
  std::string trend;
};

// Close reads sharing a tag (their strongest one), most worth reading first.
struct TagGroup {
  std::string tag;              // empty: untagged
  std::vector<size_t> entries;  // indexes into Week::entries
};

// An entry that changes flags, environment variables or public API.
struct VisibleEntry {
  size_t entry = 0;  // index into Week::entries
  Visible what;
};

struct Week {
  std::string week;  // "2026-W48"
  std::int64_t repo_id = 0;
  UnixSeconds since = 0, until = 0;  // [Monday, next Monday) UTC
  // Every change merged in the week that passed the filter, most worth
  // reading first (order_entries).
  std::vector<Entry> entries;
  size_t left_out = 0;  // changes of the week the filter left out
  size_t close_reads = 0, selective_reads = 0, skims = 0, skips = 0, triaged = 0;
  std::vector<TagGroup> close_by_tag;  // groups ordered by their best entry
  std::vector<TagMove> moves;          // of the shown entries' tags, busiest first (at most 12)
  std::vector<VisibleEntry> visible;   // in entry order, skips excluded
  // The week's themes (report/themes.h): the model's theme pass of the week
  // when stored, else the analysis's; what mattered this week, by rank.
  Themes themes;
  std::optional<std::string> prev, next;  // nearest weeks with changes
};

// Loads week `week` ("YYYY-Www"; empty: the week of the newest change) of
// repository `repo_id` (kAllRepos: every repository) in language `lang`
// ("zh"/"en"), keeping the entries that pass `filter` (nullptr: all).
// kInvalidInput for a malformed week; a week without changes has no
// entries. Store errors pass through.
Result<Week> load_week(Store& store, std::int64_t repo_id, std::string_view week,
                       std::string_view lang, const Filter* filter = nullptr);

// The themes a reader's summary of a week shows at most (the highlights of
// docs/themes.md): the week page and the MCP week tool. A busy week has
// hundreds, one a change.
inline constexpr size_t kWeekThemes = 8;

// The week as data: week, since/until (ISO times), counts, themes (rank,
// title, highlight, refs; themes_source), entries (ref, number, sha, title,
// headline, paragraph, verdict, importance, insight, tags, author,
// merged_at, url, thread, theme_rank), close_by_tag (tag, refs), moves,
// visible. With `max_themes`, only the first that many themes by rank, and
// themes_total says how many the week has.
nlohmann::json week_json(const Week& week, std::optional<size_t> max_themes = std::nullopt);

// One entry as data (shared by week_json and the release notes' JSON).
nlohmann::json entry_json(const Entry& entry);

}  // namespace mergelens::report
