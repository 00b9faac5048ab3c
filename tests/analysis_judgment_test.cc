// Tests of the judgment: insight as the density of a decision where a reader
// looks, importance as reach, tags ranked and capped with their evidence.
// Inputs are small hand-written changes run through the whole analysis.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "mergelens/analysis/analyzer.h"
#include "mergelens/analysis/judgment/score_parts.h"
#include "mergelens/analysis/judgment/tags.h"
#include "test_helpers.h"

namespace mergelens {
namespace {

FileChange file(const std::string& path, const std::string& patch,
                FileStatus status = FileStatus::kModified) {
  return testing::file_from_patch(path, patch, status);
}

Facts analyse(const std::string& title, std::vector<FileChange> files, Reach reach = {},
              const std::string& body = "") {
  Change c;
  c.kind = ChangeKind::kSquash;
  c.title = title;
  c.body = body;
  c.files = std::move(files);
  auto ctx = make_context("o/r", "", "");
  EXPECT_TRUE(ctx);
  ctx->reach = reach;
  return analyze_change(c, *ctx);
}

// A guard with a fallback and the comment that argues it, in a dozen lines.
const char* kDensePatch =
    "@@ -10,4 +10,11 @@ class Pool:\n"
    "     def free(self, idx):\n"
    "         if idx.numel() == 0:\n"
    "             return\n"
    "-        self.mapping[idx] = 0\n"
    "+        # index_fill_ passes the 0 as a kernel argument; mapping[idx] = 0 copies a\n"
    "+        # host-resident scalar and blocks until the stream drains.\n"
    "+        if self.mapping.is_cuda:\n"
    "+            self.mapping.index_fill_(0, idx, 0)\n"
    "+        else:\n"
    "+            self.mapping[idx] = 0\n"
    "+        self.pool.release(idx)\n"
    "         return idx\n";

std::string big_patch(int lines) {
  std::string p = fmt::format("@@ -0,0 +1,{} @@\n", lines);
  for (int i = 0; i < lines; ++i) p += fmt::format("+value_{} = compute_{}(value_{})\n", i, i, i);
  return p;
}

TEST(Insight, DenseArguedDecisionBeatsBulk) {
  Facts dense =
      analyse("Avoid a blocking copy when freeing", {file("pkg/mem/pool.py", kDensePatch)});
  EXPECT_GE(dense.insight.value, 6) << ::testing::PrintToString(dense.insight.reasons);
  EXPECT_NE(std::find(dense.insight.reasons.begin(), dense.insight.reasons.end(),
                      "a comment argues the decision"),
            dense.insight.reasons.end());

  // The same decision inside 3,000 added lines of a new file: more to read,
  // the same lesson, so less insight.
  std::string spread = kDensePatch;
  Facts bulk =
      analyse("Add a pool", {file("pkg/mem/pool.py", kDensePatch),
                             file("pkg/mem/tables.py", big_patch(3000), FileStatus::kAdded)});
  EXPECT_LT(bulk.insight.value, dense.insight.value);

  // A model port is mechanical bulk whatever it holds.
  Facts port = analyse("Support NewModel",
                       {file("pkg/models/new_model.py", big_patch(2000), FileStatus::kAdded)});
  EXPECT_LE(port.insight.value, 4);
}

TEST(Insight, TestsShowTheContractButAreNotTheLesson) {
  std::string test_patch = kDensePatch;
  Facts in_test = analyse("Cover freeing", {file("tests/test_pool.py", test_patch)});
  Facts in_code = analyse("Avoid a blocking copy", {file("pkg/mem/pool.py", test_patch)});
  EXPECT_LE(in_test.insight.value, 2);
  EXPECT_GT(in_code.insight.value, in_test.insight.value);
}

TEST(Importance, ReachAndDefaultsAreFeaturesSizeAloneStaysLow) {
  const char* flag_patch =
      "@@ -1,3 +1,3 @@\n"
      " def add_args(p):\n"
      "-    p.add_argument(\"--chunk-size\", type=int, default=4096)\n"
      "+    p.add_argument(\"--chunk-size\", type=int, default=8192)\n"
      "     return p\n";
  Reach wide;
  wide.known = true;
  wide.direct = 150;
  wide.importers = 900;
  wide.hub = "pkg/server_args.py";
  Facts f = analyse("Raise the chunk size", {file("pkg/server_args.py", flag_patch)}, wide);
  // Each rule is a feature; its weight is fitted (score_fitted.h), and a
  // reason is listed only when the weight raises the score. (Fitted on many
  // repositories, a moved default alone no longer raises it: few of their
  // highlights are one.)
  const auto& r = f.importance.reasons;
  EXPECT_TRUE(f.score_inputs.importance_features.contains("reach_core"));
  EXPECT_TRUE(f.score_inputs.importance_features.contains("default_change"));
  EXPECT_NE(std::find(r.begin(), r.end(), "150 modules import the touched code"), r.end())
      << ::testing::PrintToString(r);
  // A stop word counts but is not named as a reason.
  for (const auto& reason : r) EXPECT_EQ(reason.find("“the”"), std::string::npos) << reason;
  EXPECT_GE(f.importance.value, 4);

  // 3,000 lines no one imports: size alone stays in the 5-6 band or below.
  Facts big =
      analyse("Rewrite tables", {file("pkg/tables.py", big_patch(3000), FileStatus::kAdded)});
  EXPECT_LE(big.importance.value, 6) << ::testing::PrintToString(big.importance.reasons);
}

TEST(Importance, ACapabilityCountsAFixAloneDoesNot) {
  const char* feature =
      "@@ -1,1 +1,7 @@\n"
      " import os\n"
      "+def open_stream(path):\n"
      "+    return Stream(path)\n"
      "+\n"
      "+\n"
      "+def close_stream(s):\n"
      "+    s.close()\n";
  Facts added = analyse("Add streaming reads", {file("pkg/io.py", feature)});
  Facts fixed = analyse("Fix streaming reads", {file("pkg/io.py", feature)});
  EXPECT_GT(added.importance.value, fixed.importance.value);
  EXPECT_TRUE(added.score_inputs.importance_features.contains("capability"));
  EXPECT_FALSE(fixed.score_inputs.importance_features.contains("capability"));
}

TEST(Tags, AtMostSixRankedEachWithEvidence) {
  Change c;
  c.title = "[AMD][MoE][Quant][LoRA][Spec] fp8 eagle lora moe attention kv cache scheduler";
  for (const char* p :
       {"pkg/moe/a.py", "pkg/quantization/fp8.py", "pkg/lora/b.py", "pkg/speculative/eagle.py",
        "pkg/attention/mla.py", "pkg/mem_cache/kv.py", "pkg/scheduler/s.py", "pkg/sampling/t.py"})
    c.files.push_back(file(p, "@@ -1 +1 @@\n-x = 1\n+x = 2\n"));
  auto tags = assign_tags(c, {}, default_taxonomy());
  ASSERT_EQ(tags.size(), kMaxTags);
  for (size_t i = 1; i < tags.size(); ++i) EXPECT_GE(tags[i - 1].weight, tags[i].weight);
  for (const auto& t : tags) EXPECT_FALSE(t.evidence.empty()) << t.name;
  EXPECT_EQ(tags[0].source, "prefix");  // the authors' own tags rank first
}

TEST(Tags, KindsFromTheDiffNotTheTitlePrefix) {
  // amd from the added code, with what it said.
  Change amd;
  amd.title = "Route the norm through the fallback";
  amd.files.push_back(
      file("pkg/layers/norm.py",
           "@@ -1,2 +1,4 @@\n def norm(x):\n+    if _is_hip:\n+        return slow(x)\n"
           "     return fast(x)\n"));
  std::map<std::string, Tag> t;
  for (auto& tag : assign_tags(amd, {}, default_taxonomy())) t[tag.name] = tag;
  ASSERT_TRUE(t.count("amd"));
  EXPECT_EQ(t["amd"].source, "code");
  EXPECT_EQ(t["amd"].evidence, "added code says \"hip\"");

  // ci when CI files carry a third of the lines, beside a test.
  Change ci;
  ci.title = "Split the suites";
  ci.files.push_back(file(".github/workflows/test.yml", "@@ -1 +1,2 @@\n a\n+b\n"));
  ci.files.push_back(file("tests/test_x.py", "@@ -1 +1,2 @@\n a\n+b\n"));
  t.clear();
  for (auto& tag : assign_tags(ci, {}, default_taxonomy())) t[tag.name] = tag;
  EXPECT_TRUE(t.count("ci"));

  // perf from a claimed figure, bugfix from a reported problem.
  TagHints hints;
  hints.perf_claim = "1.8x";
  hints.fixes = "#77";
  Change plain;
  plain.title = "Rework the copy";
  plain.files.push_back(file("pkg/copy.py", "@@ -1 +1 @@\n-a = b\n+a = c\n"));
  t.clear();
  for (auto& tag : assign_tags(plain, {}, default_taxonomy(), hints)) t[tag.name] = tag;
  ASSERT_TRUE(t.count("perf"));
  EXPECT_EQ(t["perf"].evidence, "claims 1.8x");
  ASSERT_TRUE(t.count("bugfix"));
  EXPECT_EQ(t["bugfix"].evidence, "fixes #77");
}

// ---- The verdict: how much reading pays (issue 21).

Reach importers(int direct) {
  Reach r;
  r.known = true;
  r.direct = direct;
  r.importers = direct * 4;
  return r;
}

// A six-line method whose comment argues for index_fill_ over an indexed
// write, and the call sites switched to it: about 20 changed code lines.
const char* kArguedMethodPatch =
    "@@ -40,6 +40,14 @@ class TokenPool:\n"
    "     def size(self):\n"
    "         return self.mapping.numel()\n"
    " \n"
    "+    def clear_slots(self, idx):\n"
    "+        # Use index_fill_ instead of mapping[idx] = 0: the indexed write copies a\n"
    "+        # host scalar to the device and blocks the stream until it lands, which\n"
    "+        # would stall the scheduler on every free.\n"
    "+        self.mapping.index_fill_(0, idx, 0)\n"
    "+\n"
    "     def free(self, idx):\n"
    "-        self.mapping[idx] = 0\n"
    "+        self.clear_slots(idx)\n"
    "         self.pool.release(idx)\n"
    "@@ -80,4 +88,4 @@ class TokenPool:\n"
    "     def evict(self, idx):\n"
    "-        self.mapping[idx] = 0\n"
    "+        self.clear_slots(idx)\n"
    "         return idx\n";

TEST(Verdict, SmallArguedChangeOnAMainPathIsACloseReadWithItsScope) {
  Facts f = analyse("Avoid a blocking copy when freeing slots",
                    {file("pkg/mem_cache/token_pool.py", kArguedMethodPatch)}, importers(25));
  EXPECT_EQ(f.verdict, Verdict::kCloseRead) << f.importance.value << " " << f.insight.value << " "
                                            << ::testing::PrintToString(f.insight.reasons);
  EXPECT_EQ(f.verdict_scope, std::vector<std::string>{"pkg/mem_cache/token_pool.py"});
  ASSERT_FALSE(f.score_inputs.argued.empty());
  EXPECT_TRUE(f.score_inputs.argued.front().starts_with("pkg/mem_cache/token_pool.py:"));
  EXPECT_LE(f.score_inputs.code_lines, 30);
}

TEST(Verdict, ALargePortWithNothingArguedIsNotACloseRead) {
  Facts port =
      analyse("Support NewModel",
              {file("pkg/models/new_model.py", big_patch(3000), FileStatus::kAdded)}, importers(5));
  EXPECT_NE(port.verdict, Verdict::kCloseRead);
  EXPECT_TRUE(port.score_inputs.argued.empty());
  EXPECT_LE(port.insight.value, 4);
}

TEST(Verdict, CiAndDocsOnlyAreSkippedOrSkimmed) {
  Facts f = analyse("Split the CI suites and document them",
                    {file(".github/workflows/test.yml", "@@ -1 +1,2 @@\n a: 1\n+b: 2\n"),
                     file("docs/testing.md", "@@ -1 +1,2 @@\n # Tests\n+Run the suites.\n")});
  EXPECT_TRUE(f.verdict == Verdict::kSkip || f.verdict == Verdict::kSkim) << to_string(f.verdict);
  EXPECT_LE(f.importance.value, 3);
  EXPECT_LE(f.insight.value, 2);
}

TEST(Scale, NineAndTenNeedHighlightEvidence) {
  // Every kind of evidence but a new capability, model, hardware, default or
  // format: wide reach, size over three modules, a kernel, a switch, a claimed
  // gain, a dtype branch, a reported problem fixed. The old sum of points gave
  // this 10; a release's highlights would not name it.
  std::string code =
      "@@ -1,2 +1,8 @@\n"
      " def run(x):\n"
      "+    if os.environ.get(\"PKG_FAST_PATH\", \"0\") == \"1\":\n"
      "+        return fast(x)\n"
      "+    if x.dtype == torch.float16:\n"
      "+        x = x.float()\n"
      "+    with self.lock:\n"
      "+        self.n += 1\n"
      "     return x\n";
  std::vector<FileChange> files = {
      file("pkg/core/run.py", code), file("pkg/sched/big.py", big_patch(400)),
      file("csrc/kernels/k.cu", big_patch(120)), file("pkg/io/api.py", big_patch(80))};
  Facts f = analyse("Fix the slow path (#123)", std::move(files), importers(150),
                    "Fixes #123. Decode is 1.8x faster on the main path.");
  EXPECT_LE(f.importance.value, 8) << ::testing::PrintToString(f.importance.reasons);
  EXPECT_GE(f.score_inputs.importance_features.size(), 8u);
  EXPECT_FALSE(f.score_inputs.importance_features.contains("capability"));
}

TEST(Importance, TitleWordsPathSharesAndLinksAreFeatures) {
  // Words: lower case, each once, the trailing PR number left out.
  EXPECT_EQ(score_internal::title_words("[Feat] Add FP8 KV-cache support for DeepSeek-V3 (#123)"),
            (std::vector<std::string>{"add", "cache", "deepseek", "feat", "for", "fp8", "kv",
                                      "support", "v3"}));
  Facts f = analyse("[2/3] Add a streaming reader (#77)",
                    {file("pkg/io/stream.py", big_patch(30), FileStatus::kAdded),
                     file("tests/test_stream.py", big_patch(10), FileStatus::kAdded)},
                    {}, "Follow-up of #70.");
  const auto& ft = f.score_inputs.importance_features;
  EXPECT_TRUE(ft.contains("w:streaming") && ft.contains("w:reader") && !ft.contains("w:77"));
  EXPECT_TRUE(ft.contains("series"));
  EXPECT_NEAR(ft.at("share_test"), 10.0 / 40.0, 1e-9);  // of every changed line
  EXPECT_FALSE(ft.contains("share_docs"));
  EXPECT_NEAR(ft.at("adds_files"), std::log10(2.0), 1e-9);  // one added code file
  EXPECT_EQ(ft.contains("follows_up"),
            std::any_of(f.references.begin(), f.references.end(),
                        [](const Reference& r) { return r.relation == "follow_up"; }));
  Facts plain = analyse("Rework the reader", {file("pkg/io/stream.py", big_patch(30))});
  EXPECT_FALSE(plain.score_inputs.importance_features.contains("series"));
  EXPECT_FALSE(plain.score_inputs.importance_features.contains("adds_files"));
}

TEST(Importance, AChangelogIsProcessNotDocumentation) {
  for (const char* p : {"CHANGELOG.md", "docs/source/changelog.rst", "doc/whats-new.rst",
                        "HISTORY.md", "doc/release/upcoming_changes/123.new_feature.rst",
                        "src/lightning/pytorch/CHANGELOG.md", "changelog.d/1.feature"})
    EXPECT_TRUE(score_internal::release_notes_file(p)) << p;
  for (const char* p : {"docs/guide.md", "pkg/changes.py.in/x.py", "src/history_buffer.py"})
    EXPECT_FALSE(score_internal::release_notes_file(p)) << p;
  // A code change with its changelog entry: no documentation comes with it,
  // and the entry's lines count in no share.
  Facts f = analyse("Speed up the reader",
                    {file("pkg/io/stream.py", big_patch(20)), file("CHANGELOG.md", big_patch(3))});
  EXPECT_FALSE(f.score_inputs.importance_features.contains("docs_with_code"));
  EXPECT_FALSE(f.score_inputs.importance_features.contains("share_docs"));
}

}  // namespace
}  // namespace mergelens
