// Tests of the analysis stages that work on facts: clean-up detection, focus
// ranking, coverage and scores. Inputs are small hand-written diffs.
#include <gtest/gtest.h>

#include "mergelens/analysis/analyzer.h"
#include "mergelens/analysis/code/cleanup.h"
#include "mergelens/analysis/code/coverage.h"
#include "mergelens/analysis/facts_json.h"
#include "mergelens/analysis/judgment/focus.h"
#include "mergelens/analysis/judgment/scores.h"
#include "mergelens/analysis/text/text_facts.h"
#include "mergelens/model/diff.h"
#include "test_helpers.h"

namespace mergelens {
namespace {

FileChange file(const std::string& path, const std::string& patch,
                FileStatus status = FileStatus::kModified) {
  return testing::file_from_patch(path, patch, status);
}

// One HunkFacts per hunk, spanning its changed lines.
void add_hunks(const Change& c, Facts& facts) {
  for (size_t fi = 0; fi < c.files.size(); ++fi)
    for (size_t hi = 0; hi < c.files[fi].hunks.size(); ++hi) {
      const Hunk& h = c.files[fi].hunks[hi];
      HunkFacts hf;
      hf.file = fi;
      hf.hunk = hi;
      hf.new_start = INT32_MAX;
      for (const auto& l : h.lines) {
        if (l.origin == '+') {
          hf.new_start = std::min(hf.new_start, l.new_no);
          hf.new_end = std::max(hf.new_end, l.new_no);
          ++hf.added;
        } else if (l.origin == '-') {
          ++hf.removed;
        }
      }
      if (hf.new_start == INT32_MAX) hf.new_start = hf.new_end = h.new_start;
      facts.hunks.push_back(hf);
    }
}

std::map<std::string, FileRole> roles(const Change& c, FileRole r = FileRole::kCore) {
  std::map<std::string, FileRole> out;
  for (const auto& f : c.files) out[f.path] = r;
  return out;
}

std::map<std::string, Language> python(const Change& c) {
  std::map<std::string, Language> out;
  for (const auto& f : c.files) out[f.path] = Language::kPython;
  return out;
}

TEST(Cleanup, WhitespaceCommentAndImportOnlyFiles) {
  Change c;
  c.files.push_back(file("a.py", "@@ -1,2 +1,2 @@\n-x=1\n+x = 1\n y\n"));
  c.files.push_back(file("b.py", "@@ -1,1 +1,2 @@\n # old\n+# explain why\n"));
  c.files.push_back(file("c.py", "@@ -1,1 +1,2 @@\n import os\n+from typing import Any\n"));
  auto r = detect_cleanup(c, roles(c), python(c));
  ASSERT_EQ(r.skim.size(), 3u);
  EXPECT_EQ(r.skim[0].reason, "whitespace-only");
  EXPECT_EQ(r.skim[1].reason, "comment-only");
  EXPECT_EQ(r.skim[2].reason, "import-only");
  EXPECT_EQ(r.cleanup, "mixed-cleanup");
}

TEST(Cleanup, LogicChangeIsNotCleanup) {
  Change c;
  c.files.push_back(
      file("a.py", "@@ -1,2 +1,3 @@\n def f(x):\n+    if x is None:\n+        return 0\n"));
  c.files.push_back(file("b.py", "@@ -1 +1 @@\n-pass\n+pass  # keep\n"));
  auto r = detect_cleanup(c, roles(c), python(c));
  EXPECT_TRUE(r.cleanup.empty());
  for (const auto& s : r.skim) EXPECT_NE(s.path, "a.py");
}

TEST(Cleanup, RenameAndDeleteOnly) {
  Change c;
  FileChange ren;
  ren.path = "new/x.py";
  ren.old_path = "old/x.py";
  ren.status = FileStatus::kRenamed;
  c.files.push_back(ren);
  c.files.push_back(file("gone.py", "@@ -1,2 +0,0 @@\n-a\n-b\n", FileStatus::kDeleted));
  auto r = detect_cleanup(c, roles(c), python(c));
  ASSERT_EQ(r.skim.size(), 2u);
  EXPECT_EQ(r.skim[0].reason, "rename-only");
  EXPECT_EQ(r.skim[1].reason, "delete-only");
  EXPECT_FALSE(r.cleanup.empty());
}

TEST(Cleanup, MechanicalRenameAcrossFiles) {
  Change c;
  for (int i = 0; i < 5; ++i)
    c.files.push_back(file("m" + std::to_string(i) + ".py",
                           "@@ -3,2 +3,2 @@\n-    y = old_name(x)\n+    y = new_name(x)\n-    "
                           "return old_name\n+    return new_name\n"));
  c.files.push_back(file(
      "core.py", "@@ -1,1 +1,3 @@\n def g():\n+    if not ready:\n+        raise RuntimeError\n"));
  auto r = detect_cleanup(c, roles(c), python(c));
  int mechanical = 0;
  for (const auto& s : r.skim) mechanical += s.reason == "mechanical";
  EXPECT_EQ(mechanical, 5);
  EXPECT_TRUE(r.cleanup.empty());  // core.py carries logic
}

TEST(Cleanup, DocsAreSkimmedOnlyBesideCode) {
  Change docs_only;
  docs_only.files.push_back(file("docs/a.md", "@@ -1 +1 @@\n-old text\n+new text\n"));
  auto r = detect_cleanup(docs_only, roles(docs_only, FileRole::kDocs), {});
  EXPECT_TRUE(r.skim.empty());

  Change mixed = docs_only;
  mixed.files.push_back(file("src/a.py", "@@ -1 +1,2 @@\n x = 1\n+y = compute(x)\n"));
  auto m = roles(mixed);
  m["docs/a.md"] = FileRole::kDocs;
  auto r2 = detect_cleanup(mixed, m, python(mixed));
  ASSERT_EQ(r2.skim.size(), 1u);
  EXPECT_EQ(r2.skim[0].path, "docs/a.md");
}

TEST(Focus, SmallGuardOutranksLargeBoilerplate) {
  Change c;
  std::string big = "@@ -1,0 +1,60 @@\n";
  for (int i = 0; i < 60; ++i)
    big += "+FIELD_" + std::to_string(i) + " = " + std::to_string(i) + "\n";
  c.files.push_back(file("src/table.py", big));
  c.files.push_back(
      file("src/kernel.py",
           "@@ -40,3 +40,6 @@ def launch(grid):\n     n = grid.size\n+    if n > cu_count:\n"
           "+        n = cu_count\n+        warn_once('clamped')\n     run(n)\n"));
  Facts f;
  f.roles = roles(c);
  add_hunks(c, f);
  f.signals.push_back({"guard", "", Place{"src/kernel.py", 41, "launch"}, true});
  f.signals.push_back({"fallback", "", Place{"src/kernel.py", 42, "launch"}, true});
  f.hunks[1].symbol = "launch";
  rank_focus(c, f);
  ASSERT_FALSE(f.focus.empty());
  EXPECT_EQ(f.focus[0].path, "src/kernel.py");
  EXPECT_EQ(f.focus[0].start_line, 41);
  EXPECT_EQ(f.focus[0].end_line, 43);
  EXPECT_EQ(f.focus[0].symbol, "launch");
  EXPECT_EQ(f.lines_worth_reading, 3);
}

TEST(Focus, NearbyHunksMergeAndTestsWeighLess) {
  Change c;
  c.files.push_back(
      file("src/a.py", "@@ -10,1 +10,2 @@\n x\n+y = 1\n@@ -15,1 +16,2 @@\n z\n+w = 2\n"));
  c.files.push_back(
      file("tests/test_a.py",
           "@@ -1,0 +1,3 @@\n+def test_a():\n+    assert f() == 1\n+    assert g() == 2\n"));
  Facts f;
  f.roles = roles(c);
  f.roles["tests/test_a.py"] = FileRole::kTest;
  add_hunks(c, f);
  rank_focus(c, f);
  ASSERT_GE(f.focus.size(), 1u);
  EXPECT_EQ(f.focus[0].path, "src/a.py");
  EXPECT_EQ(f.focus[0].start_line, 11);
  EXPECT_EQ(f.focus[0].end_line, 17);  // both hunks, 5 lines apart, in one region
}

TEST(Focus, MovedAndSkimmedCodeSinks) {
  Change c;
  c.files.push_back(file("src/moved.py", "@@ -1,0 +1,6 @@\n+a\n+b\n+c\n+d\n+e\n+f\n"));
  c.files.push_back(file("src/real.py", "@@ -1,0 +1,2 @@\n+x = y\n+z = w\n"));
  Facts f;
  f.roles = roles(c);
  add_hunks(c, f);
  f.hunks[0].moved = true;
  rank_focus(c, f);
  ASSERT_FALSE(f.focus.empty());
  EXPECT_EQ(f.focus[0].path, "src/real.py");
}

TEST(Focus, ThePlaceAnAddedCommentExplainsComesFirst) {
  Change c;
  c.files.push_back(file("src/a.py",
                         "@@ -10,1 +10,3 @@\n x\n+a = 1\n+b = 2\n"
                         "@@ -40,1 +42,3 @@\n z\n+# why: b must follow a\n+c = 3\n"));
  Facts f;
  f.roles = roles(c);
  add_hunks(c, f);
  f.rationale.push_back({"src/a.py", 43, 43, "comment", "why: b must follow a", "", -1});
  rank_focus(c, f);
  ASSERT_EQ(f.focus.size(), 2u);
  EXPECT_EQ(f.focus[0].start_line, 43);
}

TEST(Focus, ThreePlacesAreFilledEvenWhenTheRestIsWeak) {
  Change c;
  std::string body = "@@ -1,0 +1,80 @@\n";
  for (int i = 0; i < 80; ++i) body += "+    step(x" + std::string(i, '.') + ")\n";  // 80 shapes
  c.files.push_back(file("src/kernel.py", body));
  c.files.push_back(file("src/util.py", "@@ -3,1 +3,2 @@\n import os\n+import math\n"));
  c.files.push_back(file("docs/a.md", "@@ -1,1 +1,2 @@\n x\n+y\n"));
  Facts f;
  f.roles = roles(c);
  f.roles["docs/a.md"] = FileRole::kDocs;
  add_hunks(c, f);
  f.signals.push_back({"guard", "", Place{"src/kernel.py", 5, ""}, true});
  f.signals.push_back({"concurrency", "", Place{"src/kernel.py", 9, ""}, true});
  rank_focus(c, f);
  // util.py and the doc line score under a fifth of the kernel; they still
  // take the second and third places, and nothing weaker than that is listed.
  ASSERT_EQ(f.focus.size(), 3u);
  EXPECT_EQ(f.focus[0].path, "src/kernel.py");
  EXPECT_LT(f.focus[1].score, f.focus[0].score * 0.2);
  EXPECT_EQ(f.focus[2].path, "docs/a.md");
  EXPECT_EQ(f.lines_worth_reading, 80);  // weak places are not lines worth reading
}

TEST(Focus, TheThirdPlaceGoesToAnotherFileWhenItIsClose) {
  auto hunk_at = [](int at, int n) {
    std::string h = "@@ -" + std::to_string(at) + ",0 +" + std::to_string(at) + "," +
                    std::to_string(n) + " @@\n";
    for (int i = 0; i < n; ++i) h += "+v = w" + std::string(i, '.') + "\n";  // n shapes
    return h;
  };
  // Three regions of a kernel (40, 30 and 20 lines) and one of an API file.
  auto focus_with_api_of = [&](int api_lines) {
    Change c;
    c.files.push_back(file("src/kernel.cu", hunk_at(10, 40) + hunk_at(100, 30) + hunk_at(200, 20)));
    c.files.push_back(file("src/api.py", hunk_at(50, api_lines)));
    Facts f;
    f.roles = roles(c);
    add_hunks(c, f);
    rank_focus(c, f);
    return f.focus;
  };
  const auto close = focus_with_api_of(16);
  ASSERT_GE(close.size(), 4u);
  EXPECT_EQ(close[0].path, "src/kernel.cu");
  EXPECT_EQ(close[1].path, "src/kernel.cu");
  EXPECT_EQ(close[2].path, "src/api.py");  // log2(17) is over 0.7 of log2(21)
  EXPECT_EQ(close[3].start_line, 200);
  // A region of another file far weaker than the third stays behind it.
  const auto weak = focus_with_api_of(2);
  ASSERT_GE(weak.size(), 3u);
  EXPECT_EQ(weak[2].path, "src/kernel.cu");
}

TEST(Coverage, TestsCoverCodeByStemAndGapsAreNamed) {
  Change c;
  c.files.push_back(file("pkg/sched/policy.py",
                         "@@ -1,0 +1,12 @@\n"
                         "+a\n+b\n+c\n+d\n+e\n+f\n+g\n+h\n+i\n+j\n+k\n+l\n"));
  c.files.push_back(
      file("pkg/io/reader.py", "@@ -1,0 +1,11 @@\n+a\n+b\n+c\n+d\n+e\n+f\n+g\n+h\n+i\n+j\n+k\n"));
  c.files.push_back(
      file("test/sched/test_policy.py", "@@ -1,0 +1,2 @@\n+def test_p():\n+    pass\n"));
  Facts f;
  f.roles = roles(c);
  f.roles["test/sched/test_policy.py"] = FileRole::kTest;
  f.numbers.push_back({"2.3x", "speedup", 2.3, "decode 2.3x faster", "body"});
  // A gap names a new path a test should take: reader.py's guard.
  f.signals.push_back({"guard", "if n < 0: raise ValueError(n)", {"pkg/io/reader.py", 4, ""}});
  f.signals.push_back({"guard", "if p is None: return", {"pkg/sched/policy.py", 2, ""}});
  find_coverage(c, f);
  ASSERT_EQ(f.tests.size(), 1u);
  EXPECT_EQ(f.tests[0].covers, "pkg/sched/policy.py");
  ASSERT_EQ(f.gaps.size(), 2u);
  EXPECT_EQ(f.gaps[0].kind, "test");
  EXPECT_EQ(f.gaps[0].subject, "pkg/io/reader.py");
  EXPECT_EQ(f.gaps[0].detail,
            "11 changed lines with 1 new branch or guard; first: if n < 0: raise ValueError(n); "
            "no changed test covers it");
  EXPECT_EQ(f.gaps[1].kind, "benchmark");
  EXPECT_EQ(f.gaps[1].subject, "2.3x");
}

TEST(Coverage, NoGapWithoutANewPathForATestToTake) {
  Change c;
  // Twelve added lines of a table, and a file that only deletes a branch.
  c.files.push_back(file("pkg/data/table.py",
                         "@@ -1,0 +1,12 @@\n"
                         "+a\n+b\n+c\n+d\n+e\n+f\n+g\n+h\n+i\n+j\n+k\n+l\n"));
  c.files.push_back(
      file("pkg/io/old.py", "@@ -1,4 +1,0 @@\n-if x:\n-    raise ValueError(x)\n-y = 1\n-z = 2\n"));
  Facts f;
  f.roles = roles(c);
  f.signals.push_back({"guard", "if x: raise ValueError(x)", {"pkg/io/old.py", 1, ""}, false});
  find_coverage(c, f);
  EXPECT_TRUE(f.gaps.empty());
}

TEST(Coverage, ATestCoversWhatItImportsOrCallsAndTheClaimIsTheGapsSubject) {
  Change c;
  const std::string twelve = "@@ -1,0 +1,12 @@\n+a\n+b\n+c\n+d\n+e\n+f\n+g\n+h\n+i\n+j\n+k\n+l\n";
  c.files.push_back(file("pkg/sched/policy.py", twelve));
  c.files.push_back(file("pkg/io/reader.py", twelve));
  c.files.push_back(file("pkg/mem/pool.py", twelve));
  c.files.push_back(file("pkg/net/wire.py", twelve));
  // One test, named after none of them, imports reader and calls a function
  // the change adds to pool.py; wire.py stays uncovered.
  c.files.push_back(file("test/test_end_to_end.py",
                         "@@ -1,0 +1,4 @@\n+from pkg.io import reader\n"
                         "+from pkg.mem.pool import reserve_blocks\n"
                         "+def test_flow():\n+    reserve_blocks(reader.load())\n"));
  Facts f;
  f.roles = roles(c);
  f.roles["test/test_end_to_end.py"] = FileRole::kTest;
  f.definitions.push_back({"reserve_blocks", "function", "added", {"pkg/mem/pool.py", 3, ""}});
  f.definitions.push_back({"policy_name", "function", "added", {"pkg/sched/policy.py", 2, ""}});
  f.numbers.push_back({"31%", "percent", 31, "baseline 31% of peak", "body"});
  f.numbers.push_back({"1.8x", "speedup", 1.8, "prefill 1.8x faster", "body"});
  for (const char* path :
       {"pkg/sched/policy.py", "pkg/io/reader.py", "pkg/mem/pool.py", "pkg/net/wire.py"})
    f.signals.push_back({"guard", "if a: return b", {path, 5, ""}});
  find_coverage(c, f);
  ASSERT_EQ(f.tests.size(), 1u);
  EXPECT_EQ(f.tests[0].covers, "pkg/io/reader.py");
  std::vector<std::string> gaps;
  for (const auto& g : f.gaps) gaps.push_back(g.kind + ":" + g.subject);
  EXPECT_EQ(gaps, (std::vector<std::string>{"test:pkg/sched/policy.py", "test:pkg/net/wire.py",
                                            "benchmark:1.8x"}));
}

TEST(KeyFigure, PairsBeforeAfterColumnsWithinARowAndBaselineRowsWithinAColumn) {
  // Rows are configurations, columns before/after: never pair two rows.
  std::vector<NumberFact> transposed = {
      {"68%", "percent", 68, "E=256 时整体提升 68%。", "body"},
      {"21.4", "latency", 21.4, "E=128; 修改前 (us): 21.4", "body"},
      {"12.7", "latency", 12.7, "E=128; 修改后 (us): 12.7", "body"},
      {"58.9", "latency", 58.9, "E=256; 修改前 (us): 58.9", "body"},
      {"35.1", "latency", 35.1, "E=256; 修改后 (us): 35.1", "body"}};
  EXPECT_EQ(key_figure(transposed), "E=128: 修改前 (us) 21.4 → 修改后 (us) 12.7");
  // Rows are the baseline and the change.
  std::vector<NumberFact> rows = {
      {"31%", "percent", 31, "round_robin; hit rate: 31%", "body"},
      {"412 ms", "latency", 412, "round_robin; mean TTFT: 412 ms", "body"},
      {"74%", "percent", 74, "cache_aware; hit rate: 74%", "body"},
      {"187 ms", "latency", 187, "cache_aware; mean TTFT: 187 ms", "body"}};
  EXPECT_EQ(key_figure(rows), "mean TTFT 412 ms → 187 ms");
  rows.push_back({"2.2x", "speedup", 2.2, "TTFT is 2.2x lower overall.", "body"});
  EXPECT_EQ(key_figure(rows), "2.2x");
  EXPECT_EQ(key_figure({{"40%", "percent", 40, "40% fewer copies", "body"}}), "");
  EXPECT_EQ(key_figure({{"2x", "speedup", 2, "2x faster", "commit"}}), "");
}

TEST(Scores, CleanupIsSkippedAndCoreGuardsRankHigher) {
  Change c;
  c.files.push_back(file("src/a.py", "@@ -1 +1 @@\n-x=1\n+x = 1\n"));
  Facts cleanup;
  cleanup.roles = roles(c);
  cleanup.cleanup = "whitespace-only";
  score_change(c, cleanup);
  EXPECT_EQ(cleanup.verdict, Verdict::kSkip);
  EXPECT_EQ(cleanup.importance.value, 1);

  Change big;
  std::string patch = "@@ -1,0 +1,200 @@\n";
  for (int i = 0; i < 200; ++i) patch += "+line" + std::to_string(i) + "\n";
  big.files.push_back(file("src/sched/a.py", patch));
  big.files.push_back(file("src/kernels/b.cu", patch));
  big.files.push_back(file("src/io/c.py", patch));
  Facts rich;
  rich.roles = roles(big);
  rich.roles["src/kernels/b.cu"] = FileRole::kKernel;
  rich.signals.push_back({"fallback", "", Place{"src/sched/a.py", 3, ""}, true});
  rich.signals.push_back({"concurrency", "", Place{"src/sched/a.py", 9, ""}, true});
  rich.signals.push_back({"env_var", "APP_FAST", Place{"src/sched/a.py", 12, ""}, true});
  rich.numbers.push_back({"2.3x", "speedup", 2.3, "2.3x faster", "body"});
  add_hunks(big, rich);
  rank_focus(big, rich);
  score_change(big, rich);
  // Big and broad: code on the main path (the fitted weights do not make a
  // kernel or a switch a release highlight by themselves), but its few
  // lessons are spread over 600 lines a reader must read, so its insight
  // stays low (insight is density).
  EXPECT_GE(rich.importance.value, 3);
  EXPECT_LE(rich.insight.value, 4);
  EXPECT_NE(rich.verdict, Verdict::kSkip);
  EXPECT_FALSE(rich.importance.reasons.empty());
}

TEST(FactsJson, RoundTrips) {
  Facts f;
  f.roles["a.py"] = FileRole::kKernel;
  f.focus.push_back({"a.py", 3, 9, "f", 4.5, {"guard"}, 7});
  f.skim.push_back({"b.py", "comment-only"});
  f.tags.push_back({"moe", "path", "**/moe/**", 0.5, 1.5, "a.py, 50% of changed lines"});
  f.importance = {6, {"x"}, -1.25};
  f.insight.raw = 2.5;
  f.score_inputs.importance_features = {{"main_path", 1}, {"size_log", 1.5}};
  f.score_inputs.code_lines = 21;
  f.score_inputs.argued = {"a.py:4"};
  f.insight = {4, {"y"}};
  f.verdict = Verdict::kSelectiveRead;
  f.gaps.push_back({"benchmark", "2.3x", "no bench"});
  f.references.push_back({"pr", "fixes", "", 12, "", "#12", "body"});
  auto j = facts_to_json(f);
  EXPECT_EQ(j["skim"][0], "b.py");
  EXPECT_EQ(j["scores"]["importance"], 6);
  EXPECT_EQ(j["scores"]["importance_raw"], -1.25);
  EXPECT_EQ(j["scores"]["importance_features"]["size_log"], 1.5);
  EXPECT_EQ(j["scores"]["argued"][0], "a.py:4");
  EXPECT_EQ(j["benchmark_gaps"].size(), 1u);
  auto back = facts_from_json(j);
  ASSERT_TRUE(back);
  EXPECT_EQ(facts_to_json(*back), j);
  EXPECT_FALSE(facts_from_json(nlohmann::json::object()));
}

}  // namespace
}  // namespace mergelens

namespace mergelens {
namespace {

TEST(Analyzer, ReferencesToOneTargetMergeAcrossTexts) {
  auto ctx = make_context("o/r", "", "");
  ASSERT_TRUE(ctx) << ctx.error().message;
  Change c;
  c.kind = ChangeKind::kMerge;  // commit messages are read too
  c.number = 7;
  c.title = "Unbreak the loader after #100";
  c.body = "See issue #100 for the report. Also mentions v0.5.2 and v0.6.0.";
  Commit cm;
  cm.message = "fix loader\n\nThe bug came from commit 1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b.";
  c.commits.push_back(cm);
  Commit cm2;
  cm2.message = "follow-up\n\nadjusts 1a2b3c4d5e too";
  c.commits.push_back(cm2);
  Facts f = analyze_change(c, *ctx);
  int to_100 = 0, to_sha = 0, versions = 0;
  for (const auto& r : f.references) {
    if ((r.kind == "pr" || r.kind == "issue") && r.number == 100) {
      ++to_100;
      EXPECT_EQ(r.relation, "follow_up");
    }
    if (r.kind == "commit") {
      ++to_sha;
      EXPECT_EQ(r.sha.size(), 40u);
    }
    if (r.kind == "version") ++versions;
  }
  EXPECT_EQ(to_100, 1);
  EXPECT_EQ(to_sha, 1);
  EXPECT_EQ(versions, 2);  // different versions stay apart
}

}  // namespace
}  // namespace mergelens
