// Issue 31, the checker's removals: of 39 removals on strong-model guides of
// 20 real PRs, 32 threw a true sentence away. The check now accepts what the
// change supports without writing it word for word (a reference the PR body
// links, a symbol with a label, a figure worked out from the PR's figures, a
// name the code builds) and still removes what it does not support: each
// kind is tested with a planted fabrication beside it. A removal leaves no
// fragment, and the guide's own texts agree with its numbers and its store.
#include <gtest/gtest.h>

#include "mergelens/guide/citations.h"
#include "mergelens/guide/claims.h"
#include "mergelens/guide/prose.h"
#include "mergelens/guide/prune_text.h"
#include "mergelens/guide/validate.h"
#include "test_helpers.h"

namespace mergelens {
namespace {

// A PR whose body links an upstream PR and commit, with figures in its
// body, a class and a name the code builds from a fragment.
Change upstream_change() {
  Change c;
  c.repo = "acme/engine";
  c.kind = ChangeKind::kSquash;
  c.number = 700;
  c.merged_at = 2'000'000;
  c.sha = "0123456789abcdef0123456789abcdef01234567";
  c.title = "[Spec] Add the draft pipeline";
  c.body =
      "Fixes the draft quant config, introduced by\n"
      "https://github.com/upstream-org/upstream/pull/50330\n\n"
      "Throughput: MRV1 877.16 tok/s, MRV2 1191.79 tok/s.\n"
      "TTFT TP1 608.23 -> 347.72 (simple) / 349.23 (native).\n\n"
      "- upstream main:\n"
      "https://github.com/upstream-org/upstream/commit/58d3918e3ea0a544ffedadad2ba84559e9c51d8f\n";
  c.files.push_back(testing::file_from_patch("engine/draft/pipeline.py",
                                             "@@ -10,3 +10,12 @@ class DraftPipeline:\n"
                                             "     def run(self):\n"
                                             "+        observer = self.scheme.observer\n"
                                             "+        name = f\"static_{observer}\"\n"
                                             "+        return name\n"
                                             "+\n"
                                             "+    def load(self, split):\n"
                                             "+        if split in [\"train\", \"test\"]:\n"
                                             "+            split += \"_sft\"\n"
                                             "+        return DraftPipelineMc(split)\n"
                                             "+\n"
                                             "     def stop(self):\n"
                                             "         pass\n"));
  return c;
}

class Removals : public ::testing::Test {
 protected:
  Change c = upstream_change();
  Facts f;
  CitationIndex index{c, f};

  std::string failures(const Guide& g) {
    std::string out;
    for (const auto& x : check_citations(g, index)) out += x.citation + " (" + x.reason + "); ";
    return out;
  }
  std::string ref(const std::string& r) {
    Guide g;
    g.references.push_back({r, "cause", "The upstream change the description names."});
    return failures(g);
  }
  std::string symbol(const std::string& s) {
    Guide g;
    g.focus.push_back({"engine/draft/pipeline.py", 0, 0, s, "Is the split passed through?", ""});
    return failures(g);
  }
  std::string cautions(std::vector<std::string> items) {
    Guide g;
    g.number_cautions = std::move(items);
    return failures(g);
  }
  std::string question(const std::string& q) {
    Guide g;
    g.questions.push_back(q);
    return failures(g);
  }
};

TEST_F(Removals, AnUpstreamPrOrCommitTheBodyLinksIsAReferenceOfTheChange) {
  EXPECT_EQ(ref("upstream-org/upstream#50330"), "");
  EXPECT_EQ(ref("upstream-org/upstream@58d3918e3ea0a544ffedadad2ba84559e9c51d8f"), "");
  EXPECT_EQ(ref("Upstream-Org/upstream@58d3918"), "") << "a short sha of the linked commit";
  // Planted: a PR, a commit and a repository the change never names.
  EXPECT_NE(ref("upstream-org/upstream#50331"), "");
  EXPECT_NE(ref("upstream-org/upstream@58d3918e3ea0a544ffedadad2ba84559e9c51d8e"), "");
  EXPECT_NE(ref("other-org/upstream#50330"), "");
  EXPECT_NE(ref("upstream-org/upstream@0a1b2c3d4e5f"), "");
  EXPECT_NE(ref("#50330"), "") << "the upstream PR is not this repository's #50330";
}

TEST_F(Removals, ALinkToThisRepositorysPrInTheCodeShownMakesItAReference) {
  EXPECT_NE(ref("#1411"), "");
  CitationIndex with_context{c, f};
  with_context.add_context_code(
      "def autowrap_forward(module):\n"
      "    \"\"\"See https://github.com/acme/engine/pull/1411 for untraceable patterns.\"\"\"\n");
  Guide g;
  g.references.push_back({"#1411", "mentions", "Linked from the docstring."});
  EXPECT_TRUE(check_citations(g, with_context).empty());
  g.references[0].ref = "#1412";
  EXPECT_FALSE(check_citations(g, with_context).empty()) << "planted";
}

TEST_F(Removals, ASymbolWithALabelIsCheckedOnItsNamesOnly) {
  EXPECT_EQ(symbol("DraftPipeline (members)"), "");
  EXPECT_EQ(symbol("DraftPipeline.load (removed `DraftPipelineMc`)"), "");
  EXPECT_EQ(symbol("file header (design contract)"), "") << "a label claims no code";
  EXPECT_EQ(symbol("module path move"), "");
  EXPECT_EQ(symbol("pipeline.py (mechanical consolidation)"), "");
  // Planted: names the change does not have, with or without a label.
  EXPECT_NE(symbol("GhostPipeline (members)"), "");
  EXPECT_NE(symbol("DraftPipeline.load (removed `_ghost_flag`)"), "");
  EXPECT_NE(symbol("ghost_loader"), "");
  EXPECT_NE(symbol("ghostly"), "") << "a single word is a name";
}

TEST_F(Removals, AFigureWorkedOutFromThePrsFiguresStands) {
  EXPECT_EQ(cautions({"The 877.16 versus 1191.79 tok/s (about 1.36x) compares two runners."}), "");
  EXPECT_EQ(cautions({"877.16 对 1191.79 tok/s（约 1.36 倍）只是一次运行。"}), "");
  // From the figures another item of the list cites.
  EXPECT_EQ(cautions({"TP1 608.23 -> 347.72 (simple) / 349.23 (native).",
                      "Native and simple differ by 0.4% (TP1), from one run."}),
            "");
  // A reduction as a percentage: (608.23 - 347.72) / 608.23 = 42.8 %.
  EXPECT_EQ(cautions({"TTFT drops from 608.23 to 347.72 (43%) in one run."}), "");
  // Planted: figures no pair of the PR's figures gives.
  EXPECT_NE(cautions({"The 877.16 versus 1191.79 tok/s (about 2.7x) compares two runners."}), "");
  EXPECT_NE(cautions({"TP1 608.23 -> 347.72 (simple) / 349.23 (native).",
                      "Native and simple differ by 7.3% (TP1), from one run."}),
            "");
  EXPECT_NE(cautions({"877.16 versus 1191.79 tok/s, 41.5 ms per step."}), "")
      << "a figure with another unit is never derived";
  EXPECT_NE(cautions({"The PR reports a 1.36x speed-up."}), "")
      << "a ratio with no figures of the change beside it";
}

TEST_F(Removals, NamesTheCodeBuildsFromFragmentsStand) {
  EXPECT_EQ(question("Which observers does `static_*` cover?"), "");
  EXPECT_EQ(question("Unlike the old loader, which rewrites train to `train_sft`, is the split "
                     "passed through unchanged?"),
            "");
  EXPECT_EQ(question("Does the map rely on identity hashing, so tensor `__eq__` is never used?"),
            "");
  // Planted: a pattern and built names the code does not make.
  EXPECT_NE(question("Which observers does `dynamic_*` cover?"), "");
  EXPECT_NE(question("Is `train_rlhf` read anywhere?"), "");
  EXPECT_NE(question("Is `eval_sft` read anywhere?"), "");
  EXPECT_NE(question("Does `__ghost_eq__` hold?"), "");
}

TEST(RemovalText, AStopInsideAParenthesisEndsNoSentence) {
  const std::string t =
      "Output 1006.81 tok/s against 1022.05 (about 1.5% lower; duration 101.71 s vs 100.19 s) "
      "is one run. It proves nothing.";
  const auto rs = prose::sentences(t);
  ASSERT_EQ(rs.size(), 2u);
  EXPECT_EQ(t.substr(rs[1].begin), "It proves nothing.");
  // A parenthesis never closed on its line does not hide the stops after it.
  EXPECT_EQ(prose::sentences("Item 1) first. Second one; third.").size(), 3u);
}

TEST(RemovalText, AClauseCutLeavesNoHalfParenthesisAndNoLoneOpening) {
  using prune_text::without_clause;
  // The cut clause holds a parenthesis with its own colon: it goes whole.
  const std::string s =
      "Mean acceptance 4.33 (MRV1) versus 4.32 (MRV2), with acceptance within about 0.006 (e.g. "
      "token 4: 0.4502 vs 0.4457), is evidence of parity.";
  const std::string cut = without_clause(s, "0.006");
  EXPECT_EQ(cut, "Mean acceptance 4.33 (MRV1) versus 4.32 (MRV2) is evidence of parity.");
  // What is left would be an opening clause without its main one: the sentence goes.
  EXPECT_EQ(without_clause("to exclude only the router gate, try `re:.*gate$` so `gate_proj` is "
                           "not caught.",
                           "`gate_proj`"),
            "");
  EXPECT_EQ(without_clause("The path is shared, and `ghost_fn` calls it twice.", "`ghost_fn`"),
            "The path is shared.");
  // An opening clause with its main one after it stays (the advice of a
  // strong model's answer, with a PR never named planted in a last clause).
  EXPECT_EQ(without_clause("If you run DSpark on MRV2 and hit a `NoneType` error, upgrade to a "
                           "version with this fix, as #99991 does elsewhere.",
                           "#99991"),
            "If you run DSpark on MRV2 and hit a `NoneType` error, upgrade to a version with this "
            "fix.");
  EXPECT_EQ(without_clause("如果你在昇腾上同时用动态 EPLB 和 W4A8，请升级到包含此修复的版本，像 "
                           "#99991 对其他地方做的那样。",
                           "#99991"),
            "如果你在昇腾上同时用动态 EPLB 和 W4A8，请升级到包含此修复的版本。");
}

TEST(RemovalText, ASentenceThatPointsBackAtARemovedOneGoesWithIt) {
  EXPECT_TRUE(prune_text::refers_back("do not rank the two backends on these numbers."));
  EXPECT_TRUE(prune_text::refers_back("这些数据只来自一次运行。"));
  EXPECT_TRUE(prune_text::refers_back("If so, were earlier scale searches computed without them?"));
  EXPECT_TRUE(prune_text::refers_back("如果是，此前的搜索是否缺少这些参数？"));
  EXPECT_FALSE(prune_text::refers_back("The TTFT figures compare offload against none."));
  EXPECT_FALSE(prune_text::refers_back("This change keeps the old path."));
}

TEST_F(Removals, ARemovalTakesTheSentenceThatArguesFromItAndAReferenceWithoutItsNote) {
  Guide g;
  g.number_cautions.push_back(
      "TP1 608.23 -> 347.72; native and simple differ by 9.9% from single runs; do not rank the "
      "two backends on these numbers. The unit is not stated.");
  g.references.push_back({"upstream-org/upstream#50330", "cause", "Declares `ghost_setting`."});
  auto fails = check_citations(g, index);
  ASSERT_EQ(fails.size(), 2u);
  remove_failed_citations(g, fails, Guide{}, index);
  ASSERT_EQ(g.number_cautions.size(), 1u);
  EXPECT_EQ(g.number_cautions[0], "TP1 608.23 -> 347.72; The unit is not stated.")
      << "the planted 9.9% goes, and the sentence that argues only from it";
  EXPECT_TRUE(g.references.empty()) << "a bare link without its note";
}

TEST(RemovalScores, TheMoveASCoreReasonStatesAgreesWithTheNumbers) {
  Guide g;
  g.lang = "en";
  g.analysis.importance = {8, ""};
  g.analysis.insight = {4, ""};
  g.importance = {8, "Kept: wide reach."};
  g.insight = {5, "Kept: the documented contract is instructive."};
  align_score_texts(g);
  EXPECT_EQ(g.importance.reason, "Kept: wide reach.") << "true: untouched";
  EXPECT_EQ(g.insight.reason, "Raised from 4: the documented contract is instructive.");
  g.insight = {7, "Raised from 6: the slot gate is reusable."};
  align_score_texts(g);
  EXPECT_EQ(g.insight.reason, "Raised from 4: the slot gate is reusable.");
  g.insight = {3, "Raised by 1: a small lesson."};
  align_score_texts(g);
  EXPECT_EQ(g.insight.reason, "Lowered from 4: a small lesson.");
  g.insight = {5, "Raised by 1: a small lesson."};
  align_score_texts(g);
  EXPECT_EQ(g.insight.reason, "Raised by 1: a small lesson.") << "true of a move from 4";
  // The triage's start is a start too.
  g.triage.insight = 6;
  g.insight = {7, "Raised from 6: reusable."};
  align_score_texts(g);
  EXPECT_EQ(g.insight.reason, "Raised from 6: reusable.");
  g.lang = "zh";
  g.triage = {};
  g.insight = {7, "由 6 上调：可复用。"};
  align_score_texts(g);
  EXPECT_EQ(g.insight.reason, "由 4 上调：可复用。");
  g.insight = {4, "由 6 下调：常规。"};
  align_score_texts(g);
  EXPECT_EQ(g.insight.reason, "保持：常规。");
  g.insight = {5, "a reason without an opening"};
  align_score_texts(g);
  EXPECT_EQ(g.insight.reason, "a reason without an opening");
}

TEST_F(Removals, APrCalledLaterThatMergedBeforeIsNotLater) {
  Facts fx;
  fx.referenced_by.push_back({1, "#690", "Avoid a crash", "mentions", 1'000'000});
  fx.referenced_by.push_back({2, "#720", "Follow-up fix", "follow_up", 3'000'000});
  CitationIndex ix{c, fx};
  Guide g;
  g.lang = "en";
  g.questions.push_back("Is the flag always set? The later PR #690 avoids a crash when it is not.");
  g.focus.push_back({"engine/draft/pipeline.py", 0, 0, "", "Is the split kept?",
                     "The follow-up #720 guards it."});
  g.references.push_back({"#690", "later fix", "Avoids a crash when the flag is absent."});
  g.references.push_back({"#720", "follow_up", "Guards the split."});
  std::string all;
  for (const auto& x : check_citations(g, ix)) all += x.citation + " (" + x.reason + "); ";
  EXPECT_NE(all.find("#690 merged before this change"), std::string::npos) << all;
  EXPECT_EQ(all.find("#720"), std::string::npos) << all;
  fix_reference_order(g, ix);
  EXPECT_EQ(g.references[0].relation, "earlier change");
  EXPECT_EQ(g.references[1].relation, "follow_up");
}

TEST_F(Removals, ANameTheChangeDefinesAnewIsNewThoughANamesakeExisted) {
  Facts fx;
  fx.context_known = true;
  fx.context.push_back({"called", "OtherConnector.on_written", "method", "engine/other.py", 10, 20,
                        "parent", "", "", ""});
  fx.definitions.push_back({"DraftPipeline.on_written", "method", "added", {}});
  CitationIndex ix{c, fx};
  Guide g;
  g.why = "The event comes from the new `on_written` hook of `DraftPipeline`.";
  EXPECT_TRUE(check_citations(g, ix).empty());
  // Planted: a name that existed and that the change does not define anew.
  fx.definitions.clear();
  CitationIndex ix2{c, fx};
  EXPECT_FALSE(check_citations(g, ix2).empty());
  // "adds the `X` to `Y` translation": the translation is what is new.
  Guide t;
  t.why = "It adds the `on_written` to `DraftPipelineMc` translation.";
  EXPECT_TRUE(check_citations(t, ix2).empty());
  t.why = "它新增 `on_written` 到 `DraftPipelineMc` 的转换。";
  EXPECT_TRUE(check_citations(t, ix2).empty());
  t.why = "It adds the `on_written` hook.";
  EXPECT_FALSE(check_citations(t, ix2).empty()) << "planted";
  // "… of `x.py` are new logic": the file is not what is called new.
  Guide h;
  h.why = "Only `load` and the alias on line 13 of `engine/draft/pipeline.py` are new logic.";
  std::string all;
  for (const auto& x : check_citations(h, ix2)) all += x.citation + " (" + x.reason + "); ";
  EXPECT_EQ(all.find("existed before"), std::string::npos) << all;
}

}  // namespace
}  // namespace mergelens
