// Tests of the offline writer's use of what the code says about itself: the
// comments a change adds quoted exactly and cited by line, replaced lines
// shown as pairs, tests named for their contract, questions from a region's
// facts (none when nothing specific is known), the Chinese headline lead, the
// digest paragraph, and no sentence contradicting another. Changes are small
// hand-written diffs run through the real analyzer.
#include <gtest/gtest.h>

#include "mergelens/analysis/analyzer.h"
#include "mergelens/guide/citations.h"
#include "mergelens/guide/guide_json.h"
#include "mergelens/guide/markdown.h"
#include "mergelens/guide/offline.h"
#include "mergelens/guide/offline_parts.h"
#include "mergelens/guide/phrases.h"
#include "mergelens/guide/prose.h"
#include "test_helpers.h"

namespace mergelens {
namespace {

using testing::file_from_patch;

constexpr std::string_view kWhy =
    "fill_ runs on the device; slots[idx] = 0 copies a host scalar and waits for the stream.";

// A fix in a slot allocator: a new method with a comment saying why, three
// indexed assignments replaced by calls to it, a default moved, and a test
// named for the contract it checks.
Change slot_change() {
  Change c;
  c.repo = "o/r";
  c.kind = ChangeKind::kSquash;
  c.number = 77;
  c.sha = "89abcdef0123456789abcdef0123456789abcdef";
  c.title = "[Fix] Reset slots on the device to avoid a blocking copy (#77)";
  c.author = {"Bo", "bo@example.com", "bo"};
  c.merged_at = 1788000000;
  c.commits.push_back({c.sha, c.author, c.merged_at, c.merged_at, c.title});
  c.files.push_back(file_from_patch("python/pkg/cache/slots.py",
                                    "@@ -10,6 +10,13 @@ class SlotPool:\n"
                                    "     def __init__(self, size):\n"
                                    "         self.slots = make_slots(size)\n"
                                    " \n"
                                    "+    def reset_slots(self, idx):\n"
                                    "+        if idx.numel() == 0:\n"
                                    "+            return\n"
                                    "+        # fill_ runs on the device; slots[idx] = 0 copies\n"
                                    "+        # a host scalar and waits for the stream.\n"
                                    "+        self.slots.fill_(0, idx)\n"
                                    "+\n"
                                    "     def take(self, n):\n"
                                    "         return self.slots[:n]\n"
                                    " \n"
                                    "@@ -40,7 +47,7 @@ class SlotPool:\n"
                                    "     def free(self, idx):\n"
                                    "         self.count -= len(idx)\n"
                                    "-        self.slots[idx] = 0\n"
                                    "+        self.reset_slots(idx)\n"
                                    "         self.log(idx)\n"
                                    "         return idx\n"
                                    " \n"
                                    "@@ -80,7 +87,7 @@ class SlotPool:\n"
                                    "     def evict(self, idx):\n"
                                    "         self.evicted += 1\n"
                                    "-        self.slots[idx] = 0\n"
                                    "+        self.reset_slots(idx)\n"
                                    "         self.log(idx)\n"
                                    "         return idx\n"
                                    " \n"));
  c.files.push_back(file_from_patch("python/pkg/cache/radix.py",
                                    "@@ -120,7 +120,7 @@ class Radix:\n"
                                    "     def drop(self, node):\n"
                                    "         pool = self.pool\n"
                                    "-        pool.slots[node.idx] = 0\n"
                                    "+        pool.reset_slots(node.idx)\n"
                                    "         node.idx = None\n"
                                    "         return node\n"
                                    " \n"
                                    "@@ -200,7 +200,7 @@ class Radix:\n"
                                    " class RadixConfig:\n"
                                    "     name: str = \"radix\"\n"
                                    "-    page_size: int = 16\n"
                                    "+    page_size: int = 32\n"
                                    "     eviction: str = \"lru\"\n"
                                    "     levels: int = 4\n"
                                    " \n"));
  c.files.push_back(file_from_patch("test/test_slots.py",
                                    "@@ -1,3 +1,10 @@ import pool\n"
                                    " import torch\n"
                                    " \n"
                                    " \n"
                                    "+def test_resetting_slots_does_not_block():\n"
                                    "+    p = pool.SlotPool(8)\n"
                                    "+    try:\n"
                                    "+        p.reset_slots(torch.arange(3))\n"
                                    "+    except RuntimeError as exc:\n"
                                    "+        return exc\n"
                                    "+    assert p.count == 8\n"));
  return c;
}

Facts facts_of(const Change& c) {
  auto ctx = make_context(c.repo, "", "");
  EXPECT_TRUE(ctx);
  return analyze_change(c, *ctx);
}

void expect_clean_citations(const Change& c, const Facts& f, const Guide& g) {
  CitationIndex index(c, f);
  for (const auto& x : check_citations(g, index))
    ADD_FAILURE() << g.lang << " " << x.field << ": " << x.citation << " (" << x.reason << ")";
}

class OfflineRationale : public ::testing::Test {
 protected:
  void SetUp() override {
    c_ = slot_change();
    f_ = facts_of(c_);
    zh_ = write_offline_guide(c_, f_, "zh");
    en_ = write_offline_guide(c_, f_, "en");
  }
  Change c_;
  Facts f_;
  Guide zh_, en_;
};

TEST_F(OfflineRationale, TheAnalysisFoundTheFactsTheseTestsRelyOn) {
  ASSERT_FALSE(f_.rationale.empty());
  EXPECT_EQ(f_.rationale[0].text, kWhy);
  EXPECT_GE(f_.replacements.size(), 3u);
}

TEST_F(OfflineRationale, TheAddedCommentIsTheLessonQuotedExactlyAndCitedByLine) {
  const auto& n = f_.rationale[0];
  const std::string lines = fmt::format("第 {}–{} 行", n.start_line, n.end_line);
  EXPECT_NE(zh_.why.find(std::string(kWhy)), std::string::npos) << zh_.why;
  EXPECT_NE(zh_.why.find(lines), std::string::npos) << zh_.why;
  EXPECT_NE(zh_.why.find("`slots.py`"), std::string::npos) << zh_.why;
  EXPECT_NE(en_.why.find(std::string(kWhy)), std::string::npos) << en_.why;
  EXPECT_NE(en_.why.find(fmt::format("lines {}–{}", n.start_line, n.end_line)), std::string::npos);
  // The focus point of the region holding it carries the quote as context.
  ASSERT_GE(n.focus, 0);
  bool quoted = false;
  for (const auto& p : zh_.focus) quoted |= p.why.find(std::string(kWhy)) != std::string::npos;
  EXPECT_TRUE(quoted);
}

TEST_F(OfflineRationale, AReplacedLineIsShownAsThePairAndItsRepetitionCounted) {
  const std::string pair = "`self.slots[idx] = 0` → `self.reset_slots(idx)`";
  const std::string text = guide_text(zh_);
  EXPECT_NE(text.find(pair), std::string::npos) << text;
  EXPECT_NE(zh_.why.find("3 处改动是同一种替换"), std::string::npos) << zh_.why;
  EXPECT_NE(en_.why.find("3 edits are the same replacement"), std::string::npos) << en_.why;
  bool asked = false;
  for (const auto& p : en_.focus)
    asked |= p.question.find("is `reset_slots` equivalent to the old form") != std::string::npos;
  EXPECT_TRUE(asked) << guide_to_markdown(en_);
}

TEST_F(OfflineRationale, AMovedDefaultIsAskedAboutWithBothValues) {
  Change c = slot_change();
  c.files.erase(c.files.begin());  // the default alone stays worth a question
  Facts f = facts_of(c);
  bool found = false;
  for (const auto& r : f.replacements)
    if (r.new_text.find("page_size") != std::string::npos) found = true;
  if (!found) GTEST_SKIP() << "the analysis did not pair the moved default";
  Guide g = write_offline_guide(c, f, "en");
  const std::string text = guide_text(g);
  EXPECT_NE(text.find("`page_size` moves from `16` to `32`"), std::string::npos)
      << guide_to_markdown(g);
}

// The summary names a test's contract; its look-here item asks nothing
// (whether the assertions pin the name down fits any test: readers found that
// question settled by the test's own lines in two cases of three).
TEST_F(OfflineRationale, ATestNamesItsContractAndIsNoDesignLesson) {
  for (const Guide* g : {&zh_, &en_}) {
    EXPECT_EQ(g->why.find("test_"), std::string::npos) << g->why;
    for (const auto& d : g->design_decisions) EXPECT_EQ(d.find("test_"), std::string::npos) << d;
    // The test helper's exception handling is not what the change teaches.
    EXPECT_EQ(guide_text(*g).find("except RuntimeError"), std::string::npos);
  }
  bool shown = false;
  for (const auto& p : en_.focus)
    if (p.path == "test/test_slots.py") {
      shown = true;
      EXPECT_EQ(p.question, "") << guide_to_markdown(en_);
    }
  EXPECT_TRUE(shown) << guide_to_markdown(en_);
  EXPECT_NE(zh_.summary.find("“resetting slots does not block”"), std::string::npos) << zh_.summary;
}

// A check added to a function that existed before (the moved-check test's
// new side, and the control of the added-function test below).
constexpr const char* kCheckInAnExistingFunction =
    "@@ -1,4 +1,6 @@\n"
    " def take_slots(slots, n):\n"
    "+    if n > len(slots):\n"
    "+        raise ValueError(\"not enough slots\")\n"
    "     out = slots[:n]\n"
    "     del slots[:n]\n"
    "     return out\n";

// A check the change moves (its line is also removed, here from another
// file) is not new: the item asks nothing about when it fires. (A check of a
// script, the other rule, is pinned by the golden guide of the sample's
// `scripts/gen_fp8_lut.py`.)
TEST(OfflineQuestions, NoQuestionOnAMovedCheck) {
  Change c = slot_change();
  c.files.clear();
  // The check moves into a function that existed before (a check in a
  // function the change adds asks nothing for another reason: see below).
  c.files.push_back(file_from_patch("python/pkg/cache/pool.py", kCheckInAnExistingFunction));
  c.files.push_back(file_from_patch("python/pkg/cache/slots.py",
                                    "@@ -10,7 +10,3 @@ class SlotPool:\n"
                                    "     def take(self, n):\n"
                                    "-        if n > len(slots):\n"
                                    "-            raise ValueError(\"not enough slots\")\n"
                                    "-        out = self.slots[:n]\n"
                                    "-        del self.slots[:n]\n"
                                    "-        return out\n"
                                    "+        return take_slots(self.slots, n)\n"
                                    "     def put(self, x):\n"));
  const Facts f = facts_of(c);
  for (const char* lang : {"en", "zh"}) {
    const Guide g = write_offline_guide(c, f, lang);
    for (const auto& p : g.focus) {
      EXPECT_EQ(p.question.find("not enough slots"), std::string::npos) << guide_to_markdown(g);
      EXPECT_EQ(p.question.find("n > len(slots)"), std::string::npos) << guide_to_markdown(g);
    }
  }
}

// A check in a function the change adds has no caller from before the
// change: its condition says when it fires, and asking which inputs it now
// stops presumes there were some (issue 31's audit: "when does the new check
// fire" on a new class's validation was read as misleading). The same check
// added to a function that existed before is asked about.
TEST(OfflineQuestions, NoQuestionOnACheckInAFunctionTheChangeAdds) {
  auto guide_of = [](const char* patch, const char* lang) {
    Change c = slot_change();
    c.files.clear();
    c.files.push_back(file_from_patch("python/pkg/cache/pool.py", patch));
    return write_offline_guide(c, facts_of(c), lang);
  };
  const char* added =
      "@@ -1,3 +1,9 @@\n"
      " def size(slots):\n"
      "     return len(slots)\n"
      " \n"
      "+def take_slots(slots, n):\n"
      "+    if n > len(slots):\n"
      "+        raise ValueError(\"not enough slots\")\n"
      "+    out = slots[:n]\n"
      "+    del slots[:n]\n"
      "+    return out\n";
  const char* existing = kCheckInAnExistingFunction;
  for (const char* lang : {"en", "zh"}) {
    const Guide fresh = guide_of(added, lang);
    for (const auto& p : fresh.focus)
      EXPECT_EQ(p.question.find("n > len(slots)"), std::string::npos) << guide_to_markdown(fresh);
    const Guide old = guide_of(existing, lang);
    bool asked = false;
    for (const auto& p : old.focus) asked |= p.question.find("n > len(slots)") != std::string::npos;
    EXPECT_TRUE(asked) << guide_to_markdown(old);
  }
}

// An early return whose line only edits one that already left the loop
// (a renamed variable) is not new: the item does not ask what it skips. The
// one-line form pairs the two lines; in the two-line form the `if` lines pair
// and the removed `continue` is found by its shape.
TEST(OfflineQuestions, NoQuestionOnAnEditedEarlyReturn) {
  const char* one_line =
      "@@ -1,5 +1,5 @@\n"
      " def chunks(tokens, mask_num, block):\n"
      "-    for start in range(0, len(tokens), block):\n"
      "-        if start < mask_num: continue\n"
      "-        yield tokens[start:start + block]\n"
      "+    for start_idx in range(0, len(tokens), block):\n"
      "+        if start_idx < mask_num: continue\n"
      "+        yield tokens[start_idx:start_idx + block]\n"
      "     return\n";
  const char* two_lines =
      "@@ -1,6 +1,6 @@\n"
      " def chunks(tokens, mask_num, block):\n"
      "-    for start in range(0, len(tokens), block):\n"
      "-        if start < mask_num:\n"
      "+    for start_idx in range(0, len(tokens), block):\n"
      "+        if start_idx < mask_num:\n"
      "             continue\n"
      "-        yield tokens[start:start + block]\n"
      "+        yield tokens[start_idx:start_idx + block]\n"
      "     return\n";
  for (const char* patch : {one_line, two_lines}) {
    Change c = slot_change();
    c.files.clear();
    c.files.push_back(file_from_patch("python/pkg/cache/chunks.py", patch));
    const Facts f = facts_of(c);
    for (const char* lang : {"en", "zh"}) {
      const Guide g = write_offline_guide(c, f, lang);
      const auto& p = phrases::get(lang);
      const std::string early = std::string(p.q_early).substr(0, 12);
      for (const auto& fp : g.focus)
        EXPECT_EQ(fp.question.find(early), std::string::npos) << guide_to_markdown(g);
    }
  }
}

// A docstring that documents parameters describes an interface, not why the
// change exists: "why read it" does not quote it (issue 31's audit: a new
// dataset class's ":param dataset_args: ..." read as the PR's reason). The
// same class with a docstring that argues is quoted.
TEST(OfflineWhyRead, DoesNotQuoteAParameterDocstring) {
  auto guide_of = [](const char* doc, const char* lang) {
    Change c = slot_change();
    c.files.clear();
    c.files.push_back(
        file_from_patch("python/pkg/data/blend.py",
                        fmt::format("@@ -1,2 +1,9 @@\n"
                                    " from pkg.data.base import TextDataset\n"
                                    " \n"
                                    "+class BlendDataset(TextDataset):\n"
                                    "+    \"\"\"{}\"\"\"\n"
                                    "+\n"
                                    "+    def __init__(self, dataset_args, split, processor):\n"
                                    "+        dataset_args.name = \"blend\"\n"
                                    "+        super().__init__(dataset_args, split, processor)\n"
                                    "+        self.template = \"chat\"\n",
                                    doc)
                            .c_str()));
    return write_offline_guide(c, facts_of(c), lang);
  };
  for (const char* lang : {"en", "zh"}) {
    const Guide params = guide_of(
        "Child text generation class for the blend dataset :param dataset_args: configuration "
        "settings for dataset loading :param split: split from dataset to load",
        lang);
    EXPECT_EQ(params.why.find("dataset_args"), std::string::npos) << lang << ": " << params.why;
    const Guide argues = guide_of(
        "The blend dataset mixes chat and code samples, so calibration sees both kinds of "
        "activation instead of only chat",
        lang);
    EXPECT_NE(argues.why.find("calibration sees both"), std::string::npos)
        << lang << ": " << argues.why;
  }
}

TEST(OfflineQuestions, SameShapeIsOneLineWithSomeNamesChanged) {
  using guide_detail::same_shape;
  EXPECT_TRUE(
      same_shape("if start_token < mask_num: continue", "if start_idx < mask_num: continue"));
  EXPECT_TRUE(same_shape("if  x is None: return", "if x is None:return"));
  EXPECT_FALSE(same_shape("if a is None: return", "if b is None: return"));  // no name in common
  EXPECT_FALSE(same_shape("if n < limit: continue", "if n <= limit: continue"));
  EXPECT_FALSE(same_shape("if n < limit: continue", "if not n: continue"));
}

TEST_F(OfflineRationale, NoGenericQuestionWhereNothingSpecificIsKnown) {
  const auto& p = phrases::get("zh");
  for (const auto& f : zh_.focus) {
    EXPECT_NE(f.question, p.q_generic);
    EXPECT_EQ(f.question.find("的行为改变了什么？调用方是否依赖旧行为？"), std::string::npos)
        << f.question;
    EXPECT_EQ(f.question.find("承担什么职责？边界情况如何处理？"), std::string::npos) << f.question;
  }
  // A region whose facts name nothing specific is listed without a question.
  Change c = slot_change();
  c.files.resize(1);
  c.files[0] = file_from_patch("python/pkg/cache/slots.py",
                               "@@ -10,4 +10,4 @@ class SlotPool:\n"
                               "     def take(self, n):\n"
                               "-        return self.slots[:n]\n"
                               "+        return list(self.slots)[:n]\n"
                               "     def put(self, x):\n");
  Facts f = facts_of(c);
  Guide g = write_offline_guide(c, f, "zh");
  for (const auto& fp : g.focus)
    if (fp.question.empty()) {
      EXPECT_EQ(guide_to_markdown(g).find("`take`:"), std::string::npos);
    }
  for (const auto& fp : g.focus) EXPECT_NE(fp.question, p.q_generic);
}

TEST_F(OfflineRationale, TheChineseHeadlineIsTheKindThenTheTitleAndFitsTheSeedLength) {
  // Both languages frame the change as its title does: an object picked from
  // the facts ("新增 `reset_slots`") framed it otherwise (issue 31's audit).
  EXPECT_TRUE(zh_.headline.starts_with("修复：Reset slots on the device")) << zh_.headline;
  EXPECT_EQ(zh_.headline.find("新增"), std::string::npos) << zh_.headline;
  EXPECT_LE(prose::width(zh_.headline), 32) << zh_.headline;
  EXPECT_EQ(en_.headline, "Reset slots on the device to avoid a blocking copy");
  // Without an object the title also names, the headline is the kind of
  // change (here the files' one role) and the PR's own title: a file name
  // alone says less; the English headline is the title, cut to the length.
  Change c = slot_change();
  c.title =
      "Explain how the pool recycles memory on the device without blocking the stream, with "
      "examples for every backend (#77)";
  c.files = {file_from_patch("docs/guide.md", "@@ -1,1 +1,2 @@\n # Guide\n+Reset on device.\n")};
  Facts f = facts_of(c);
  Guide g = write_offline_guide(c, f, "zh");
  EXPECT_TRUE(g.headline.starts_with("文档：Explain how the pool")) << g.headline;
  EXPECT_LE(prose::width(g.headline), guide_detail::kHeadlineWidth) << g.headline;
  g = write_offline_guide(c, f, "en");
  EXPECT_LE(prose::width(g.headline), guide_detail::kHeadlineWidth) << g.headline;
  EXPECT_TRUE(g.headline.ends_with("…")) << g.headline;
  EXPECT_TRUE(g.headline.starts_with("Explain how the pool")) << g.headline;
  // A file the title names is no better: the title says more than its name.
  c.files = {file_from_patch("docs/backends.md", "@@ -1,1 +1,2 @@\n # B\n+Reset on device.\n")};
  f = facts_of(c);
  g = write_offline_guide(c, f, "zh");
  EXPECT_EQ(g.headline.find("改动 `backends.md`"), std::string::npos) << g.headline;
  EXPECT_TRUE(g.headline.starts_with("文档：Explain how the pool")) << g.headline;
  // A scope that names the same kind is not said twice ("示例：Examples: …").
  c.title = "[Examples][NPU] Run the pool (#78)";
  c.files = {file_from_patch("examples/run_pool.py", "@@ -0,0 +1,2 @@\n+import pool\n+pool.run()\n",
                             FileStatus::kAdded)};
  f = facts_of(c);
  g = write_offline_guide(c, f, "zh");
  EXPECT_EQ(g.headline, "示例：NPU: Run the pool") << g.headline;
  g = write_offline_guide(c, f, "en");
  EXPECT_EQ(g.headline, "Examples/NPU: Run the pool") << g.headline;
}

TEST_F(OfflineRationale, TheDigestIsTheVerdictWithItsScopeThenTheLessonInTwoOrThreeSentences) {
  for (const Guide* g : {&zh_, &en_}) {
    ASSERT_FALSE(g->digest.empty());
    EXPECT_TRUE(g->digest.starts_with(prose::tidy(g->verdict_text).substr(0, 20))) << g->digest;
    EXPECT_NE(g->digest.find(std::string(kWhy)), std::string::npos) << g->digest;
    const auto n = prose::sentences(prose::without_code(g->digest)).size();
    EXPECT_GE(n, 2u) << g->digest;
  }
}

TEST_F(OfflineRationale, EveryOfflineGuidePassesTheCitationChecker) {
  expect_clean_citations(c_, f_, zh_);
  expect_clean_citations(c_, f_, en_);
}

TEST(OfflineConsistency, ASkipThatTouchesCodeDoesNotSayTheMainPathIsUntouched) {
  Change c = slot_change();
  c.title = "Rename a local (#78)";
  c.files = {file_from_patch("python/pkg/cache/slots.py",
                             "@@ -10,3 +10,3 @@ class SlotPool:\n"
                             "     def take(self, n):\n"
                             "-        k = n\n"
                             "+        count = n\n"
                             "     def put(self, x):\n"),
             file_from_patch("docs/slots.md", "@@ -1,1 +1,2 @@\n # Slots\n+More.\n")};
  Facts f = facts_of(c);
  f.verdict = Verdict::kSkip;
  f.cleanup.clear();
  for (const char* lang : {"zh", "en"}) {
    Guide g = write_offline_guide(c, f, lang);
    EXPECT_EQ(g.verdict_text.find("不影响主路径"), std::string::npos) << g.verdict_text;
    EXPECT_EQ(g.verdict_text.find("nothing on the main path"), std::string::npos) << g.verdict_text;
    expect_clean_citations(c, f, g);
  }
}

// The verifier of issue 35 found "(about 1 lines)" in English digests: a count
// of lines takes its noun in the right number in every verdict phrase.
TEST(OfflineConsistency, OneLineIsOneLineInEveryVerdictPhrase) {
  Change c = slot_change();
  Facts f = facts_of(c);
  f.lines_worth_reading = 1;
  for (Verdict v : {Verdict::kCloseRead, Verdict::kSelectiveRead}) {
    f.verdict = v;
    if (v == Verdict::kSelectiveRead) f.verdict_scope = {"python/pkg/cache/slots.py"};
    const Guide en = write_offline_guide(c, f, "en");
    EXPECT_EQ(en.verdict_text.find(" 1 lines"), std::string::npos) << en.verdict_text;
    EXPECT_EQ(en.digest.find(" 1 lines"), std::string::npos) << en.digest;
    const Guide zh = write_offline_guide(c, f, "zh");
    EXPECT_EQ(zh.verdict_text.find("line"), std::string::npos) << zh.verdict_text;
  }
  // A selective read counts the changed lines of the files it names; with
  // none named, the lines worth reading.
  f.verdict = Verdict::kSelectiveRead;
  f.verdict_scope.clear();
  EXPECT_NE(write_offline_guide(c, f, "en").verdict_text.find("about 1 line)"), std::string::npos)
      << write_offline_guide(c, f, "en").verdict_text;
}

}  // namespace
}  // namespace mergelens
