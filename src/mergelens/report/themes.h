// Themes of a window (a week, a release range) as a reader sees them:
// groups of its changes, most important first, each with a title and a
// one-line highlight, so a PR inherits its theme's rank where the reader
// asks "what mattered". Two judgments, and the value says which one it shows:
//
// - the model's: a theme pass stored for the window (pipeline/themes.h),
//   read back and matched to the window's entries;
// - the analysis's (offline): threads first (series, reverts, re-lands,
//   follow-ups, work on added files), then changes sharing a specific topic
//   tag and an area of the tree, then single changes; ranked by their best
//   member's importance, a thread or group earning a little for each further
//   substantive member.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "mergelens/report/entry.h"
#include "mergelens/store/store.h"
#include "mergelens/util/error.h"

namespace mergelens::report {

struct Theme {
  int rank = 0;                 // 1-based
  std::string title;            // in the entries' language
  std::string highlight;        // one line; may be empty (offline single changes)
  std::vector<size_t> entries;  // indexes into the entries, most important first
  std::string kind;             // "model"; offline: "thread", "series", "topic" or "single"
  std::string tag;              // the section it belongs in: its best member's kind tag, else ""
  bool reverted = false;        // a member was reverted in the window and not re-landed
  bool substantive = false;     // a member is a close or selective read or of importance 5+
};

struct Themes {
  std::string source;         // "model", "analysis", or "per_pr" (single_themes)
  std::string model;          // the model's name (source "model")
  UnixSeconds at = 0;         // when the model's themes were stored
  std::vector<Theme> themes;  // by rank; every entry in exactly one theme
  std::vector<int> rank_of;   // per entry: its theme's rank
  size_t model_left_out = 0;  // entries the model's themes did not name (in offline ones)
};

// The themes of `entries` (a window's, in their reading order; `lang` as
// loaded): the model's when `span` has themes stored for `repo_id` (entries
// they do not name are grouped offline and ranked after them), else the
// offline ones. Store errors pass through; a stored document that cannot be
// read is ignored (offline themes).
Result<Themes> window_themes(Store& store, std::int64_t repo_id, std::string_view span,
                             const std::vector<Entry>& entries, std::string_view lang);

// Offline themes only (see above).
Result<Themes> offline_themes(Store& store, const std::vector<Entry>& entries,
                              std::string_view lang);

// Every entry a theme of its own ("single"), ranked by its own judgment
// (verdict, then importance, then insight, then the entries' order): the
// per-PR view, for comparison with themes. Source "per_pr".
Themes single_themes(const std::vector<Entry>& entries);

// The kind an entry's tags give it, for a notes section: "model-support",
// "feature", "perf", "bugfix", "refactor", "revert", "docs", "ci", "tests",
// "deps" (the first it carries in that order), else "".
std::string kind_of(const Entry& entry);

// A theme as data: rank, title, highlight, kind, tag, reverted, refs.
nlohmann::json theme_json(const Theme& theme, const std::vector<Entry>& entries);

}  // namespace mergelens::report
