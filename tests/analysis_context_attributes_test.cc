// The context's "attribute" items: where an attribute that the change's
// added lines read is set, when the diff does not show it. The doubts that
// misled readers of model guides ("does the thread create
// stored_requests?", "is the bias fp32?") are answered by these lines.
#include <gtest/gtest.h>

#include <optional>

#include "analysed_facts.h"
#include "mergelens/analysis/facts.h"
#include "mergelens/source/ctags.h"
#include "test_helpers.h"

namespace mergelens {
namespace {

using testing::analysed_facts;
using testing::context_item;

TEST(Context, WhereAnAttributeTheChangeReadsIsSetInTheClassOrItsBase) {
  if (!CtagsReader::start()) GTEST_SKIP() << "built without universal-ctags";
  testing::TempDir dir;
  testing::GitRepo repo(dir / "work");
  repo.write("pkg/__init__.py", "");
  repo.write("pkg/base.py",
             "import threading\n\n\nclass TransferThread(threading.Thread):\n"
             "    def __init__(self, n):\n        super().__init__()\n"
             "        self.stored_requests = {\n            \"n\": n,\n        }\n"
             "        self.lock = threading.Lock()\n");
  const std::string head =
      "from pkg.base import TransferThread\n\n\nclass SendThread(TransferThread):\n"
      "    eager: bool = Field(\n        default=False)\n    def __init__(self, n):\n"
      "        super().__init__(n)\n"
      "        self.quota = n\n\n    def run(self, layer):\n";
  repo.write("pkg/send.py", head + "        return layer\n");
  repo.commit("Initial import", "2026-09-01T08:00:00Z");
  repo.write("pkg/send.py",
             head +
                 "        with self.lock:\n            self.stored_requests[\"n\"] += self.quota\n"
                 "        if self.eager and self.fresh:\n            return layer.w_bias\n"
                 "        self.fresh = True\n        return layer\n");
  repo.commit("Count stored requests under the lock (#9)", "2026-09-02T08:00:00Z");
  const std::optional<Facts> f = analysed_facts(dir, repo, 9);
  ASSERT_TRUE(f);
  ASSERT_TRUE(f->context_known);
  const auto& ctx = f->context;
  // Set in the base class, found through the import of the base.
  const ContextItem* stored = context_item(ctx, "attribute", "TransferThread.stored_requests");
  ASSERT_NE(stored, nullptr) << "the base's __init__ sets it";
  EXPECT_EQ(stored->path, "pkg/base.py");
  EXPECT_EQ(stored->start_line, 7);
  EXPECT_EQ(stored->end_line, 9) << "the whole statement, to its closing bracket";
  EXPECT_EQ(stored->revision, "merge");
  EXPECT_EQ(stored->at, "pkg/send.py:13");
  EXPECT_NE(context_item(ctx, "attribute", "TransferThread.lock"), nullptr);
  // Set in the class itself: by __init__, or declared at class level.
  const ContextItem* quota = context_item(ctx, "attribute", "SendThread.quota");
  ASSERT_NE(quota, nullptr);
  EXPECT_EQ(quota->start_line, 9);
  const ContextItem* eager = context_item(ctx, "attribute", "SendThread.eager");
  ASSERT_NE(eager, nullptr) << "a class-level declaration";
  EXPECT_EQ(eager->start_line, 5);
  EXPECT_EQ(eager->end_line, 6) << "the whole declaration";
  // Set by the change itself: the diff shows it, no item.
  EXPECT_EQ(context_item(ctx, "attribute", "SendThread.fresh"), nullptr);
  EXPECT_EQ(context_item(ctx, "attribute", "TransferThread.fresh"), nullptr);
  // Another object's attribute, never set in this file: nothing to show.
  EXPECT_EQ(context_item(ctx, "attribute", "w_bias"), nullptr);
}

// Only a statement's own target sets an attribute: a debug f-string
// (`f"{self.rank=}"`) reads it; a tuple's targets set each of theirs.
TEST(Context, AnAttributeIsSetOnlyByAStatementsTarget) {
  if (!CtagsReader::start()) GTEST_SKIP() << "built without universal-ctags";
  testing::TempDir dir;
  testing::GitRepo repo(dir / "work");
  const std::string head =
      "class Impl:\n    def check(self):\n        assert self.ok, f\"{self.rank=}\"\n\n"
      "    def __init__(self, cfg):\n        self.ok = True\n"
      "        self.peers, self.rank = cfg.split()\n\n    def run(self, x):\n";
  repo.write("impl.py", head + "        return x\n");
  repo.commit("Initial import", "2026-09-01T08:00:00Z");
  repo.write("impl.py", head + "        return x + self.rank\n");
  repo.commit("Offset by the rank (#6)", "2026-09-02T08:00:00Z");
  const std::optional<Facts> f = analysed_facts(dir, repo, 6);
  ASSERT_TRUE(f);
  const ContextItem* rank = context_item(f->context, "attribute", "Impl.rank");
  ASSERT_NE(rank, nullptr);
  EXPECT_EQ(rank->start_line, 7) << "the tuple assignment, not the f-string at line 3";
}

TEST(Context, AParameterRegisteredInTheSameFileIsShownWithItsCreation) {
  if (!CtagsReader::start()) GTEST_SKIP() << "built without universal-ctags";
  testing::TempDir dir;
  testing::GitRepo repo(dir / "work");
  const std::string create =
      "import torch\n\n\ndef create_weights(layer, n):\n    other = 1\n"
      "    bias = torch.nn.Parameter(\n        torch.zeros(n, dtype=torch.float32))\n"
      "    layer.register_parameter(\"scale_bias\", bias)\n    layer.group = n\n\n\n"
      "def params(n):\n    d = {}\n    d[\"scale_offset\"] = torch.empty(\n"
      "        n, dtype=torch.float32)\n    d[\"scale_offset\"] == 0\n    return d\n\n\n"
      "def apply(layer, x):\n";
  repo.write("quant.py", create + "    return x\n");
  repo.commit("Initial import", "2026-09-01T08:00:00Z");
  repo.write("quant.py", create +
                             "    b = layer.scale_bias.float() + layer.scale_offset\n"
                             "    return x + b * layer.group\n");
  repo.commit("Add the scale bias (#4)", "2026-09-02T08:00:00Z");
  const std::optional<Facts> f = analysed_facts(dir, repo, 4);
  ASSERT_TRUE(f);
  const ContextItem* bias = context_item(f->context, "attribute", "scale_bias");
  ASSERT_NE(bias, nullptr);
  EXPECT_EQ(bias->start_line, 6) << "from the parameter's creation";
  EXPECT_EQ(bias->end_line, 8) << "to its registration";
  const ContextItem* group = context_item(f->context, "attribute", "group");
  ASSERT_NE(group, nullptr);
  EXPECT_EQ(group->start_line, 9);
  // Declared under its name in a dict the caller registers: the whole
  // statement, not the comparison after it.
  const ContextItem* offset = context_item(f->context, "attribute", "scale_offset");
  ASSERT_NE(offset, nullptr);
  EXPECT_EQ(offset->start_line, 14);
  EXPECT_EQ(offset->end_line, 15);
}

// A constant whose name starts with an underscore is a module's private
// constant, used like any other.
TEST(Context, APrivateConstantIsResolvedLikeAnyOther) {
  if (!CtagsReader::start()) GTEST_SKIP() << "built without universal-ctags";
  testing::TempDir dir;
  testing::GitRepo repo(dir / "work");
  repo.write("utils.py",
             "import importlib\n\n_TARGET_MODULE = importlib.import_module(\"x\")\n"
             "\n\ndef patch():\n    return None\n");
  repo.commit("Initial import", "2026-09-01T08:00:00Z");
  repo.write("utils.py",
             "import importlib\n\n_TARGET_MODULE = importlib.import_module(\"x\")\n"
             "\n\ndef patch():\n    return _TARGET_MODULE.build\n");
  repo.commit("Patch the target (#5)", "2026-09-02T08:00:00Z");
  const std::optional<Facts> f = analysed_facts(dir, repo, 5);
  ASSERT_TRUE(f);
  const ContextItem* c = context_item(f->context, "constant", "_TARGET_MODULE");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->start_line, 3);
}

}  // namespace
}  // namespace mergelens
