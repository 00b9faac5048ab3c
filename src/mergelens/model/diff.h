// Unified-diff hunks as text: the format stored for every file and the one the
// GitHub API returns in a file's `patch` field.
//
//   @@ -10,7 +10,9 @@ def forward(self, x):
//    context
//   -removed
//   +added
//   \ No newline at end of file
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "mergelens/model/change.h"
#include "mergelens/util/error.h"

namespace mergelens {

struct ParsedPatch {
  std::vector<Hunk> hunks;
  // True when a hunk held fewer lines than its header announced (a patch cut
  // short, as GitHub does for very large files).
  bool short_hunk = false;
};

// Parses the hunks of one file's patch. Lines before the first "@@" that look
// like git headers ("diff --git", "index", "---", "+++", mode lines) are
// skipped. Lines are split on '\n' only, so a CRLF file keeps its '\r' in
// DiffLine::text. Every line gets its old/new line number.
// Fails with kInvalidInput when a hunk header is malformed or a line has an
// unknown origin character; the message names the 1-based line number.
Result<ParsedPatch> parse_patch(std::string_view patch);

// Writes hunks back in the same format; parse_patch(render_patch(h)) == h.
std::string render_patch(const std::vector<Hunk>& hunks);

// Appends one hunk to `out` (used by render_patch and by the git source).
void append_hunk_text(const Hunk& hunk, std::string& out);

}  // namespace mergelens
