// Tests of the import graph: parsing Python imports and C-family includes,
// resolving them to files, reach, and incremental edits that agree with a
// graph built from scratch.
#include <gtest/gtest.h>

#include <map>

#include "mergelens/analysis/code/import_graph.h"

namespace mergelens {
namespace {

TEST(ImportGraph, ParsesPythonAndIncludes) {
  auto py = parse_imports("python/pkg/sub/mod.py",
                          "import os, pkg.util as u\n"
                          "from . import sibling\n"
                          "from ..core import (\n    Engine,\n    Config as C,\n)\n"
                          "    from pkg.layers import quant  # inside a function\n"
                          "from .x import *\n");
  EXPECT_EQ(py, (std::vector<std::string>{"os", "pkg.util", "python.pkg.sub.sibling|python.pkg.sub",
                                          "python.pkg.core.Engine|python.pkg.core",
                                          "python.pkg.core.Config|python.pkg.core",
                                          "pkg.layers.quant|pkg.layers", "python.pkg.sub.x"}));
  auto cc = parse_imports("csrc/a.cu",
                          "#include \"ops.h\"\n  #  include <pkg/b.cuh>\n#include <cuda.h>\n");
  EXPECT_EQ(cc, (std::vector<std::string>{"ops.h", "<pkg/b.cuh", "<cuda.h"}));
}

// A small tree: python/pkg is a package under the source root python/.
std::map<std::string, std::string> tree() {
  return {
      {"python/pkg/__init__.py", "from pkg.layers import quant\n"},
      {"python/pkg/util.py", "import os\n"},
      {"python/pkg/layers/__init__.py", "from .quant import Fp8\n"},
      {"python/pkg/layers/quant.py", "from pkg.util import helper\n"},
      {"python/pkg/layers/triton.py", "import triton\n"},  // the third-party triton
      {"python/pkg/engine.py", "from pkg.layers import Fp8\nimport pkg.util\n"},
      {"python/pkg/server.py", "from pkg import engine\n"},
      {"tests/test_engine.py", "from pkg.engine import run\n"},
      {"csrc/ops.h", ""},
      {"csrc/kernel.cu", "#include \"ops.h\"\n"},
      {"csrc/other/use.cc", "#include <ops.h>\n"},
  };
}

ImportGraph build(const std::map<std::string, std::string>& files) {
  ImportGraph g;
  g.begin_bulk();
  for (const auto& [p, c] : files) g.set_file(p, c);
  g.end_bulk();
  return g;
}

Change touching(std::initializer_list<const char*> paths) {
  Change c;
  for (const char* p : paths) {
    FileChange f;
    f.path = p;
    c.files.push_back(f);
  }
  return c;
}

TEST(ImportGraph, ResolvesAtSourceRootsAndBesideTheIncluder) {
  ImportGraph g = build(tree());
  EXPECT_EQ(g.importers_of("python/pkg/util.py"),
            (std::vector<std::string>{"python/pkg/engine.py", "python/pkg/layers/quant.py"}));
  EXPECT_EQ(g.importers_of("python/pkg/layers/quant.py"),
            (std::vector<std::string>{"python/pkg/__init__.py", "python/pkg/layers/__init__.py"}));
  // `import triton` is the library, not a module inside a package.
  EXPECT_TRUE(g.importers_of("python/pkg/layers/triton.py").empty());
  EXPECT_EQ(g.importers_of("csrc/ops.h"),
            (std::vector<std::string>{"csrc/kernel.cu", "csrc/other/use.cc"}));
}

TEST(ImportGraph, ReachSeesThroughPackagesAndLeavesTestsOut) {
  ImportGraph g = build(tree());
  RepoConfig none;
  Reach r = g.reach(touching({"python/pkg/layers/quant.py"}), none);
  EXPECT_TRUE(r.known);
  // quant.py is re-exported by pkg.layers, which engine.py imports.
  EXPECT_EQ(r.direct, 1);
  EXPECT_EQ(r.hub, "python/pkg/layers/quant.py");
  // engine.py, server.py (through engine) and the __init__ files; not the test.
  EXPECT_EQ(r.importers, 4);
  Reach none_touched = g.reach(touching({"tests/test_engine.py"}), none);
  EXPECT_EQ(none_touched.importers, 0);
}

TEST(ImportGraph, IncrementalEditsAgreeWithAFreshBuild) {
  auto files = tree();
  ImportGraph g = build(files);
  // Add a second util (ambiguous for nothing: it lives in another package),
  // drop the layers package marker, move engine.py.
  auto edit = [&](const std::string& path, const std::string* content) {
    if (content) {
      files[path] = *content;
      g.set_file(path, *content);
    } else {
      files.erase(path);
      g.remove_file(path);
    }
  };
  const std::string util2 = "import os\n";
  edit("python/other/util.py", &util2);
  edit("python/pkg/layers/__init__.py", nullptr);
  const std::string engine = files["python/pkg/engine.py"];
  edit("python/pkg/engine.py", nullptr);
  edit("python/pkg/core/engine.py", &engine);
  const std::string server = "from pkg.core import engine\n";
  edit("python/pkg/server.py", &server);
  const std::string init = "";
  edit("python/pkg/core/__init__.py", &init);

  ImportGraph fresh = build(files);
  EXPECT_EQ(g.files(), fresh.files());
  EXPECT_EQ(g.edges(), fresh.edges());
  for (const auto& [p, _] : files) EXPECT_EQ(g.importers_of(p), fresh.importers_of(p)) << p;
}

// Transitive reach saturates: counting stops at 500 whatever order the walk
// takes (the graph's insertion history decides that order), so two graphs of
// the same tree built differently give the same count.
TEST(ImportGraph, ReachCountsExactlyUpToTheCapWhateverTheWalkOrder) {
  std::map<std::string, std::string> files = {{"python/pkg/__init__.py", ""},
                                              {"python/pkg/core.py", ""}};
  for (const char* mid : {"a", "b", "c"})
    files[std::string("python/pkg/") + mid + ".py"] = "from pkg import core\n";
  auto leaves = [&](const char* mid, int n) {
    for (int i = 0; i < n; ++i)
      files["python/pkg/" + std::string(mid) + "_leaf" + std::to_string(i) + ".py"] =
          "from pkg import " + std::string(mid) + "\n";
  };
  leaves("a", 300);
  leaves("b", 300);
  leaves("c", 10);
  RepoConfig none;
  const Change c = touching({"python/pkg/core.py"});
  ImportGraph bulk = build(files);
  EXPECT_EQ(bulk.reach(c, none).importers, 500);
  // The same tree, files added one by one in reverse order.
  ImportGraph incremental;
  for (auto it = files.rbegin(); it != files.rend(); ++it)
    incremental.set_file(it->first, it->second);
  EXPECT_EQ(incremental.reach(c, none).importers, 500);
  EXPECT_EQ(incremental.reach(c, none).direct, bulk.reach(c, none).direct);
}

// Random histories of edits (adds, edits, removals, package markers coming
// and going) end in the graph a fresh build of the final tree gives: the
// same edges and the same reach for every file.
TEST(ImportGraph, RandomEditHistoriesAgreeWithAFreshBuild) {
  const std::vector<std::string> paths = {"python/pkg/__init__.py",
                                          "python/pkg/a.py",
                                          "python/pkg/b.py",
                                          "python/pkg/sub/__init__.py",
                                          "python/pkg/sub/a.py",
                                          "python/pkg/sub/c.py",
                                          "python/other/a.py",
                                          "python/other/__init__.py",
                                          "tests/test_a.py",
                                          "csrc/ops.h",
                                          "csrc/k.cu",
                                          "csrc/x/ops.h"};
  const std::vector<std::string> bodies = {"",
                                           "from pkg import a\n",
                                           "from pkg.sub import a, c\nimport pkg.b\n",
                                           "from . import a\nfrom .c import f\n",
                                           "from .. import b\nimport other.a\n",
                                           "#include \"ops.h\"\n#include <x/ops.h>\n",
                                           "from pkg import sub\n"};
  std::uint32_t seed = 12345;
  auto next = [&](std::uint32_t n) {
    seed = seed * 1103515245u + 12345u;
    return (seed >> 16) % n;
  };
  RepoConfig none;
  for (int round = 0; round < 40; ++round) {
    std::map<std::string, std::string> files;
    ImportGraph g;
    for (int step = 0; step < 30; ++step) {
      const std::string& p = paths[next(static_cast<std::uint32_t>(paths.size()))];
      if (next(4) == 0) {
        files.erase(p);
        g.remove_file(p);
      } else {
        const std::string& b = bodies[next(static_cast<std::uint32_t>(bodies.size()))];
        files[p] = b;
        g.set_file(p, b);
      }
    }
    ImportGraph fresh = build(files);
    ASSERT_EQ(g.edges(), fresh.edges()) << "round " << round;
    for (const auto& p : paths) {
      EXPECT_EQ(g.importers_of(p), fresh.importers_of(p)) << "round " << round << " " << p;
      const Reach a = g.reach(touching({p.c_str()}), none),
                  b = fresh.reach(touching({p.c_str()}), none);
      EXPECT_EQ(a.importers, b.importers) << "round " << round << " " << p;
      EXPECT_EQ(a.direct, b.direct) << "round " << round << " " << p;
    }
  }
}

}  // namespace
}  // namespace mergelens
