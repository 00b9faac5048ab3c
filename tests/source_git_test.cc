#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "mergelens/source/git_source.h"
#include "test_helpers.h"

namespace mergelens {
namespace {

using testing::GitRepo;
using testing::TempDir;

const FileChange* find_file(const Change& c, const std::string& path) {
  for (const auto& f : c.files)
    if (f.path == path) return &f;
  return nullptr;
}

class GitSourceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    repo_ = std::make_unique<GitRepo>(dir_ / "work");
    std::string big;
    for (int i = 0; i < 200; ++i) big += "line " + std::to_string(i) + " of a module that moves\n";
    repo_->write("python/mod.py", "def f(x):\n    return x\n");
    repo_->write("python/moved.py", big);
    repo_->write("docs/old.md", "# Old\n");
    repo_->commit("Initial import", "2026-09-01T08:00:00Z", "Root", "root@example.com");
    root_ = head();

    repo_->write("python/mod.py", "def f(x):\n    if x is None:\n        return 0\n    return x\n");
    repo_->run("mv python/moved.py python/renamed.py");
    repo_->write("python/renamed.py", big + "one more line\n");
    repo_->run("rm -q docs/old.md");
    repo_->write("docs/logo.png", std::string("\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01", 20));
    repo_->commit("[Bugfix] Guard None in f (#1201)\n\nFixes #1187.\n", "2026-09-02T10:15:00Z");
    squash_ = head();
  }

  std::string head() {
    auto src = GitSource::open(repo_->path());
    EXPECT_TRUE(src);
    auto h = (*src)->resolve_branch("main");
    EXPECT_TRUE(h);
    return h.value_or("");
  }

  TempDir dir_;
  std::unique_ptr<GitRepo> repo_;
  std::string root_, squash_;
};

TEST_F(GitSourceTest, ReadsSquashMergeWithRenameBinaryAndDeletion) {
  auto src = GitSource::open(repo_->path());
  ASSERT_TRUE(src);
  auto c = (*src)->read_change(squash_, GitReadOptions{});
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->kind, ChangeKind::kSquash);
  EXPECT_EQ(c->number.value_or(0), 1201);
  EXPECT_EQ(c->title, "[Bugfix] Guard None in f");
  EXPECT_EQ(c->body, "Fixes #1187.");
  EXPECT_EQ(c->author.login, "ada");
  EXPECT_EQ(format_utc(c->merged_at), "2026-09-02T10:15:00Z");
  EXPECT_EQ(c->parent_sha, root_);
  ASSERT_EQ(c->commits.size(), 1u);

  const FileChange* mod = find_file(*c, "python/mod.py");
  ASSERT_TRUE(mod);
  EXPECT_EQ(mod->status, FileStatus::kModified);
  EXPECT_EQ(mod->additions, 2);
  EXPECT_EQ(mod->deletions, 0);
  ASSERT_EQ(mod->hunks.size(), 1u);
  int added_line = 0;
  for (const auto& l : mod->hunks[0].lines)
    if (l.origin == '+' && l.text == "    if x is None:") added_line = l.new_no;
  EXPECT_EQ(added_line, 2);

  const FileChange* ren = find_file(*c, "python/renamed.py");
  ASSERT_TRUE(ren);
  EXPECT_EQ(ren->status, FileStatus::kRenamed);
  EXPECT_EQ(ren->old_path, "python/moved.py");
  EXPECT_EQ(ren->additions, 1);

  const FileChange* del = find_file(*c, "docs/old.md");
  ASSERT_TRUE(del);
  EXPECT_EQ(del->status, FileStatus::kDeleted);

  const FileChange* png = find_file(*c, "docs/logo.png");
  ASSERT_TRUE(png);
  EXPECT_TRUE(png->binary);
  EXPECT_TRUE(png->hunks.empty());
}

TEST_F(GitSourceTest, RootCommitIsAPlainCommitAgainstTheEmptyTree) {
  auto src = GitSource::open(repo_->path());
  auto c = (*src)->read_change(root_, GitReadOptions{});
  ASSERT_TRUE(c);
  EXPECT_EQ(c->kind, ChangeKind::kCommit);
  EXPECT_FALSE(c->number);
  EXPECT_EQ(c->parent_sha, "");
  EXPECT_EQ(c->files.size(), 3u);
  EXPECT_EQ(c->author.login, "");
}

TEST_F(GitSourceTest, CapsHugeFilesButKeepsTheirCounts) {
  std::string huge;
  for (int i = 0; i < 5000; ++i)
    huge += "TABLE[" + std::to_string(i) + "] = " + std::to_string(i * 7) + "\n";
  repo_->write("gen/table.py", huge);
  repo_->commit("Add generated table (#1300)", "2026-09-03T09:00:00Z");
  auto src = GitSource::open(repo_->path());
  GitReadOptions opt;
  opt.max_lines_per_file = 1000;
  auto c = (*src)->read_change(head(), opt);
  ASSERT_TRUE(c);
  const FileChange* f = find_file(*c, "gen/table.py");
  ASSERT_TRUE(f);
  EXPECT_TRUE(f->truncated);
  EXPECT_EQ(f->additions, 5000);
  EXPECT_TRUE(f->hunks.empty());
}

// Over max_diff_bytes a file is not diffed: added or deleted it is counted
// from its one blob; modified it is marked unavailable, never "+0 -0".
TEST_F(GitSourceTest, FilesOverTheDiffLimitAreCountedOrMarkedNotEmpty) {
  std::string big;
  for (int i = 0; i < 300; ++i) big += "row " + std::to_string(i) + "\n";
  repo_->write("data/big.txt", big);
  repo_->commit("Add big (#1401)", "2026-09-03T09:00:00Z");
  const std::string added = head();
  repo_->write("data/big.txt", big + "one more\n");
  repo_->write("python/mod.py", "def f(x):\n    return x + 1\n");
  repo_->commit("Change big (#1402)", "2026-09-03T10:00:00Z");
  const std::string modified = head();
  auto src = GitSource::open(repo_->path());
  ASSERT_TRUE(src);
  GitReadOptions opt;
  opt.max_diff_bytes = 1000;
  auto a = (*src)->read_change(added, opt);
  ASSERT_TRUE(a) << a.error().message;
  const FileChange* f = find_file(*a, "data/big.txt");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->additions, 300);
  EXPECT_TRUE(f->truncated);
  EXPECT_TRUE(f->hunks.empty());
  EXPECT_EQ(f->unavailable, "");
  auto m = (*src)->read_change(modified, opt);
  ASSERT_TRUE(m) << m.error().message;
  f = find_file(*m, "data/big.txt");
  ASSERT_TRUE(f);
  EXPECT_NE(f->unavailable.find("too large to diff"), std::string::npos) << f->unavailable;
  EXPECT_TRUE(f->hunks.empty());
  const FileChange* small = find_file(*m, "python/mod.py");
  ASSERT_TRUE(small);
  EXPECT_EQ(small->unavailable, "");
  EXPECT_EQ(small->additions, 1);
}

// A blob missing from the object store (a partial clone) is a gap in that
// file: the change still reads, the file says why.
TEST_F(GitSourceTest, AMissingBlobMarksTheFileAndTheChangeStillReads) {
  repo_->write("python/gone.py", "GONE = 1\n");
  repo_->write("python/mod.py", "def f(x):\n    return x * 2\n");
  repo_->commit("Add gone (#1403)", "2026-09-03T11:00:00Z");
  const std::string sha = head();
  // Everything in one new pack but that blob; the old packs and loose objects go.
  const std::string g = GitRepo::git();
  testing::sh(fmt::format(
      "cd '{0}' && id=$({1} rev-parse HEAD:python/gone.py) && {1} repack -q -a -d && "
      "{1} cat-file --batch-all-objects --batch-check='%(objectname)' | grep -v $id | "
      "{1} pack-objects -q .git/objects/pack/keep >/dev/null && "
      "for p in .git/objects/pack/pack-*.pack; do rm -f \"$p\" \"${{p%.pack}}.idx\"; done && "
      "! {1} cat-file -e $id 2>/dev/null",
      repo_->path(), g));
  auto src = GitSource::open(repo_->path());
  ASSERT_TRUE(src);
  auto c = (*src)->read_change(sha, GitReadOptions{});
  ASSERT_TRUE(c) << c.error().message;
  const FileChange* f = find_file(*c, "python/gone.py");
  ASSERT_TRUE(f);
  EXPECT_NE(f->unavailable.find("not in the clone"), std::string::npos) << f->unavailable;
  EXPECT_EQ(f->additions, 0);
  const FileChange* mod = find_file(*c, "python/mod.py");
  ASSERT_TRUE(mod);
  EXPECT_EQ(mod->unavailable, "");
  EXPECT_EQ(mod->additions, 1);
}

TEST_F(GitSourceTest, MergeCommitDiffsAgainstFirstParentAndListsBranchCommits) {
  repo_->run("checkout -q -b feature");
  repo_->write("python/a.py", "A = 1\n");
  repo_->commit("add a", "2026-09-03T09:00:00Z", "Bob", "bob@example.com");
  repo_->write("python/b.py", "B = 2\n");
  repo_->commit("add b", "2026-09-03T09:30:00Z", "Bob", "bob@example.com");
  repo_->run("checkout -q main");
  testing::write_file(repo_->path() + "/.git/MSG",
                      "Merge pull request #1250 from bob/feature\n\nAdd a and b\n");
  testing::sh("cd '" + repo_->path() +
              "' && GIT_COMMITTER_DATE=2026-09-03T10:00:00Z "
              "GIT_AUTHOR_DATE=2026-09-03T10:00:00Z " +
              GitRepo::git() + " merge -q --no-ff -F .git/MSG feature");
  auto src = GitSource::open(repo_->path());
  auto c = (*src)->read_change(head(), GitReadOptions{});
  ASSERT_TRUE(c);
  EXPECT_EQ(c->kind, ChangeKind::kMerge);
  EXPECT_EQ(c->number.value_or(0), 1250);
  EXPECT_EQ(c->title, "Add a and b");
  EXPECT_EQ(c->files.size(), 2u);
  ASSERT_EQ(c->commits.size(), 2u);
  EXPECT_EQ(c->commits[0].message, "add a");
}

TEST_F(GitSourceTest, WalksFirstParentNewestFirst) {
  auto src = GitSource::open(repo_->path());
  std::vector<std::string> seen;
  auto r = (*src)->walk_first_parent(squash_, [&](const std::string& sha, UnixSeconds) {
    seen.push_back(sha);
    return true;
  });
  ASSERT_TRUE(r);
  EXPECT_EQ(seen, (std::vector<std::string>{squash_, root_}));
}

// The diff is bounded to the paths that differ, found by comparing the trees
// folder by folder (source/tree_paths.cc): the files must be exactly those git
// itself reports, through folders that became files and the reverse, mode
// changes, deep additions and removals, and folders left alone.
TEST_F(GitSourceTest, ListsExactlyTheFilesGitDiffReports) {
  for (int i = 0; i < 30; ++i) repo_->write(fmt::format("same/s{}.py", i), "x = 1\n");
  repo_->write("deep/a/b/c.py", "c = 1\n");
  repo_->write("deep/a/keep.py", "k = 1\n");
  repo_->write("becomes_dir", "a file\n");
  repo_->write("becomes_file/one.txt", "1\n");
  repo_->write("becomes_file/sub/two.txt", "2\n");
  repo_->write("gone/x/y.txt", "y\n");
  repo_->write("run.sh", "echo hi\n");
  repo_->commit("Layout (#1300)", "2026-09-03T08:00:00Z");
  const std::string before = head();

  repo_->write("deep/a/b/c.py", "c = 2\n");
  repo_->run("rm -q becomes_dir");
  repo_->write("becomes_dir/inner.txt", "now a folder\n");
  repo_->run("rm -rq becomes_file");
  repo_->write("becomes_file", "now a file\n");
  repo_->run("rm -rq gone");
  repo_->write("new/p/q/r.py", "r = 1\n");
  testing::sh(fmt::format("chmod +x '{}/run.sh'", repo_->path()));
  repo_->commit("Reshape (#1301)", "2026-09-04T08:00:00Z");
  const std::string after = head();

  const std::string listing = dir_ / "names.txt";
  testing::sh(fmt::format("cd '{}' && {} diff --name-only --no-renames {} {} > '{}'", repo_->path(),
                          GitRepo::git(), before, after, listing));
  std::ifstream in(listing);
  std::set<std::string> expected;
  for (std::string line; std::getline(in, line);) expected.insert(line);
  ASSERT_EQ(expected.size(), 9u);  // c.py, becomes_dir (2), becomes_file (3), y.txt, r.py, run.sh

  auto src = GitSource::open(repo_->path());
  ASSERT_TRUE(src);
  GitReadOptions opt;
  opt.find_renames = false;
  auto c = (*src)->read_change(after, opt);
  ASSERT_TRUE(c) << c.error().message;
  std::set<std::string> got;
  for (const auto& f : c->files) got.insert(f.path);
  EXPECT_EQ(got, expected);
  const FileChange* run = find_file(*c, "run.sh");
  ASSERT_TRUE(run);
  EXPECT_EQ(run->status, FileStatus::kModified);
  const FileChange* deep = find_file(*c, "deep/a/b/c.py");
  ASSERT_TRUE(deep);
  EXPECT_EQ(deep->additions, 1);
  EXPECT_EQ(deep->deletions, 1);
}

TEST(GitSourceErrors, NamesTheBadInput) {
  TempDir dir;
  auto not_repo = GitSource::open(dir.path());
  ASSERT_FALSE(not_repo);
  EXPECT_EQ(not_repo.error().kind, ErrorKind::kInvalidInput);
  EXPECT_NE(not_repo.error().message.find(dir.path()), std::string::npos);

  GitRepo empty(dir / "empty");
  auto src = GitSource::open(empty.path());
  ASSERT_TRUE(src);
  auto tip = (*src)->resolve_branch("");
  ASSERT_FALSE(tip);
  EXPECT_NE(tip.error().message.find("no commits"), std::string::npos);

  empty.write("x", "x\n");
  empty.commit("x", "2026-09-01T00:00:00Z");
  auto unknown = (*src)->resolve_branch("nope");
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().kind, ErrorKind::kNotFound);
  EXPECT_NE(unknown.error().message.find("nope"), std::string::npos);
}

TEST(GitSourceBare, OpensBareClones) {
  TempDir dir;
  GitRepo work(dir / "work");
  work.write("x", "x\n");
  work.commit("first (#1)", "2026-09-01T00:00:00Z");
  testing::sh(GitRepo::git() + " clone -q --bare '" + work.path() + "' '" + (dir / "bare.git") +
              "'");
  auto src = GitSource::open(dir / "bare.git");
  ASSERT_TRUE(src);
  EXPECT_EQ((*src)->head_branch().value_or(""), "main");
  auto tip = (*src)->resolve_branch("main");
  ASSERT_TRUE(tip);
  auto c = (*src)->read_change(*tip, GitReadOptions{});
  ASSERT_TRUE(c);
  EXPECT_EQ(c->number.value_or(0), 1);
  EXPECT_EQ((*src)->remote_url().value_or(""), work.path());
}

// A shallow clone (git clone --depth 2): the boundary commit's parent is not
// in the clone. The walk ends there and the boundary reads without a diff.
TEST(GitSourceShallow, WalkEndsAtTheBoundaryWhichReadsWithoutADiff) {
  TempDir dir;
  GitRepo work(dir / "work");
  for (int i = 1; i <= 4; ++i) {
    work.write("a.py", "x = " + std::to_string(i) + "\n");
    work.commit(fmt::format("Change {} (#{})", i, i), fmt::format("2026-09-0{}T00:00:00Z", i));
  }
  const std::string clone = dir / "shallow";
  testing::sh(GitRepo::git() + " clone -q --depth 2 'file://" + work.path() + "' '" + clone + "'");
  auto src = GitSource::open(clone);
  ASSERT_TRUE(src);
  EXPECT_TRUE((*src)->is_shallow());
  auto tip = (*src)->resolve_branch("main");
  ASSERT_TRUE(tip);
  std::vector<std::string> seen;
  auto walked = (*src)->walk_first_parent(*tip, [&](const std::string& sha, UnixSeconds) {
    seen.push_back(sha);
    return true;
  });
  ASSERT_TRUE(walked) << walked.error().message;
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_FALSE((*src)->is_shallow_boundary(seen[0]));
  EXPECT_TRUE((*src)->is_shallow_boundary(seen[1]));

  auto boundary = (*src)->read_change(seen[1], GitReadOptions{});
  ASSERT_TRUE(boundary) << boundary.error().message;
  EXPECT_TRUE(boundary->shallow);
  EXPECT_EQ(boundary->number.value_or(0), 3);
  EXPECT_TRUE(boundary->files.empty());
  ASSERT_EQ(boundary->commits.size(), 1u);
  EXPECT_EQ(boundary->parent_sha.size(), 40u);
  EXPECT_FALSE((*src)->has_commit(boundary->parent_sha));
  auto above = (*src)->read_change(seen[0], GitReadOptions{});
  ASSERT_TRUE(above);
  EXPECT_FALSE(above->shallow);
  ASSERT_EQ(above->files.size(), 1u);
  EXPECT_EQ(above->files[0].additions, 1);

  // A complete clone has no boundary.
  auto full = GitSource::open(work.path());
  ASSERT_TRUE(full);
  EXPECT_FALSE((*full)->is_shallow());
}

// A fetched work tree whose branch was not merged: the fetched branch is
// followed when it is ahead, the local one when it is not.
TEST(GitSourceFetched, FollowsTheRemoteBranchOnlyWhenItIsAhead) {
  TempDir dir;
  GitRepo up(dir / "up");
  up.write("a", "1\n");
  up.commit("one (#1)", "2026-09-01T00:00:00Z");
  testing::sh(GitRepo::git() + " clone -q '" + up.path() + "' '" + (dir / "clone") + "'");
  up.write("a", "2\n");
  up.commit("two (#2)", "2026-09-02T00:00:00Z");
  testing::sh("cd '" + (dir / "clone") + "' && " + GitRepo::git() + " fetch -q origin");
  auto src = GitSource::open(dir / "clone");
  ASSERT_TRUE(src);
  auto local = (*src)->resolve_branch("main");
  auto fetched = (*src)->resolve_fetched_branch("main");
  ASSERT_TRUE(local && fetched);
  EXPECT_NE(*local, *fetched);
  auto c = (*src)->read_change(*fetched, GitReadOptions{});
  ASSERT_TRUE(c);
  EXPECT_EQ(c->number.value_or(0), 2);

  // A local commit on top: the local branch is no longer behind, it is followed.
  testing::sh("cd '" + (dir / "clone") + "' && " + GitRepo::git() +
              " merge -q --ff-only origin/main && " + GitRepo::git() +
              " commit -q --allow-empty -m 'local (#3)'");
  auto reopened = GitSource::open(dir / "clone");
  ASSERT_TRUE(reopened);
  auto now = (*reopened)->resolve_fetched_branch("main");
  ASSERT_TRUE(now);
  EXPECT_EQ(*now, *(*reopened)->resolve_branch("main"));
}

}  // namespace
}  // namespace mergelens
