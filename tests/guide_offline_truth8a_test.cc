// Issue 31, sixth pass of the offline writer (bench/audit/verdicts,
// offline-after4): kinds of misleading sentence found in offline guides of
// real PRs. A runnable example script outside an examples/ folder called
// docs; comment lines counted as lines of code; an include guard named as a
// definition and copies of one added file counted once per copy; sibling
// modules importing their package counted as importers of a file the
// package re-exports; a signature change of a function that only raises
// asked about; a type-narrowing assert called a new guard; a wide change
// called a skim, and a skim figure leaving out a deleted file. Each on a
// crafted change run through the real pipeline (ingest, analyse, write in
// both languages).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "mergelens/pipeline/analyze.h"
#include "mergelens/pipeline/ingest.h"
#include "mergelens/pipeline/write.h"
#include "offline_guide_fixture.h"
#include "test_helpers.h"

namespace mergelens {
namespace {

using testing::GitRepo;
using testing::TempDir;

constexpr const char* kExample = R"py(from pkg import quantize

MODEL_ID = "org/model"
SAVE_DIR = MODEL_ID.split("/")[-1] + "-W4"

# apply the scheme to every linear layer
quantize(
    model=MODEL_ID,
    save_directory=SAVE_DIR,
    scheme="W4A16",
)

print("saved to", SAVE_DIR)
)py";

constexpr const char* kRunner = R"py(import copy


class Runner:
    def execute(self, batch, output):
        self.prepare(batch)
        # The scheduler output may be updated in place by the engine
        # while this step runs, so the async path works on a copy of it.
        # Without the copy the draft tokens of the next step leak into
        # this one and the sampler reads them back.
        # See the engine's update_from_output for where it is written.
        # Remove this once the engine copies it itself.
        # (kept for the async scheduler only)
        if self.use_async:
            output = copy.copy(output)
            output.draft = {}
            output.spec = {}
            output.done = set()
        return self.run(batch, output)
)py";

constexpr const char* kRunnerAfter = R"py(import copy


class Runner:
    def execute(self, batch, output):
        self.prepare(batch)
        # NOTE: the copy was removed upstream: the engine now copies the
        # scheduler output in its own process before it updates it,
        # and the draft tokens are taken through take_draft_tokens().
        # The runner works on the output it was given.
        # Nothing here writes to it.
        # (see the engine's update_from_output)
        return self.run(batch, output)
)py";

constexpr const char* kHeader = R"py(#ifndef K2_TILING_H
#define K2_TILING_H

#include <cstdint>

inline bool IsWideUb(std::int64_t ub) {
  return ub >= 256 * 1024;
}

inline std::int64_t TileRows(std::int64_t rows, std::int64_t ub) {
  return IsWideUb(ub) ? rows : rows / 2;
}

#endif
)py";

constexpr const char* kImpl = R"py(class Impl:
    def forward(self, x, gather=False):
        return self.run(x, gather)

    def forward_mha(
        self,
        x,
        cache,
        gather: bool = False,
        output=None,
    ):
        raise NotImplementedError("forward_mha is not supported: use forward()")
)py";

constexpr const char* kImplAfter = R"py(class Impl:
    def forward(self, x, gather=False):
        return self.run(x, gather)

    def forward_mha(
        self,
        x,
        cache,
        output=None,
    ):
        raise NotImplementedError("forward_mha is not supported: use forward()")
)py";

constexpr const char* kSpec = R"py(class Speculator:
    def propose(self, batch, steps):
        self.batch = batch
        return self.draft(steps)

    def draft(self, steps):
        return [self.batch.next() for _ in range(steps)]
)py";

constexpr const char* kSpecAfter = R"py(class Speculator:
    def propose(self, batch, steps):
        self.batch = batch
        assert self.batch is not None
        with self.metadata():
            return self.draft(steps)

    def draft(self, steps):
        return [self.batch.next() for _ in range(steps)]
)py";

class OfflineTruth8a : public testing::OfflineGuideFixture<OfflineTruth8a> {
 public:
  static void write_history(GitRepo& repo) {
    repo.run("remote add origin git@github.com:o/r.git");
    repo.write("pkg/__init__.py", "from pkg.api import quantize\n");
    repo.write("pkg/api.py", "def quantize(model, save_directory, scheme):\n    return model\n");
    repo.write("pkg/runner.py", kRunner);
    repo.write("pkg/impl.py", kImpl);
    repo.write("pkg/spec.py", kSpec);
    // A package re-exporting a module, its own modules taking the base class
    // from it, and one module outside it using the package.
    repo.write("lib/data/__init__.py",
               "from lib.data.base import Dataset\nfrom lib.data.blend import Blend\n");
    repo.write("lib/data/base.py", "class Dataset:\n    name = \"base\"\n");
    repo.write("lib/data/blend.py",
               "from lib.data.base import Dataset\n\n\nclass Blend(Dataset):\n"
               "    name = \"blend\"\n");
    for (const char* m : {"c4", "gsm", "wiki", "pile"})
      repo.write(std::string("lib/data/") + m + ".py",
                 std::string("from lib.data import Dataset\n\n\nclass ") + m +
                     "(Dataset):\n    name = \"" + m + "\"\n");
    repo.write("lib/train.py", "from lib.data import Blend\n\n\ndef run():\n    return Blend()\n");
    // Code twenty modules import, and ten modules beside it.
    repo.write("core/shared.py", "def block_size(spec):\n    return spec.block\n");
    for (int i = 0; i < 20; ++i)
      repo.write("app/user" + std::to_string(i) + ".py",
                 "from core.shared import block_size\n\n\ndef size(spec):\n"
                 "    return block_size(spec)\n");
    for (int i = 0; i < 10; ++i)
      repo.write("svc/part" + std::to_string(i) + ".py",
                 "def pages(spec):\n    return spec.block\n");
    std::string manager = "class Manager:\n";
    for (int i = 0; i < 30; ++i)
      manager += "    def step" + std::to_string(i) + "(self):\n        return " +
                 std::to_string(i) + "\n";
    repo.write("svc/manager.py", manager);
    repo.write("svc/util.py", "def half(n):\n    return n // 2\n");
    repo.commit("Initial import", "2026-09-01T08:00:00Z");

    repo.write("experimental/ptq/quantize_w4.py", kExample);
    repo.commit("[Examples] W4A16 with quantize (#801)", "2026-09-02T09:00:00Z");

    repo.write("pkg/runner.py", kRunnerAfter);
    repo.commit("Remove the copy of the scheduler output (#802)", "2026-09-02T10:00:00Z");

    for (const char* d : {"ops/a", "ops/b", "ops/c"})
      repo.write(std::string(d) + "/k2_tiling.h", kHeader);
    repo.commit("Add the k2 tiling for the wide UB (#803)", "2026-09-02T11:00:00Z");

    repo.write("lib/data/blend.py",
               "from lib.data.base import Dataset\n\n\nclass Blend(Dataset):\n"
               "    name = \"blend\"\n    alias = \"mix\"\n");
    repo.commit("Add an alias to the blend dataset (#804)", "2026-09-02T12:00:00Z");

    repo.write("pkg/impl.py", kImplAfter);
    repo.commit("Drop the gather flag of forward_mha (#805)", "2026-09-02T13:00:00Z");

    repo.write("pkg/spec.py", kSpecAfter);
    repo.commit("Build the draft metadata in propose (#806)", "2026-09-02T14:00:00Z");

    repo.write("core/shared.py", "def block_size(spec):\n    return spec.block * spec.ratio\n");
    for (int i = 0; i < 10; ++i)
      repo.write("svc/part" + std::to_string(i) + ".py",
                 "def pages(spec):\n    return spec.block // spec.ratio\n");
    repo.commit("Make block_size logical tokens (#807)", "2026-09-02T15:00:00Z");

    repo.run("rm -q svc/manager.py");
    repo.write("svc/util.py", "def half(n):\n    return n >> 1\n");
    repo.commit("Drop the old manager (#808)", "2026-09-02T16:00:00Z");
  }
  static std::string reasons(const Guide& g) {
    return g.importance.reason + " | " + g.insight.reason;
  }
};

TEST_F(OfflineTruth8a, ARunnableScriptInExperimentalIsAnExampleNotDocs) {
  for (const char* lang : {"zh", "en"}) {
    const Guide g = guide(801, lang);
    EXPECT_NE(g.summary.find(std::string(lang) == "zh" ? "示例脚本" : "example scripts"),
              std::string::npos)
        << g.summary;
    for (const std::string& text : {g.summary, g.verdict_text, reasons(g)}) {
      EXPECT_EQ(text.find("docs"), std::string::npos) << lang << ": " << text;
      EXPECT_EQ(text.find("文档"), std::string::npos) << lang << ": " << text;
    }
    EXPECT_FALSE(g.headline.starts_with("文档")) << g.headline;
    EXPECT_EQ(std::count(g.tags.begin(), g.tags.end(), "docs"), 0) << lang;
  }
}

TEST_F(OfflineTruth8a, CommentLinesAreNotLinesOfCode) {
  // 18 changed lines: 7 comment lines removed, 6 added, 5 lines of code removed.
  const Facts f = facts(802);
  std::string all;
  for (const auto& r : f.importance.reasons) all += r + "\n";
  EXPECT_NE(all.find("5 lines of code changed"), std::string::npos) << all;
  EXPECT_EQ(all.find("18 lines of code changed"), std::string::npos) << all;
}

TEST_F(OfflineTruth8a, AnIncludeGuardIsNoDefinitionAndCopiesCountOnce) {
  const Facts f = facts(803);
  for (const auto& d : f.definitions) EXPECT_NE(d.name, "K2_TILING_H") << d.at.path;
  std::string all;
  for (const auto& r : f.importance.reasons) all += r + "\n";
  EXPECT_NE(all.find("adds 1 code file and 2 copies of it"), std::string::npos) << all;
  // The 2 functions of the one file, not 6 functions and 3 guards.
  EXPECT_NE(all.find("adds 2 definitions"), std::string::npos) << all;
  for (const char* lang : {"zh", "en"}) {
    const Guide g = guide(803, lang);
    EXPECT_EQ(g.summary.find("K2_TILING_H"), std::string::npos) << g.summary;
  }
}

TEST_F(OfflineTruth8a, ModulesOfAPackageImportingItAreNoImportersOfItsFiles) {
  // Only lib/train.py uses what the package re-exports from blend.py; the
  // four dataset modules take the base class from the package.
  const Facts f = facts(804);
  ASSERT_TRUE(f.reach.known);
  EXPECT_EQ(f.reach.direct, 1);
}

TEST_F(OfflineTruth8a, NoCallerQuestionForAFunctionThatOnlyRaises) {
  for (const char* lang : {"zh", "en"}) {
    const Guide g = guide(805, lang);
    for (const auto& q : g.questions)
      EXPECT_EQ(q.find("forward_mha"), std::string::npos) << lang << ": " << q;
  }
}

TEST_F(OfflineTruth8a, ATypeNarrowingAssertIsNoNewGuard) {
  const Facts f = facts(806);
  for (const auto& gap : f.gaps)
    EXPECT_EQ(gap.detail.find("assert self.batch is not None"), std::string::npos) << gap.detail;
  for (const char* lang : {"zh", "en"}) {
    const Guide g = guide(806, lang);
    for (const auto& s : g.gaps)
      EXPECT_EQ(s.find("assert self.batch"), std::string::npos) << lang << ": " << s;
  }
}

TEST_F(OfflineTruth8a, CodeManyModulesImportChangedInManyFilesIsNoSkim) {
  const Facts f = facts(807);
  ASSERT_TRUE(f.reach.known);
  EXPECT_GE(f.reach.direct, 20);
  // By its scores alone a skim or a skip: the reach makes it a selective read.
  EXPECT_LT(f.importance.value, 7);
  EXPECT_LT(f.insight.value, 7);
  EXPECT_EQ(f.verdict, Verdict::kSelectiveRead) << to_string(f.verdict);
}

TEST_F(OfflineTruth8a, ASkimFigureSaysWhatItLeavesOutDeleted) {
  const Facts f = facts(808);
  ASSERT_TRUE(f.verdict == Verdict::kSkim || f.verdict == Verdict::kSkip) << to_string(f.verdict);
  EXPECT_NE(guide(808, "en").verdict_text.find("besides 61 lines deleted in 1 file"),
            std::string::npos)
      << guide(808, "en").verdict_text;
  EXPECT_NE(guide(808, "zh").verdict_text.find("另删除 1 个文件（61 行）"), std::string::npos)
      << guide(808, "zh").verdict_text;
}

}  // namespace
}  // namespace mergelens
