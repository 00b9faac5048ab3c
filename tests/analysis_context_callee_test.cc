// The context a reviewer opens next: what a function the change edits calls
// on its unchanged lines (where the edited code's results go), read at the
// merge, after the definitions the changed lines call themselves.
#include <gtest/gtest.h>

#include <optional>

#include "analysed_facts.h"
#include "mergelens/analysis/facts.h"
#include "mergelens/pipeline/analyze.h"
#include "mergelens/pipeline/ingest.h"
#include "mergelens/source/ctags.h"
#include "test_helpers.h"

namespace mergelens {
namespace {

using testing::analysed_facts;
using testing::context_item;

TEST(Context, WhatAnEditedFunctionCallsOnItsUnchangedLines) {
  if (!CtagsReader::start()) GTEST_SKIP() << "built without universal-ctags";
  testing::TempDir dir;
  testing::GitRepo repo(dir / "work");
  repo.write("pkg/__init__.py", "");
  repo.write("pkg/wrap.py",
             "def prepare(x):\n    return x\n\n\ndef helper(x):\n    return x\n\n\n"
             "class Wrapper:\n    def apply(self, y):\n"
             "        \"\"\"Strips decorators.\"\"\"\n        return y\n");
  repo.write("pkg/core.py",
             "from pkg.wrap import Wrapper, prepare\n\n\ndef build(x):\n    y = prepare(x)\n"
             "    w = Wrapper()\n    assert y, \"call helper(x) first\"\n    return w.apply(y)\n");
  repo.commit("Initial import", "2026-09-01T08:00:00Z");
  repo.write("pkg/core.py",
             "from pkg.wrap import Wrapper, prepare\n\n\ndef build(x):\n    x = x or 0\n"
             "    y = prepare(x)\n    w = Wrapper()\n    assert y, \"call helper(x) first\"\n"
             "    return w.apply(y)\n");
  repo.commit("Default the input (#8)", "2026-09-02T08:00:00Z");
  const std::optional<Facts> f = analysed_facts(dir, repo, 8);
  ASSERT_TRUE(f);
  const auto& ctx = f->context;
  ASSERT_TRUE(f->context_known);
  ASSERT_NE(context_item(ctx, "changed", "build"), nullptr);
  const ContextItem* prepare = context_item(ctx, "callee", "prepare");
  ASSERT_NE(prepare, nullptr) << "build hands its input to prepare on an unchanged line";
  EXPECT_EQ(prepare->path, "pkg/wrap.py");
  EXPECT_EQ(prepare->revision, "merge");
  EXPECT_EQ(prepare->at, "pkg/core.py:6");
  const ContextItem* apply = context_item(ctx, "callee", "Wrapper.apply");
  ASSERT_NE(apply, nullptr) << "w.apply( resolves to the one method of that name";
  EXPECT_EQ(apply->start_line, 10);
  EXPECT_EQ(context_item(ctx, "callee", "helper"), nullptr)
      << "a call inside a string calls nothing";
  // The callees come after every other item, and nothing is given twice.
  size_t first_callee = ctx.size();
  for (size_t i = 0; i < ctx.size(); ++i)
    if (ctx[i].why == "callee") {
      first_callee = std::min(first_callee, i);
    } else {
      EXPECT_LT(i, first_callee) << ctx[i].why << " " << ctx[i].name;
    }
  for (size_t i = 0; i < ctx.size(); ++i)
    for (size_t j = i + 1; j < ctx.size(); ++j)
      EXPECT_FALSE(ctx[i].path == ctx[j].path && ctx[i].name == ctx[j].name) << ctx[i].name;
}

// Only what a call names for certain: a method called on an attribute, a
// tensor or a queue may be any class's (or the standard library's), and
// `self.m(` is the edited class's own method or nothing.
TEST(Context, ACalleeIsResolvedOnlyWhenTheCallNamesItForCertain) {
  if (!CtagsReader::start()) GTEST_SKIP() << "built without universal-ctags";
  testing::TempDir dir;
  testing::GitRepo repo(dir / "work");
  repo.write("pkg/__init__.py", "");
  repo.write("scripts/train.py", "def set_seed(n):\n    return n\n");
  repo.write("pkg/backend.py",
             "class Backend:\n    def put(self, r):\n        return r\n\n"
             "    def drain(self):\n        return 0\n\n\ndef flatten(x):\n    return x\n");
  const std::string before =
      "from pkg.backend import flatten\nfrom transformers import (\n    AutoModel,\n    "
      "set_seed,\n)\n"
      "\n\nclass Sender:\n    def send(self, r):\n"
      "        self.queue.put(r)\n        r.flatten()\n        self.drain()\n"
      "        set_seed(0)\n        self.own()\n        return flatten(r)\n\n"
      "    def own(self):\n        return 1\n";
  repo.write("pkg/sender.py", before);
  repo.commit("Initial import", "2026-09-01T08:00:00Z");
  std::string after = before;
  after.replace(after.find("        self.queue.put(r)\n"), 0, "        r = r or 0\n");
  repo.write("pkg/sender.py", after);
  repo.commit("Default the request (#9)", "2026-09-02T08:00:00Z");
  const std::optional<Facts> f = analysed_facts(dir, repo, 9);
  ASSERT_TRUE(f);
  const auto& ctx = f->context;
  ASSERT_NE(context_item(ctx, "changed", "Sender.send"), nullptr);
  EXPECT_NE(context_item(ctx, "callee", "flatten"), nullptr)
      << "a plain call to an imported function";
  EXPECT_NE(context_item(ctx, "callee", "Sender.own"), nullptr) << "self.own( in class Sender";
  EXPECT_EQ(context_item(ctx, "callee", "Backend.put"), nullptr)
      << "self.queue.put( is any queue's";
  EXPECT_EQ(context_item(ctx, "callee", "Backend.drain"), nullptr)
      << "Sender has no drain of its own";
  EXPECT_EQ(context_item(ctx, "callee", "set_seed"), nullptr)
      << "set_seed is imported from transformers, not the repository's only set_seed";
  int flattens = 0;
  for (const auto& it : ctx) flattens += it.why == "callee" && it.name == "flatten";
  EXPECT_EQ(flattens, 1) << "r.flatten() is no call of the function flatten";
}

}  // namespace
}  // namespace mergelens
