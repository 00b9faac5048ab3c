// The one rule for a repository's name, checked wherever a name enters
// (--repo, `repos add`, [[repo]] tables, the origin remote at ingest, sync):
// the name ends up in page paths (/r/NAME/...), feed ids and messages.
#pragma once

#include <string_view>

#include "mergelens/util/error.h"

namespace mergelens {

// Longest name accepted (GitHub allows 39 + 1 + 100).
inline constexpr size_t kMaxRepoNameBytes = 200;

// Whether `name` is "owner/name" or "name" whose segments hold only
// [A-Za-z0-9._-], are not empty, "." or "..", and are at most
// kMaxRepoNameBytes in all. Success: nothing. Failure: kInvalidInput naming
// `what` (where the name came from: "--repo", "the origin remote") and the
// name with any control character shown escaped. Owns nothing.
Result<void> check_repo_name(std::string_view name, std::string_view what);

}  // namespace mergelens
