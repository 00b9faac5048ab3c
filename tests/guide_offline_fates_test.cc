// Issue 31 item 4, second audit: definitions, TODOs, switches, tests, tags
// and figures the offline writer stated without checking them at the parent
// and the merge. One git repository, one commit per shape a careful reader
// found false: a nested def "removed" with "outside callers", an override
// still inherited from its base, an __init__ whose parameters were dropped
// called removed, a class moved to another file called new, an optional
// keyword appended called a signature change callers must check, a TODO the
// change only moved, a switch assigned to a variable nothing reads, a test
// named beside a file that does not define it, "runner" taken for CI, a
// configuration's factor in a table taken for a gain, a parameter docstring
// taken for an explaining comment, a root experimental/ script taken for the
// main path, a Chinese headline framed unlike the English one. Each is
// ingested, analysed (ctags at the parent and the merge) and written offline
// in both languages through the real pipeline.
#include <gtest/gtest.h>

#include "mergelens/analysis/code/definition_fates.h"
#include "mergelens/analysis/code/switches.h"
#include "mergelens/analysis/text/text_facts.h"
#include "mergelens/source/ctags.h"
#include "offline_guide_fixture.h"
#include "test_helpers.h"

namespace mergelens {
namespace {

using testing::GitRepo;

constexpr const char* kMoe = R"(class MoeMethod:
    def apply(self, x, bias):
        def cast_bias(b):
            return b.float()

        return x + cast_bias(bias)
)";

constexpr const char* kMoeAfter = R"(class MoeMethod:
    def process(self, bias):
        return bias.float()

    def apply(self, x, bias):
        return x + bias
)";

constexpr const char* kThreads = R"(class TransferThread:
    def add_stored_request(self, req):
        self.queue.append(req)


class SendingThread(TransferThread):
    def add_stored_request(self, req):
        self.queue.append(req)

    def run(self):
        return self.queue


class ReceivingThread(
    TransferThread,
):
    def add_stored_request(self, req):
        self.queue.append(req)

    def poll(self):
        return self.queue


class BatchBuilder:
    def __init__(self, key_index, num_ranks, layers):
        self.layers = layers

    def build(self):
        return self.layers
)";

constexpr const char* kThreadsAfter = R"(class TransferThread:
    def add_stored_request(self, req):
        self.queue.append(req)


class SendingThread(TransferThread):
    def run(self):
        return self.queue


class ReceivingThread(
    TransferThread,
):
    def poll(self):
        return self.queue


class BatchBuilder:
    def __init__(self, layers):
        self.layers = layers

    def build(self):
        return self.layers
)";

class OfflineFates : public testing::OfflineGuideFixture<OfflineFates> {
 public:
  static constexpr testing::GuideParts kGuideParts{
      .audience = false, .body_vs_code = false, .skim = false, .tags = true};

  static void write_history(GitRepo& repo) {
    repo.write("pkg/__init__.py", "");
    repo.write("pkg/moe.py", kMoe);
    repo.write("pkg/threads.py", kThreads);
    repo.write("pkg/offload/spec.py",
               "class OffloadingSpec:\n    def __init__(self, config):\n"
               "        self.config = config\n\n    def blocks(self):\n        return 4\n");
    repo.write("pkg/sender.py",
               "class Sender:\n    def __init__(self, name, queue):\n        self.name = name\n"
               "        self.queue = queue\n\n    def send(self, item):\n"
               "        return self.queue.put(item)\n");
    repo.write("pkg/ops.py",
               "def quantize(x):\n    # TODO(alice): The reason why we wrap the quantize op\n"
               "    return x\n\n\ndef other(y):\n    return y\n");
    repo.write("pkg/msa.py", "import os\n\n\ndef decode(q):\n    return q\n");
    repo.write("pkg/geometry.py", "def block_size(n):\n    return n\n");
    repo.write("tests/test_small.py", "def test_nothing():\n    assert True\n");
    repo.write("pkg/runner.py", "def run(draft):\n    return draft\n");
    repo.write("pkg/observer.py", "def grid(x):\n    return x\n");
    repo.write("pkg/data/base.py", "class Dataset:\n    registry = {}\n");
    repo.commit("Initial import", "2026-09-01T08:00:00Z");

    repo.write("pkg/moe.py", kMoeAfter);
    repo.commit("Cast the bias once in process (#401)", "2026-09-02T08:00:00Z");

    repo.write("pkg/threads.py", kThreadsAfter);
    repo.commit("[Refactor] Simplify the transfer threads (#402)", "2026-09-02T09:00:00Z");

    repo.run("rm -q pkg/offload/spec.py");
    repo.write("pkg/native/spec.py",
               "import math\n\n\ndef pages(n, size):\n    return math.ceil(n / size)\n\n\n"
               "def align(n, size):\n    return pages(n, size) * size\n\n\n"
               "class OffloadingSpec:\n    def __init__(self, config, extra=None):\n"
               "        self.config = config\n        self.extra = extra\n"
               "        self.page = align(config.size, 16)\n\n"
               "    def blocks(self):\n        return pages(self.config.size, self.page)\n\n"
               "    def medium(self):\n        return \"cpu\"\n");
    repo.commit("[Refactor] Move offloading to native (#403)", "2026-09-02T10:00:00Z");

    repo.write("pkg/sender.py",
               "class Sender:\n    def __init__(self, name, queue, callback=None):\n"
               "        self.name = name\n        self.queue = queue\n"
               "        self.callback = callback\n\n    def send(self, item):\n"
               "        return self.queue.put(item)\n");
    repo.commit("Let the sender call back (#404)", "2026-09-02T11:00:00Z");

    repo.write("pkg/ops.py",
               "# TODO(alice): The reason why we wrap the quantize op\ndef quantize(x):\n"
               "    return x\n\n\ndef other(y):\n    return y\n");
    repo.commit("Reorder the ops (#405)", "2026-09-02T12:00:00Z");

    repo.write(
        "pkg/msa.py",
        "import os\n\n_USE_SCORE_KQ = os.getenv(\"PKG_DECODE_SCORE_KQ\", \"0\") == \"1\"\n\n\n"
        "def decode(q):\n    if q.device == \"a5\":\n        return q * 2\n    return q\n");
    repo.commit("Support the A5 decode path (#406)", "2026-09-02T13:00:00Z");

    repo.write("pkg/geometry.py", "def block_size(n, ratio=1):\n    return n // ratio\n");
    repo.write("tests/test_small.py", "def test_nothing():\n    assert 1\n");
    repo.write(
        "tests/test_geometry.py",
        "from pkg.geometry import block_size\n\n\n"
        "def test_block_size_uses_the_compress_ratio():\n"
        "    assert block_size(8, 2) == 4\n\n\ndef test_more():\n    assert block_size(4) == 4\n"
        "\n\ndef test_even_more():\n    assert block_size(2) == 2\n");
    repo.commit("Store blocks by compress ratio (#407)", "2026-09-02T14:00:00Z");

    repo.write("pkg/runner.py",
               "def run(draft):\n    if draft is None:\n        raise ValueError(\"no draft\")\n"
               "    return draft\n");
    repo.commit("[BugFix] Fix spec decoding on model runner v2 (#408)", "2026-09-02T15:00:00Z");

    repo.write("pkg/observer.py", "def grid(x, expand=1.8):\n    return x * expand\n");
    repo.commit(
        "Observer range expansion (#409)\n\n"
        "| Config | Llama-8B | Avg Delta |\n|---|---|---|\n"
        "| 1x + 1.5x, no fp8 rounding | +0.223 | +0.216 |\n"
        "| expanded (1.8x) + fused statistics | +0.242 | +0.139 |\n",
        "2026-09-02T16:00:00Z");

    repo.write("pkg/data/blend.py",
               "from pkg.data.base import Dataset\n\n\nclass BlendDataset(Dataset):\n"
               "    \"\"\"\n    Child dataset class for the blend dataset\n\n"
               "    :param args: configuration settings for dataset loading\n"
               "    :param split: split from dataset to load\n    \"\"\"\n\n"
               "    def load(self, split):\n        return [split]\n");
    repo.commit("Add the blend dataset (#410)", "2026-09-02T17:00:00Z");

    repo.write("experimental/quant/glm_mxfp4.py",
               "from pkg.observer import grid\n\n\ndef main():\n    return grid(2.0)\n\n\n"
               "if __name__ == \"__main__\":\n    main()\n");
    repo.commit("[Examples] GLM MXFP4 (#411)", "2026-09-02T18:00:00Z");
  }

 protected:
  void SetUp() override {
    if (!CtagsReader::start()) GTEST_SKIP() << "built without universal-ctags";
  }

  static const Definition* def(const Facts& f, std::string_view name) {
    for (const auto& d : f.definitions)
      if (d.name == name) return &d;
    return nullptr;
  }
};

TEST_F(OfflineFates, ANestedDefIsNoRemovedApiButItsFunctionChanged) {
  const Facts f = facts(401);
  for (const auto& d : f.definitions)
    EXPECT_FALSE(d.name.ends_with("cast_bias") && d.change == "removed") << d.name;
  const Definition* apply = def(f, "MoeMethod.apply");
  ASSERT_NE(apply, nullptr);
  EXPECT_NE(apply->change, "removed");
  const std::string text = all_text(401);
  EXPECT_EQ(text.find("outside callers"), std::string::npos) << text;
  EXPECT_EQ(text.find("removes `MoeMethod.cast_bias`"), std::string::npos) << text;
}

TEST_F(OfflineFates, AnInheritedOverrideAndAReSignedInitAreNotRemoved) {
  const Facts f = facts(402);
  const Definition* init = def(f, "BatchBuilder.__init__");
  ASSERT_NE(init, nullptr);
  EXPECT_NE(init->change, "removed");
  const Definition* over = def(f, "SendingThread.add_stored_request");
  ASSERT_NE(over, nullptr);
  EXPECT_EQ(over->change, "inherited");
  // A header over several lines names its base on another line than `class`.
  const Definition* split = def(f, "ReceivingThread.add_stored_request");
  ASSERT_NE(split, nullptr);
  EXPECT_EQ(split->change, "inherited");
  const std::string text = all_text(402);
  EXPECT_EQ(text.find("removes `BatchBuilder.__init__`"), std::string::npos) << text;
  EXPECT_EQ(text.find("add_stored_request` was removed"), std::string::npos) << text;
  EXPECT_EQ(text.find("删除了 `SendingThread.add_stored_request`"), std::string::npos) << text;
}

TEST_F(OfflineFates, AClassMovedToAnotherFileIsNotNew) {
  const Facts f = facts(403);
  for (const auto& d : f.definitions)
    if (d.name == "OffloadingSpec") {
      EXPECT_EQ(d.change, "moved") << d.at.path;
    }
  const std::string text = all_text(403);
  EXPECT_EQ(text.find("new `OffloadingSpec`"), std::string::npos) << text;
  EXPECT_EQ(text.find("adds `OffloadingSpec`"), std::string::npos) << text;
  EXPECT_EQ(text.find("新增 `OffloadingSpec`"), std::string::npos) << text;
}

TEST_F(OfflineFates, AnOptionalKeywordAppendedAsksNothingOfCallers) {
  const Facts f = facts(404);
  const Definition* init = def(f, "Sender.__init__");
  ASSERT_NE(init, nullptr);
  EXPECT_EQ(init->change, "signature_changed");
  EXPECT_TRUE(init->compatible);
  const std::string text = all_text(404);
  EXPECT_EQ(text.find("callers outside the repository"), std::string::npos) << text;
  EXPECT_EQ(text.find("call sites"), std::string::npos) << text;
}

TEST_F(OfflineFates, AMovedTodoIsNotLeftByTheChangeAndKeepsItsOwner) {
  const Facts f = facts(405);
  for (const auto& s : f.signals) EXPECT_NE(s.kind, "todo") << s.detail;
  EXPECT_EQ(all_text(405).find("TODO"), std::string::npos) << all_text(405);
}

TEST_F(OfflineFates, ASwitchNothingReadsIsNotTheNewBehavioursGate) {
  const Facts f = facts(406);
  bool seen = false;
  for (const auto& s : f.switches)
    if (s.name == "PKG_DECODE_SCORE_KQ") {
      seen = true;
      EXPECT_TRUE(s.unread);
      EXPECT_EQ(s.change, "added");
    }
  EXPECT_TRUE(seen);
  const std::string text = all_text(406);
  EXPECT_EQ(text.find("PKG_DECODE_SCORE_KQ"), std::string::npos) << text;
}

TEST_F(OfflineFates, ATestIsNamedBesideTheFileThatDefinesIt) {
  const Guide en = guide(407, "en");
  const size_t with = en.summary.find("with tests in");
  ASSERT_NE(with, std::string::npos) << en.summary;
  const std::string clause = en.summary.substr(with);
  if (clause.find("test_block_size_uses_the_compress_ratio") != std::string::npos) {
    EXPECT_NE(clause.find("test_geometry.py"), std::string::npos) << clause;
  }
  // The file with most changed lines comes first.
  EXPECT_LT(clause.find("test_geometry.py"), clause.find("test_small.py") == std::string::npos
                                                 ? std::string::npos
                                                 : clause.find("test_small.py"))
      << clause;
}

TEST_F(OfflineFates, ModelRunnerInATitleIsNoCiTag) {
  const Facts f = facts(408);
  for (const auto& t : f.tags) EXPECT_NE(t.name, "ci") << t.evidence;
}

TEST_F(OfflineFates, AConfigurationsFactorInATableIsNoGain) {
  const Facts f = facts(409);
  for (const auto& n : f.numbers) EXPECT_NE(n.kind, "speedup") << n.text << " in " << n.sentence;
  for (const auto& t : f.tags) EXPECT_NE(t.name, "perf") << t.evidence;
  const std::string text = all_text(409);
  EXPECT_EQ(text.find("per the PR"), std::string::npos) << text;
  EXPECT_EQ(text.find("1.8x"), std::string::npos) << text;
}

TEST_F(OfflineFates, AParameterDocstringDoesNotExplainTheCode) {
  const Guide en = guide(410, "en");
  EXPECT_EQ(en.insight.reason.find("comments explain the code"), std::string::npos)
      << en.insight.reason;
}

TEST_F(OfflineFates, ARootExperimentalScriptIsNotTheMainPath) {
  const Facts f = facts(411);
  EXPECT_EQ(f.roles.at("experimental/quant/glm_mxfp4.py"), FileRole::kDocs);
  const Guide en = guide(411, "en");
  EXPECT_EQ(en.importance.reason.find("changes code on the main path"), std::string::npos)
      << en.importance.reason;
}

TEST_F(OfflineFates, TheChineseHeadlineFramesTheChangeAsTheEnglishOneDoes) {
  for (std::int64_t n : {401, 403, 404, 407, 410}) {
    const Guide en = guide(n, "en"), zh = guide(n, "zh");
    // The English headline is the PR's title; the Chinese one holds it whole.
    EXPECT_NE(zh.headline.find(en.headline), std::string::npos)
        << "#" << n << ": " << zh.headline << " | " << en.headline;
  }
}

TEST(DefinitionFates, AMachineCountIsNoSpeedup) {
  for (const char* text :
       {"serving Qwen3 on\n4x RTX PRO 6000 Blackwell)", "on 8x B200 nodes", "2x Ascend 910"})
    for (const auto& n : extract_numbers(text, "body"))
      EXPECT_NE(n.kind, "speedup") << n.text << " in " << text;
  bool found = false;
  for (const auto& n : extract_numbers("The kernel is 1.8x faster than before.", "body"))
    found = found || n.kind == "speedup";
  EXPECT_TRUE(found) << "a gain stated in prose is still one";
}

TEST(DefinitionFates, CompatibleSignatures) {
  EXPECT_TRUE(signature_compatible("(self, a, b)", "(self, a, b, c=None)"));
  EXPECT_TRUE(signature_compatible("(self, request)", "(self, request: Any) -> None"));
  EXPECT_TRUE(signature_compatible("(self, a)", "(self, a, *args, **kwargs)"));
  EXPECT_TRUE(signature_compatible("(self, a: Dict[str, int] = {}, b=2)",
                                   "(self, a: Dict[str, int] = None, b=3, c=4)"));
  EXPECT_FALSE(signature_compatible("(self, key_index, num_ranks, layers)", "(self, layers)"));
  EXPECT_FALSE(signature_compatible("(self, a, b)", "(self, b, a)"));
  EXPECT_FALSE(signature_compatible("(self, a)", "(self, a, b)"));
  EXPECT_FALSE(signature_compatible("(self, a=1)", "(self, a)"));
  EXPECT_FALSE(signature_compatible("", "(self)"));
  EXPECT_TRUE(
      signature_compatible("(const Foo& x, int n)", "(const Foo& x, int n, bool f = false)"));
}

TEST(DefinitionFates, AppliedToTheOutlinesDefinitions) {
  std::vector<Definition> defs = {
      {"C.helper", "method", "removed", {"a.py", 10, "C.apply"}},
      {"C.__init__", "method", "removed", {"a.py", 3, "C"}},
      {"C.__init__", "method", "added", {"a.py", 3, "C"}},
      {"D.run", "method", "removed", {"a.py", 30, "D"}},
      {"Spec", "class", "added", {"b.py", 1, "Spec"}},
      {"gone", "function", "removed", {"a.py", 40, ""}},
      {"E.send", "method", "signature_changed", {"a.py", 50, "E"}},
      {"F.run.chunk_filter", "function", "signature_changed", {"a.py", 60, "F.run"}},
  };
  std::vector<Signal> signals = {{"dead_code_removed", "D.run", {"a.py", 30, ""}, false},
                                 {"dead_code_removed", "gone", {"a.py", 40, ""}, false}};
  const std::vector<DefinitionFate> fates = {
      {"a.py", "C.apply.helper", '-', "nested", "C.apply", false},
      {"a.py", "C.__init__", '-', "kept", "", false},
      {"a.py", "C.__init__", '+', "kept", "", false},
      {"a.py", "D.run", '-', "inherited", "", false},
      {"b.py", "Spec", '+', "moved", "", false},
      {"a.py", "gone", '-', "gone", "", false},
      {"a.py", "E.send", '=', "resigned", "", true},
      {"a.py", "F.run.chunk_filter", '+', "nested", "F.run", false},
  };
  apply_definition_fates(fates, defs, signals);
  auto find = [&](std::string_view name, std::string_view change) {
    return std::count_if(defs.begin(), defs.end(),
                         [&](const Definition& d) { return d.name == name && d.change == change; });
  };
  EXPECT_EQ(find("C.helper", "removed"), 0);
  EXPECT_EQ(find("C.apply", "modified"), 1);
  EXPECT_EQ(find("C.__init__", "removed"), 0);
  EXPECT_EQ(find("C.__init__", "modified"), 1);
  EXPECT_EQ(find("D.run", "inherited"), 1);
  EXPECT_EQ(find("Spec", "moved"), 1);
  EXPECT_EQ(find("gone", "removed"), 1);
  EXPECT_EQ(find("F.run.chunk_filter", "signature_changed"), 0)
      << "a closure has no outside caller";
  EXPECT_EQ(find("F.run", "modified"), 1);
  for (const auto& d : defs)
    if (d.name == "E.send") {
      EXPECT_TRUE(d.compatible);
    }
  ASSERT_EQ(signals.size(), 1u);
  EXPECT_EQ(signals[0].detail, "gone");
}

TEST(DefinitionFates, UnreadSwitches) {
  std::vector<SwitchFact> sw(5);
  sw[3].name = "PKG_D";
  sw[3].after = {true, "m.py", 12, "read", "", false, ""};
  sw[4].name = "PKG_E";
  sw[4].after = {true, "m.py", 7, "registry", "0", true, ""};
  sw[0].name = "PKG_A";
  sw[0].after = {true, "m.py", 2, "read", "\"0\"", true, ""};
  sw[1].name = "PKG_B";
  sw[1].after = {true, "m.py", 3, "read", "\"0\"", true, ""};
  sw[2].name = "PKG_C";
  sw[2].after = {true, "m.py", 4, "read", "\"0\"", true, ""};
  const std::string content =
      "import os\n_A = os.getenv(\"PKG_A\", \"0\")\n_B = os.getenv(\"PKG_B\", \"0\")\n"
      "PUBLIC_C = os.getenv(\"PKG_C\", \"0\")\n\n\ndef f():\n    return _B\n\n\n"
      "class Settings:\n    _d = os.getenv(\"PKG_D\")\n";
  mark_unread_switches(sw, [&](const std::string& p) -> std::optional<std::string> {
    if (p == "m.py") return content;
    return std::nullopt;
  });
  EXPECT_TRUE(sw[0].unread);
  EXPECT_FALSE(sw[1].unread) << "_B is read in f";
  EXPECT_FALSE(sw[2].unread) << "a public module name may be imported";
  EXPECT_FALSE(sw[3].unread) << "a class attribute is read through the class";
  EXPECT_FALSE(sw[4].unread) << "a registry entry is read through its own name";
}

}  // namespace
}  // namespace mergelens
