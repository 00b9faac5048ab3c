// Robustness of the text facts: random fragments never crash and stay valid
// UTF-8; a one-megabyte body is read in bounded time.
#include <gtest/gtest.h>

#include <string>

#include "analysis_text_util.h"
#include "mergelens/analysis/text/text_facts.h"
#include "mergelens/model/diff.h"

namespace mergelens {
namespace {

using namespace testing_text;

bool valid_utf8(const std::string& s) {
  for (size_t i = 0; i < s.size();) {
    unsigned char c = s[i];
    size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (size_t k = 1; k < n; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    i += n;
  }
  return true;
}

TEST(TextFacts, RandomFragmentsNeverCrashAndStayValidUtf8) {
  const char* pieces[] = {"2.3x",      " ",
                          "-",         "→",
                          "->",        "to",
                          "from",      "12",
                          ".",         "5",
                          "ms",        "%",
                          "|",         "\n",
                          "---",       "```",
                          "`",         "#",
                          "123",       "abc1234",
                          "v0.4.1",    "https://github.com/o/r/pull/",
                          "(",         ")",
                          "\"",        "Revert \"",
                          "倍",        "提升",
                          "降低",      "。",
                          "\xff",      "\xe2\x82",
                          "\xc3",      "tok/s",
                          "bs=",       "H100",
                          "8x",        " x ",
                          "1,520",     "fix ",
                          "after ",    "foo_bar",
                          ".py",       "a/b/",
                          "<!--",      "-->",
                          "- [ ] ",    "| 1 | 2 |",
                          "|---|---|", ":",
                          "::",        "*",
                          "~"};
  unsigned seed = 12345;
  auto rnd = [&] { return seed = seed * 1103515245u + 12345u, (seed >> 16) & 0x7fff; };
  for (int doc = 0; doc < 400; ++doc) {
    std::string t;
    int n = 1 + rnd() % 120;
    for (int k = 0; k < n; ++k) t += pieces[rnd() % (sizeof(pieces) / sizeof(pieces[0]))];
    auto nums = extract_numbers(t, "body");
    for (const auto& f : nums) ASSERT_TRUE(valid_utf8(f.text) && valid_utf8(f.sentence)) << t;
    number_cautions(nums, doc % 2);
    for (const auto& r : extract_references(t, "body", "o/r")) ASSERT_TRUE(valid_utf8(r.text)) << t;
    for (const auto& m : extract_mentions(t))
      ASSERT_TRUE(valid_utf8(m.text) && valid_utf8(m.sentence)) << t;
    Change c;
    c.title = t.substr(0, t.size() / 3);
    c.body = t;
    c.files.push_back(file("a/b/foo_bar.py", "@@ -1,0 +1,1 @@\n+foo_bar()\n", 60, 0));
    for (const auto& m : body_vs_code(c)) ASSERT_TRUE(valid_utf8(m.detail)) << t;
  }
}

// ---------------------------------------------------------------- scale

// Speed is measured in bench/, not here: this checks that a 1 MB body is
// handled completely (and, under the sanitizers, without errors).
TEST(TextFacts, OneMegabyteBodyIsHandled) {
  std::string body;
  while (body.size() < (1u << 20))
    body +=
        "The `fused_moe` kernel in python/sglang/srt/layers/moe.py is 1.3x faster at bs=8 (see "
        "#1234, "
        "v0.4.1, abc1234def). 吞吐提升 12%。\n| bs | speedup |\n|--|--|\n| 1 | 1.2x |\n\n";
  auto n = extract_numbers(body, "body");
  auto r = extract_references(body, "body", "o/r");
  auto m = extract_mentions(body);
  Change c;
  c.body = body;
  c.files.push_back(
      file("python/sglang/srt/layers/moe.py", "@@ -1,0 +1,1 @@\n+def fused_moe(): pass\n"));
  auto mm = body_vs_code(c);
  EXPECT_GT(n.size(), 1000u);
  EXPECT_EQ(r.size(), 3u) << dump(r);
  EXPECT_EQ(m.size(), 2u);
  EXPECT_TRUE(mm.empty()) << dump(mm);
  // A single line without punctuation is cut into bounded sentences.
  std::string line(1 << 20, 'a');
  for (size_t i = 0; i < line.size(); i += 7) line[i] = ' ';
  line += " 2.5x faster";
  auto one = extract_numbers(line, "body");
  ASSERT_EQ(one.size(), 1u);
  EXPECT_LT(one[0].sentence.size(), 400u);
}

}  // namespace
}  // namespace mergelens
