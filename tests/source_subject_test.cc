#include <gtest/gtest.h>

#include "mergelens/source/subject.h"

namespace mergelens {
namespace {

TEST(ClassifyMessage, SquashMergeTakesTheLastNumber) {
  auto m = classify_message("[AMD] Fix grid clamp (#12) (#35974)\n\nbody line\n", false);
  EXPECT_EQ(m.kind, ChangeKind::kSquash);
  ASSERT_TRUE(m.number);
  EXPECT_EQ(*m.number, 35974);
  EXPECT_EQ(m.title, "[AMD] Fix grid clamp (#12)");
  EXPECT_EQ(m.body, "body line");
}

TEST(ClassifyMessage, NumberMustEndTheSubject) {
  auto m = classify_message("Revert #12 (#abc)", false);
  EXPECT_EQ(m.kind, ChangeKind::kCommit);
  EXPECT_FALSE(m.number);
  auto m2 = classify_message("Fix (#12) in the middle", false);
  EXPECT_EQ(m2.kind, ChangeKind::kCommit);
  auto m3 = classify_message("Bump x (#0)", false);
  EXPECT_FALSE(m3.number);
}

TEST(ClassifyMessage, GitHubMergeCommitTakesTitleFromBody) {
  auto m = classify_message(
      "Merge pull request #77 from alice/fast-path\n\nUse the fast path\n\nDetails here.", true);
  EXPECT_EQ(m.kind, ChangeKind::kMerge);
  ASSERT_TRUE(m.number);
  EXPECT_EQ(*m.number, 77);
  EXPECT_EQ(m.title, "Use the fast path");
  EXPECT_EQ(m.body, "Details here.");
}

TEST(ClassifyMessage, OtherMergesAndPlainCommits) {
  auto m = classify_message("Merge branch 'dev'", true);
  EXPECT_EQ(m.kind, ChangeKind::kMerge);
  EXPECT_FALSE(m.number);
  EXPECT_EQ(m.title, "Merge branch 'dev'");
  auto p = classify_message("hotfix: typo\n", false);
  EXPECT_EQ(p.kind, ChangeKind::kCommit);
  EXPECT_EQ(p.title, "hotfix: typo");
  EXPECT_EQ(p.body, "");
}

TEST(LoginFromEmail, NoreplyForms) {
  EXPECT_EQ(login_from_email("1234567+octo-cat@users.noreply.github.com"), "octo-cat");
  EXPECT_EQ(login_from_email("octo@users.noreply.github.com"), "octo");
  EXPECT_EQ(login_from_email("octo@USERS.NOREPLY.GITHUB.COM"), "octo");
  EXPECT_EQ(login_from_email("49699333+dependabot[bot]@users.noreply.github.com"),
            "dependabot[bot]");
  EXPECT_EQ(login_from_email("1+[bot]@users.noreply.github.com"), "");
  EXPECT_EQ(login_from_email("octo@example.com"), "");
  EXPECT_EQ(login_from_email("@users.noreply.github.com"), "");
  EXPECT_EQ(login_from_email("a b@users.noreply.github.com"), "");
}

TEST(ParseRemoteUrl, CommonShapes) {
  for (const char* url :
       {"https://github.com/sgl-project/sglang.git", "https://github.com/sgl-project/sglang",
        "git@github.com:sgl-project/sglang.git", "ssh://git@github.com/sgl-project/sglang.git",
        "https://user:token@github.com/sgl-project/sglang/"}) {
    auto r = parse_remote_url(url);
    ASSERT_TRUE(r) << url;
    EXPECT_EQ(r->name, "sgl-project/sglang") << url;
    EXPECT_EQ(r->web_base, "https://github.com/sgl-project/sglang") << url;
  }
  auto ghe = parse_remote_url("https://git.corp.example:8443/team/engine.git");
  ASSERT_TRUE(ghe);
  EXPECT_EQ(ghe->web_base, "https://git.corp.example/team/engine");
  EXPECT_FALSE(parse_remote_url("/srv/git/engine.git"));
  EXPECT_FALSE(parse_remote_url("https://github.com/"));
}

}  // namespace
}  // namespace mergelens
