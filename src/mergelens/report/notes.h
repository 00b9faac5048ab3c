// A release-notes draft for a range of merged changes, in the form
// maintainers write by hand: a few highlight bullets, each a theme with a
// one-line headline citing its PRs (report/themes.h: the model's theme pass
// for the range when stored, else the analysis's threads, tags and paths);
// then sections by kind (features, performance, fixes, ...) whose lines are
// themes, several PRs to a line; changed defaults and flags; new
// contributors when the store holds enough history to know; and one line
// for what is left out. Every PR appears once. Rendered as Markdown that
// renders cleanly on GitHub, or as JSON. `mergelens notes` and the MCP tool
// `release_notes` build it.
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

// Which changes: those whose merge sha is in `shas` (a revision range the
// caller walked in git, e.g. `from..to` along the first parent), else those
// merged in [since, until) (either bound may be open).
struct NotesRange {
  std::optional<std::vector<std::string>> shas;
  std::optional<UnixSeconds> since, until;
  std::string from_label, to_label;  // as the reader named them ("v0.9.0", "2026-09-01")
  // The key the range's model themes are stored under (guide/themes.h):
  // revs_span(from, to) for revisions (empty: offline themes only); for
  // dates, empty means time_span(since, until).
  std::string span;
};

struct NotesOptions {
  std::string lang = "zh";    // "zh" or "en"
  size_t max_highlights = 8;  // highlight bullets at most
  // List every change: minor ones and skips too (else they are counted in
  // the closing line).
  bool list_all = false;
  // One highlight per PR by its own judgment, no themes (report/themes.h
  // single_themes): the per-PR view, for comparison.
  bool per_pr = false;
};

// Changes of one kind, each line a theme.
struct NotesSection {
  std::string kind;           // "models", "features", "performance", "fixes", "refactoring",
                              // "reverts", "other", "maintenance"
  std::vector<size_t> lines;  // indexes into Notes::themes.themes, by rank
};

struct Contributor {
  std::string name;  // login when known, else the name
  size_t entry = 0;  // their first change in the range (index into Notes::entries)
};

struct Notes {
  std::string repo, web_base;  // the repository's name and https://github.com/o/r (may be empty)
  std::string from, to;        // NotesRange labels
  std::string lang;
  std::vector<Entry> entries;      // every change of the range passing the filter, most worth first
  size_t left_out = 0;             // changes of the range the filter left out
  Themes themes;                   // every entry in one theme
  std::vector<size_t> highlights;  // indexes into themes.themes
  std::vector<NotesSection> sections;               // the other listed themes, by kind
  size_t unlisted = 0;                              // entries neither highlighted nor in a section
  size_t unlisted_skips = 0;                        // of them, skip verdicts
  std::vector<std::pair<size_t, Visible>> visible;  // changed flags, env vars, public API
  // New contributors are listed only when the store knows the repository's
  // history before the range (its whole first-parent history, or a year
  // before the range's first merge); else `history_from` says from when it
  // does.
  bool contributors_known = false;
  UnixSeconds history_from = 0;
  std::vector<Contributor> new_contributors;
  bool list_all = false;
};

// Drafts the notes of `range` of `repo`, reading guides in options.lang
// (else the other language) and keeping the entries that pass `filter`
// (nullptr: all). kInvalidInput when the range names no bound and no shas,
// or ends before it starts. A range without changes is a draft without
// entries. Store errors pass through.
Result<Notes> draft_notes(Store& store, const RepoRecord& repo, const NotesRange& range,
                          const NotesOptions& options, const Filter* filter = nullptr);

// The draft as Markdown: a title, whose judgment chose the themes,
// Highlights ("- **title**: line ([#1](url), [#2](url))"), one section per
// kind with a line per theme, changed defaults and flags, new contributors
// and the line counting what is not listed; labels in notes.lang. One line
// per bullet: nothing runs on in a CommonMark renderer.
std::string notes_markdown(const Notes& notes);

// The draft as data: repo, from, to, lang, counts, themes_source,
// highlights (themes with their entries), sections (kind, name, lines:
// themes with their entries), visible, new_contributors (null when not
// known), unlisted; every entry with its theme's rank.
nlohmann::json notes_json(const Notes& notes);

}  // namespace mergelens::report
