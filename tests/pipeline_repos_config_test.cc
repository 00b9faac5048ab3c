#include <gtest/gtest.h>

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

}  // namespace
}  // namespace mergelens
