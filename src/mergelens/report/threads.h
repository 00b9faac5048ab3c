// Threads as a reader meets them: the links the analysis stored between a
// change and the changes it belongs with (analysis/text/threads.h), seen
// from one change ("reverted by #M on the same day", "part 3 of 5"), and the
// groups they make among the changes of a day, a week or a release.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "mergelens/store/store.h"
#include "mergelens/util/error.h"

namespace mergelens::report {

// One link seen from one change.
struct ThreadNote {
  std::string relation;  // "series", "reverts", "relands", "follow_up", "fixes", "builds_on"
  bool later = false;    // `other` came later and links to this change ("reverted by")
  LinkEnd other;
  std::string detail;  // ThreadLink::detail of the link
};

// The notes of each of `ids` that has a link (in either direction), each
// change's in the store's order (the later change's merge, then the
// earlier's). Store errors pass through.
Result<std::map<std::int64_t, std::vector<ThreadNote>>> thread_notes(
    Store& store, std::span<const std::int64_t> ids);

// "#123", or the 12-character sha without a number.
std::string link_ref(const LinkEnd& end);

// One note as a phrase in `lang` ("zh"/"en"): "reverted by #130 on the
// same day", "same series as #12". `merged_at`: the change's own merge time.
std::string thread_phrase(std::string_view lang, UnixSeconds merged_at, const ThreadNote& note);

// One phrase per note in `lang` ("zh"/"en"), strongest first, with "part 3
// of 5" first when `title` carries a series marker: "reverted by #130 on
// the same day", "同日被 #130 撤销". `merged_at` is the change's own merge
// time (for "on the same day", "3 days later"). Refs are plain "#N".
std::vector<std::string> thread_phrases(std::string_view lang, std::string_view title,
                                        UnixSeconds merged_at,
                                        const std::vector<ThreadNote>& notes);

// The notes as data: relation, direction ("earlier"/"later"), ref, number,
// sha, title, merged_at (ISO), detail, and the phrase in `lang`.
nlohmann::json thread_json(std::string_view lang, std::string_view title, UnixSeconds merged_at,
                           const std::vector<ThreadNote>& notes);

// Groups of `ids` joined by links between them (links to changes outside
// `ids` join nothing): each group's ids in the order given; groups ordered
// by their first member; a change without a link inside is a group of one.
std::vector<std::vector<std::int64_t>> thread_groups(
    std::span<const std::int64_t> ids,
    const std::map<std::int64_t, std::vector<ThreadNote>>& notes);

}  // namespace mergelens::report
