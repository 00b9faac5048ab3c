#include "mergelens/source/git_source.h"

#include <git2.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <mutex>
#include <new>
#include <unordered_set>
#include <utility>

#include "mergelens/source/git_internal.h"
#include "mergelens/source/subject.h"
#include "mergelens/util/time_range.h"

namespace mergelens {
using namespace git_detail;  // NOLINT: the shared libgit2 pieces (git_internal.h)
namespace {

void init_libgit2() {
  static std::once_flag once;
  std::call_once(once, [] {
    git_libgit2_init();
    // Objects come from the user's own clone: skip re-hashing every object
    // read (git does not verify on read either); it halves the time in libgit2.
    git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 0);
    // Bound memory on long histories: the object cache (default 256 MiB) and
    // the pack windows mapped at once (default 8 GiB of windows up to 1 GiB
    // each, so a whole pack stays mapped) both count in RSS. Windows of
    // 32 MiB, at most 96 MiB mapped: pages of older windows leave the RSS
    // when the window is unmapped.
    git_libgit2_opts(GIT_OPT_SET_CACHE_MAX_SIZE, ssize_t{64} << 20);
    git_libgit2_opts(GIT_OPT_SET_MWINDOW_SIZE, size_t{32} << 20);
    git_libgit2_opts(GIT_OPT_SET_MWINDOW_MAPPED_LIMIT, size_t{96} << 20);
  });
}

std::string oid_str(const git_oid* oid) {
  char buf[GIT_OID_HEXSZ + 1];
  git_oid_tostr(buf, sizeof buf, oid);
  return buf;
}

Person person_of(const git_signature* sig) {
  Person p;
  if (!sig) return p;
  p.name = sig->name ? sig->name : "";
  p.email = sig->email ? sig->email : "";
  p.login = login_from_email(p.email);
  return p;
}

Commit commit_of(git_commit* c) {
  Commit out;
  out.sha = oid_str(git_commit_id(c));
  out.author = person_of(git_commit_author(c));
  // Dates beyond the four-digit years are clamped (util/time.h: clamp_instant).
  out.authored_at = clamp_instant(git_commit_author(c) ? git_commit_author(c)->when.time : 0);
  out.committed_at = clamp_instant(git_commit_time(c));
  const char* msg = git_commit_message_raw(c);
  out.message = msg ? msg : "";
  while (!out.message.empty() && (out.message.back() == '\n' || out.message.back() == ' '))
    out.message.pop_back();
  return out;
}

std::optional<FileStatus> status_of(git_delta_t s) {
  switch (s) {
    case GIT_DELTA_ADDED:
      return FileStatus::kAdded;
    case GIT_DELTA_DELETED:
      return FileStatus::kDeleted;
    case GIT_DELTA_MODIFIED:
      return FileStatus::kModified;
    case GIT_DELTA_RENAMED:
      return FileStatus::kRenamed;
    case GIT_DELTA_COPIED:
      return FileStatus::kCopied;
    case GIT_DELTA_TYPECHANGE:
      return FileStatus::kTypeChange;
    default:
      return std::nullopt;
  }
}

// Sets `tree` to the tree of commit `sha` in `repo` (at `where`, for
// messages): kNotFound for an unknown sha, kCorrupt when the tree cannot be
// read.
Result<void> commit_tree(git_repository* repo, const std::string& sha, const std::string& where,
                         TreePtr& tree) {
  git_oid oid;
  CommitPtr commit;
  if (git_oid_fromstr(&oid, sha.c_str()) != 0 || git_commit_lookup(commit.out(), repo, &oid) != 0)
    return fail(ErrorKind::kNotFound, "commit {} not found in {}", sha, where);
  if (git_commit_tree(tree.out(), commit.get()) != 0)
    return fail(ErrorKind::kCorrupt, "cannot read the tree of {} ({})", sha, last_git_error());
  return {};
}

// The commits listed in a clone's `shallow` file (one hex id a line), empty
// when the clone is complete. The file lives in the common git folder, so a
// linked worktree sees its main clone's.
std::unordered_set<std::string> read_shallow_file(git_repository* repo) {
  std::unordered_set<std::string> out;
  const char* dir = git_repository_commondir(repo);
  if (!dir) return out;
  std::ifstream in(std::string(dir) + "shallow");
  std::string line;
  while (std::getline(in, line)) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (line.size() >= GIT_OID_HEXSZ) out.insert(line);
  }
  return out;
}

}  // namespace

struct GitSource::Impl {
  git_repository* repo = nullptr;
  std::unordered_set<std::string> shallow;  // boundary commits, read at open
  // The tree read_path() read last and its commit: a change's files are read
  // one after another at one commit.
  std::string tree_sha;
  TreePtr tree;
  ~Impl() {
    if (tree.get()) git_tree_free(tree.p);  // before its repository
    tree.p = nullptr;
    if (repo) git_repository_free(repo);
  }
};

GitSource::GitSource(std::string path, std::unique_ptr<Impl> impl)
    : path_(std::move(path)), impl_(std::move(impl)) {}

GitSource::~GitSource() = default;

Result<size_t> GitSource::set_object_cache_limit(size_t bytes) {
  init_libgit2();
  ssize_t current = 0, allowed = 0;
  if (git_libgit2_opts(GIT_OPT_GET_CACHED_MEMORY, &current, &allowed) != 0)
    return fail(ErrorKind::kInternal, "libgit2: cannot read the object cache limit");
  if (git_libgit2_opts(GIT_OPT_SET_CACHE_MAX_SIZE, static_cast<ssize_t>(bytes)) != 0)
    return fail(ErrorKind::kInternal, "libgit2: cannot set the object cache limit to {}", bytes);
  return static_cast<size_t>(allowed);
}

Result<std::unique_ptr<GitSource>> GitSource::open(const std::string& path) {
  init_libgit2();
  auto impl = std::make_unique<Impl>();
  if (git_repository_open_ext(&impl->repo, path.c_str(), GIT_REPOSITORY_OPEN_NO_SEARCH, nullptr) !=
      0)
    return fail(ErrorKind::kInvalidInput, "{} is not a git repository ({})", path,
                last_git_error());
  impl->shallow = read_shallow_file(impl->repo);
  return std::unique_ptr<GitSource>(new GitSource(path, std::move(impl)));
}

bool GitSource::has_commit(const std::string& sha) const {
  git_oid oid;
  CommitPtr c;
  return git_oid_fromstr(&oid, sha.c_str()) == 0 &&
         git_commit_lookup(c.out(), impl_->repo, &oid) == 0;
}

bool GitSource::is_shallow() const {
  return !impl_->shallow.empty();
}

bool GitSource::is_shallow_boundary(const std::string& sha) const {
  return impl_->shallow.count(sha) > 0;
}

// True when the repository has no references at all (libgit2's own
// git_repository_is_empty only knows an unborn "master").
bool GitSource::is_empty() const {
  if (git_repository_is_empty(impl_->repo) == 1) return true;
  if (git_repository_head_unborn(impl_->repo) != 1) return false;
  git_reference_iterator* it = nullptr;
  if (git_reference_iterator_new(&it, impl_->repo) != 0) return false;
  git_reference* ref = nullptr;
  const bool none = git_reference_next(&ref, it) != 0;
  if (ref) git_reference_free(ref);
  git_reference_iterator_free(it);
  return none;
}

Result<std::string> GitSource::resolve_branch(const std::string& branch) const {
  if (is_empty()) return fail(ErrorKind::kInvalidInput, "repository {} has no commits", path_);
  if (branch.empty()) {
    git_oid oid;
    if (git_reference_name_to_id(&oid, impl_->repo, "HEAD") != 0)
      return fail(ErrorKind::kNotFound, "HEAD of {} does not point to a commit ({})", path_,
                  last_git_error());
    return oid_str(&oid);
  }
  for (const std::string& name : {"refs/heads/" + branch, "refs/remotes/origin/" + branch}) {
    git_oid oid;
    if (git_reference_name_to_id(&oid, impl_->repo, name.c_str()) == 0) {
      ObjectPtr obj;
      if (git_object_lookup(obj.out(), impl_->repo, &oid, GIT_OBJECT_ANY) == 0) {
        ObjectPtr peeled;
        if (git_object_peel(peeled.out(), obj.get(), GIT_OBJECT_COMMIT) == 0)
          return oid_str(git_object_id(peeled.get()));
      }
    }
  }
  ObjectPtr obj;
  if (git_revparse_single(obj.out(), impl_->repo, branch.c_str()) == 0) {
    ObjectPtr peeled;
    if (git_object_peel(peeled.out(), obj.get(), GIT_OBJECT_COMMIT) == 0)
      return oid_str(git_object_id(peeled.get()));
  }
  return fail(ErrorKind::kNotFound, "branch '{}' not found in {}", branch, path_);
}

Result<std::string> GitSource::resolve_fetched_branch(const std::string& branch) const {
  auto local = resolve_branch(branch);
  if (branch.empty()) return local;
  git_oid remote;
  const std::string name = "refs/remotes/origin/" + branch;
  if (git_reference_name_to_id(&remote, impl_->repo, name.c_str()) != 0) return local;
  ObjectPtr obj, peeled;
  if (git_object_lookup(obj.out(), impl_->repo, &remote, GIT_OBJECT_ANY) != 0 ||
      git_object_peel(peeled.out(), obj.get(), GIT_OBJECT_COMMIT) != 0)
    return local;
  const std::string fetched = oid_str(git_object_id(peeled.get()));
  if (!local) return fetched;
  // Ahead: the local tip is on the fetched tip's first-parent chain (the
  // chain ingest walks; libgit2's merge-base would trip on a shallow clone).
  bool ahead = false;
  auto walked = walk_first_parent(fetched, [&](const std::string& sha, UnixSeconds) {
    ahead = sha == *local;
    return !ahead;
  });
  return walked && ahead ? fetched : local;
}

std::optional<std::string> GitSource::head_branch() const {
  RefPtr head;
  if (git_repository_head(head.out(), impl_->repo) != 0) {
    // Unborn or detached: fall back to the symbolic target of HEAD.
    RefPtr sym;
    if (git_reference_lookup(sym.out(), impl_->repo, "HEAD") != 0) return std::nullopt;
    const char* target = git_reference_symbolic_target(sym.get());
    if (!target) return std::nullopt;
    std::string t = target;
    if (t.rfind("refs/heads/", 0) == 0) return t.substr(11);
    return std::nullopt;
  }
  if (!git_reference_is_branch(head.get())) return std::nullopt;
  return std::string(git_reference_shorthand(head.get()));
}

std::optional<std::string> GitSource::remote_url(const std::string& remote) const {
  RemotePtr r;
  if (git_remote_lookup(r.out(), impl_->repo, remote.c_str()) != 0) return std::nullopt;
  const char* url = git_remote_url(r.get());
  if (!url) return std::nullopt;
  return std::string(url);
}

Result<bool> GitSource::fetch(const std::string& remote) {
  RemotePtr r;
  if (git_remote_lookup(r.out(), impl_->repo, remote.c_str()) != 0) return false;
  git_fetch_options opts;
  git_fetch_options_init(&opts, GIT_FETCH_OPTIONS_VERSION);
  if (git_remote_fetch(r.get(), nullptr, &opts, "mergelens fetch") != 0)
    return fail(ErrorKind::kIo, "cannot fetch {} of {} ({})", remote, path_, last_git_error());
  return true;
}

Result<void> GitSource::walk_first_parent(
    const std::string& tip,
    const std::function<bool(const std::string&, UnixSeconds)>& visit) const {
  git_oid oid;
  if (git_oid_fromstr(&oid, tip.c_str()) != 0)
    return fail(ErrorKind::kInvalidInput, "'{}' is not a commit id", tip);
  for (;;) {
    CommitPtr c;
    if (git_commit_lookup(c.out(), impl_->repo, &oid) != 0)
      return fail(ErrorKind::kCorrupt, "cannot read commit {} in {} ({})", oid_str(&oid), path_,
                  last_git_error());
    const std::string sha = oid_str(&oid);
    if (!visit(sha, git_commit_time(c.get()))) return {};
    if (git_commit_parentcount(c.get()) == 0 || impl_->shallow.count(sha)) return {};
    git_oid_cpy(&oid, git_commit_parent_id(c.get(), 0));
  }
}

Result<std::optional<std::string>> GitSource::read_path(const std::string& sha,
                                                        const std::string& path, size_t max_bytes,
                                                        bool links) const {
  if (!impl_->tree.get() || impl_->tree_sha != sha) {
    TreePtr fresh;
    if (auto t = commit_tree(impl_->repo, sha, path_, fresh); !t) return std::unexpected(t.error());
    std::swap(impl_->tree.p, fresh.p);  // `fresh` frees the old one
    impl_->tree_sha = sha;
  }
  Owned<git_tree_entry, git_tree_entry_free> entry;
  if (git_tree_entry_bypath(entry.out(), impl_->tree.get(), path.c_str()) != 0 ||
      git_tree_entry_type(entry.get()) != GIT_OBJECT_BLOB ||
      (!links && git_tree_entry_filemode(entry.get()) == GIT_FILEMODE_LINK))
    return std::optional<std::string>();
  const ssize_t header = blob_size(impl_->repo, git_tree_entry_id(entry.get()));
  if (header >= 0 && static_cast<size_t>(header) > max_bytes) return std::optional<std::string>();
  Owned<git_blob, git_blob_free> blob;
  if (git_blob_lookup(blob.out(), impl_->repo, git_tree_entry_id(entry.get())) != 0)
    return fail(ErrorKind::kCorrupt, "cannot read {} at {} ({})", path, sha, last_git_error());
  const auto size = static_cast<size_t>(git_blob_rawsize(blob.get()));
  if (size > max_bytes) return std::optional<std::string>();
  return std::optional<std::string>(
      std::string(static_cast<const char*>(git_blob_rawcontent(blob.get())), size));
}

Result<std::optional<std::string>> GitSource::read_file(const std::string& sha,
                                                        const std::string& path,
                                                        size_t max_bytes) const {
  return read_path(sha, path, max_bytes, /*links=*/true);
}

Result<std::optional<std::string>> GitSource::read_regular_file(const std::string& sha,
                                                                const std::string& path,
                                                                size_t max_bytes) const {
  return read_path(sha, path, max_bytes, /*links=*/false);
}

Result<void> GitSource::for_each_file(
    const std::string& sha, const std::function<bool(const std::string& path)>& want,
    const std::function<void(const std::string& path, std::string_view content)>& visit,
    size_t max_bytes) const {
  TreePtr tree;
  if (auto t = commit_tree(impl_->repo, sha, path_, tree); !t) return std::unexpected(t.error());
  struct Walk {
    git_repository* repo;
    const std::function<bool(const std::string&)>* want;
    const std::function<void(const std::string&, std::string_view)>* visit;
    size_t max_bytes;
    std::string failed;
  } walk{impl_->repo, &want, &visit, max_bytes, {}};
  auto cb = [](const char* root, const git_tree_entry* entry, void* payload) -> int {
    auto* w = static_cast<Walk*>(payload);
    if (git_tree_entry_type(entry) != GIT_OBJECT_BLOB ||
        git_tree_entry_filemode(entry) == GIT_FILEMODE_LINK)
      return 0;
    std::string path = std::string(root) + git_tree_entry_name(entry);
    if (!(*w->want)(path)) return 0;
    const ssize_t header = blob_size(w->repo, git_tree_entry_id(entry));
    if (header >= 0 && static_cast<size_t>(header) > w->max_bytes) return 0;
    Owned<git_blob, git_blob_free> blob;
    if (git_blob_lookup(blob.out(), w->repo, git_tree_entry_id(entry)) != 0) {
      w->failed = path;
      return -1;
    }
    const auto size = static_cast<size_t>(git_blob_rawsize(blob.get()));
    if (size <= w->max_bytes)
      (*w->visit)(
          path, std::string_view(static_cast<const char*>(git_blob_rawcontent(blob.get())), size));
    return 0;
  };
  if (git_tree_walk(tree.get(), GIT_TREEWALK_PRE, cb, &walk) != 0)
    return fail(ErrorKind::kCorrupt, "cannot read {} at {} ({})",
                walk.failed.empty() ? std::string("the tree") : walk.failed, sha, last_git_error());
  return {};
}

Result<Change> GitSource::read_change(const std::string& sha, const GitReadOptions& opt) const {
  git_oid oid;
  CommitPtr commit;
  if (git_oid_fromstr(&oid, sha.c_str()) != 0 ||
      git_commit_lookup(commit.out(), impl_->repo, &oid) != 0)
    return fail(ErrorKind::kNotFound, "commit {} not found in {}", sha, path_);
  git_commit* c = commit.get();
  const unsigned nparents = git_commit_parentcount(c);

  Change change;
  const Commit head = commit_of(c);
  const MessageInfo info = classify_message(head.message, nparents > 1);
  change.kind = info.kind;
  change.number = info.number;
  change.title = info.title;
  change.body = info.body;
  change.sha = head.sha;
  change.author = head.author;
  change.merged_at = head.committed_at;

  if (nparents > 0 && impl_->shallow.count(change.sha)) {
    // The boundary of a shallow clone: the parent is not here to diff against.
    change.shallow = true;
    change.parent_sha = oid_str(git_commit_parent_id(c, 0));
    change.commits.push_back(head);
    return change;
  }
  CommitPtr parent;
  TreePtr old_tree, new_tree;
  if (nparents > 0) {
    if (git_commit_parent(parent.out(), c, 0) != 0 || git_commit_tree(old_tree.out(), parent.get()))
      return fail(ErrorKind::kCorrupt, "cannot read the parent of {} ({})", sha, last_git_error());
    change.parent_sha = oid_str(git_commit_id(parent.get()));
  }
  if (git_commit_tree(new_tree.out(), c) != 0)
    return fail(ErrorKind::kCorrupt, "cannot read the tree of {} ({})", sha, last_git_error());

  // Commits: the squash/plain commit itself, or the merged branch's commits.
  if (nparents > 1) {
    WalkPtr walk;
    if (git_revwalk_new(walk.out(), impl_->repo) == 0) {
      git_revwalk_sorting(walk.get(), GIT_SORT_TOPOLOGICAL | GIT_SORT_REVERSE);
      git_revwalk_push(walk.get(), git_commit_parent_id(c, 1));
      git_revwalk_hide(walk.get(), git_commit_parent_id(c, 0));
      git_oid id;
      while (change.commits.size() < opt.max_commits_per_merge &&
             git_revwalk_next(&id, walk.get()) == 0) {
        CommitPtr bc;
        if (git_commit_lookup(bc.out(), impl_->repo, &id) == 0)
          change.commits.push_back(commit_of(bc.get()));
      }
    }
  } else {
    change.commits.push_back(head);
  }

  git_diff_options dopts = GIT_DIFF_OPTIONS_INIT;
  dopts.context_lines = static_cast<uint32_t>(opt.context_lines);
  dopts.max_size = static_cast<git_off_t>(opt.max_diff_bytes);  // backstop: larger is binary
  // The paths that differ, found without opening the folders both trees
  // share, bound the diff's walk to the folders on their way (see
  // tree_paths.cc). Without the list (a folder unreadable) the diff walks all.
  DiffPaths paths;
  if (paths.read(impl_->repo, old_tree.get(), new_tree.get()) && !paths.empty()) paths.limit(dopts);
  DiffPtr diff;
  auto tree_diff = [&]() -> Result<void> {  // (again: a failed rename pass may leave it half done)
    if (diff.p) git_diff_free(diff.p), diff.p = nullptr;
    if (git_diff_tree_to_tree(diff.out(), impl_->repo, old_tree.get(), new_tree.get(), &dopts))
      return fail(ErrorKind::kCorrupt, "cannot diff {} ({})", sha, last_git_error());
    return {};
  };
  auto renames = [&](unsigned flags) {
    git_diff_find_options fopts = GIT_DIFF_FIND_OPTIONS_INIT;
    fopts.flags = flags;
    return git_diff_find_similar(diff.get(), &fopts) == 0;
  };
  if (auto r = tree_diff(); !r) return std::unexpected(r.error());
  // Similarity reads both blobs of every candidate pair, and one missing from
  // a partial clone fails it: then exact renames (no content needed), else none.
  if (opt.find_renames && !renames(GIT_DIFF_FIND_RENAMES)) {
    if (auto r = tree_diff(); !r) return std::unexpected(r.error());
    if (!renames(GIT_DIFF_FIND_RENAMES | GIT_DIFF_FIND_EXACT_MATCH_ONLY))
      if (auto r = tree_diff(); !r) return std::unexpected(r.error());
  }

  const size_t ndeltas = git_diff_num_deltas(diff.get());
  size_t line_budget = opt.max_lines_per_change;
  change.files.reserve(std::min(ndeltas, opt.max_files));
  for (size_t i = 0; i < ndeltas; ++i) {
    const git_diff_delta* d = git_diff_get_delta(diff.get(), i);
    auto status = status_of(d->status);
    if (!status) continue;
    if (change.files.size() >= opt.max_files) {
      change.files_truncated = true;
      break;
    }
    FileChange f;
    f.status = *status;
    f.path = (d->status == GIT_DELTA_DELETED ? d->old_file.path : d->new_file.path);
    if (d->status == GIT_DELTA_RENAMED || d->status == GIT_DELTA_COPIED)
      f.old_path = d->old_file.path;
    read_file_diff(impl_->repo, diff.get(), i, opt, line_budget, f);
    change.files.push_back(std::move(f));
  }
  return change;
}

}  // namespace mergelens
