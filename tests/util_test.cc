#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "mergelens/util/compress.h"
#include "mergelens/util/strings.h"
#include "mergelens/util/time.h"
#include "mergelens/util/toml_file.h"
#include "mergelens/util/utf8.h"

namespace mergelens {
namespace {

TEST(Strings, PluralInEnglish) {
  EXPECT_EQ(plural(1, "line"), "1 line");
  EXPECT_EQ(plural(0, "line"), "0 lines");
  EXPECT_EQ(plural(3, "region"), "3 regions");
  EXPECT_EQ(plural(2, "repository", "repositories"), "2 repositories");
  EXPECT_EQ(plural(1, "more PR", "more PRs"), "1 more PR");
}

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

TEST(Toml, ParsesAndNamesTheLineOfASyntaxError) {
  auto ok = parse_toml("[llm]\nmodel = \"m\"\n", "a.toml");
  ASSERT_TRUE(ok) << ok.error().message;
  EXPECT_EQ((*ok)["llm"]["model"].value_or(std::string()), "m");
  auto bad = parse_toml("[llm]\nmodel = \n", "b.toml");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().kind, ErrorKind::kInvalidInput);
  EXPECT_EQ(bad.error().message.rfind("b.toml:2: ", 0), 0u) << bad.error().message;
}

TEST(Toml, AMissingFileIsNoConfigurationAndAnUnreadableOneAnError) {
  const auto dir =
      std::filesystem::temp_directory_path() /
      ("mergelens-toml-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
  std::filesystem::create_directories(dir);
  auto none = read_toml_file((dir / "absent.toml").string());
  ASSERT_TRUE(none);
  EXPECT_FALSE(*none);
  auto empty_path = read_toml_file("");
  ASSERT_TRUE(empty_path);
  EXPECT_FALSE(*empty_path);
  // A directory exists but cannot be read as a file.
  auto unreadable = read_toml_file(dir.string());
  ASSERT_FALSE(unreadable);
  EXPECT_EQ(unreadable.error().kind, ErrorKind::kIo);
  EXPECT_NE(unreadable.error().message.find(dir.string()), std::string::npos);
  {
    std::ofstream(dir / "bad.toml") << "x = [1,\n";
    std::ofstream(dir / "good.toml") << "x = 3\n";
  }
  auto bad = read_toml_file((dir / "bad.toml").string());
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().kind, ErrorKind::kInvalidInput);
  EXPECT_NE(bad.error().message.find("bad.toml:"), std::string::npos) << bad.error().message;
  auto good = read_toml_file((dir / "good.toml").string());
  ASSERT_TRUE(good && *good);
  EXPECT_EQ((**good)["x"].value_or(0), 3);
  std::filesystem::remove_all(dir);
}

TEST(Utf8, StrictDecoderRejectsSurrogatesOverlongsAndTruncation) {
  EXPECT_EQ(decode_utf8("\xE4\xB8\xAD", 0).cp, U'中');
  EXPECT_EQ(decode_utf8("\xE4\xB8\xAD", 0).len, 3u);
  EXPECT_EQ(decode_utf8("\xF0\x9F\x98\x80", 0).cp, 0x1F600u);
  for (const std::string bad : {"\xED\xA0\x80", "\xED\xBF\xBF", "\xC0\xAF", "\xE0\x80\xAF",
                                "\xF4\x90\x80\x80", "\x80", "\xE4\xB8", "\xFF"}) {
    const Utf8Char c = decode_utf8(bad, 0);
    EXPECT_EQ(c.cp, Utf8Char::kInvalid) << bad.size();
    EXPECT_EQ(c.len, 1u);
  }
  EXPECT_EQ(clean_utf8_text("a\xED\xA0\x80"
                            "b\x01\x0b\r\n\tc\xEF\xBF\xBF"),
            "a\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"
            "b\n\tc\xEF\xBF\xBD");
}

// clean_utf8_text copies whole runs; the result is what the code point by
// code point definition gives, on random bytes weighted towards UTF-8.
TEST(Utf8, CleanTextMatchesThePerCharacterDefinition) {
  auto reference = [](std::string_view s) {
    std::string out;
    for (size_t i = 0; i < s.size();) {
      const Utf8Char c = decode_utf8(s, i);
      if (c.cp == Utf8Char::kInvalid || c.cp == 0xFFFE || c.cp == 0xFFFF)
        out += "\xEF\xBF\xBD";
      else if (c.cp >= 0x20 || c.cp == '\n' || c.cp == '\t')
        out.append(s.substr(i, c.len));
      i += c.len;
    }
    return out;
  };
  const std::string pieces[] = {"a",
                                "Z",
                                " ",
                                "\n",
                                "\t",
                                "\r",
                                std::string(1, '\0'),
                                "\x01",
                                "\x7f",
                                "\xC3\xA9",
                                "\xE4\xB8\x80",
                                "\xF0\x9F\x98\x80",
                                "\xEF\xBF\xBF",
                                "\xED\xA0\x80",
                                "\x80",
                                "\xC3",
                                "\xE4\xB8",
                                "\xFF",
                                "\xC0\xAF"};
  std::uint32_t seed = 12345;
  auto next = [&] { return seed = seed * 1664525u + 1013904223u; };
  for (int round = 0; round < 2000; ++round) {
    std::string s;
    const size_t n = next() % 24;
    for (size_t k = 0; k < n; ++k) s += pieces[(next() >> 8) % std::size(pieces)];
    EXPECT_EQ(clean_utf8_text(s), reference(s)) << round;
  }
}

// Issue 22: ESC, OSC and CR from commit text must not reach a terminal raw.
TEST(Utf8, TerminalSafeMakesControlCharactersVisible) {
  EXPECT_EQ(terminal_safe("\x1b]0;pwned\x07title\rX"), "\\x1b]0;pwned\\x07title\\x0dX");
  EXPECT_EQ(terminal_safe("a\nb\tc\x7f"), "a\nb\tc\\x7f");
  EXPECT_EQ(terminal_safe("a\nb\tc", /*keep_newlines=*/false), "a\\x0ab\\x09c");
  EXPECT_EQ(terminal_safe("\xC2\x9B"
                          "31m"),
            "\\u009b31m");  // C1 CSI as UTF-8
  EXPECT_EQ(terminal_safe("\x9b"
                          "31m \xED\xA0\x80"),
            "\\x9b31m \\xed\\xa0\\x80");
  EXPECT_EQ(terminal_safe("中文 back\\slash é"), "中文 back\\slash é");
  const std::string once = terminal_safe("\x1b[2J");
  EXPECT_EQ(terminal_safe(once), once);
  // Bidirectional overrides and isolates reorder what a terminal shows.
  EXPECT_EQ(terminal_safe("admin\u202Enimda \u2066x\u2069 \u200F"),
            "admin\\u202enimda \\u2066x\\u2069 \\u200f");
}

// Issue 34: one date parser for every command and surface.
TEST(Time, OneDateParserForEveryCommand) {
  for (const char* bad : {"2026-02-30", "0000-01-01", "2025-02-29", "2026-04-31", "2026-00-10",
                          "2026-9-1", "2026-09-01x", "+2026-09-01"}) {
    EXPECT_FALSE(parse_date(bad)) << bad;
    EXPECT_FALSE(parse_instant(bad)) << bad;
  }
  for (const char* good : {"2024-02-29", "0001-01-01", "9999-12-31", "1906-08-16", "2000-02-29"})
    EXPECT_TRUE(parse_date(good)) << good;
  EXPECT_EQ(format_day(*parse_instant("1906-08-16")), "1906-08-16");
  EXPECT_EQ(format_day(*parse_instant("0001-01-01")), "0001-01-01");
  EXPECT_FALSE(parse_instant("2026-09-01T10:00:00+15:00"));
  EXPECT_FALSE(parse_instant("2026-09-01T10:00:00+01:60"));
  EXPECT_TRUE(parse_instant("2026-09-01T10:00:00-12:00"));
}

TEST(Time, ReversedAndEmptyRangesAreErrorsNamingBothEnds) {
  const auto a = *parse_instant("2026-09-10"), b = *parse_instant("2026-08-01");
  auto r = check_range(a, b, "--since 2026-09-10", "--until 2026-08-01");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::kInvalidInput);
  EXPECT_NE(r.error().message.find("--until 2026-08-01 is not after --since 2026-09-10"),
            std::string::npos)
      << r.error().message;
  EXPECT_NE(r.error().message.find("reversed"), std::string::npos);
  EXPECT_FALSE(check_range(a, a, "s", "u"));
  EXPECT_TRUE(check_range(b, a, "s", "u"));
  EXPECT_TRUE(check_range(std::nullopt, a, "s", "u"));
  EXPECT_TRUE(check_range(a, std::nullopt, "s", "u"));
}

TEST(Time, IsoWeeksOfEveryValidYear) {
  EXPECT_EQ(format_day(*parse_iso_week("1906-W33")), "1906-08-13");
  EXPECT_EQ(format_iso_week(*parse_instant("1906-08-16")), "1906-W33");
  EXPECT_EQ(format_day(*parse_iso_week("0001-W01")), "0001-01-01");  // a Monday
  EXPECT_EQ(format_iso_week(*parse_instant("0001-01-01")), "0001-W01");
  EXPECT_EQ(format_day(*parse_iso_week("2026-w38")), "2026-09-14");
  EXPECT_EQ(format_iso_week(*parse_instant("2021-01-03")), "2020-W53");
  EXPECT_TRUE(parse_iso_week("2020-W53"));
  EXPECT_TRUE(parse_iso_week("9999-W52"));
  for (const char* bad : {"2021-W53", "0000-W01", "2026-W00", "2026-W54", "2026W38", "1906-W3"})
    EXPECT_FALSE(parse_iso_week(bad)) << bad;
}

}  // namespace
}  // namespace mergelens
