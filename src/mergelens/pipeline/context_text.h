// The text of a change's context items (Facts::context), read from the clone
// at each item's revision (the change's parent or merge commit), for the
// model writer's prompt and its citation check.
#pragma once

#include <string>
#include <vector>

#include "mergelens/analysis/facts.h"
#include "mergelens/guide/prompt.h"
#include "mergelens/model/change.h"

namespace mergelens {

// One ContextText per item of facts.context whose file could be read (items
// of an unreadable file are skipped: the prompt then lists nothing for
// them), in the facts' order; each text holds the item's lines, at most 400.
// Empty when `clone_path` is empty or not a repository. Never fails.
std::vector<ContextText> read_context(const std::string& clone_path, const Change& change,
                                      const Facts& facts);

}  // namespace mergelens
