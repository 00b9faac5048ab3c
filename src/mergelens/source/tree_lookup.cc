#include "mergelens/source/tree_lookup.h"

#include <git2.h>

#include <algorithm>
#include <cctype>
#include <mutex>

#include "mergelens/source/git_owned.h"

namespace mergelens {
namespace {

using git_detail::Owned;

constexpr size_t kMaxFiles = 64;
constexpr size_t kMaxBytes = 8u << 20;
constexpr size_t kMaxFileBytes = 1u << 20;
constexpr size_t kMaxTreeBytes = 96u << 20;

void scan(std::string_view text, std::set<std::string>& out) {
  size_t i = 0;
  while (i < text.size()) {
    unsigned char c = text[i];
    if (std::isalpha(c) || c == '_') {
      size_t j = i;
      while (j < text.size() &&
             (std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '_'))
        ++j;
      if (j - i >= 2) out.emplace(text.substr(i, j - i));
      i = j;
    } else {
      ++i;
    }
  }
}

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

}  // namespace

struct TreeLookup::Impl {
  Owned<git_repository, git_repository_free> repo;
  Owned<git_tree, git_tree_free> tree;
  bool loaded = false, tree_loaded = false;
  std::set<std::string> tokens, tree_tokens;

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
      scan(text, tokens);
    });
  }

  void load_tree() {
    tree_loaded = true;
    struct Walk {
      Impl* self;
      size_t budget = kMaxTreeBytes;
    } walk{this};
    git_tree_walk(
        tree.get(), GIT_TREEWALK_PRE,
        [](const char*, const git_tree_entry* e, void* payload) -> int {
          auto* w = static_cast<Walk*>(payload);
          if (git_tree_entry_type(e) != GIT_OBJECT_BLOB || media(git_tree_entry_name(e))) return 0;
          w->self->blob_text(git_tree_entry_id(e), w->budget, [&](std::string_view text) {
            w->budget -= text.size();
            scan(text, w->self->tree_tokens);
          });
          return 0;
        },
        &walk);
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
  return impl_->tree_tokens.count(std::string(token)) > 0;
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
