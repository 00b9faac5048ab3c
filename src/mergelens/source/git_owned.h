// RAII for libgit2 objects (private to source/): Owned<git_commit,
// git_commit_free> frees what it holds when it goes out of scope.
#pragma once

namespace mergelens::git_detail {

template <class T, void (*Free)(T*)>
struct Owned {
  T* p = nullptr;
  Owned() = default;
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;
  ~Owned() {
    if (p) Free(p);
  }
  T** out() { return &p; }
  T* get() const { return p; }
};

}  // namespace mergelens::git_detail
