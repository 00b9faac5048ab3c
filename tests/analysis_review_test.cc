// Review facts: reviewers, review points, follow-up references and the focus
// bonus for hunks reviewers commented on.
#include <gtest/gtest.h>

#include "mergelens/analysis/analyzer.h"
#include "mergelens/analysis/facts_json.h"
#include "mergelens/analysis/text/review_facts.h"
#include "mergelens/model/diff.h"

namespace mergelens {
namespace {

FileChange file(const std::string& path, const std::string& patch) {
  FileChange f;
  f.path = path;
  f.hunks = parse_patch(patch)->hunks;
  for (const auto& h : f.hunks)
    for (const auto& l : h.lines) {
      f.additions += l.origin == '+';
      f.deletions += l.origin == '-';
    }
  return f;
}

Change reviewed_change() {
  Change c;
  c.kind = ChangeKind::kSquash;
  c.number = 101;
  c.title = "Fuse RMSNorm into one kernel";
  c.author.login = "alice";
  // Two similar hunks in one file, far apart; reviewers discussed the second.
  c.files.push_back(file("python/widget/norm.py",
                         "@@ -10,2 +10,4 @@ def a():\n x = 1\n+y = 2\n+z = 3\n w = 4\n"
                         "@@ -200,2 +202,4 @@ def b():\n x = 1\n+y = 2\n+z = 3\n w = 4\n"));
  c.reviews = {{1, "airMeng", "CHANGES_REQUESTED", "Keep the fp32 fallback.", 0},
               {2, "airMeng", "APPROVED",
                "LGTM. As a next step the residual add could be fused too (follow-up PR #120).", 0},
               {3, "alice", "COMMENTED", "thanks", 0}};
  ReviewComment rc;
  rc.id = 9;
  rc.author = "bob";
  rc.path = "python/widget/norm.py";
  rc.line = 204;
  rc.body = "```suggestion\nz = 4\n```";
  c.review_comments.push_back(rc);
  rc.id = 10;
  rc.in_reply_to = 9;
  rc.author = "alice";
  rc.body = "done";
  c.review_comments.push_back(rc);
  c.comments = {{5, "dependabot[bot]", "Benchmark bot: no regressions", 0},
                {6, "carol", "Next step: port it to ROCm in a separate PR.", 0}};
  return c;
}

TEST(ReviewFacts, ReviewersPointsAndFollowUps) {
  Change c = reviewed_change();
  Facts f;
  add_review_facts(c, "acme/widget", f);
  EXPECT_EQ(f.reviewers, (std::vector<std::string>{"airMeng", "bob", "carol"}));
  std::map<std::string, int> kinds;
  for (const auto& p : f.review_points) ++kinds[p.kind];
  EXPECT_EQ(kinds["changes_requested"], 1);
  EXPECT_EQ(kinds["approval"], 1);
  EXPECT_EQ(kinds["suggestion"], 1);
  EXPECT_EQ(kinds["follow_up"], 2);  // airMeng's next step and carol's separate PR
  auto suggestion = std::find_if(f.review_points.begin(), f.review_points.end(),
                                 [](const ReviewPoint& p) { return p.kind == "suggestion"; });
  EXPECT_EQ(suggestion->path, "python/widget/norm.py");
  EXPECT_EQ(suggestion->line, 204);
  ASSERT_EQ(f.references.size(), 1u);
  EXPECT_EQ(f.references[0].number, 120);
  EXPECT_EQ(f.references[0].relation, "follow_up");
  EXPECT_EQ(f.references[0].source, "review");
}

TEST(ReviewFacts, FollowUpPhrases) {
  EXPECT_TRUE(is_follow_up_remark("Let's do that in a follow-up PR"));
  EXPECT_TRUE(is_follow_up_remark("Next step: fuse the residual"));
  EXPECT_TRUE(is_follow_up_remark("can be a Followup"));
  EXPECT_FALSE(is_follow_up_remark("Please follow the style guide"));
  EXPECT_FALSE(is_follow_up_remark("LGTM"));
}

TEST(ReviewFacts, AnalyzerRanksDiscussedHunkFirstAndCarriesOpen) {
  auto ctx = make_context("acme/widget", "", "");
  ASSERT_TRUE(ctx);
  Change c = reviewed_change();
  c.open = true;
  Facts f = analyze_change(c, *ctx);
  ASSERT_GE(f.focus.size(), 2u);
  EXPECT_EQ(f.focus[0].start_line, 203);
  EXPECT_NE(
      std::find(f.focus[0].reasons.begin(), f.focus[0].reasons.end(), "reviewers commented (2)"),
      f.focus[0].reasons.end());
  EXPECT_TRUE(f.open);
  EXPECT_EQ(f.version, kAnalyzerVersion);
  auto j = facts_to_json(f);
  EXPECT_EQ(j["open"], true);
  EXPECT_EQ(j["reviewers"].size(), 3u);
  auto back = facts_from_json(j);
  ASSERT_TRUE(back);
  EXPECT_EQ(facts_to_json(*back), j);

  c.review_comments.clear();  // without the comments the two hunks tie: the first wins
  Facts plain = analyze_change(c, *ctx);
  ASSERT_FALSE(plain.focus.empty());
  EXPECT_EQ(plain.focus[0].start_line, 11);
}

}  // namespace
}  // namespace mergelens
