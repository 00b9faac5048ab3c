// The citation checker: every path, line range, identifier, number, PR
// reference, commit sha and URL a guide cites must exist in the change (its
// diff, title, body, commit messages, labels and review conversation) or be a
// figure derived from it (file and line counts, hunk line numbers, scores).
//
// Model answers are checked before they are stored; the offline writer's
// guides pass by construction, which the tests verify on every sample change.
#pragma once

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "mergelens/analysis/facts.h"
#include "mergelens/guide/guide.h"
#include "mergelens/model/change.h"

namespace mergelens {

// What a change allows a guide to cite. Built once per change; read-only after.
class CitationIndex {
 public:
  CitationIndex(const Change& change, const Facts& facts);

  // The full path of the change's file `cited` names (exact path, old path of
  // a rename, or a unique file-name / path suffix); empty when none.
  std::string resolve_path(std::string_view cited) const;
  // Whether [start, end] overlaps a hunk of `path` (new-file lines, or old-file
  // lines for a deleted file), with a few lines of tolerance for context.
  bool range_in_diff(const std::string& path, std::int32_t start, std::int32_t end) const;
  bool has_code_span(std::string_view span) const;
  // `strict`: a decimal or a figure with a unit (x, %, ms, GB, ...): it must be
  // written in the change. Otherwise derived counts and line numbers pass too.
  bool has_number(std::string_view number, bool strict) const;
  bool has_pr(std::int64_t number) const;
  bool has_sha(std::string_view hex) const;
  bool has_url(std::string_view url) const;

 private:
  std::string corpus_;             // all text of the change, for substring checks
  std::string facts_code_;         // symbols and signal details the analysis read
  std::set<std::string> paths_;    // full paths and old paths
  std::set<std::string> tokens_;   // identifier tokens of the corpus
  std::set<std::string> numbers_;  // numeric literals of the corpus, normalised
  std::set<std::string> derived_;  // counts and line numbers derived from the change
  std::set<std::int64_t> prs_;     // PR/issue numbers written or referenced
  std::vector<std::string> shas_;  // commit shas of the change and its references
  struct Span {
    std::string path;
    std::int32_t start, end;
  };
  std::vector<Span> spans_;
  std::int32_t max_line_ = 0;
};

struct CitationFailure {
  std::string field;     // "headline", "focus[2]", "questions[0]", ...
  std::string citation;  // what was cited: "`foo()`", "2.3x", "#123", "x.py:10-20"
  std::string reason;    // "not in the change", ...
};

// Every failing citation of `guide` (empty when all check out). The guide's
// `source` and `writer` fields are not checked (the pipeline fills them).
std::vector<CitationFailure> check_citations(const Guide& guide, const CitationIndex& index);

// Removes every list item (focus point, question, gap, advice, reference, ...)
// that carries a failing citation, replaces failing scalar fields (headline,
// summary, verdict, why, audience, score reasons) with `fallback`'s, records
// each removal in guide.writer.removed, and canonicalises cited focus paths to
// full paths. Returns the number of citations removed.
size_t remove_failed_citations(Guide& guide, const std::vector<CitationFailure>& failures,
                               const Guide& fallback, const CitationIndex& index);

// Whether `text` contains CJK ideographs (a "zh" guide must).
bool has_cjk(std::string_view text);

}  // namespace mergelens
