// Threads: which earlier changes a change belongs with, read from titles,
// references and the files it touches. Deterministic and backward only: a
// change links to changes merged before it, so its links depend on the
// stored history up to it alone, however analysis runs were batched.
//
//   series     "[2/5]", "(II)", "part 3", ... with a similar title (same
//              bracket topic, or shared words) as an earlier part
//   reverts    'Revert "T"' naming T by title, or a reference that reverts
//              (#N, a sha); a revert of a revert also re-lands the original
//   relands    "Reland", "Reapply", "Re-land of #N", or the same title as an
//              earlier change that a revert took back
//   follow_up  / fixes: a reference that names an earlier change ("follow-up
//              of #N", "fix #N's regression")
//   builds_on  touches (edits or deletes) a code or test file that an
//              earlier change added within the last 30 days
//
// No I/O: the pipeline fills a ThreadIndex from the store.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "mergelens/analysis/facts.h"
#include "mergelens/model/change.h"

namespace mergelens {

// A series marker in a title: part 3 of 5 ("[3/5]"), of an open count
// ("[3/N]": total 0), or a Roman numeral ("(III)").
struct SeriesMarker {
  int part = 0;
  int total = 0;     // 0 when the title does not say ("n", "N", Roman numerals)
  std::string stem;  // the title without the marker and the trailing "(#N)"
};
std::optional<SeriesMarker> series_marker(std::string_view title);

// What a title says it undoes or brings back: 'Revert "T" (#12)', "[Revert]
// T", "Reland T", 'Reapply "T"'. `title` is the quoted or following title
// (empty when only a number is named), `number` a "#N" it names.
struct TitleAct {
  bool revert = false;  // else a re-land
  std::string title;
  std::int64_t number = 0;
  bool strong = true;  // false for "Restore ...", "Bring back ...": a title match only
};
std::optional<TitleAct> title_act(std::string_view title);

// A title for comparison: lower case, single spaces, without a trailing
// "(#N)" or quotes.
std::string normalized_title(std::string_view title);

// A link as a phrase seen from one change, in `lang` ("zh"/"en"): "reverts
// #12", "reverted by #130 on the same day", "builds on #12 (edits a.py,
// which it added)". `later`: the other change came later and made the link.
// `days`: UTC days between the two merges (>= 0), or -1 to leave it out.
std::string link_phrase(std::string_view lang, std::string_view relation, bool later,
                        std::string_view ref, std::string_view detail, int days);
// "part 3 of 5", "part 3 of a series" (zh: "系列第 3 部分（共 5 部分）");
// empty when `title` has no series marker.
std::string series_phrase(std::string_view lang, std::string_view title);

// One stored change as thread detection sees it.
struct ThreadCandidate {
  std::string sha;
  std::int64_t number = 0;  // 0 without a PR number
  std::string title;
  std::string author;  // login, else name
  UnixSeconds merged_at = 0;
};

// The repository's history for thread detection. Add every stored merged
// change (and the paths each one added), then finish(); lookups after that
// are read-only and safe from several threads.
class ThreadIndex {
 public:
  void add(ThreadCandidate candidate);
  void add_added_path(std::string_view sha, std::string path);
  void finish();

  size_t size() const { return all_.size(); }

  // For find_thread_links.
  const std::vector<ThreadCandidate>& all() const { return all_; }
  std::optional<size_t> by_sha_prefix(std::string_view prefix) const;
  const std::vector<size_t>* by_number(std::int64_t number) const;
  const std::vector<size_t>* by_title(const std::string& normalized) const;
  // The candidates whose normalized title starts with `prefix`, in order: a
  // title GitHub cut short in a revert's quote ('Revert "Long title…"').
  std::vector<size_t> by_title_prefix(std::string_view prefix) const;
  // by_title, or by_title_prefix when `normalized` ends with an ellipsis
  // (what is left must be 16 bytes or more).
  std::vector<size_t> titled(const std::string& normalized) const;
  const std::vector<size_t>* added(const std::string& path) const;
  const std::vector<size_t>& series() const { return series_; }
  // Whether candidate `i` was reverted (by title or number) by a change
  // merged before `before`.
  bool reverted_before(size_t i, UnixSeconds before) const;

 private:
  std::vector<ThreadCandidate> all_;  // by (merged_at, sha) after finish()
  std::vector<std::pair<std::string, std::string>> pending_paths_;  // sha, path
  std::vector<std::string> shas_;                                   // sorted, with index
  std::vector<size_t> sha_index_;
  std::unordered_map<std::int64_t, std::vector<size_t>> by_number_;
  std::unordered_map<std::string, std::vector<size_t>> by_title_;
  std::unordered_map<std::string, std::vector<size_t>> added_;
  std::vector<size_t> series_;
  std::map<size_t, std::vector<UnixSeconds>> reverted_at_;  // candidate → revert times
};

// The links of `change` to earlier changes of `index` (never to itself),
// strongest first, one per earlier change. `references` and `roles` are the
// change's facts. An empty index gives no links.
std::vector<ThreadLink> find_thread_links(const Change& change,
                                          const std::vector<Reference>& references,
                                          const std::map<std::string, FileRole>& roles,
                                          const ThreadIndex& index);

}  // namespace mergelens
