// Tests for llm/repair (the JSON repair ladder) and llm/tokens (token estimates).
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "mergelens/llm/repair.h"
#include "mergelens/llm/tokens.h"

namespace mergelens::llm {
namespace {

using nlohmann::json;
using Steps = std::vector<std::string>;

// Parses `text`, expecting success; returns the object and the steps taken.
std::pair<json, Steps> repaired(std::string_view text) {
  Steps steps;
  auto r = parse_json_answer(text, &steps);
  EXPECT_TRUE(r) << (r ? "" : r.error().message) << "\ninput: " << text;
  return {r ? *r : json(), steps};
}

TEST(LlmRepair, ParsesCleanJsonWithoutSteps) {
  auto [obj, steps] = repaired(R"(  {"summary": "ok", "n": [1, 2]} )");
  EXPECT_EQ(obj["summary"], "ok");
  EXPECT_TRUE(steps.empty());
}

TEST(LlmRepair, StripsACodeFence) {
  auto [obj, steps] = repaired("```json\n{\"a\": 1}\n```");
  EXPECT_EQ(obj, json({{"a", 1}}));
  EXPECT_EQ(steps, Steps{kStepFence});
  // Prose around the fence, and a first block without an object.
  std::tie(obj, steps) =
      repaired("Run `x`:\n```sh\nmake\n```\nThe answer:\n```\n{\"b\": \"```\"}\n```\nDone.");
  EXPECT_EQ(obj, json({{"b", "```"}})) << obj.dump();
}

TEST(LlmRepair, StripsProse) {
  auto [obj, steps] = repaired("Sure! Here is the guide:\n{\"a\": {\"b\": 2}}\nHope this helps.");
  EXPECT_EQ(obj["a"]["b"], 2);
  EXPECT_EQ(steps, Steps{kStepProse});
}

TEST(LlmRepair, TakesTheFirstBalancedObjectIgnoringBracesInStrings) {
  auto [obj, steps] = repaired(
      "Use {braces} like this: {\"code\": \"if (x) { y(); }\", \"s\": \"}{\\\"}\"} "
      "and not {\"other\": 1}");
  EXPECT_EQ(obj["code"], "if (x) { y(); }");
  EXPECT_EQ(obj["s"], "}{\"}");
  EXPECT_EQ(steps, Steps{kStepBalanced});
}

TEST(LlmRepair, RemovesTrailingCommasAndComments) {
  auto [obj, steps] = repaired(R"({
    "a": [1, 2, 3,],  // the numbers
    /* block */ "b": {"c": "// not a comment",},
  })");
  EXPECT_EQ(obj["a"], json({1, 2, 3}));
  EXPECT_EQ(obj["b"]["c"], "// not a comment");
  EXPECT_EQ(steps, Steps{kStepSyntax});
}

TEST(LlmRepair, ReplacesSmartAndSingleQuotes) {
  auto [obj, steps] =
      repaired("{\xE2\x80\x9Csummary\xE2\x80\x9D: \"it\xE2\x80\x99s fine\", 'why': 'say \"hi\"'}");
  EXPECT_EQ(obj["summary"], "it\xE2\x80\x99s fine");
  EXPECT_EQ(obj["why"], "say \"hi\"");
  EXPECT_EQ(steps, Steps{kStepSyntax});
}

TEST(LlmRepair, ClosesAnAnswerTruncatedMidString) {
  auto [obj, steps] = repaired(R"({"summary": "Adds a retry loop to the cl)");
  EXPECT_EQ(obj["summary"], "Adds a retry loop to the cl");
  EXPECT_EQ(steps, Steps{kStepClose});
  // A half escape at the cut is dropped.
  std::tie(obj, steps) = repaired(R"({"s": "tab\)");
  EXPECT_EQ(obj["s"], "tab");
  std::tie(obj, steps) = repaired(R"({"s": "snow \u26)");
  EXPECT_EQ(obj["s"], "snow ");
}

TEST(LlmRepair, ClosesAnAnswerTruncatedMidArray) {
  auto [obj, steps] = repaired(R"({"files": ["a.cc", "b.cc", 3)");
  EXPECT_EQ(obj["files"], json({"a.cc", "b.cc", 3}));
  std::tie(obj, steps) = repaired(R"({"files": ["a.cc", "b.cc", tr)");
  EXPECT_EQ(obj["files"], json({"a.cc", "b.cc"}));
  std::tie(obj, steps) = repaired("```json\n{\"files\": [\"a.cc\",\n");
  EXPECT_EQ(obj["files"], json({"a.cc"}));
  EXPECT_EQ(steps, (Steps{kStepFence, kStepClose}));
}

TEST(LlmRepair, ClosesAnAnswerTruncatedMidObject) {
  auto [obj, steps] = repaired(R"({"a": 1, "b": {"c": [1, 2], "d)");
  EXPECT_EQ(obj, json::parse(R"({"a": 1, "b": {"c": [1, 2]}})")) << obj.dump();
  std::tie(obj, steps) = repaired(R"({"a": 1, "b": )");
  EXPECT_EQ(obj, json({{"a", 1}}));
  std::tie(obj, steps) = repaired(R"({"a": 1, "points": [{"file": "x.cc", "line": 4}, {"file)");
  EXPECT_EQ(obj["points"].size(), 2u) << obj.dump();
  EXPECT_EQ(obj["points"][0]["line"], 4);
  // Already-complete members before the cut keep their values.
  std::tie(obj, steps) = repaired(R"({"a": {"x": "}"}, "b": "text with { brace)");
  EXPECT_EQ(obj["a"]["x"], "}");
  EXPECT_EQ(obj["b"], "text with { brace");
  std::tie(obj, steps) = repaired(R"({"a": [1, 2,], "b": "cut)");
  EXPECT_EQ(obj["a"], json({1, 2}));
  EXPECT_EQ(steps, (Steps{kStepSyntax, kStepClose}));
}

TEST(LlmRepair, GarbageIsCorrupt) {
  for (std::string_view text : {"", "no json here", "[1, 2, 3]", "\"just a string\"", "{{{{", "}{",
                                "{\"a\" 1 2 3}", "null"}) {
    Steps steps;
    auto r = parse_json_answer(text, &steps);
    ASSERT_FALSE(r) << "accepted: " << text << " -> " << r->dump();
    EXPECT_EQ(r.error().kind, ErrorKind::kCorrupt);
    EXPECT_TRUE(steps.empty());
  }
}

TEST(LlmRepair, InvalidUtf8DoesNotCrash) {
  auto [obj, steps] = repaired("{\"a\": \"caf\xE9 \xff\xfe\"}");
  EXPECT_EQ(obj["a"], "caf\xEF\xBF\xBD \xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(steps, Steps{kStepUtf8});
  // Random bytes: any result, no crash, no exception.
  std::string noise;
  unsigned x = 12345;
  for (int i = 0; i < 4000; ++i) {
    x = x * 1103515245 + 12345;
    noise += static_cast<char>((x >> 16) & 0xFF);
    if (i % 97 == 0) noise += "{\"";
  }
  auto r = parse_json_answer(noise, nullptr);
  (void)r;
  EXPECT_FALSE(parse_json_answer("\xC3", nullptr));
}

TEST(LlmRepair, DeepNestingDoesNotCrash) {
  std::string deep(20000, '[');
  auto r = parse_json_answer("{\"a\": " + deep, nullptr);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("deeper than 256"), std::string::npos) << r.error().message;
  // Brackets inside strings do not count.
  EXPECT_TRUE(parse_json_answer("{\"a\": \"" + deep + "\"}", nullptr));
}

// ------------------------------------------------------------------ tokens --

TEST(LlmTokens, EnglishIsAtLeastTheTokenizersCount) {
  // cl100k_base: 10 tokens; o200k_base: 10.
  EXPECT_GE(estimate_tokens("The quick brown fox jumps over the lazy dog."), 10u);
  EXPECT_EQ(estimate_tokens("The quick brown fox jumps over the lazy dog."), 15u);  // ceil(44/3)
  EXPECT_EQ(estimate_tokens(""), 0u);
  EXPECT_EQ(estimate_tokens("a"), 1u);
}

TEST(LlmTokens, CodeAndHashes) {
  std::string code = "for (int i = 0; i < n; ++i) {\n  total += values[i];\n}\n";
  EXPECT_EQ(estimate_tokens(code), (code.size() + 2) / 3);
  // A commit hash splits into short pieces: counted at two characters a token.
  EXPECT_EQ(estimate_tokens("9e9b1cc4f2d34a0b8c7e6f5a4b3c2d1e0f9a8b7c"), 20u);
  // Pure digits and pure words stay at three bytes a token.
  EXPECT_EQ(estimate_tokens("123456789012"), 4u);
}

TEST(LlmTokens, CjkCountsTwoPerCharacter) {
  // 9 Chinese characters (3 UTF-8 bytes each): cl100k_base needs ~1-2 tokens each.
  EXPECT_EQ(estimate_tokens("我们今天去公园散步。"), 20u);  // 10 code points incl. the full stop
  EXPECT_EQ(estimate_tokens("café"), 2u);                   // ceil(3/3) + 1
  EXPECT_EQ(estimate_tokens("\xF0\x9F\x98\x80"), 3u);       // an emoji
  EXPECT_EQ(estimate_tokens("\xff\xfe"), 2u);               // invalid bytes count one each
  // Never more than the bytes (no byte-level BPE produces more).
  for (std::string_view s : {"我们今天", "x", "ab12cd34ef56", "\xF0\x9F\x98\x80!"}) {
    EXPECT_LE(estimate_tokens(s), s.size()) << s;
  }
}

TEST(LlmTokens, MessagesAddOverhead) {
  std::vector<Message> m = {{"system", "abc"}, {"user", "defghi"}};
  EXPECT_EQ(estimate_tokens(m), 1 + 2 + 2 * kTokensPerMessage + kTokensPerRequest);
}

}  // namespace
}  // namespace mergelens::llm
