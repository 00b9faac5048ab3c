// The repository beside a change, for the citation checker (guide/citations.h
// RepoLookup): the tree at the merge commit read through source/TreeLookup.
#pragma once

#include <string>
#include <vector>

#include "mergelens/guide/citations.h"
#include "mergelens/model/change.h"
#include "mergelens/source/tree_lookup.h"

namespace mergelens {

// A RepoLookup on `tree` (the merge commit of `change`): paths of the tree;
// identifiers of the changed files and their folders first, then of the
// whole tree; and the modules the changed files import, read from their
// content at the merge and from the import lines the change removes (what
// they imported at the parent). `tree` may be null (no clone): an empty
// lookup. The lookup keeps `tree`, which must outlive it; it copies the
// changed paths.
RepoLookup repo_lookup(TreeLookup* tree, const Change& change);

}  // namespace mergelens
