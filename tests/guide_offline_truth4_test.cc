// Issue 31, fourth pass of the offline writer: kinds of false sentence found
// in offline guides of real PRs. A code quote cut inside a string literal
// or an open bracket; a helper moved to another file called removed (dead)
// and new; a change of example scripts only read as documentation and as
// product code; a headline that drops the words of the title narrowing its
// scope ("[AMD]", "on ROCm") and so claims a wider change. The quote is
// checked on the renderer itself; the others on a crafted change run
// through the real pipeline (ingest, analyse, write in both languages).
#include <gtest/gtest.h>

#include <algorithm>

#include "mergelens/analysis/code/definition_fates.h"
#include "mergelens/guide/offline_parts.h"
#include "offline_guide_fixture.h"
#include "test_helpers.h"

namespace mergelens {
namespace {

using testing::GitRepo;

// The code between the backticks of a quote; fails the test when the quote
// is not exactly one span.
std::string quoted(const std::string& q) {
  EXPECT_EQ(std::count(q.begin(), q.end(), '`'), 2) << q;
  const size_t a = q.find('`'), b = q.rfind('`');
  return a == std::string::npos || b <= a ? std::string() : q.substr(a + 1, b - a - 1);
}

// Whether every string literal and bracket the code opens it also closes.
bool balanced(std::string_view s) {
  std::string stack;
  char quote = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const char ch = s[i];
    if (quote) {
      if (ch == '\\')
        ++i;
      else if (ch == quote)
        quote = 0;
    } else if (ch == '"' || ch == '\'') {
      quote = ch;
    } else if (ch == '(' || ch == '[' || ch == '{') {
      stack += ch;
    } else if (ch == ')' || ch == ']' || ch == '}') {
      if (stack.empty()) return false;
      stack.pop_back();
    }
  }
  return quote == 0 && stack.empty();
}

TEST(OfflineQuote, ACutNeverFallsInsideABracket) {
  const std::string line =
      "out = grouped_matmul(x=[x], weight=w1, split_item=2, group_list=group_list, "
      "output_dtype=torch.bfloat16)";
  for (size_t max : {30, 45, 60, 80}) {
    const std::string q = guide_detail::code(line, max);
    const std::string inner = quoted(q);
    EXPECT_TRUE(balanced(inner)) << max << ": " << q;
    EXPECT_TRUE(line.starts_with(inner)) << q;
  }
}

TEST(OfflineQuote, ACutNeverFallsInsideAString) {
  const std::string line =
      "raise ValueError(\"the scheduler cannot start: the radix cache is disabled and "
      "chunked prefill needs it\")";
  for (size_t max : {20, 40, 60}) {
    const std::string q = guide_detail::code(line, max);
    EXPECT_TRUE(balanced(quoted(q))) << max << ": " << q;
  }
  // A line that fits is quoted whole, with no "…".
  EXPECT_EQ(guide_detail::code("f(\"a b\", [1, 2])", 60), "`f(\"a b\", [1, 2])`");
}

TEST(OfflineQuote, ACutKeepsBalancedStatementsBeforeTheLimit) {
  // Two statements: the first is balanced and fits, the cut falls after it.
  const std::string q =
      guide_detail::code("x = load(path); y = transform(x, mode=\"fast\", limit=[1, 2, 3])", 30);
  EXPECT_EQ(q.substr(0, 16), "`x = load(path);") << q;
  EXPECT_TRUE(balanced(quoted(q))) << q;
}

TEST(OfflineQuote, ACutNeverSplitsAQualifiedName) {
  // vllm-ascend #14412: "… != ge::"… cut inside `ge::GRAPH_SUCCESS`.
  const std::string line =
      "if CheckNonNeg(context, \"total_rows\", totalRows) != ge::GRAPH_SUCCESS || other_check";
  for (size_t max = 20; max < line.size(); ++max) {
    const std::string q = guide_detail::code(line, max);
    const std::string body = quoted(q);
    EXPECT_FALSE(body.ends_with("::") || body.ends_with("ge") || body.ends_with(".") ||
                 body.ends_with(":"))
        << max << ": " << q;
  }
}

TEST(OfflineMoved, AFunctionMovedToAnotherFileIsNeitherRemovedNorNew) {
  std::vector<Definition> defs(3);
  defs[0].name = "pad_to_multiple";
  defs[0].kind = "function";
  defs[0].change = "removed";
  defs[0].at.path = "pkg/utils.py";
  defs[1].name = "pad_to_multiple";
  defs[1].kind = "function";
  defs[1].change = "added";
  defs[1].at.path = "pkg/mathutil.py";
  defs[2].name = "load";  // removed and added in the same file: not a move
  defs[2].kind = "function";
  defs[2].change = "removed";
  defs[2].at.path = "pkg/utils.py";
  std::vector<Signal> signals = {Signal{"dead_code_removed", "pad_to_multiple", defs[0].at, false},
                                 Signal{"dead_code_removed", "load", defs[2].at, false}};
  mark_extracted_helpers(defs, signals);
  EXPECT_EQ(defs[0].change, "moved");
  EXPECT_EQ(defs[1].change, "moved");
  EXPECT_EQ(defs[2].change, "removed");
  ASSERT_EQ(signals.size(), 1u);
  EXPECT_EQ(signals[0].detail, "load");
}

TEST(OfflineExamples, ExamplePathsAreTold) {
  EXPECT_TRUE(guide_detail::example_path("examples/serve.py"));
  EXPECT_TRUE(guide_detail::example_path("python/pkg/example/run.py"));
  EXPECT_TRUE(guide_detail::example_path("scripts/offline_engine_example.py"));
  EXPECT_FALSE(guide_detail::example_path("pkg/examples_loader.py"));
  EXPECT_FALSE(guide_detail::example_path("pkg/counterexample.py"));
}

constexpr const char* kUtils = R"(def pad_to_multiple(x, m):
    return (x + m - 1) // m * m


def load(path):
    return open(path).read()
)";

constexpr const char* kUtilsAfter = R"(from pkg.mathutil import pad_to_multiple


def load(path):
    return open(path).read()
)";

constexpr const char* kMath = R"(def pad_to_multiple(x, m):
    return (x + m - 1) // m * m
)";

class OfflineTruth4 : public testing::OfflineGuideFixture<OfflineTruth4> {
 public:
  static constexpr testing::GuideParts kGuideParts{.skim = false};

  static void write_history(GitRepo& repo) {
    repo.run("remote add origin git@github.com:o/r.git");
    repo.write("pkg/utils.py", kUtils);
    repo.write("pkg/layers/moe_rocm.py", "def moe(x, w):\n    return x @ w\n");
    repo.write("pkg/layers/attention.py", "def decode(q, k, v):\n    return q @ k @ v\n");
    repo.write("examples/offline_batch.py", "from pkg import Engine\n\nEngine().run([\"hi\"])\n");
    repo.write("pkg/serve.py", "def serve(engine):\n    return engine.run()\n");
    repo.commit("Initial import", "2026-09-01T08:00:00Z");

    repo.write("pkg/utils.py", kUtilsAfter);
    repo.write("pkg/mathutil.py", kMath);
    repo.commit("Move the padding helper to mathutil (#501)", "2026-09-02T09:00:00Z");

    repo.write("examples/offline_batch.py",
               "import sys\n\nfrom pkg import Engine\n\n\ndef main(prompts):\n"
               "    engine = Engine(max_batch=8)\n    return engine.run(prompts)\n\n\n"
               "if __name__ == \"__main__\":\n    main(sys.argv[1:])\n");
    repo.write("examples/runtime/stream_example.py",
               "from pkg import Engine\n\nfor chunk in Engine().stream(\"hi\"):\n"
               "    print(chunk)\n");
    repo.commit("Add a streaming example and batch the offline one (#502)", "2026-09-02T10:00:00Z");

    repo.write("pkg/layers/moe_rocm.py",
               "def moe(x, w):\n    if x.dtype == w.dtype:\n        return x @ w\n"
               "    return x.to(w.dtype) @ w\n");
    repo.commit("[AMD] Fix the fused MoE kernel (#503)", "2026-09-02T11:00:00Z");

    repo.write("pkg/layers/attention.py",
               "def decode(q, k, v, window=None):\n    if window is not None:\n"
               "        k, v = k[-window:], v[-window:]\n    return q @ k @ v\n");
    repo.commit(
        "Speed up the decode attention kernel for sliding-window layers on ROCm GPUs (#504)\n\n"
        "Decode is 1.9x faster on MI300X with Llama-3.1-8B.",
        "2026-09-02T12:00:00Z");
  }
};

TEST_F(OfflineTruth4, AHelperMovedToAnotherFileIsNotDeadNorNew) {
  const Facts f = facts(501);
  for (const auto& s : f.signals)
    EXPECT_FALSE(s.kind == "dead_code_removed" && s.detail == "pad_to_multiple") << s.detail;
  for (const auto& d : f.definitions) {
    if (d.name == "pad_to_multiple") {
      EXPECT_NE(d.change, "added") << d.at.path;
    }
  }
  const std::string text = all_text(501);
  for (const char* word :
       {"Adds `pad_to_multiple", "adds `pad_to_multiple", "removes `pad_to", "Removes `pad_to",
        "dead code", "死代码", "新增 `pad_to", "删除 `pad_to"})
    EXPECT_EQ(text.find(word), std::string::npos) << word << "\n" << text;
}

TEST_F(OfflineTruth4, ExamplesOnlyAreSkimmedNotDocsNorProduct) {
  for (const char* lang : {"zh", "en"}) {
    const Guide g = guide(502, lang);
    EXPECT_EQ(g.verdict, "skim") << lang;
    EXPECT_EQ(std::count(g.tags.begin(), g.tags.end(), "docs"), 0) << lang;
    EXPECT_FALSE(g.headline.starts_with("文档")) << g.headline;
    // One judgment: the analysis skims them too, and no advice says skip.
    EXPECT_EQ(g.analysis.verdict, "skim") << lang;
    for (const GuideAdvice& a : g.advice)
      EXPECT_TRUE(a.text.find("Skip") == std::string::npos &&
                  a.text.find("跳过") == std::string::npos)
          << a.text;
    EXPECT_TRUE(g.verdict_text.find("example") != std::string::npos ||
                g.verdict_text.find("示例") != std::string::npos)
        << g.verdict_text;
  }
}

TEST_F(OfflineTruth4, ABracketedScopeOfTheTitleStaysInTheHeadline) {
  for (const char* lang : {"zh", "en"}) {
    const Guide g = guide(503, lang);
    EXPECT_NE(g.headline.find("AMD"), std::string::npos) << g.headline;
    EXPECT_NE(g.headline.find("Fix the fused MoE kernel"), std::string::npos) << g.headline;
  }
}

TEST_F(OfflineTruth4, TheFigureNeverCostsTheTitleItsNarrowingWords) {
  for (const char* lang : {"zh", "en"}) {
    const Guide g = guide(504, lang);
    EXPECT_NE(g.headline.find("ROCm"), std::string::npos) << g.headline;
  }
}

}  // namespace
}  // namespace mergelens
