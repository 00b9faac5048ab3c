// The paths two trees differ in, without opening the folders they share.
//
// libgit2's tree-to-tree diff walks every file of both trees (about 5,000
// for a large project) for each change; `git log` skips folders whose ids
// are equal. Handing the diff the list of changed paths, as an exact path
// list, makes its iterators open only the folders on the way to them: the
// same deltas for a fraction of the work.
#include <string_view>

#include "mergelens/source/git_internal.h"

namespace mergelens::git_detail {
namespace {

bool is_tree(const git_tree_entry* e) {
  return git_tree_entry_type(e) == GIT_OBJECT_TREE;
}

// Every file under entry `e` (a folder) of `repo`, as paths under `prefix`.
bool all_files(git_repository* repo, const git_tree_entry* e, const std::string& prefix,
               std::vector<std::string>& out);

void add_entry(git_repository* repo, const git_tree_entry* e, const std::string& path,
               std::vector<std::string>& out, bool& ok) {
  if (is_tree(e)) {
    ok = all_files(repo, e, path + "/", out) && ok;
  } else {
    out.push_back(path);
  }
}

bool walk(git_repository* repo, const git_tree* a, const git_tree* b, const std::string& prefix,
          std::vector<std::string>& out) {
  bool ok = true;
  const size_t na = a ? git_tree_entrycount(a) : 0;
  const size_t nb = b ? git_tree_entrycount(b) : 0;
  for (size_t i = 0; i < na; ++i) {
    const git_tree_entry* ea = git_tree_entry_byindex(a, i);
    const std::string name = git_tree_entry_name(ea);
    const git_tree_entry* eb = b ? git_tree_entry_byname(b, name.c_str()) : nullptr;
    const std::string path = prefix + name;
    if (!eb) {
      add_entry(repo, ea, path, out, ok);
      continue;
    }
    if (git_oid_equal(git_tree_entry_id(ea), git_tree_entry_id(eb)) &&
        git_tree_entry_filemode(ea) == git_tree_entry_filemode(eb))
      continue;
    if (is_tree(ea) && is_tree(eb)) {
      TreePtr ta, tb;
      if (git_tree_lookup(ta.out(), repo, git_tree_entry_id(ea)) != 0 ||
          git_tree_lookup(tb.out(), repo, git_tree_entry_id(eb)) != 0)
        return false;
      ok = walk(repo, ta.get(), tb.get(), path + "/", out) && ok;
    } else {
      add_entry(repo, ea, path, out, ok);  // a file changed, or became a folder, or the reverse
      if (is_tree(ea) || is_tree(eb)) add_entry(repo, eb, path, out, ok);
    }
  }
  for (size_t i = 0; i < nb; ++i) {
    const git_tree_entry* eb = git_tree_entry_byindex(b, i);
    const char* name = git_tree_entry_name(eb);
    if (a && git_tree_entry_byname(a, name)) continue;  // seen above
    add_entry(repo, eb, prefix + name, out, ok);
  }
  return ok;
}

bool all_files(git_repository* repo, const git_tree_entry* e, const std::string& prefix,
               std::vector<std::string>& out) {
  TreePtr t;
  if (git_tree_lookup(t.out(), repo, git_tree_entry_id(e)) != 0) return false;
  return walk(repo, nullptr, t.get(), prefix, out);
}

}  // namespace

bool changed_paths(git_repository* repo, const git_tree* old_tree, const git_tree* new_tree,
                   std::vector<std::string>& out) {
  return walk(repo, old_tree, new_tree, "", out);
}

bool DiffPaths::read(git_repository* repo, const git_tree* old_tree, const git_tree* new_tree) {
  paths_.clear();
  pointers_.clear();
  return changed_paths(repo, old_tree, new_tree, paths_);
}

void DiffPaths::limit(git_diff_options& opts) {
  pointers_.clear();
  pointers_.reserve(paths_.size());
  for (auto& p : paths_) pointers_.push_back(p.data());
  opts.pathspec = {pointers_.data(), pointers_.size()};
  opts.flags |= GIT_DIFF_DISABLE_PATHSPEC_MATCH;
}

}  // namespace mergelens::git_detail
