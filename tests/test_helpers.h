// Shared helpers for the unit tests: temporary folders and small git
// repositories built with the git command line.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "mergelens/analysis/facts.h"
#include "mergelens/model/diff.h"

namespace mergelens::testing {

// A FileChange from unified-hunk text, with its additions and deletions counted.
inline FileChange file_from_patch(const std::string& path, const std::string& patch,
                                  FileStatus status = FileStatus::kModified) {
  FileChange f;
  f.path = path;
  f.status = status;
  auto p = parse_patch(patch);
  EXPECT_TRUE(p) << patch;
  if (p) f.hunks = p->hunks;
  for (const auto& hk : f.hunks)
    for (const auto& l : hk.lines) {
      f.additions += l.origin == '+';
      f.deletions += l.origin == '-';
    }
  return f;
}

// A fresh folder under the system temp dir, removed with its contents.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "mergelens-test-XXXXXX").string();
    path_ = mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::permissions(path_, std::filesystem::perms::owner_all,
                                 std::filesystem::perm_options::add, ec);
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& rel) const { return path_ + "/" + rel; }

 private:
  std::string path_;
};

// The context item of `v` with this reason and name; nullptr when none.
inline const ContextItem* context_item(const std::vector<ContextItem>& v, std::string_view why,
                                       std::string_view name) {
  for (const auto& c : v)
    if (c.why == why && c.name == name) return &c;
  return nullptr;
}

inline void write_file(const std::string& path, const std::string& content) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream out(path, std::ios::binary);
  out << content;
}

// Runs a shell command; fails the test when it exits non-zero.
inline void sh(const std::string& cmd) {
  const int rc = std::system(cmd.c_str());
  ASSERT_EQ(rc, 0) << "command failed: " << cmd;
}

// A git work tree with deterministic identities and dates.
class GitRepo {
 public:
  explicit GitRepo(std::string path) : path_(std::move(path)) {
    sh(fmt::format("{} init -q -b main '{}'", git(), path_));
  }
  const std::string& path() const { return path_; }

  void write(const std::string& rel, const std::string& content) {
    write_file(path_ + "/" + rel, content);
  }
  void run(const std::string& args) { sh(fmt::format("cd '{}' && {} {}", path_, git(), args)); }

  // Commits everything with `message` at `when` (e.g. "2026-09-01T10:00:00Z").
  void commit(const std::string& message, const std::string& when,
              const std::string& author = "Ada Lovelace",
              const std::string& email = "12345+ada@users.noreply.github.com") {
    write_file(path_ + "/.git/MSG", message);
    sh(fmt::format(
        "cd '{}' && {} add -A && GIT_AUTHOR_NAME='{}' GIT_AUTHOR_EMAIL='{}' "
        "GIT_AUTHOR_DATE='{}' GIT_COMMITTER_NAME=GitHub GIT_COMMITTER_EMAIL=noreply@github.com "
        "GIT_COMMITTER_DATE='{}' {} commit -q --allow-empty -F .git/MSG",
        path_, git(), author, email, when, when, git()));
  }

  static std::string git() {
    return "GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 git -c user.name=t "
           "-c user.email=t@example.com -c commit.gpgsign=false -c core.autocrlf=false";
  }

 private:
  std::string path_;
};

}  // namespace mergelens::testing
