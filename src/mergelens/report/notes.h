// A release-notes draft for a range of merged changes: Highlights chosen by
// importance (the model's triage when there is one: the judgment an Entry
// shows), sections by tag, changed defaults and flags, new contributors
// (authors whose first merged change in the repository is in the range),
// every line linking its PR; rendered as Markdown or JSON. `mergelens notes`
// and the MCP tool `release_notes` build it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "mergelens/report/entry.h"
#include "mergelens/report/filter.h"
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
};

struct NotesOptions {
  std::string lang = "zh";     // "zh" or "en"
  size_t max_highlights = 10;  // at most this many highlights
  bool list_skips = false;     // list skip-verdict changes too (else one line counts them)
};

struct NotesSection {
  std::string tag;              // empty: changes without a tag
  std::vector<size_t> entries;  // indexes into Notes::entries, most worth reading first
};

struct Contributor {
  std::string name;  // login when known, else the name
  size_t entry = 0;  // their first change in the range (index into Notes::entries)
};

struct Notes {
  std::string repo, web_base;  // the repository's name and https://github.com/o/r (may be empty)
  std::string from, to;        // NotesRange labels
  std::string lang;
  std::vector<Entry> entries;  // every change of the range passing the filter, most worth first
  size_t left_out = 0;         // changes of the range the filter left out
  std::vector<size_t> highlights;
  std::vector<NotesSection> sections;  // non-skip entries by strongest tag, biggest first
  std::vector<size_t> skipped;         // skip-verdict entries
  std::vector<std::pair<size_t, Visible>> visible;  // changed flags, env vars, public API
  std::vector<Contributor> new_contributors;
  bool list_skips = false;
};

// Drafts the notes of `range` of `repo`, reading guides in options.lang
// (else the other language) and keeping the entries that pass `filter`
// (nullptr: all). kInvalidInput when the range names no bound and no shas.
// A range without changes is a draft without entries. Store errors pass
// through.
Result<Notes> draft_notes(Store& store, const RepoRecord& repo, const NotesRange& range,
                          const NotesOptions& options, const Filter* filter = nullptr);

// The draft as Markdown: a title, Highlights, one section per tag, changed
// defaults and flags, new contributors and the count of what is not listed;
// every entry line "- headline ([#123](url))", labels in notes.lang.
std::string notes_markdown(const Notes& notes);

// The draft as data: repo, from, to, lang, counts, highlights (entries),
// sections (tag, name, entries), visible, new_contributors, skipped.
nlohmann::json notes_json(const Notes& notes);

}  // namespace mergelens::report
