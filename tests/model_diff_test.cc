#include <gtest/gtest.h>

#include "mergelens/model/diff.h"

namespace mergelens {
namespace {

TEST(ParsePatch, NumbersLinesInBothFiles) {
  const char* patch =
      "@@ -10,4 +10,5 @@ def forward(self, x):\n"
      "     a = 1\n"
      "-    b = 2\n"
      "+    b = 3\n"
      "+    c = 4\n"
      "     return a\n"
      "     # end\n";
  auto p = parse_patch(patch);
  ASSERT_TRUE(p) << p.error().message;
  ASSERT_EQ(p->hunks.size(), 1u);
  const Hunk& h = p->hunks[0];
  EXPECT_EQ(h.section, "def forward(self, x):");
  ASSERT_EQ(h.lines.size(), 6u);
  EXPECT_EQ(h.lines[1].origin, '-');
  EXPECT_EQ(h.lines[1].old_no, 11);
  EXPECT_EQ(h.lines[1].new_no, 0);
  EXPECT_EQ(h.lines[2].new_no, 11);
  EXPECT_EQ(h.lines[3].new_no, 12);
  EXPECT_EQ(h.lines[3].text, "    c = 4");
  EXPECT_EQ(h.lines[5].old_no, 13);
  EXPECT_EQ(h.lines[5].new_no, 14);
  EXPECT_FALSE(p->short_hunk);
}

TEST(ParsePatch, RoundTrips) {
  const std::string patch =
      "@@ -1,2 +1,2 @@\n"
      "-old\n"
      "+new\n"
      " same\n"
      "@@ -40 +40,0 @@ int main()\n"
      "-gone\n";
  auto p = parse_patch(patch);
  ASSERT_TRUE(p);
  EXPECT_EQ(render_patch(p->hunks),
            "@@ -1,2 +1,2 @@\n-old\n+new\n same\n@@ -40,1 +40,0 @@ int main()\n-gone\n");
  auto again = parse_patch(render_patch(p->hunks));
  ASSERT_TRUE(again);
  EXPECT_EQ(render_patch(again->hunks), render_patch(p->hunks));
}

TEST(ParsePatch, KeepsCarriageReturnsOfCrlfFiles) {
  auto p = parse_patch("@@ -1 +1 @@\r\n-a\r\n+b\r\n");
  ASSERT_TRUE(p);
  ASSERT_EQ(p->hunks[0].lines.size(), 2u);
  EXPECT_EQ(p->hunks[0].lines[1].text, "b\r");
}

TEST(ParsePatch, NoNewlineAtEndOfFile) {
  auto p = parse_patch(
      "@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b\n\\ No newline at end of file");
  ASSERT_TRUE(p);
  ASSERT_EQ(p->hunks[0].lines.size(), 4u);
  EXPECT_EQ(p->hunks[0].lines[1].origin, '\\');
  EXPECT_EQ(p->hunks[0].lines[2].new_no, 1);
}

TEST(ParsePatch, SkipsGitHeadersAndFlagsShortHunks) {
  auto p = parse_patch(
      "diff --git a/x.py b/x.py\nindex 1..2 100644\n--- a/x.py\n+++ b/x.py\n"
      "@@ -1,3 +1,3 @@\n a\n-b\n");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->hunks.size(), 1u);
  EXPECT_TRUE(p->short_hunk);
}

TEST(ParsePatch, KeepsInvalidUtf8Bytes) {
  auto p = parse_patch("@@ -1 +1 @@\n-caf\xe9\n+caf\xc3\xa9\n");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->hunks[0].lines[0].text, "caf\xe9");
}

TEST(ParsePatch, RejectsMalformedInputNamingTheLine) {
  auto bad_header = parse_patch("@@ -x +1 @@\n+a\n");
  ASSERT_FALSE(bad_header);
  EXPECT_NE(bad_header.error().message.find("line 1"), std::string::npos);
  auto bad_origin = parse_patch("@@ -1,2 +1,2 @@\n a\n*b\n");
  ASSERT_FALSE(bad_origin);
  EXPECT_NE(bad_origin.error().message.find("line 3"), std::string::npos);
  EXPECT_FALSE(parse_patch("hello\n@@ -1 +1 @@\n"));
}

TEST(ParsePatch, EmptyPatchHasNoHunks) {
  auto p = parse_patch("");
  ASSERT_TRUE(p);
  EXPECT_TRUE(p->hunks.empty());
}

}  // namespace
}  // namespace mergelens
