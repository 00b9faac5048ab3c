// Clean-up detection: files (and whole changes) a reader need only glance at.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "mergelens/analysis/facts.h"
#include "mergelens/model/change.h"

namespace mergelens {

struct CleanupResult {
  std::vector<SkimItem> skim;  // per file, in change order
  std::string cleanup;         // the change as a whole is clean-up of this kind, else empty
};

// Classifies each file of `change`:
//  rename-only (renamed, no line changed), delete-only (file deleted),
//  whitespace-only (changed lines equal once whitespace is removed),
//  comment-only, import-only (every changed line is a comment / an import),
//  mechanical (the same one-token substitution repeated across 4+ files),
//  generated (role), and low-value roles (docs, CI) when the change also
//  touches code. The change is clean-up when every file is.
// `roles` maps every path of the change to its role; `languages` may be partial.
CleanupResult detect_cleanup(const Change& change, const std::map<std::string, FileRole>& roles,
                             const std::map<std::string, Language>& languages);

}  // namespace mergelens
