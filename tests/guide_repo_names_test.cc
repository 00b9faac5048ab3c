// Names a guide cites from outside the diff (issue 31): the repository at the
// merge commit (the whole tree, through source/TreeLookup) and the libraries
// the changed files import count as known; a name known nowhere is still
// removed, however much it looks like a library's.
#include <gtest/gtest.h>

#include <fstream>

#include "mergelens/analysis/analyzer.h"
#include "mergelens/guide/citations.h"
#include "mergelens/pipeline/repo_lookup.h"
#include "test_helpers.h"

namespace mergelens {
namespace {

class CitationRepoNames : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::GitRepo repo(dir.path() + "/repo");
    repo.write("pkg/worker/model.py",
               "from vllm.config import SpeculativeConfig\n"
               "import torch\n"
               "\n"
               "def propose(cfg: SpeculativeConfig):\n"
               "    return cfg.method or \"eagle\"\n");
    // Far from the changed file: another top-level folder.
    repo.write("tools/export/save.py",
               "def save(d):\n"
               "    d[\"quantization_config\"] = {}\n"
               "    return d\n");
    repo.commit("Default to eagle (#5)", "2026-09-01T10:00:00Z");
    repo.run("rev-parse HEAD > .git/SHA");
    std::ifstream in(repo.path() + "/.git/SHA");
    in >> c.sha;
    c.repo = "o/r";
    c.number = 5;
    c.title = "Default to eagle (#5)";
    c.files.push_back(testing::file_from_patch("pkg/worker/model.py",
                                               "@@ -4,2 +4,2 @@\n"
                                               " def propose(cfg: SpeculativeConfig):\n"
                                               "-    return cfg.method\n"
                                               "+    return cfg.method or \"eagle\"\n"));
    auto ctx = make_context(c.repo, "", "");
    ASSERT_TRUE(ctx);
    f = analyze_change(c, *ctx);
    auto t = TreeLookup::open(repo.path(), c.sha);
    ASSERT_TRUE(t) << t.error().message;
    tree = std::move(*t);
  }

  // Failures of `why` (a claiming place) in an otherwise empty guide.
  std::vector<CitationFailure> why(const std::string& text) {
    CitationIndex index(c, f, repo_lookup(tree.get(), c));
    Guide g;
    g.why = text;
    return check_citations(g, index);
  }

  testing::TempDir dir;
  Change c;
  Facts f;
  std::unique_ptr<TreeLookup> tree;
};

TEST_F(CitationRepoNames, AnUpstreamNameOfAnImportedLibraryIsKept) {
  EXPECT_TRUE(why("The worker could ask `SpeculativeConfig.use_eagle()` instead.").empty());
  EXPECT_TRUE(why("Graphs share `torch.cuda.graph_pool_handle()`.").empty());
  EXPECT_TRUE(why("See `vllm.config.SpeculativeConfig`.").empty());
}

TEST_F(CitationRepoNames, ANameOfTheTreeOutsideTheDiffIsKept) {
  EXPECT_TRUE(why("Saving still writes `quantization_config`.").empty());
}

TEST_F(CitationRepoNames, AFabricatedNameIsStillRemoved) {
  auto failures = why("Saving calls `ghost_export_hook()` first.");
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_NE(failures[0].reason.find("ghost_export_hook"), std::string::npos);
  CitationIndex index(c, f, repo_lookup(tree.get(), c));
  Guide g, fallback;
  g.gaps = {"Saving calls `ghost_export_hook()` first. The default changes to eagle."};
  remove_failed_citations(g, check_citations(g, index), fallback, index);
  ASSERT_EQ(g.gaps.size(), 1u);
  EXPECT_EQ(g.gaps[0], "The default changes to eagle.");
}

TEST_F(CitationRepoNames, AFabricatedNameThatLooksLikeAnImportIsStillRemoved) {
  // A library the changed files do not import, a name not imported from
  // one, a made-up member of this repository's own package.
  EXPECT_EQ(why("It relies on `flashinfer.fused_ghost_norm()`.").size(), 1u);
  EXPECT_EQ(why("It reads `GhostSpecConfig.use_eagle()`.").size(), 1u);
  EXPECT_EQ(why("It calls `pkg.worker.ghost_propose()`.").size(), 1u);
}

TEST_F(CitationRepoNames, WithoutAClonePlantedAndTreeNamesFailAlike) {
  CitationIndex bare(c, f);
  Guide g;
  g.why = "Saving still writes `quantization_config`.";
  EXPECT_EQ(check_citations(g, bare).size(), 1u);
  // The diff's own import lines still name the library when no clone is there.
  g.why = "Graphs share `torch.cuda.graph_pool_handle()`.";
  EXPECT_EQ(check_citations(g, bare).size(), 1u);  // `import torch` is not in the hunks
}

TEST_F(CitationRepoNames, AVariadicParameterIsCodeNotAPattern) {
  CitationIndex index(c, f, repo_lookup(tree.get(), c));
  Guide g;
  g.questions = {"If a module declares `**flash_attn_kwargs`, is it still propagated?"};
  EXPECT_TRUE(check_citations(g, index).empty());
  g.questions.clear();
  g.why = "The worker forwards `**flash_attn_kwargs`.";  // a claim: checked as a name
  auto failures = check_citations(g, index);
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0].reason, "`flash_attn_kwargs` is not in the change");
  EXPECT_FALSE(CitationIndex::is_pattern("**kwargs"));
  EXPECT_TRUE(CitationIndex::is_pattern("static_*"));
}

TEST_F(CitationRepoNames, AShapesDimensionLabelsAreWordsOfTheChange) {
  EXPECT_TRUE(why("Each view is `[cfg, propose_method]`.").empty());
  EXPECT_EQ(why("Each view is `[cfg, ghost_method]`.").size(), 1u);     // "ghost": nowhere
  EXPECT_EQ(why("Each view is `[rows, propose_method]`.").size(), 1u);  // no name of the change
  EXPECT_EQ(why("It returns `(cfg, propose_method)`.").size(), 1u);     // a tuple is code
}

}  // namespace
}  // namespace mergelens
