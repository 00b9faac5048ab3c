// source/TreeLookup::in_tree across commits: the lookups of one repository
// share the names of the first tree read and carry only what their own tree
// changes against it, and answer as a lookup reading its tree whole would.
#include <gtest/gtest.h>

#include <fstream>

#include "mergelens/source/tree_lookup.h"
#include "test_helpers.h"

namespace mergelens {
namespace {

class TreeLookupNames : public ::testing::Test {
 protected:
  void SetUp() override {
    repo.write("a/one.py", "def kept_name():\n    return shared_name\n");
    repo.write("a/two.py", "shared_name = 1\nname_going_away = 2\n");
    repo.write("b/three.py", "file_deleted_later = 3\n");
    repo.write("img/logo.png", "name_in_media\n");
    first = commit("First (#1)", "2026-09-01T10:00:00Z");
    // Changes one file (a name leaves, one arrives), deletes one, adds one.
    repo.write("a/two.py", "shared_name = 1\nname_arriving = 2\n");
    repo.run("rm -q b/three.py");
    repo.write("c/new.py", "brand_new_module = 4\n");
    second = commit("Second (#2)", "2026-09-02T10:00:00Z");
    // The only file holding shared_name besides one.py loses it.
    repo.write("a/two.py", "name_arriving = 2\n");
    third = commit("Third (#3)", "2026-09-03T10:00:00Z");
  }

  std::string commit(const std::string& msg, const std::string& when) {
    repo.commit(msg, when);
    repo.run("rev-parse HEAD > .git/SHA");
    std::ifstream in(repo.path() + "/.git/SHA");
    std::string sha;
    in >> sha;
    return sha;
  }

  // in_tree of each name, in order, as a string of 0 and 1.
  std::string answers(const std::string& sha) {
    auto t = TreeLookup::open(repo.path(), sha);
    EXPECT_TRUE(t) << t.error().message;
    if (!t) return "";
    std::string out;
    for (const char* n : {"kept_name", "shared_name", "name_going_away", "name_arriving",
                          "file_deleted_later", "brand_new_module", "name_in_media", "absent_name"})
      out.push_back((*t)->in_tree(n) ? '1' : '0');
    return out;
  }

  testing::TempDir dir;
  testing::GitRepo repo{dir.path() + "/repo"};
  std::string first, second, third;
};

//                                   kept shared going arriving deleted new media absent
constexpr const char* kFirst = "11101000";
constexpr const char* kSecond = "11010100";
constexpr const char* kThird = "11010100";

TEST_F(TreeLookupNames, ForwardFromTheFirstTreeRead) {
  EXPECT_EQ(answers(first), kFirst);
  EXPECT_EQ(answers(second), kSecond);
  EXPECT_EQ(answers(third), kThird);
  EXPECT_EQ(answers(first), kFirst);
}

TEST_F(TreeLookupNames, BackwardFromALaterTree) {
  EXPECT_EQ(answers(third), kThird);
  EXPECT_EQ(answers(first), kFirst);
  EXPECT_EQ(answers(second), kSecond);
}

TEST_F(TreeLookupNames, ANameLeavesOnlyWhenItsLastFileDoes) {
  // shared_name: in one.py and two.py at the second commit; the third commit
  // takes it out of two.py and it is still in one.py.
  EXPECT_EQ(answers(second)[1], '1');
  EXPECT_EQ(answers(third)[1], '1');
  repo.write("a/one.py", "def kept_name():\n    return 0\n");
  const auto fourth = commit("Fourth (#4)", "2026-09-04T10:00:00Z");
  EXPECT_EQ(answers(fourth), "10010100");
  EXPECT_EQ(answers(second)[1], '1');
}

TEST_F(TreeLookupNames, LookupsAliveTogetherKeepTheirOwnTrees) {
  auto a = TreeLookup::open(repo.path(), first);
  auto b = TreeLookup::open(repo.path(), third);
  ASSERT_TRUE(a && b);
  EXPECT_TRUE((*a)->in_tree("name_going_away"));
  EXPECT_FALSE((*b)->in_tree("name_going_away"));
  EXPECT_TRUE((*b)->in_tree("brand_new_module"));
  EXPECT_FALSE((*a)->in_tree("brand_new_module"));
  EXPECT_TRUE((*a)->in_tree("file_deleted_later"));
}

}  // namespace
}  // namespace mergelens
