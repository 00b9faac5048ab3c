#include <gtest/gtest.h>

#include "mergelens/util/compress.h"
#include "mergelens/util/time.h"

namespace mergelens {
namespace {

TEST(Time, FormatsEpochAndLeapDays) {
  EXPECT_EQ(format_utc(0), "1970-01-01T00:00:00Z");
  EXPECT_EQ(format_utc(951782400), "2000-02-29T00:00:00Z");
  EXPECT_EQ(format_utc(-1), "1969-12-31T23:59:59Z");
  EXPECT_EQ(format_day(1788264000), "2026-09-01");
}

TEST(Time, DayShiftsWithOffset) {
  // 2026-09-01T23:30:00Z is already 2026-09-02 at UTC+08:00.
  auto t = parse_instant("2026-09-01T23:30:00Z");
  ASSERT_TRUE(t);
  EXPECT_EQ(format_day(*t), "2026-09-01");
  EXPECT_EQ(format_day(*t, 8 * 60), "2026-09-02");
}

TEST(Time, ParsesDatesAndOffsets) {
  EXPECT_EQ(*parse_instant("2026-09-01"), *parse_instant("2026-09-01T00:00:00Z"));
  EXPECT_EQ(*parse_instant("2026-09-01T08:00:00+08:00"), *parse_instant("2026-09-01"));
  EXPECT_EQ(*parse_instant("2026-09-01 10:15"), *parse_instant("2026-09-01T10:15:00Z"));
  EXPECT_EQ(format_utc(*parse_instant("2026-08-22T23:11:49+08:00")), "2026-08-22T15:11:49Z");
}

TEST(Time, RejectsGarbageNamingIt) {
  for (const char* bad : {"", "yesterday", "2026-13-01", "2026-09-01T25:00", "2026-09-01Tx",
                          "2026-09-01T10:00:00+0800", "20260901"}) {
    auto t = parse_instant(bad);
    ASSERT_FALSE(t) << bad;
    EXPECT_EQ(t.error().kind, ErrorKind::kInvalidInput);
    EXPECT_NE(t.error().message.find(bad), std::string::npos);
  }
}

TEST(Compress, RoundTripsAndDetectsDamage) {
  std::string text;
  for (int i = 0; i < 1000; ++i) text += "+    x = torch.empty(" + std::to_string(i) + ")\n";
  auto z = zstd_compress(text);
  ASSERT_TRUE(z);
  EXPECT_LT(z->size(), text.size() / 5);
  auto back = zstd_decompress(*z);
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, text);

  std::string damaged = *z;
  damaged.resize(damaged.size() / 2);
  auto bad = zstd_decompress(damaged);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().kind, ErrorKind::kCorrupt);
  EXPECT_FALSE(zstd_decompress("not zstd"));
}

TEST(Compress, EmptyInput) {
  auto z = zstd_compress("");
  ASSERT_TRUE(z);
  auto back = zstd_decompress(*z);
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, "");
}

}  // namespace
}  // namespace mergelens
