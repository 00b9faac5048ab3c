#include <gtest/gtest.h>

#include "mergelens/model/repo_name.h"
#include "mergelens/pipeline/repos_config.h"

namespace mergelens {
namespace {

TEST(ReposConfig, SchedulesParseIntoSeconds) {
  EXPECT_EQ(*parse_schedule(""), 0);
  EXPECT_EQ(*parse_schedule("90"), 90);
  EXPECT_EQ(*parse_schedule("15m"), 900);
  EXPECT_EQ(*parse_schedule("2h"), 7200);
  EXPECT_EQ(*parse_schedule("366d"), kMaxScheduleSeconds);
  for (const char* bad : {"0", "-5m", "15x", "m", "1.5h"}) EXPECT_FALSE(parse_schedule(bad)) << bad;
}

// Issue 22: "2562047788015216h" overflowed to a negative interval.
TEST(ReposConfig, SchedulesBeyondAYearAreRefusedNotWrapped) {
  for (const char* bad : {"2562047788015216h", "9223372036854775807", "106751991167301d", "367d",
                          "99999999999999999999s"}) {
    auto r = parse_schedule(bad);
    ASSERT_FALSE(r) << bad << " gave " << *r;
    EXPECT_EQ(r.error().kind, ErrorKind::kInvalidInput);
    EXPECT_NE(r.error().message.find(bad), std::string::npos) << r.error().message;
  }
  auto tables = parse_repo_tables("[[repo]]\npath = \"/x\"\nschedule = \"2562047788015216h\"\n",
                                  "mergelens.toml");
  ASSERT_FALSE(tables);
  EXPECT_NE(tables.error().message.find("mergelens.toml:1:"), std::string::npos)
      << tables.error().message;
}

// Issue 22: ".." gave /r/../pr/N links to another repository; CRLF was accepted.
TEST(RepoName, OwnerSlashNameOrNameOfSafeCharactersOnly) {
  for (const char* ok : {"acme/widget", "widget", "a.b/c-d_e", "sgl-project/sglang", "x/.hidden"})
    EXPECT_TRUE(check_repo_name(ok, "--repo")) << ok;
  for (const char* bad : {"", "..", ".", "acme/..", "../x", "./x", "a/b/c", "/x", "x/", "a b",
                          "a\r\nb", "a\x1b[2Jb", "\xED\xA0\x80", "a%2Fb"}) {
    auto r = check_repo_name(bad, "--repo");
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().kind, ErrorKind::kInvalidInput);
    EXPECT_NE(r.error().message.find("--repo"), std::string::npos);
    EXPECT_EQ(r.error().message.find('\r'), std::string::npos);
    EXPECT_EQ(r.error().message.find('\x1b'), std::string::npos);
  }
  EXPECT_FALSE(check_repo_name(std::string(kMaxRepoNameBytes + 1, 'a'), "--repo"));
  auto tables =
      parse_repo_tables("[[repo]]\nname = \"acme/..\"\npath = \"/x\"\n", "mergelens.toml");
  ASSERT_FALSE(tables);
  EXPECT_NE(tables.error().message.find("mergelens.toml:1"), std::string::npos)
      << tables.error().message;
}

}  // namespace
}  // namespace mergelens
