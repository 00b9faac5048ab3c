// Tests of the import graph: parsing Python imports and C-family includes,
// resolving them to files, reach, and incremental edits that agree with a
// graph built from scratch.
#include <gtest/gtest.h>

#include <map>

#include "mergelens/analysis/import_graph.h"

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

}  // namespace
}  // namespace mergelens
