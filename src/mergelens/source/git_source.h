// Reading changes out of a local git clone (bare or not) with libgit2.
//
// A GitSource owns one open repository. It is not thread-safe; open one per
// thread to read in parallel (libgit2 allows that).
//
// Shallow clones: the commits listed in the clone's `shallow` file are its
// boundary; their parents are not in the clone. libgit2 1.5 does not graft
// them away, so this class reads the file itself (once, when the repository
// is opened): a walk ends at a boundary commit, and a boundary commit is read
// without a diff (Change::shallow) instead of failing on the missing parent.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "mergelens/model/change.h"
#include "mergelens/util/error.h"

namespace mergelens {

struct GitReadOptions {
  size_t max_files = 3000;               // files kept per change; the rest set files_truncated
  size_t max_lines_per_file = 20000;     // diff lines kept per file; beyond, FileChange::truncated
  size_t max_lines_per_change = 200000;  // diff lines kept per change across files
  size_t max_commits_per_merge = 250;    // commits listed for a merge commit
  int context_lines = 3;
  // Files larger than this (either side) are not diffed: libgit2 would hold
  // both blobs and every line of the pair at once (1.6 GB for a 200 MB file).
  // Such a file is counted when added or deleted (one blob read at a time,
  // truncated, no hunks) and marked FileChange::unavailable when modified.
  size_t max_diff_bytes = 32u << 20;
  bool find_renames = true;
};

class GitSource {
 public:
  // Opens the repository at `path` (a work tree, a .git folder or a bare
  // clone; parent folders are not searched). Fails with kInvalidInput when
  // `path` is not a git repository.
  static Result<std::unique_ptr<GitSource>> open(const std::string& path);
  ~GitSource();

  // Sets libgit2's object cache limit to `bytes` (process-wide: every open
  // GitSource shares it; 64 MiB until set) and returns the limit it replaced,
  // so a caller can put it back. Ingest keeps the 64 MiB it reads commits
  // and trees with; analyze, which reads each blob about once, runs in less.
  // Fails with kInternal when libgit2 refuses the setting (the limit is then
  // unchanged).
  static Result<size_t> set_object_cache_limit(size_t bytes);

  GitSource(const GitSource&) = delete;
  GitSource& operator=(const GitSource&) = delete;

  const std::string& path() const { return path_; }

  // The commit sha a branch points to. An empty `branch` means HEAD.
  // Tries refs/heads/B, refs/remotes/origin/B, then any revision B names.
  // Fails with kInvalidInput for an empty repository, kNotFound for an unknown branch.
  Result<std::string> resolve_branch(const std::string& branch) const;

  // The branch as the last fetch left it: refs/remotes/origin/B when it is
  // ahead of refs/heads/B (fetched but not merged, as in a work tree a
  // `run --watch` fetches into) or when there is no local B; otherwise what
  // resolve_branch(B) gives. Same failures as resolve_branch.
  Result<std::string> resolve_fetched_branch(const std::string& branch) const;

  // True when the repository holds no commit reachable from any reference.
  bool is_empty() const;

  // The short name of the branch HEAD points to ("main"), if any.
  std::optional<std::string> head_branch() const;

  // The URL of a remote, if the repository has it.
  std::optional<std::string> remote_url(const std::string& remote = "origin") const;

  // Fetches `remote` with its configured refspecs (libgit2; no credentials:
  // public https remotes and local paths). Returns false when the repository
  // has no such remote; fails with kIo naming the remote when the fetch fails.
  Result<bool> fetch(const std::string& remote = "origin");

  // True when the repository holds commit `sha`.
  bool has_commit(const std::string& sha) const;

  // True when the clone is shallow (it has a non-empty `shallow` file).
  bool is_shallow() const;
  // True when `sha` is a boundary commit of a shallow clone: listed in its
  // `shallow` file, so its parents are not in the clone.
  bool is_shallow_boundary(const std::string& sha) const;

  // Walks the first-parent chain from `tip`, newest first, calling
  // visit(sha, committer_time); the walk stops when visit returns false, at
  // the root commit, or at a shallow boundary (visited, then the walk ends).
  // Fails with kCorrupt if a commit cannot be read.
  Result<void> walk_first_parent(
      const std::string& tip,
      const std::function<bool(const std::string& sha, UnixSeconds committed_at)>& visit) const;

  // The content of `path` in the tree of commit `sha`, at most `max_bytes`
  // long. nullopt when the path is absent there, is not a file, or is larger.
  // kNotFound for an unknown sha.
  Result<std::optional<std::string>> read_file(const std::string& sha, const std::string& path,
                                               size_t max_bytes = 4u << 20) const;

  // The content of `path` at `sha` exactly as for_each_file() would visit it:
  // like read_file(), but nullopt for a symlink too (its blob is a link
  // target, not a file's text). Readers that must agree with a whole-tree
  // walk (the import graph edited change by change) use this one. Same
  // failures as read_file(); the caller owns the returned string.
  Result<std::optional<std::string>> read_regular_file(const std::string& sha,
                                                       const std::string& path,
                                                       size_t max_bytes = 1u << 20) const;

  // Calls visit(path, content) for every file of the tree of commit `sha`
  // whose path `want` accepts and whose size is at most `max_bytes`, in tree
  // order (submodules and symlinks skipped). kNotFound for an unknown sha,
  // kCorrupt when the tree or a blob cannot be read.
  Result<void> for_each_file(
      const std::string& sha, const std::function<bool(const std::string& path)>& want,
      const std::function<void(const std::string& path, std::string_view content)>& visit,
      size_t max_bytes = 1u << 20) const;

  // Reads one commit as a Change: classifies its message, takes the author and
  // committer time, diffs it against its first parent (the empty tree for a
  // root commit) and lists its commits. A shallow boundary commit has no
  // parent to diff against: it is read with `shallow` set, its parent's sha,
  // itself as its only commit and no files. `repo` and `url` are left empty:
  // the caller names the repository. A file whose diff cannot be computed (a
  // blob missing from a partial clone, an allocation failing) is kept with
  // FileChange::unavailable saying why, never as an empty diff; the change is
  // still read. Fails with kNotFound for an unknown sha, kCorrupt when the
  // commit, its trees or the diff of the trees cannot be read.
  Result<Change> read_change(const std::string& sha, const GitReadOptions& options) const;

 private:
  struct Impl;
  explicit GitSource(std::string path, std::unique_ptr<Impl> impl);
  Result<std::optional<std::string>> read_path(const std::string& sha, const std::string& path,
                                               size_t max_bytes, bool links) const;
  std::string path_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace mergelens
