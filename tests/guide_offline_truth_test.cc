// Issue 31, third pass of the offline writer: the false and misleading kinds
// careful readers still found in the offline guides of real PRs, each on a
// crafted change run through the real pipeline (ingest, analyse, write in
// both languages): a new sibling branch whose value is read as the old
// line's changed value, a test gap and an "early return" question on a
// branch the parent already had, a run time taken for a performance claim,
// "concurrency" read from a word inside an error message, importance reasons
// left in English in Chinese guides, and a Chinese headline cut to make room
// for its label.
#include <gtest/gtest.h>

#include "mergelens/analysis/judgment/scores.h"
#include "mergelens/guide/phrases.h"
#include "mergelens/guide/prose.h"
#include "offline_guide_fixture.h"
#include "test_helpers.h"

namespace mergelens {
namespace {

using testing::GitRepo;

constexpr const char* kMlp = R"(def mlp(x, w1, group_list):
    out = grouped_matmul(
        x=[x],
        weight=w1,
        split_item=3,
        group_list=group_list,
    )
    return out
)";

constexpr const char* kMlpMx = R"(def mlp(x, w1, group_list, mx=False):
    if mx:
        out = grouped_matmul(
            x=[x],
            weight=w1,
            split_item=2,
            group_list=group_list,
        )
    else:
        out = grouped_matmul(
            x=[x],
            weight=w1,
            split_item=3,
            group_list=group_list,
        )
    return out
)";

constexpr const char* kMerge = R"(def merge_config(path, new_config):
    qconfig = None
    if path is not None:
        qconfig = load(path)

    if qconfig is None:
        qconfig = new_config
    else:
        qconfig.merge(new_config)

    return qconfig
)";

constexpr const char* kMergeNew = R"(def merge_config(path, new_config):
    existing_config = None
    if path is not None:
        existing_config = load(path)

    if existing_config is None:
        return new_config
    else:
        existing_config.merge(new_config)
        return existing_config
)";

class OfflineTruth : public testing::OfflineGuideFixture<OfflineTruth> {
 public:
  static constexpr testing::GuideParts kGuideParts{.advice = false, .skim = false};

  static void write_history(GitRepo& repo) {
    repo.run("remote add origin git@github.com:o/r.git");
    repo.write("pkg/mlp.py", kMlp);
    repo.write("pkg/save.py", kMerge);
    repo.write("pkg/trace.py", "def trace(m):\n    return m.forward\n");
    repo.write("pkg/sync.py", "def wait(group):\n    return group.size()\n");
    repo.write("pkg/layerwise.py", "def send(x):\n    return x\n");
    repo.commit("Initial import", "2026-09-01T08:00:00Z");

    repo.write("pkg/mlp.py", kMlpMx);
    repo.commit("Add an MX path to the MLP (#401)", "2026-09-02T09:00:00Z");

    repo.write("pkg/save.py", kMergeNew);
    repo.commit("Return the new config early (#402)", "2026-09-02T10:00:00Z");

    repo.write("pkg/trace.py",
               "def trace(m):\n    fn = m.forward\n    while hasattr(fn, \"__wrapped__\"):\n"
               "        fn = fn.__wrapped__\n    return fn\n");
    repo.commit(
        "[Bugfix] Resolve decorated forwards when tracing (#403)\n\n"
        "End-to-end validation: a full run over 482 subgraphs completed in ~45 minutes on a "
        "single RTX 5090, where on `main` it could not trace at all.",
        "2026-09-02T11:00:00Z");

    repo.write("pkg/sync.py",
               "def wait(group):\n    if group is None:\n"
               "        raise RuntimeError(\"call dist.barrier before wait: no group\")\n"
               "    return group.size()\n");
    repo.commit("Check the group before waiting (#404)", "2026-09-02T12:00:00Z");

    repo.write("pkg/layerwise.py",
               "def send(x):\n    return x\n\n\nclass LayerwiseSender:\n"
               "    def send(self, x):\n        return x\n");
    repo.commit(
        "[Feature] Support Mooncake Layerwise SFA Transfer with KV Cache layerwise Prefill "
        "offload (#405)",
        "2026-09-02T13:00:00Z");

    repo.write(
        "pkg/envs.py",
        "class Envs:\n    SGLANG_OLD_PATH = EnvBool(False)\n    SGLANG_KEEP = EnvInt(2)\n\n\n"
        "envs = Envs()\n");
    repo.write("pkg/route.py",
               "from pkg.envs import envs\n\n\ndef route(x):\n    if envs.SGLANG_OLD_PATH.get():\n"
               "        return old(x)\n    return new(x)\n");
    repo.write("pkg/models/minimax_m3_vl.py", "def encode(x):\n    return x\n");
    repo.write("csrc/kinds.h", "enum class Kind {\n  A = 0,\n  Unspecified = 1,\n};\n");
    repo.write("pkg/lazy/__init__.py", "__all__ = []\n");
    repo.write("tests/test_route.py", "def test_route():\n    assert route(1)\n");
    repo.write(
        "pkg/sched.py",
        "class Scheduler:\n    def plan(self, cfg):\n        return self._uses_hybrid(cfg)\n\n"
        "    def _uses_hybrid(self, cfg):\n        if cfg is None:\n            return False\n"
        "        return len(cfg.groups) > 1\n");
    repo.commit("More modules", "2026-09-02T14:00:00Z");

    repo.write("pkg/envs.py", "class Envs:\n    SGLANG_KEEP = EnvInt(2)\n\n\nenvs = Envs()\n");
    repo.write("pkg/route.py", "def route(x):\n    return new(x)\n");
    repo.commit("Remove the old path switch (#406)", "2026-09-02T15:00:00Z");

    repo.write("pkg/models/minimax_m3_vl.py",
               "def encode(x):\n    if x is None:\n        raise ValueError(\"no input\")\n"
               "    return x\n");
    repo.write("tests/e2e/test_minimax_m3.py",
               "def test_generates():\n    assert run_server(\"minimax-m3\").ok\n");
    repo.commit("Check the input of the encoder (#408)", "2026-09-02T16:00:00Z");

    repo.write("csrc/kinds.h",
               "enum class Kind {\n  A = 0,\n  TopK = 1,\n  Unspecified = 2,\n};\n");
    repo.commit("Add the TopK kind (#409)", "2026-09-02T17:00:00Z");

    repo.write("pkg/lazy/__init__.py",
               "__all__ = [\"fast_fn\"]\n\n\ndef __getattr__(name):\n    if name == \"fast_fn\":\n"
               "        from .fast import fast_fn\n\n        return fast_fn\n"
               "    raise AttributeError(f\"module {__name__!r} has no attribute {name!r}\")\n");
    repo.commit("Import fast_fn lazily (#410)", "2026-09-02T18:00:00Z");

    repo.write("pkg/route.py", "def route(x):\n    y = new(x)\n    return y\n");
    repo.write("tests/test_route.py",
               "# The route test: one call.\ndef test_route():\n    assert route(1)\n");
    repo.commit(
        "Name the routed value (#411)\n\n- upstream version: v0.27.1\n- upstream main:\n"
        "https://github.com/other/upstream/commit/58d3918e3ea0a544ffedadad2ba84559e9c51d8f",
        "2026-09-02T19:00:00Z");

    repo.write(
        "pkg/sched.py",
        "from pkg.groups import uses_hybrid\n\n\nclass Scheduler:\n    def plan(self, cfg):\n"
        "        return uses_hybrid(cfg)\n");
    repo.write("pkg/groups.py",
               "def uses_hybrid(cfg):\n    if cfg is None:\n        return False\n"
               "    return len(cfg.groups) > 1\n");
    repo.commit("Share the hybrid check (#412)", "2026-09-02T20:00:00Z");

    repo.write("pkg/trace.py",
               "def trace(m):\n    fn = m.forward\n    while hasattr(fn, \"__wrapped__\"):\n"
               "        fn = fn.__wrapped__\n    return compile_fn(fn)\n");
    repo.commit(
        "Compile the traced forward (#413)\n\n"
        "A100, Llama-3.1-8B, bs=1 decode: 31.2 ms -> 24.9 ms per step.",
        "2026-09-02T21:00:00Z");
  }

 protected:
  static std::vector<std::string> details(const Facts& f, std::string_view kind) {
    std::vector<std::string> out;
    for (const auto& s : f.signals)
      if (s.kind == kind && s.added) out.push_back(s.detail);
    return out;
  }
};

TEST_F(OfflineTruth, ANewSiblingBranchWithAnotherValueIsNoChangedConstant) {
  // The old call comes back unchanged under `else`; the `if mx:` call beside
  // it passes 2. Nothing changed from 3 to 2.
  for (const auto& d : details(facts(401), "numeric_constant"))
    EXPECT_EQ(d.find("3 \xE2\x86\x92 2"), std::string::npos) << d;
  const std::string text = all_text(401);
  EXPECT_EQ(text.find("split_item: 3"), std::string::npos) << text;
}

TEST_F(OfflineTruth, ABranchTheParentHadIsNoNewBranchGapOrEarlyReturnQuestion) {
  const Facts f = facts(402);
  EXPECT_TRUE(details(f, "early_return").empty());
  for (const auto& g : f.gaps) EXPECT_NE(g.kind, "test") << g.subject << ": " << g.detail;
  const std::string text = all_text(402);
  EXPECT_EQ(text.find("existing_config is None"), std::string::npos) << text;
}

TEST_F(OfflineTruth, ARunTimeQuotedToShowAFeatureWorksIsNoPerformanceClaim) {
  for (const char* lang : {"zh", "en"}) {
    const Guide g = guide(403, lang);
    EXPECT_EQ(g.importance.reason.find("performance numbers claimed"), std::string::npos)
        << g.importance.reason;
    EXPECT_EQ(g.importance.reason.find("性能数字"), std::string::npos) << g.importance.reason;
  }
}

TEST_F(OfflineTruth, ABeforeAfterPairIsAPerformanceClaim) {
  EXPECT_NE(guide(413, "en").importance.reason.find("performance numbers claimed"),
            std::string::npos)
      << guide(413, "en").importance.reason;
}

TEST_F(OfflineTruth, AWordInsideAStringIsNoConcurrency) {
  const Facts f = facts(404);
  EXPECT_FALSE(details(f, "guard").empty());  // the raise is seen
  EXPECT_TRUE(details(f, "concurrency").empty());
  const std::string text = all_text(404);
  EXPECT_EQ(text.find("oncurrency"), std::string::npos) << text;
  EXPECT_EQ(text.find("并发"), std::string::npos) << text;
}

TEST_F(OfflineTruth, AChineseHeadlineKeepsTheTitleWholeWhenItFitsAlone) {
  const Guide en = guide(405, "en"), zh = guide(405, "zh");
  ASSERT_EQ(en.headline.find("…"), std::string::npos) << en.headline;
  EXPECT_EQ(zh.headline.find("…"), std::string::npos) << zh.headline;
  EXPECT_NE(zh.headline.find("Prefill offload"), std::string::npos) << zh.headline;
}

TEST_F(OfflineTruth, RemovingASwitchUsersSetIsNoSkim) {
  const Facts f = facts(406);
  ASSERT_TRUE(std::any_of(f.switches.begin(), f.switches.end(), [](const SwitchFact& s) {
    return s.name == "SGLANG_OLD_PATH" && s.change == "removed";
  }));
  EXPECT_NE(f.verdict, Verdict::kSkim) << guide(406, "en").verdict_text;
  EXPECT_NE(f.verdict, Verdict::kSkip) << guide(406, "en").verdict_text;
  // "About N lines" counts the changed lines of the files the verdict names.
  const Guide en = guide(406, "en");
  if (f.verdict == Verdict::kSelectiveRead) {
    auto c = store_->get_change_by_number(repo_->id, 406);
    ASSERT_TRUE(c && *c);
    int lines = 0;
    for (const auto& fc : (**c).files)
      if (std::find(f.verdict_scope.begin(), f.verdict_scope.end(), fc.path) !=
          f.verdict_scope.end())
        lines += fc.additions + fc.deletions;
    EXPECT_NE(en.verdict_text.find(fmt::format("about {} lines", lines)), std::string::npos)
        << en.verdict_text;
  }
}

TEST_F(OfflineTruth, AnEndToEndTestNamedForTheModelCoversIt) {
  const Facts f = facts(408);
  EXPECT_FALSE(details(f, "guard").empty());
  for (const auto& g : f.gaps) EXPECT_NE(g.kind, "test") << g.subject << ": " << g.detail;
  EXPECT_EQ(all_text(408).find("no test in this PR names"), std::string::npos);
}

TEST_F(OfflineTruth, AnEnumRenumberedToMakeRoomIsNoTunedConstant) {
  for (const auto& d : details(facts(409), "numeric_constant"))
    EXPECT_EQ(d.find("Unspecified"), std::string::npos) << d;
  EXPECT_EQ(all_text(409).find("where does the value come from"), std::string::npos);
}

TEST_F(OfflineTruth, TheAttributeErrorOfAModuleGetattrIsNoNewPath) {
  const Facts f = facts(410);
  for (const auto* kind : {"raise", "guard"})
    for (const auto& d : details(f, kind)) EXPECT_EQ(d.find("AttributeError"), std::string::npos);
  EXPECT_EQ(all_text(410).find("AttributeError"), std::string::npos) << all_text(410);
}

TEST_F(OfflineTruth, TestsThatChangedOnlyCommentsAreNoTestsOfTheChange) {
  for (const char* lang : {"zh", "en"}) {
    const Guide g = guide(411, lang);
    EXPECT_EQ(g.summary.find("test_route"), std::string::npos) << g.summary;
  }
}

TEST_F(OfflineTruth, AnotherProjectsCommitOnlyNamedIsNoRelatedChange) {
  const Facts f = facts(411);
  ASSERT_TRUE(std::any_of(f.references.begin(), f.references.end(),
                          [](const Reference& r) { return r.kind == "commit"; }));
  for (const char* lang : {"zh", "en"})
    for (const auto& r : guide(411, lang).references)
      EXPECT_EQ(r.ref.find("58d3918e3e"), std::string::npos) << r.note;
}

TEST_F(OfflineTruth, AHelperExtractedFromAClassIsMovedNotNew) {
  const Facts f = facts(412);
  bool seen = false;
  for (const auto& d : f.definitions)
    if (d.name == "uses_hybrid") {
      seen = true;
      EXPECT_EQ(d.change, "moved");
    }
  EXPECT_TRUE(seen);
  EXPECT_EQ(guide(412, "en").summary.find("adds `uses_hybrid`"), std::string::npos)
      << guide(412, "en").summary;
  EXPECT_EQ(all_text(412).find("new `uses_hybrid`"), std::string::npos) << all_text(412);
}

// A selective read names a file once, not its byte-identical copies.
TEST(OfflineTruthScope, CopiesOfOneFileAreOnePlaceToRead) {
  Change c;
  Hunk h;
  h.lines = {{'+', 0, 1, "int f() { return 1; }"}};
  Hunk other;
  other.lines = {{'+', 0, 1, "int g() { return 2; }"}};
  for (const char* p : {"a/k.h", "b/k.h", "c/k.h", "d/g.h"}) {
    FileChange fc;
    fc.path = p;
    fc.hunks = {p[0] == 'd' ? other : h};
    c.files.push_back(std::move(fc));
  }
  Facts f;
  for (const char* p : {"a/k.h", "b/k.h", "c/k.h", "d/g.h"})
    f.focus.push_back({p, 1, 1, "", 10.0, {}});
  const auto scope = reading_scope(f, &c);
  EXPECT_EQ(scope, (std::vector<std::string>{"a/k.h", "d/g.h"}));
  EXPECT_EQ(reading_scope(f).size(), 3u);  // without the change, copies are not known
}

// Every importance and insight reason the judgment writes reads in Chinese.
TEST(OfflineTruthPhrases, ImportanceReasonsHaveChinese) {
  for (const char* reason :
       {"87 % of the changed lines are test", "41 % of the changed lines are benchmark",
        "12 % of the changed lines are kernel", "30 % of the changed lines are docs",
        "5 % of the changed lines are config", "20 % of the changed lines are model",
        "adds 3 code files", "adds 1 code file", "adds 7 definitions", "adds 1 definition",
        "one part of a series of changes", "lands an earlier change again",
        "follows up an earlier change (vllm-project/vllm-ascend#6043)", "2 later changes name it",
        "the title's words (“support”)", "the title's words (“support”, “add”)"}) {
    const std::string zh = phrases::score_reason(reason, "zh");
    EXPECT_NE(zh, reason);
    for (const char* word : {"changed lines", "adds", "series", "earlier", "later", "title",
                             "release", "definition", "files"})
      EXPECT_EQ(zh.find(word), std::string::npos) << reason << " -> " << zh;
  }
}

}  // namespace
}  // namespace mergelens
