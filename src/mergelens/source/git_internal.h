// Pieces git_source.cc and git_file_diff.cc share; private to source/.
#pragma once

#include <git2.h>

#include <sys/types.h>
#include <string>
#include <vector>

#include "mergelens/model/change.h"
#include "mergelens/source/git_owned.h"
#include "mergelens/source/git_source.h"

namespace mergelens::git_detail {

using CommitPtr = Owned<git_commit, git_commit_free>;
using TreePtr = Owned<git_tree, git_tree_free>;
using DiffPtr = Owned<git_diff, git_diff_free>;
using PatchPtr = Owned<git_patch, git_patch_free>;
using RefPtr = Owned<git_reference, git_reference_free>;
using ObjectPtr = Owned<git_object, git_object_free>;
using RemotePtr = Owned<git_remote, git_remote_free>;
using WalkPtr = Owned<git_revwalk, git_revwalk_free>;

// libgit2's last error message (never empty).
std::string last_git_error();

// The size of blob `id` from its header, without inflating it (a large blob
// is then never read whole only to be refused); -1 when the object store does
// not hold it (a partial clone) or cannot read it.
ssize_t blob_size(git_repository* repo, const git_oid* id);

// Fills `f` (its status and paths set) from delta `i` of `diff`: counts and
// hunks within `line_budget` (reduced by the lines kept; FileChange::truncated
// beyond it), a file over GitReadOptions::max_diff_bytes counted without a
// diff, or why the diff could not be read (FileChange::unavailable: a blob
// missing from the clone, an allocation failing) instead of an empty diff.
// Never fails; `diff` stays owned by the caller.
void read_file_diff(git_repository* repo, git_diff* diff, size_t i, const GitReadOptions& opt,
                    size_t& line_budget, FileChange& f);

}  // namespace mergelens::git_detail

namespace mergelens::git_detail {

// Appends to `out` the path of every file (blob, link or submodule) that
// differs between trees `old_tree` and `new_tree` (either may be null, an
// empty tree), in neither order: added, removed, or changed in id or mode,
// and every file under a folder that became a file or the reverse. Folders
// whose ids are equal are not opened, so the cost is that of the folders the
// change touches, not of the whole tree. Returns false when a subtree cannot
// be read (a partial clone): the caller then diffs without the list. Trees
// stay owned by the caller.
bool changed_paths(git_repository* repo, const git_tree* old_tree, const git_tree* new_tree,
                   std::vector<std::string>& out);

// The paths two trees differ in, kept for a tree diff that reads only them:
// owns the list and the array of pointers to it that
// git_diff_options::pathspec takes. Neither copied nor moved, since `opts`
// points into it.
class DiffPaths {
 public:
  DiffPaths() = default;
  DiffPaths(const DiffPaths&) = delete;
  DiffPaths& operator=(const DiffPaths&) = delete;

  // Replaces the list with changed_paths(repo, old_tree, new_tree); false,
  // the list then incomplete, when a subtree cannot be read (the caller
  // diffs without it). Trees stay owned by the caller.
  bool read(git_repository* repo, const git_tree* old_tree, const git_tree* new_tree);
  size_t size() const { return paths_.size(); }
  bool empty() const { return paths_.empty(); }

  // Bounds `opts`'s diff to the list, each path matched whole
  // (GIT_DIFF_DISABLE_PATHSPEC_MATCH), not as a pattern. `opts` borrows the
  // list: this object must outlive every diff made with `opts`, and read()
  // must not be called again before.
  void limit(git_diff_options& opts);

 private:
  std::vector<std::string> paths_;
  std::vector<char*> pointers_;
};

}  // namespace mergelens::git_detail
