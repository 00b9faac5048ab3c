#include <gtest/gtest.h>

#include <string>

#include "analysis_text_util.h"
#include "mergelens/analysis/text/text_facts.h"
#include "mergelens/model/diff.h"

namespace mergelens {
namespace {

using namespace testing_text;

// ---------------------------------------------------------------- numbers

TEST(ExtractNumbers, SpeedupsPercentagesAndUnits) {
  auto v = extract_numbers(
      "Decode is 2.3x faster and peak memory drops -78%. TTFT goes from 12.3 ms to 8 ms; "
      "throughput 1520 → 2100 tok/s on H100, bs=64. Saves 3.2 GB. Also 1.9× at small M.",
      "body");
  ASSERT_NE(find_number(v, "2.3x"), nullptr) << dump(v);
  EXPECT_EQ(find_number(v, "2.3x")->kind, "speedup");
  EXPECT_DOUBLE_EQ(find_number(v, "2.3x")->value, 2.3);
  EXPECT_EQ(find_number(v, "2.3x")->source, "body");
  EXPECT_EQ(find_number(v, "2.3x")->sentence, "Decode is 2.3x faster and peak memory drops -78%.");
  ASSERT_NE(find_number(v, "-78%"), nullptr) << dump(v);
  EXPECT_DOUBLE_EQ(find_number(v, "-78%")->value, -78);
  const NumberFact* ttft = find_number(v, "12.3 ms to 8 ms");
  ASSERT_NE(ttft, nullptr) << dump(v);
  EXPECT_EQ(ttft->kind, "latency");
  EXPECT_DOUBLE_EQ(ttft->value, 8);
  const NumberFact* thr = find_number(v, "1520 → 2100 tok/s");
  ASSERT_NE(thr, nullptr) << dump(v);
  EXPECT_EQ(thr->kind, "throughput");
  EXPECT_DOUBLE_EQ(thr->value, 2100);
  EXPECT_NE(thr->sentence.find("bs=64"), std::string::npos);  // the condition stays in the sentence
  ASSERT_NE(find_number(v, "3.2 GB"), nullptr) << dump(v);
  EXPECT_EQ(find_number(v, "3.2 GB")->kind, "memory");
  ASSERT_NE(find_number(v, "1.9×"), nullptr) << dump(v);
  // 64 of bs=64 and 100 of H100 are conditions, not claims.
  for (const auto& f : v) EXPECT_NE(f.value, 64) << dump(v);
  EXPECT_EQ(v.size(), 6u) << dump(v);
}

TEST(ExtractNumbers, ChineseText) {
  auto v = extract_numbers("SM10X 解码提速 2.3 倍，BCG 捕获内存降低 30%。长上下文吞吐提升 68%。",
                           "title");
  ASSERT_NE(find_number(v, "2.3 倍"), nullptr) << dump(v);
  EXPECT_EQ(find_number(v, "2.3 倍")->kind, "speedup");
  ASSERT_NE(find_number(v, "30%"), nullptr) << dump(v);
  EXPECT_DOUBLE_EQ(find_number(v, "30%")->value, -30);
  ASSERT_NE(find_number(v, "68%"), nullptr) << dump(v);
  EXPECT_DOUBLE_EQ(find_number(v, "68%")->value, 68);
  EXPECT_EQ(find_number(v, "68%")->sentence, "长上下文吞吐提升 68%。");
  EXPECT_EQ(v.size(), 3u) << dump(v);
}

TEST(ExtractNumbers, DirectionWordsSignPercentages) {
  auto v = extract_numbers(
      "Latency reduced by 40%. Throughput +12.5% overall. Uses 20% less memory.", "body");
  ASSERT_EQ(v.size(), 3u) << dump(v);
  EXPECT_DOUBLE_EQ(v[0].value, -40);
  EXPECT_EQ(v[1].text, "+12.5%");
  EXPECT_DOUBLE_EQ(v[1].value, 12.5);
  EXPECT_DOUBLE_EQ(v[2].value, -20);
}

TEST(ExtractNumbers, VersionsShasIdentifiersAndRefsAreNotNumbers) {
  auto v = extract_numbers(
      "Bump sgl-kernel to 0.3.9 (v0.4.1 had a bug, see #1234 and commit 64c44144). Released "
      "2024-05-01 at 14:14. "
      "Supports fp8 e4m3 on sm100 and H100, Llama-3-8B, bs=64, tp 8. Line 123 of foo.py:456. "
      "Tested with `--max-running-requests 128ms` and https://example.com/bench/12ms.",
      "body");
  EXPECT_TRUE(v.empty()) << dump(v);
}

TEST(ExtractNumbers, HardwareCountsAndDimensionsAreNotSpeedups) {
  auto v = extract_numbers(
      "Run on 8x H100 and 8xH200 with 4 x GPUs; tile 128x128 and 4 × 8 blocks; 3 times in a row.",
      "body");
  EXPECT_TRUE(v.empty()) << dump(v);
}

TEST(ExtractNumbers, ThroughputUnitsAndMultipliers) {
  auto v = extract_numbers(
      "Reaches 2.1k tok/s, 2100 tokens/s, 35 req/s, 120 QPS, 850 TFLOPS, 3.2 TB/s, 900 us and 1.5 "
      "s.",
      "body");
  ASSERT_NE(find_number(v, "2.1k tok/s"), nullptr) << dump(v);
  EXPECT_DOUBLE_EQ(find_number(v, "2.1k tok/s")->value, 2100);
  for (auto t : {"2100 tokens/s", "35 req/s", "120 QPS", "850 TFLOPS", "3.2 TB/s"}) {
    ASSERT_NE(find_number(v, t), nullptr) << t << " " << dump(v);
    EXPECT_EQ(find_number(v, t)->kind, "throughput") << t;
  }
  ASSERT_NE(find_number(v, "900 us"), nullptr) << dump(v);
  EXPECT_DOUBLE_EQ(find_number(v, "900 us")->value, 0.9);  // normalised to ms
  ASSERT_NE(find_number(v, "1.5 s"), nullptr) << dump(v);
  EXPECT_DOUBLE_EQ(find_number(v, "1.5 s")->value, 1500);
}

TEST(ExtractNumbers, RangesGiveBothEnds) {
  auto v = extract_numbers("Speedup is 1.05–1.9x depending on batch size.", "body");
  ASSERT_EQ(v.size(), 2u) << dump(v);
  EXPECT_EQ(v[0].text, "1.05–1.9x");
  EXPECT_DOUBLE_EQ(v[0].value, 1.05);
  EXPECT_DOUBLE_EQ(v[1].value, 1.9);
}

TEST(ExtractNumbers, CodeFencesAreSkippedButTheirTablesAreRead) {
  auto v = extract_numbers(
      "```\n$ python bench.py --speedup 5x\nthroughput: 2100 tok/s\n```\n"
      "```\n| bs | latency (ms) |\n|----|----|\n| 1 | 12.5 |\n```\n",
      "body");
  ASSERT_EQ(v.size(), 1u) << dump(v);
  EXPECT_EQ(v[0].kind, "latency");
  EXPECT_EQ(v[0].text, "12.5");
  EXPECT_EQ(v[0].sentence, "bs=1; latency (ms): 12.5");
}

TEST(ExtractNumbers, BenchmarkTableKeepsRowAndColumn) {
  const char* body =
      "Results on H200:\n\n"
      "| batch size | baseline (tok/s) | this PR (tok/s) | speedup |\n"
      "|---:|---:|---:|:---:|\n"
      "| 1 | 120 | 228 | 1.9x |\n"
      "| 64 | 3,100 | 3,255 | 1.05x |\n";
  auto v = extract_numbers(body, "body");
  const NumberFact* small = find_number(v, "1.9x");
  ASSERT_NE(small, nullptr) << dump(v);
  EXPECT_EQ(small->sentence, "batch size=1; speedup: 1.9x");
  const NumberFact* big = find_number(v, "3,255");
  ASSERT_NE(big, nullptr) << dump(v);
  EXPECT_EQ(big->kind, "throughput");
  EXPECT_DOUBLE_EQ(big->value, 3255);
  EXPECT_EQ(big->sentence, "batch size=64; this PR (tok/s): 3,255");
  EXPECT_EQ(v.size(), 6u) << dump(v);  // the batch-size column is a condition

  auto c = number_cautions(v, /*benchmark_changed=*/true);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].kind, "spread");
  EXPECT_EQ(c[0].detail, "1.9x vs 1.05x");
}

TEST(ExtractNumbers, TransposedTableUsesRowLabels) {
  auto v = extract_numbers(
      "| metric | bs=1 | bs=256 |\n|---|---|---|\n| TTFT (s) | 0.5 | 2 |\n| notes | a | b |\n",
      "body");
  ASSERT_EQ(v.size(), 2u) << dump(v);
  EXPECT_EQ(v[0].kind, "latency");
  EXPECT_DOUBLE_EQ(v[0].value, 500);
  EXPECT_EQ(v[0].sentence, "TTFT (s); bs=1: 0.5");
}

TEST(ExtractNumbers, TableWithoutMetricsGivesNothing) {
  auto v =
      extract_numbers("| model | tp | status |\n|---|---|---|\n| Qwen3-8B | 2 | ok |\n", "body");
  EXPECT_TRUE(v.empty()) << dump(v);
}

TEST(ExtractNumbers, InvalidUtf8DoesNotCrash) {
  std::string t =
      "Speedup \xff\xfe 2.3x \xc3\x28 faster \xe2\x82 and 40% less memory \xed\xa0\x80\xf0\x28\x8c";
  auto v = extract_numbers(t, "body");
  ASSERT_NE(find_number(v, "2.3x"), nullptr) << dump(v);
  ASSERT_NE(find_number(v, "40%"), nullptr) << dump(v);
  EXPECT_DOUBLE_EQ(find_number(v, "40%")->value, -40);
  for (const auto& f : v) EXPECT_NE(f.sentence.find("\xEF\xBF\xBD"), std::string::npos);
  EXPECT_NO_THROW(extract_references(t, "body", "o/r"));
  EXPECT_NO_THROW(extract_mentions(t));
}

// ---------------------------------------------------------------- cautions

TEST(NumberCautions, SingleUnconditionedSpeedupWithoutBenchmark) {
  auto v = extract_numbers("Make the sampler 2.3x faster", "title");
  auto c = number_cautions(v, false);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].kind, "no_benchmark");
  EXPECT_NE(c[0].detail.find("2.3x"), std::string::npos);
  EXPECT_EQ(c[1].kind, "single_point");
  EXPECT_NE(c[1].detail.find("2.3x"), std::string::npos);
}

TEST(NumberCautions, ConditionsOrBenchmarkRemoveCautions) {
  auto v = extract_numbers("Decode is 2.3x faster on H100 at bs=32.", "body");
  EXPECT_TRUE(number_cautions(v, true).empty());
  auto t = extract_numbers("Make it 2.3x faster", "title");
  auto b = extract_numbers("We measured 2.3x with batch size 8 and input length 1024.", "body");
  t.insert(t.end(), b.begin(), b.end());
  EXPECT_TRUE(number_cautions(t, true).empty());  // the same figure is qualified in the body
}

TEST(NumberCautions, CloseFiguresAreNotASpreadAndBaselineIsIgnored) {
  auto v = extract_numbers(
      "| bs | speedup |\n|--|--|\n| baseline | 1.00x |\n| 1 | 1.9x |\n| 8 | 1.8x |\n| 64 | 1.7x "
      "|\n",
      "body");
  ASSERT_EQ(v.size(), 4u) << dump(v);
  EXPECT_TRUE(number_cautions(v, true).empty());
}

TEST(NumberCautions, PercentSpreadOnlyForPerformance) {
  auto v = extract_numbers(
      "Throughput improves 5% at bs=1 and 68% at bs=256. Accuracy 95.1% vs 40.2% before.", "body");
  auto c = number_cautions(v, true);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].kind, "spread");
  EXPECT_EQ(c[0].detail, "68% vs 5%");
}

// ---------------------------------------------------------------- references

TEST(ExtractReferences, FixesFollowUpAndMentions) {
  auto r = extract_references(
      "Fixes #123, #124 and #125. Follow-up to #99; unbreak CI after #77. See also #55 and PR 56.",
      "body", "sgl-project/sglang");
  ASSERT_EQ(r.size(), 7u) << dump(r);
  EXPECT_EQ(r[0].relation, "fixes");
  EXPECT_EQ(r[0].kind, "issue");
  EXPECT_EQ(r[0].text, "#123");
  EXPECT_EQ(r[1].relation, "fixes");
  EXPECT_EQ(r[2].relation, "fixes");
  EXPECT_EQ(find_ref(r, "pr", 99)->relation, "follow_up");
  EXPECT_EQ(find_ref(r, "pr", 77)->relation, "follow_up");
  EXPECT_EQ(find_ref(r, "pr", 55)->relation, "mentions");
  ASSERT_NE(find_ref(r, "pr", 56), nullptr) << dump(r);
  EXPECT_EQ(find_ref(r, "pr", 56)->text, "PR 56");
}

TEST(ExtractReferences, RevertTitleAndRevertCommit) {
  auto t = extract_references("Revert \"Add fused MoE kernel (#100)\" (#200)", "title", "o/r");
  ASSERT_EQ(t.size(), 2u) << dump(t);
  EXPECT_EQ(find_ref(t, "pr", 100)->relation, "reverts");
  EXPECT_EQ(find_ref(t, "pr", 200)->relation, "mentions");
  auto c = extract_references(
      "Revert \"Add fused MoE kernel\"\n\nThis reverts commit "
      "abc1234def5678901234567890abcdef12345678.\n",
      "commit", "o/r");
  ASSERT_EQ(c.size(), 1u) << dump(c);
  EXPECT_EQ(c[0].kind, "commit");
  EXPECT_EQ(c[0].relation, "reverts");
  EXPECT_EQ(c[0].sha, "abc1234def5678901234567890abcdef12345678");
}

TEST(ExtractReferences, UrlsOtherReposAndShaInsideUrl) {
  auto r = extract_references(
      "Ports https://github.com/vllm-project/vllm/pull/4567 and closes "
      "https://github.com/sgl-project/sglang/issues/45. Related: flashinfer-ai/flashinfer#890, "
      "https://github.com/sgl-project/sglang/commit/64c44144aa, "
      "https://github.com/o/r/pull/12/commits/deadbeef1234567, docs at https://docs.example.com/x, "
      "![img](https://github.com/user-attachments/assets/abc.png). Why 64c44144 aligns both gates.",
      "body", "SGL-Project/SGLang");
  const Reference* vllm = find_ref(r, "pr", 4567);
  ASSERT_NE(vllm, nullptr) << dump(r);
  EXPECT_EQ(vllm->repo, "vllm-project/vllm");
  const Reference* issue = find_ref(r, "issue", 45);
  ASSERT_NE(issue, nullptr) << dump(r);
  EXPECT_EQ(issue->repo, "");
  EXPECT_EQ(issue->relation, "fixes");
  ASSERT_NE(find_ref(r, "pr", 890), nullptr) << dump(r);
  EXPECT_EQ(find_ref(r, "pr", 890)->repo, "flashinfer-ai/flashinfer");
  const Reference* sha = find_ref(r, "commit", 0, "64c44144");
  ASSERT_NE(sha, nullptr) << dump(r);
  EXPECT_EQ(sha->repo, "");
  EXPECT_EQ(sha->sha, "64c44144aa");  // the bare mention merged into the URL's commit
  ASSERT_NE(find_ref(r, "commit", 0, "deadbeef"), nullptr) << dump(r);
  EXPECT_EQ(find_ref(r, "commit", 0, "deadbeef")->repo, "o/r");
  ASSERT_NE(find_ref(r, "pr", 12), nullptr) << dump(r);
  ASSERT_NE(find_ref(r, "url", 0), nullptr) << dump(r);
  EXPECT_EQ(find_ref(r, "url", 0)->text, "https://docs.example.com/x");
  // 7 = vllm PR, issue 45, flashinfer PR, commit 64c4, PR 12, commit deadbeef, docs URL; no image,
  // no "4567" sha.
  EXPECT_EQ(r.size(), 7u) << dump(r);
}

TEST(ExtractReferences, VersionsAndNotShas) {
  auto r = extract_references(
      "Upgrade sgl-kernel 0.3.9 and torch==2.9.0, drop v0.4.1 support; pin 0.1.7. "
      "Not versions: 127.0.0.1, 2024.05.01, fp8e4m3, deadbeef, 1234567, 550e8400-e29b-41d4, "
      "0x1234abcd.",
      "body", "");
  std::vector<std::string> texts;
  for (const auto& x : r) texts.push_back(x.kind + ":" + x.text);
  EXPECT_EQ(texts, (std::vector<std::string>{"version:sgl-kernel 0.3.9", "version:torch==2.9.0",
                                             "version:v0.4.1", "version:0.1.7"}))
      << dump(r);
}

TEST(ExtractReferences, DeduplicatesKeepingStrongestRelation) {
  auto r = extract_references("See #42. This fixes #42. Mentioned sgl-project/sglang#42 again.",
                              "body", "sgl-project/sglang");
  ASSERT_EQ(r.size(), 1u) << dump(r);
  EXPECT_EQ(r[0].relation, "fixes");
  EXPECT_EQ(r[0].repo, "");
}

TEST(ExtractReferences, IgnoresFencesCommentsAndAnchors) {
  auto r = extract_references(
      "<!-- Link the issue: Fixes #1 -->\n```\ncommit 1a2b3c4d5e6f\n#999\n```\nColor &#123; and "
      "heading `#` only.",
      "body", "o/r");
  EXPECT_TRUE(r.empty()) << dump(r);
}

// ---------------------------------------------------------------- mentions

TEST(ExtractMentions, PathsFilesAndIdentifiers) {
  auto m = extract_mentions(
      "Moves `deepseek_weight_loader.py` logic into python/sglang/srt/models/glm4_moe.py and "
      "csrc/moe/x.cu. "
      "Calls `torch.cuda.current_device()` from _run_decode_kernel, guarded by SGLANG_ENABLE_FOO "
      "and "
      "`--enable-dp-attention`; see FusedMoE and get_config(). See "
      "https://github.com/a/b/blob/main/c.py too. "
      "Plain words like input/output and tok/s are not paths.");
  ASSERT_NE(find_mention(m, "deepseek_weight_loader.py"), nullptr);
  EXPECT_EQ(find_mention(m, "deepseek_weight_loader.py")->kind, "file");
  EXPECT_TRUE(find_mention(m, "deepseek_weight_loader.py")->backticked);
  ASSERT_NE(find_mention(m, "python/sglang/srt/models/glm4_moe.py"), nullptr);
  EXPECT_EQ(find_mention(m, "python/sglang/srt/models/glm4_moe.py")->kind, "path");
  EXPECT_NE(find_mention(m, "csrc/moe/x.cu"), nullptr);
  ASSERT_NE(find_mention(m, "torch.cuda.current_device"), nullptr);
  EXPECT_EQ(find_mention(m, "torch.cuda.current_device")->kind, "identifier");
  EXPECT_NE(find_mention(m, "_run_decode_kernel"), nullptr);
  EXPECT_NE(find_mention(m, "SGLANG_ENABLE_FOO"), nullptr);
  EXPECT_NE(find_mention(m, "--enable-dp-attention"), nullptr);
  EXPECT_NE(find_mention(m, "FusedMoE"), nullptr);
  EXPECT_NE(find_mention(m, "get_config"), nullptr);
  EXPECT_EQ(find_mention(m, "c.py"), nullptr);
  EXPECT_EQ(find_mention(m, "input/output"), nullptr);
  EXPECT_EQ(find_mention(m, "tok/s"), nullptr);
  EXPECT_EQ(find_mention(m, "Plain"), nullptr);
  EXPECT_EQ(m.size(), 9u);
}

TEST(ExtractMentions, CommandsAndFencesAreNotMentions) {
  auto m = extract_mentions(
      "Run `python -m sglang.launch_server --model-path foo/bar.py` then:\n```\npython "
      "tools/run_me.py\n```\n"
      "Done, e.g. it works.");
  EXPECT_TRUE(m.empty()) << m[0].text;
}

// ---------------------------------------------------------------- body vs code

Change glm_change(std::string body) {
  Change c;
  c.repo = "sgl-project/sglang";
  c.title = "Support GLM-4.5 MoE weight loading";
  c.body = std::move(body);
  c.files.push_back(file("python/sglang/srt/models/glm4_moe.py",
                         "@@ -10,2 +10,3 @@ class Glm4MoeForCausalLM:\n"
                         "     def load_weights(self, weights):\n"
                         "-        pass\n"
                         "+        self._load_expert_weights(weights)\n"
                         "+        return None\n"));
  return c;
}

TEST(BodyVsCode, BodyNamesAFileTheDiffDoesNotTouch) {
  // Identifiers the body names are context or claims alike: only files are
  // checked (`shared_expert_gate` may be a name of the code around the change).
  auto mm = body_vs_code(glm_change(
      "This reuses the loader in `deepseek_weight_loader.py` for `glm4_moe.py` via "
      "`_load_expert_weights` and "
      "`load_weights`; `Glm4MoeForCausalLM` is untouched, `shared_expert_gate` is new."));
  std::vector<std::string> subjects;
  for (const auto& m : mm) subjects.push_back(m.kind + ":" + m.subject);
  EXPECT_EQ(subjects, (std::vector<std::string>{"named_not_touched:deepseek_weight_loader.py"}))
      << dump(mm);
  EXPECT_NE(mm[0].detail.find("body"), std::string::npos);
}

TEST(BodyVsCode, FilesNamedAsContextAreNoMismatch) {
  // Another library's file the diff's own docstring names, a tool that was
  // run, a list of methods written with slashes, a reproduction's arguments.
  Change c = glm_change(
      "Decorated with a hook (see `transformers/integrations/accelerate.py`). "
      "Ruff and `tools/lint_cuda.py` passed. Works for eagle/eagle3/mtp/dspark. "
      "At `gradient_accumulate_steps=8` it reproduces.");
  c.files.push_back(file("pkg/ast_helpers.py",
                         "@@ -1,0 +1,1 @@\n+# mirrors transformers/integrations/accelerate.py\n"));
  EXPECT_TRUE(body_vs_code(c).empty()) << dump(body_vs_code(c));
}

TEST(BodyVsCode, EmptyBodyGivesNoTouchedNotMentioned) {
  Change c = glm_change("");
  c.title = "Tweak";
  c.files.push_back(file("sgl-kernel/csrc/moe.cu", "@@ -1,0 +1,1 @@\n+x\n", 400, 0));
  EXPECT_TRUE(body_vs_code(c).empty()) << dump(body_vs_code(c));
}

TEST(BodyVsCode, LargeUnmentionedAreaIsReported) {
  std::string body =
      "This pull request adjusts the scheduler so that requests waiting in the queue are admitted "
      "in a fairer "
      "order when the cache is nearly full, and it also cleans up a couple of log messages that "
      "were confusing "
      "users who run the server in production.";
  Change c = glm_change(body);
  c.title = "Fairer admission in the scheduler";
  c.files.push_back(file("sgl-kernel/csrc/moe_align.cu", "@@ -1,0 +1,1 @@\n+x\n", 300, 20));
  c.files.push_back(
      file("python/sglang/srt/managers/scheduler.py", "@@ -1,0 +1,1 @@\n+x\n", 40, 10));
  auto mm = body_vs_code(c);
  ASSERT_EQ(mm.size(), 1u) << dump(mm);
  EXPECT_EQ(mm[0].kind, "touched_not_mentioned");
  EXPECT_EQ(mm[0].subject, "sgl-kernel/csrc");
  // Naming any component ("moe", "kernel") is enough.
  c.body += " It also touches the MoE align kernel.";
  EXPECT_TRUE(body_vs_code(c).empty()) << dump(body_vs_code(c));
}

TEST(BodyVsCode, TruncatedFilesSkipIdentifierChecks) {
  Change c = glm_change("Adds `shared_expert_gate` handling.");
  c.files[0].truncated = true;
  EXPECT_TRUE(body_vs_code(c).empty());
  c.files.clear();
  EXPECT_TRUE(body_vs_code(c).empty());
}

TEST(BodyVsCode, FlagsTheBodyNamesAreNotChecked) {
  // A flag is an identifier: whether the body says the change adds it or
  // only names one to use with it cannot be read from the text.
  Change c;
  c.body = "Adds `--enable-foo-bar` and `--disable-baz-qux`.";
  c.files.push_back(file("a/server_args.py",
                         "@@ -1,0 +1,1 @@\n+    parser.add_argument(\"--enable-foo-bar\")\n"));
  EXPECT_TRUE(body_vs_code(c).empty()) << dump(body_vs_code(c));
}

TEST(ExtractNumbers, UnitWrittenBeforeTheNumberAndVersus) {
  auto v = extract_numbers(
      "Mean TTFT (ms): 16674.87 after, **Throughput (tok/s):** 2100.5; 1520 versus 2100 QPS.",
      "body");
  ASSERT_EQ(v.size(), 4u) << dump(v);
  EXPECT_EQ(v[0].kind, "latency");
  EXPECT_EQ(v[0].text, "16674.87");
  EXPECT_EQ(v[1].kind, "throughput");
  EXPECT_DOUBLE_EQ(v[1].value, 2100.5);
  EXPECT_EQ(v[2].text, "1520 versus 2100 QPS");  // a comparison, not a before→after pair
  EXPECT_DOUBLE_EQ(v[2].value, 1520);
  EXPECT_DOUBLE_EQ(v[3].value, 2100);
}

TEST(ExtractNumbers, SpacedAndWordSpeedups) {
  auto v = extract_numbers(
      "It is 2.3 x faster, 3 times faster and 1.5X overall; we ran it 3 times.", "body");
  std::vector<std::string> texts;
  for (const auto& f : v) texts.push_back(f.kind + ":" + f.text);
  EXPECT_EQ(texts, (std::vector<std::string>{"speedup:2.3 x", "speedup:3 times", "speedup:1.5X"}))
      << dump(v);
}

TEST(NumberCautions, SinglePercentClaimWithoutConditions) {
  auto v = extract_numbers("Reduce scheduler overhead by 30%", "title");
  auto c = number_cautions(v, true);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].kind, "single_point");
  EXPECT_NE(c[0].detail.find("30%"), std::string::npos);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_DOUBLE_EQ(v[0].value, -30);
}

TEST(ExtractNumbers, CountPairsButNotVersionBumps) {
  auto v = extract_numbers("Kernel launches per step: 12 → 3. Bump CUDA 12 → 13 and 0.4.1 → 0.5.0.",
                           "body");
  ASSERT_EQ(v.size(), 1u) << dump(v);
  EXPECT_EQ(v[0].kind, "count");
  EXPECT_EQ(v[0].text, "12 → 3");
  EXPECT_DOUBLE_EQ(v[0].value, 3);
}

TEST(ExtractReferences, MoreRelationForms) {
  auto r = extract_references(
      "Reapply \"Use new kernel (#10)\"\n\nFix regression introduced in #11. Reland of #12. PR#13 "
      "is related. "
      "回滚 #14。\n\n#15 is fixed here too.",
      "commit", "o/r");
  ASSERT_EQ(r.size(), 6u) << dump(r);
  EXPECT_EQ(find_ref(r, "pr", 10)->relation, "follow_up");
  EXPECT_EQ(find_ref(r, "pr", 11)->relation, "follow_up");
  EXPECT_EQ(find_ref(r, "pr", 12)->relation, "follow_up");
  EXPECT_EQ(find_ref(r, "pr", 13)->relation, "mentions");
  EXPECT_EQ(find_ref(r, "pr", 14)->relation, "reverts");
  EXPECT_EQ(find_ref(r, "pr", 15)->relation, "mentions");  // "#15" opening a line is not a heading
}

TEST(ExtractReferences, TemplateChecklistLinksAreDropped) {
  auto r = extract_references(
      "See https://arxiv.org/abs/2401.00001.\n\n## Checklist\n\n- [ ] Format your code according "
      "to "
      "[the guide](https://docs.example.io/contribution_guide.html#format).\n- [x] Closes #7",
      "body", "o/r");
  ASSERT_EQ(r.size(), 2u) << dump(r);
  EXPECT_EQ(r[0].text, "https://arxiv.org/abs/2401.00001");
  EXPECT_EQ(r[1].relation, "fixes");
}

TEST(ExtractMentions, LineSuffixesAndConfigFileNames) {
  auto m = extract_mentions(
      "Crash at `layout.hpp:98` and `foo/bar.py#L10-L20`; tuned E=64,N=128,device_name=H20.json.");
  ASSERT_NE(find_mention(m, "layout.hpp"), nullptr);
  EXPECT_EQ(find_mention(m, "layout.hpp")->kind, "file");
  ASSERT_NE(find_mention(m, "foo/bar.py"), nullptr);
  ASSERT_NE(find_mention(m, "H20.json"), nullptr);
  Change c;
  c.body = "Tuned `H20.json` for the new shape.";
  c.files.push_back(file("moe/configs/E=64,N=128,device_name=H20.json", "@@ -1,0 +1,1 @@\n+{}\n"));
  EXPECT_TRUE(body_vs_code(c).empty()) << dump(body_vs_code(c));
  c.files[0].path = "moe/configs/E=64,N=128,device_name=XH20.json";
  EXPECT_EQ(body_vs_code(c).size(), 1u);
}

}  // namespace
}  // namespace mergelens
