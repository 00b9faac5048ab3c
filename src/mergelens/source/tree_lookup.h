// What the repository at one commit holds beyond a change: does a path
// exist, is an identifier written near the changed files. The citation
// checker asks it about citations the change itself does not support (a file
// the PR does not touch but that exists; a name defined next to the changed
// code), so a guide may cite the repository as it stood at the merge.
#pragma once

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "mergelens/util/error.h"

namespace mergelens {

class TreeLookup {
 public:
  // Opens the clone at `repo_path` and the tree of commit `sha`. kInvalidInput
  // when the path is not a repository, kNotFound when the commit is absent
  // (a guide of a change synced from GitHub without a clone).
  static Result<std::unique_ptr<TreeLookup>> open(const std::string& repo_path,
                                                  const std::string& sha);
  ~TreeLookup();
  TreeLookup(const TreeLookup&) = delete;
  TreeLookup& operator=(const TreeLookup&) = delete;

  // Whether `path` names a file or folder of the tree.
  bool has_path(std::string_view path);

  // Whether `token` is an identifier written in one of `files` (paths of the
  // tree) or in the other files of their folders (not recursive). The files
  // are read once, on the first call, at most 64 of them and 8 MiB in all,
  // changed files first. Not thread-safe: one lookup per thread.
  bool has_identifier(std::string_view token, const std::vector<std::string>& files);

  // Whether `token` is an identifier written in any text file of the tree
  // (defined or used anywhere in the repository at this commit): text files
  // of at most 1 MiB, images, archives and translations skipped by name. The
  // first lookup of a repository in the process reads its tree whole (up to
  // 1 GiB of text) and keeps those names for the process's life (about 40 MB
  // for sglang); every later lookup of the repository, on any thread, shares
  // them and reads only the files its tree changes against them, or reads
  // its tree whole as the new shared one when over 1,500 files differ. The
  // answer is the same as a whole read of this tree. Work happens on the
  // first call. Not thread-safe: one lookup per thread (lookups on different
  // threads may share a base).
  bool in_tree(std::string_view token);

  // The content of the file at `path`; nullopt when absent, binary or over
  // 1 MiB.
  std::optional<std::string> read_file(std::string_view path);

 private:
  struct Impl;
  explicit TreeLookup(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace mergelens
