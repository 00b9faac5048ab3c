// The context a reviewer opens to ask "is this tested?": existing tests,
// unchanged by the change, that call a definition it edits (read at the
// merge from the test files importing the edited module or its package).
#include <gtest/gtest.h>

#include <optional>

#include "analysed_facts.h"
#include "mergelens/analysis/facts.h"
#include "mergelens/source/ctags.h"
#include "offline_guide_fixture.h"
#include "test_helpers.h"

namespace mergelens {
namespace {

using testing::analysed_facts;
using testing::context_item;

constexpr const char* kOps = R"(def quantize(x, scale):
    return x * scale


class Packer:
    def pack_rows(self, rows):
        return list(rows)


class Unpacker:
    def pack_rows(self, rows):
        return rows
)";

constexpr const char* kOpsAfter = R"(def quantize(x, scale):
    if scale == 0:
        raise ValueError("scale")
    return x * scale


class Packer:
    def pack_rows(self, rows):
        return sorted(rows)


class Unpacker:
    def pack_rows(self, rows):
        return rows
)";

constexpr const char* kTests = R"(import unittest

from pkg.ops import Packer, Unpacker, quantize


def _check(v):
    return quantize(v, 1)


def test_as_setting():
    with quantize(1, 2):
        assert True


def test_quantize():
    assert quantize(2, 3) == 6


def test_via_helper():
    assert _check(2) == 2


def test_edited():
    assert quantize(1, 1) == 1


class TestPack(unittest.TestCase):
    def test_rows(self):
        p = Packer()
        self.assertEqual(p.pack_rows([2, 1]), [2, 1])


class TestUnpack(unittest.TestCase):
    def setUp(self):
        self.u = Unpacker()

    def test_unpack_rows(self):
        self.assertEqual(self.u.pack_rows([1]), [1])
)";

class ExistingTests : public testing::OfflineGuideFixture<ExistingTests> {
 public:
  static constexpr testing::GuideParts kGuideParts{
      .audience = false, .body_vs_code = false, .skim = false, .tags = false};

  static void write_history(testing::GitRepo& repo) {
    repo.write("pkg/__init__.py", "from pkg.ops import quantize\n");
    repo.write("pkg/ops.py", kOps);
    repo.write("tests/test_ops.py", kTests);
    repo.write("tests/test_pkg.py",
               "from pkg import quantize\n\n\ndef test_reexported():\n    assert quantize(1, 2)\n");
    // Calls a function of the same name without importing the module.
    repo.write("tests/test_other.py",
               "def quantize(x, scale):\n    return x\n\n\ndef test_local():\n"
               "    assert quantize(1, 2)\n");
    repo.commit("Initial import", "2026-09-01T08:00:00Z");
    repo.write("pkg/ops.py", kOpsAfter);
    repo.commit("Refuse a zero scale (#9)", "2026-09-02T08:00:00Z");
    // The test the diff shows is not "existing": the next one of the
    // package's importers takes its place.
    std::string ops = kOpsAfter;
    ops.replace(ops.find("\"scale\""), 7, "\"a zero scale\"");
    repo.write("pkg/ops.py", ops);
    std::string tests = kTests;
    const std::string was = "quantize(1, 1) == 1";
    tests.replace(tests.find(was), was.size(), "quantize(1, 2) == 2");
    repo.write("tests/test_ops.py", tests);
    repo.commit("Say which scale (#10)", "2026-09-02T09:00:00Z");
    // A new branch in a function no test calls, beside an edit of a method a
    // test calls: that test does not take the branch.
    ops.replace(ops.find("sorted(rows)"), 12, "sorted(rows, reverse=True)");
    ops +=
        "\n\ndef clip(x):\n    if x < 0:\n        raise ValueError(\"negative\")\n    return x\n";
    repo.write("pkg/ops.py", ops);
    repo.commit("Sort rows downwards, clip (#11)", "2026-09-02T10:00:00Z");
  }

 protected:
  void SetUp() override {
    if (!CtagsReader::start()) GTEST_SKIP() << "built without universal-ctags";
  }
  static size_t tests_of(const std::vector<ContextItem>& ctx, std::string_view target) {
    size_t n = 0;
    for (const auto& c : ctx) n += c.why == "test" && c.target == target;
    return n;
  }
};

TEST_F(ExistingTests, ATestThatCallsAnEditedDefinitionIsContext) {
  const Facts f = facts(9);
  ASSERT_TRUE(f.context_known);
  const auto& ctx = f.context;
  std::string all;
  for (const auto& c : ctx) all += c.why + " " + c.name + " " + c.kind + " " + c.path + "\n";
  const ContextItem* direct = context_item(ctx, "test", "test_quantize");
  ASSERT_NE(direct, nullptr) << all;
  EXPECT_EQ(direct->path, "tests/test_ops.py");
  EXPECT_EQ(direct->revision, "merge");
  EXPECT_EQ(direct->target, "quantize");
  EXPECT_EQ(direct->at, "tests/test_ops.py:16");
  EXPECT_EQ(direct->start_line, 15);
  const ContextItem* rows = context_item(ctx, "test", "TestPack.test_rows");
  ASSERT_NE(rows, nullptr) << "a method is called on an object in a file naming its class\n" << all;
  EXPECT_EQ(rows->target, "Packer.pack_rows");
  EXPECT_EQ(context_item(ctx, "test", "TestUnpack.test_unpack_rows"), nullptr)
      << "another class's method of the same name\n"
      << all;
  // Two tests at most per definition: the re-exported import is the third.
  EXPECT_EQ(tests_of(ctx, "quantize"), 2u) << all;
  EXPECT_NE(context_item(ctx, "test", "test_edited"), nullptr) << all;
  EXPECT_EQ(context_item(ctx, "test", "test_reexported"), nullptr) << all;
  EXPECT_EQ(context_item(ctx, "test", "_check"), nullptr) << "a helper is not a test";
  EXPECT_EQ(context_item(ctx, "test", "test_as_setting"), nullptr) << "a `with` sets it up";
  EXPECT_EQ(context_item(ctx, "test", "test_local"), nullptr) << "its own quantize";
  // The test items come last, after every other kind.
  bool seen_test = false;
  for (const auto& c : ctx) {
    if (c.why == "test")
      seen_test = true;
    else
      EXPECT_FALSE(seen_test) << c.why << " " << c.name;
  }
}

TEST_F(ExistingTests, ATestTheDiffShowsIsNotExisting) {
  const Facts f = facts(10);
  std::string all;
  for (const auto& c : f.context) all += c.why + " " + c.name + " " + c.path + "\n";
  EXPECT_EQ(context_item(f.context, "test", "test_edited"), nullptr) << all;
  EXPECT_NE(context_item(f.context, "test", "test_quantize"), nullptr) << all;
  const ContextItem* re = context_item(f.context, "test", "test_reexported");
  ASSERT_NE(re, nullptr) << "a test importing the package that re-exports it\n" << all;
  EXPECT_EQ(re->path, "tests/test_pkg.py");
}

// The offline gap names the existing test to extend instead of asking for a
// new one; the guide says no test in the PR names the file, which is true.
TEST_F(ExistingTests, TheTestGapNamesTheExistingTestToExtend) {
  const std::string text = all_text(9);
  EXPECT_NE(text.find("the existing test `test_quantize` (`tests/test_ops.py`) calls `quantize`: "
                      "extend it to take it"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("已有的测试 `test_quantize`（`tests/test_ops.py`）调用了 `quantize`"),
            std::string::npos)
      << text;
}

// The gap quotes a branch of `clip`; the existing test calls the edited
// `Packer.pack_rows` of the same file, which does not take it: no test is
// named to extend, and the gap asks for a new one.
TEST_F(ExistingTests, AGapNamesNoTestOfAnotherFunctionThanItsBranchs) {
  const Facts f = facts(11);
  EXPECT_EQ(tests_of(f.context, "Packer.pack_rows"), 1u);
  ASSERT_EQ(f.gaps.size(), 1u);
  EXPECT_EQ(f.gaps[0].symbol, "clip");
  const std::string text = all_text(11);
  EXPECT_EQ(text.find("existing test"), std::string::npos) << text;
  EXPECT_EQ(text.find("已有的测试"), std::string::npos) << text;
  EXPECT_NE(text.find("add a test that takes it"), std::string::npos) << text;
}

TEST(Context, ATestOfARemovedDefinitionIsNotShown) {
  if (!CtagsReader::start()) GTEST_SKIP() << "built without universal-ctags";
  testing::TempDir dir;
  testing::GitRepo repo(dir / "work");
  repo.write("pkg/__init__.py", "");
  repo.write("pkg/ops.py", "def scale_rows(x):\n    return x\n\n\ndef keep(y):\n    return y\n");
  repo.write("tests/test_ops.py",
             "from pkg.ops import scale_rows\n\n\ndef test_scale():\n    assert scale_rows(1)\n");
  repo.commit("Initial import", "2026-09-01T08:00:00Z");
  repo.write("pkg/ops.py", "def scale_cols(x):\n    return x\n\n\ndef keep(y):\n    return y\n");
  repo.commit("Rename the scaler (#10)", "2026-09-02T08:00:00Z");
  const std::optional<Facts> f = analysed_facts(dir, repo, 10);
  ASSERT_TRUE(f);
  for (const auto& c : f->context) EXPECT_NE(c.why, "test") << c.name;
}

// Removing `@classmethod def a` above a kept `@classmethod def b` may show
// in the diff as removing `def a ... @classmethod`, the line above `b`: `b`
// keeps its decorator and is no definition the change edits (nor are its
// tests the change's).
TEST(Context, ARemovedMethodsDecoratorIsNotTheNextMethods) {
  if (!CtagsReader::start()) GTEST_SKIP() << "built without universal-ctags";
  testing::TempDir dir;
  testing::GitRepo repo(dir / "work");
  const std::string head =
      "class Platform:\n    @classmethod\n    def pin_memory(cls):\n        return True\n\n";
  const std::string gone =
      "    @classmethod\n    def supports_v1(cls, config):\n        \"\"\"Whether v1 runs.\n"
      "        \"\"\"\n        return True\n\n";
  const std::string tail =
      "    @classmethod\n    def graph_wrapper(cls):\n        \"\"\"\n        The wrapper.\n"
      "        \"\"\"\n        return \"pkg.graph.Wrapper\"\n";
  repo.write("pkg/__init__.py", "");
  repo.write("pkg/platform.py", head + gone + tail);
  repo.write("tests/test_platform.py",
             "from pkg.platform import Platform\n\n\ndef test_graph_wrapper():\n"
             "    assert Platform.graph_wrapper()\n");
  repo.commit("Initial import", "2026-09-01T08:00:00Z");
  repo.write("pkg/platform.py", head + tail);
  repo.commit("Remove supports_v1 (#11)", "2026-09-02T08:00:00Z");
  const std::optional<Facts> f = analysed_facts(dir, repo, 11);
  ASSERT_TRUE(f);
  std::string all;
  for (const auto& c : f->context) all += c.why + " " + c.name + "\n";
  EXPECT_NE(context_item(f->context, "changed", "Platform.supports_v1"), nullptr) << all;
  EXPECT_EQ(context_item(f->context, "changed", "Platform.graph_wrapper"), nullptr) << all;
  EXPECT_EQ(context_item(f->context, "test", "test_graph_wrapper"), nullptr) << all;
}

}  // namespace
}  // namespace mergelens
