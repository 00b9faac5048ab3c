#include "mergelens/source/tree_lookup.h"

#include <git2.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <mutex>
#include <unordered_map>
#include <unordered_set>

#include "mergelens/source/git_internal.h"
#include "mergelens/source/git_owned.h"

namespace mergelens {
namespace {

using git_detail::Owned;

constexpr size_t kMaxFiles = 64;
constexpr size_t kMaxBytes = 8u << 20;
constexpr size_t kMaxFileBytes = 1u << 20;
// A tree's names are read whole up to this much text (sglang: ~105 MB).
constexpr size_t kMaxTreeBytes = 1u << 30;
// A tree this many changed files away from the shared base gets a base of its own.
constexpr size_t kMaxOverlayFiles = 1500;

// Files whose names no code cites: images, archives, weights, translations
// (skipped before their blobs are read).
bool media(std::string_view name) {
  const auto dot = name.rfind('.');
  if (dot == std::string_view::npos) return false;
  static constexpr std::string_view kSkip[] = {"png", "jpg", "jpeg", "gif", "ico",  "svg",
                                               "pdf", "whl", "so",   "a",   "bin",  "pt",
                                               "gz",  "zip", "tar",  "po",  "woff", "ttf"};
  const auto ext = name.substr(dot + 1);
  return std::ranges::find(kSkip, ext) != std::end(kSkip);
}

struct NameHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

// The names written in the text files of one tree: per name, how many of its
// files hold it. Built once per repository and shared by its lookups (read
// only once built).
struct TreeNames {
  git_oid tree{};
  std::unordered_map<std::string, uint32_t, NameHash, std::equal_to<>> files_with;
};

// One tree against the shared base: the names of the files it adds or changes,
// and per name how many of the base's files holding it it changes or removes.
struct Overlay {
  std::unordered_set<std::string, NameHash, std::equal_to<>> added;
  std::unordered_map<std::string, uint32_t, NameHash, std::equal_to<>> gone;
};

// Calls `use` with each name of `text` once.
template <typename F>
void each_name(std::string_view text, F&& use) {
  std::unordered_set<std::string_view> seen;
  for (size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (!std::isalpha(c) && c != '_') {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < text.size() && (std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '_'))
      ++j;
    if (j - i >= 2 && seen.insert(text.substr(i, j - i)).second) use(text.substr(i, j - i));
    i = j;
  }
}

// What the lookups of one repository share: the base, and the names of the
// files overlays read lately (by blob), so that consecutive commits do not
// read the same changed files again. Lives as long as the process.
struct Shared {
  std::shared_ptr<const TreeNames> base;
  std::unordered_map<std::string, std::vector<std::string>> blobs;  // raw oid → names
  size_t blob_bytes = 0;
};
constexpr size_t kMaxBlobCacheBytes = 64u << 20;

// The shared state, by repository (its git folder); guarded by shared_mutex.
std::mutex shared_mutex;
std::map<std::string, Shared>& shared_by_repo() {
  static std::map<std::string, Shared> b;
  return b;
}

}  // namespace

struct TreeLookup::Impl {
  Owned<git_repository, git_repository_free> repo;
  Owned<git_tree, git_tree_free> tree;
  bool loaded = false, tree_loaded = false;
  std::set<std::string> tokens;
  // The whole tree's names: a base shared by every lookup of this repository
  // and what this tree changes against it (see TreeNames below).
  std::shared_ptr<const TreeNames> base;
  Overlay overlay;

  // The text of blob `id`, given to `use`; false when absent, binary or too large.
  template <typename F>
  bool blob_text(const git_oid* id, size_t budget, F&& use) {
    Owned<git_blob, git_blob_free> blob;
    if (git_blob_lookup(blob.out(), repo.get(), id) != 0) return false;
    const auto size = static_cast<size_t>(git_blob_rawsize(blob.get()));
    if (size > kMaxFileBytes || size > budget || git_blob_is_binary(blob.get())) return false;
    use(std::string_view(static_cast<const char*>(git_blob_rawcontent(blob.get())), size));
    return true;
  }

  // The blob at `path`, appended to tokens; false when absent or too large.
  bool read(const std::string& path, size_t& budget) {
    Owned<git_tree_entry, git_tree_entry_free> e;
    if (git_tree_entry_bypath(e.out(), tree.get(), path.c_str()) != 0 ||
        git_tree_entry_type(e.get()) != GIT_OBJECT_BLOB)
      return false;
    return blob_text(git_tree_entry_id(e.get()), budget, [&](std::string_view text) {
      budget -= text.size();
      each_name(text, [&](std::string_view t) { tokens.emplace(t); });
    });
  }

  // Whether blob `id` at a path named `name` counts as a text file of the
  // tree; if so, `use` gets each of its names once. The same rule for the
  // base and the overlay keeps their counts exact.
  template <typename F>
  void names_of(const git_oid* id, std::string_view name, size_t& budget, F&& use) {
    if (media(name)) return;
    blob_text(id, budget, [&](std::string_view text) {
      budget -= text.size();
      each_name(text, use);
    });
  }

  std::shared_ptr<const TreeNames> build_base() {
    auto names = std::make_shared<TreeNames>();
    git_oid_cpy(&names->tree, git_tree_id(tree.get()));
    struct Walk {
      Impl* self;
      TreeNames* names;
      size_t budget = kMaxTreeBytes;
    } walk{this, names.get()};
    git_tree_walk(
        tree.get(), GIT_TREEWALK_PRE,
        [](const char*, const git_tree_entry* e, void* payload) -> int {
          auto* w = static_cast<Walk*>(payload);
          if (git_tree_entry_type(e) != GIT_OBJECT_BLOB) return 0;
          w->self->names_of(git_tree_entry_id(e), git_tree_entry_name(e), w->budget,
                            [&](std::string_view n) {
                              auto it = w->names->files_with.find(n);
                              if (it == w->names->files_with.end())
                                w->names->files_with.emplace(std::string(n), 1);
                              else
                                ++it->second;
                            });
          return 0;
        },
        &walk);
    return names;
  }

  // The names of blob `id` at a path named `name` through the shared cache
  // (`shared`, whose mutex the caller holds); empty when it does not count.
  const std::vector<std::string>& cached_names(Shared& shared, const git_oid* id,
                                               std::string_view name) {
    static const std::vector<std::string> none;
    if (media(name)) return none;
    std::string key(reinterpret_cast<const char*>(id->id), GIT_OID_RAWSZ);
    if (auto it = shared.blobs.find(key); it != shared.blobs.end()) return it->second;
    std::vector<std::string> names;
    size_t budget = kMaxFileBytes, bytes = 0;
    names_of(id, name, budget, [&](std::string_view t) {
      names.emplace_back(t);
      bytes += t.size() + sizeof(std::string);
    });
    if (shared.blob_bytes + bytes > kMaxBlobCacheBytes) {
      shared.blobs.clear();
      shared.blob_bytes = 0;
    }
    shared.blob_bytes += bytes;
    return shared.blobs.emplace(std::move(key), std::move(names)).first->second;
  }

  // The overlay of this tree against `shared`'s base; false when the base's
  // tree is gone or too far away.
  bool diff_against(Shared& shared) {
    const TreeNames& from = *shared.base;
    Owned<git_tree, git_tree_free> old_tree;
    Owned<git_diff, git_diff_free> diff;
    git_diff_options opts = GIT_DIFF_OPTIONS_INIT;
    opts.flags = GIT_DIFF_SKIP_BINARY_CHECK;
    if (git_tree_lookup(old_tree.out(), repo.get(), &from.tree) != 0) return false;
    // The paths that differ, without opening the folders both trees share,
    // bound the diff's walk (see tree_paths.cc); too many and the overlay is
    // not worth building.
    git_detail::DiffPaths paths;
    if (paths.read(repo.get(), old_tree.get(), tree.get())) {
      if (paths.size() > kMaxOverlayFiles) return false;
      paths.limit(opts);
    }
    if (git_diff_tree_to_tree(diff.out(), repo.get(), old_tree.get(), tree.get(), &opts) != 0)
      return false;
    const size_t n = git_diff_num_deltas(diff.get());
    if (n > kMaxOverlayFiles) return false;
    auto blob = [](const git_diff_file& f) {
      return (f.flags & GIT_DIFF_FLAG_EXISTS) && f.mode != GIT_FILEMODE_COMMIT &&
             f.mode != GIT_FILEMODE_TREE && f.mode != GIT_FILEMODE_UNREADABLE;
    };
    auto base_name = [](const char* path) {
      std::string_view p(path);
      const auto slash = p.rfind('/');
      return slash == std::string_view::npos ? p : p.substr(slash + 1);
    };
    for (size_t i = 0; i < n; ++i) {
      const git_diff_delta* d = git_diff_get_delta(diff.get(), i);
      if (d->status != GIT_DELTA_ADDED && blob(d->old_file))
        for (const auto& t : cached_names(shared, &d->old_file.id, base_name(d->old_file.path))) {
          auto it = overlay.gone.find(t);
          if (it == overlay.gone.end())
            overlay.gone.emplace(t, 1);
          else
            ++it->second;
        }
      if (d->status != GIT_DELTA_DELETED && blob(d->new_file))
        for (const auto& t : cached_names(shared, &d->new_file.id, base_name(d->new_file.path)))
          overlay.added.insert(t);
    }
    return true;
  }

  // The shared base of this repository, and this tree's overlay on it.
  void load_tree() {
    tree_loaded = true;
    const std::string key = git_repository_path(repo.get());
    std::lock_guard lock(shared_mutex);
    auto& shared = shared_by_repo()[key];
    if (shared.base &&
        (git_oid_equal(&shared.base->tree, git_tree_id(tree.get())) || diff_against(shared))) {
      base = shared.base;
      return;
    }
    overlay = {};
    shared.base = build_base();
    base = shared.base;
  }

  bool names_in_tree(std::string_view t) const {
    if (overlay.added.contains(t)) return true;
    auto it = base->files_with.find(t);
    if (it == base->files_with.end()) return false;
    auto g = overlay.gone.find(t);
    return it->second > (g == overlay.gone.end() ? 0u : g->second);
  }

  void load(const std::vector<std::string>& files) {
    loaded = true;
    size_t budget = kMaxBytes, count = 0;
    std::set<std::string> done, folders;
    for (const auto& f : files) {
      if (count >= kMaxFiles) break;
      if (done.insert(f).second && read(f, budget)) ++count;
      auto slash = f.rfind('/');
      folders.insert(slash == std::string::npos ? std::string() : f.substr(0, slash));
    }
    for (const auto& dir : folders) {
      Owned<git_tree, git_tree_free> sub;
      const git_tree* t = tree.get();
      if (!dir.empty()) {
        Owned<git_tree_entry, git_tree_entry_free> e;
        if (git_tree_entry_bypath(e.out(), tree.get(), dir.c_str()) != 0 ||
            git_tree_entry_type(e.get()) != GIT_OBJECT_TREE ||
            git_tree_lookup(sub.out(), repo.get(), git_tree_entry_id(e.get())) != 0)
          continue;
        t = sub.get();
      }
      for (size_t i = 0, n = git_tree_entrycount(t); i < n && count < kMaxFiles; ++i) {
        const git_tree_entry* e = git_tree_entry_byindex(t, i);
        if (git_tree_entry_type(e) != GIT_OBJECT_BLOB) continue;
        std::string path =
            dir.empty() ? git_tree_entry_name(e) : dir + "/" + git_tree_entry_name(e);
        if (done.insert(path).second && read(path, budget)) ++count;
      }
    }
  }
};

TreeLookup::TreeLookup(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
TreeLookup::~TreeLookup() = default;

Result<std::unique_ptr<TreeLookup>> TreeLookup::open(const std::string& repo_path,
                                                     const std::string& sha) {
  static std::once_flag once;
  std::call_once(once, [] { git_libgit2_init(); });
  auto impl = std::make_unique<Impl>();
  if (git_repository_open_ext(impl->repo.out(), repo_path.c_str(), GIT_REPOSITORY_OPEN_NO_SEARCH,
                              nullptr) != 0)
    return fail(ErrorKind::kInvalidInput, "{} is not a git repository", repo_path);
  git_oid oid;
  Owned<git_commit, git_commit_free> commit;
  if (git_oid_fromstr(&oid, sha.c_str()) != 0 ||
      git_commit_lookup(commit.out(), impl->repo.get(), &oid) != 0 ||
      git_commit_tree(impl->tree.out(), commit.get()) != 0)
    return fail(ErrorKind::kNotFound, "commit {} not found in {}", sha, repo_path);
  return std::unique_ptr<TreeLookup>(new TreeLookup(std::move(impl)));
}

bool TreeLookup::has_path(std::string_view path) {
  std::string p(path);
  while (p.starts_with("./")) p.erase(0, 2);
  while (p.ends_with('/')) p.pop_back();
  if (p.empty()) return false;
  Owned<git_tree_entry, git_tree_entry_free> e;
  return git_tree_entry_bypath(e.out(), impl_->tree.get(), p.c_str()) == 0;
}

bool TreeLookup::has_identifier(std::string_view token, const std::vector<std::string>& files) {
  if (!impl_->loaded) impl_->load(files);
  return impl_->tokens.count(std::string(token)) > 0;
}

bool TreeLookup::in_tree(std::string_view token) {
  if (!impl_->tree_loaded) impl_->load_tree();
  return impl_->names_in_tree(token);
}

std::optional<std::string> TreeLookup::read_file(std::string_view path) {
  Owned<git_tree_entry, git_tree_entry_free> e;
  if (git_tree_entry_bypath(e.out(), impl_->tree.get(), std::string(path).c_str()) != 0 ||
      git_tree_entry_type(e.get()) != GIT_OBJECT_BLOB)
    return std::nullopt;
  std::optional<std::string> out;
  impl_->blob_text(git_tree_entry_id(e.get()), kMaxFileBytes,
                   [&](std::string_view text) { out.emplace(text); });
  return out;
}

}  // namespace mergelens
