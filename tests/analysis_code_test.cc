// Tests of analysis/code/language.h and analysis/code/code_facts.h on small
// hand-written diffs.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "analysis_code_util.h"
#include "mergelens/analysis/code/code_facts.h"
#include "mergelens/analysis/code/code_signals.h"
#include "mergelens/analysis/code/language.h"
#include "mergelens/model/diff.h"

namespace mergelens {
namespace {

using namespace testing_code;

// ------------------------------------------------------------------ language

TEST(DetectLanguage, ByExtensionAndFileName) {
  EXPECT_EQ(detect_language("python/sglang/srt/server_args.py"), Language::kPython);
  EXPECT_EQ(detect_language("stubs/x.pyi"), Language::kPython);
  EXPECT_EQ(detect_language("csrc/gemm.cu"), Language::kCuda);
  EXPECT_EQ(detect_language("csrc/gemm.cuh"), Language::kCuda);
  EXPECT_EQ(detect_language("include/ops.h"), Language::kCpp);
  EXPECT_EQ(detect_language("src/Foo.CPP"), Language::kCpp);
  EXPECT_EQ(detect_language("src/lib.rs"), Language::kRust);
  EXPECT_EQ(detect_language("cmd/main.go"), Language::kGo);
  EXPECT_EQ(detect_language("web/app.mjs"), Language::kJavaScript);
  EXPECT_EQ(detect_language("web/App.tsx"), Language::kTypeScript);
  EXPECT_EQ(detect_language("docs/index.rst"), Language::kMarkdown);
  EXPECT_EQ(detect_language("README.md"), Language::kMarkdown);
  EXPECT_EQ(detect_language("configs/a.json"), Language::kJson);
  EXPECT_EQ(detect_language(".github/workflows/ci.yml"), Language::kYaml);
  EXPECT_EQ(detect_language("pyproject.toml"), Language::kToml);
  EXPECT_EQ(detect_language("scripts/run.sh"), Language::kShell);
  EXPECT_EQ(detect_language("sgl-kernel/CMakeLists.txt"), Language::kCMake);
  EXPECT_EQ(detect_language("cmake/utils.cmake"), Language::kCMake);
  EXPECT_EQ(detect_language("requirements.txt"), Language::kText);
  EXPECT_EQ(detect_language("LICENSE"), Language::kUnknown);
  EXPECT_EQ(detect_language(".gitignore"), Language::kUnknown);
}

TEST(DetectLanguage, ShebangForFilesWithoutExtension) {
  EXPECT_EQ(detect_language("bin/tool", "#!/usr/bin/env python3"), Language::kPython);
  EXPECT_EQ(detect_language("bin/tool", "#!/bin/bash\r"), Language::kShell);
  EXPECT_EQ(detect_language("bin/tool", "#!/usr/bin/env -S node --no-warnings"),
            Language::kJavaScript);
  EXPECT_EQ(detect_language("bin/tool", "#!/usr/bin/perl"), Language::kUnknown);
  EXPECT_EQ(detect_language("bin/tool.py", "#!/bin/bash"), Language::kPython);  // extension wins
}

TEST(SignalPatterns, AllCompile) {
  EXPECT_TRUE(signal_patterns_ok());
}

// ------------------------------------------------------------------ symbols

TEST(HunkSymbol, PythonHunkInsideMethodIsQualified) {
  const std::vector<std::string> content = {
      "import os",                      // 1
      "",                               // 2
      "class Scheduler:",               // 3
      "    def __init__(self):",        // 4
      "        self.x = 1",             // 5
      "",                               // 6
      "    @torch.no_grad()",           // 7
      "    def step(self, batch):",     // 8
      "        out = self.run(batch)",  // 9
      "        if out is None:",        // 10
      "            return []",          // 11
      "        total = len(out)",       // 12
      "        return out[:total]",     // 13
      "",                               // 14
      "def helper():",                  // 15
      "    pass",                       // 16
  };
  // The hunk starts inside step (its header is not part of the hunk).
  const std::string patch = H(10, 10,
                              {"         if out is None:", "-            return None",
                               "+            return []", "         total = len(out)"},
                              "class Scheduler:");
  auto facts =
      analyze_code(make_change({{"sched.py", patch}}), reader({{"sched.py", join(content)}}));
  ASSERT_EQ(facts.hunks.size(), 1u);
  EXPECT_EQ(facts.hunks[0].symbol, "Scheduler.step");
  EXPECT_EQ(facts.hunks[0].new_start, 11);
  EXPECT_EQ(facts.hunks[0].new_end, 11);
  EXPECT_EQ(facts.hunks[0].added, 1);
  EXPECT_EQ(facts.hunks[0].removed, 1);
  const Definition* d = find_def(facts, "Scheduler.step");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->change, "modified");
  EXPECT_EQ(d->kind, "method");
}

TEST(HunkSymbol, PythonDocstringAtColumnZeroDoesNotEndFunction) {
  const std::vector<std::string> content = {
      "def usage():",         // 1
      "    text = \"\"\"",    // 2
      "Usage: run it",        // 3
      "def fake():",          // 4
      "\"\"\"",               // 5
      "    x = compute()",    // 6
      "    return text + x",  // 7
  };
  const std::string patch = H(6, 6, {"-    x = 1", "+    x = compute()", "     return text + x"});
  auto facts = analyze_code(make_change({{"u.py", patch}}), reader({{"u.py", join(content)}}));
  ASSERT_EQ(facts.hunks.size(), 1u);
  EXPECT_EQ(facts.hunks[0].symbol, "usage");
}

TEST(HunkSymbol, PythonFallsBackOnHunkHeaderAndSeesItClose) {
  // No reader: git's section text names the function before the hunk.
  const std::string inside =
      H(20, 20, {"     y = x * 2", "-    return y", "+    return y + 1"}, "def forward(self, x):");
  // Here the function closes inside the hunk (a top-level line) before the change.
  const std::string after =
      H(40, 40, {"     return z", " ", " LIMIT = 3", "+EXTRA = 4"}, "def forward(self, x):");
  auto facts = analyze_code(make_change({{"m.py", inside + after}}), nullptr);
  ASSERT_EQ(facts.hunks.size(), 2u);
  EXPECT_EQ(facts.hunks[0].symbol, "forward");
  EXPECT_EQ(facts.hunks[1].symbol, "");
}

TEST(HunkSymbol, PythonFragmentDefinitionBeatsSection) {
  const std::string patch =
      H(30, 30,
        {"     def load(self, path):", "         with open(path) as f:",
         "-            return f.read()", "+            return f.read().strip()"},
        "class Loader:");
  auto facts = analyze_code(make_change({{"l.py", patch}}), nullptr);
  ASSERT_EQ(facts.hunks.size(), 1u);
  EXPECT_EQ(facts.hunks[0].symbol, "Loader.load");
}

TEST(HunkSymbol, CppBraceDepthHandlesClosedFunctionsAndClasses) {
  const std::vector<std::string> content = {
      "namespace at {",                            // 1
      "void first(int a) {",                       // 2
      "  if (a) {",                                // 3
      "    return;",                               // 4
      "  }",                                       // 5
      "}",                                         // 6
      "static int kLimit = 4;",                    // 7
      "class Runner : public Base {",              // 8
      " public:",                                  // 9
      "  void run(const std::string& s) const {",  // 10
      "    const char* brace = \"}\";",            // 11
      "    call(s, brace);",                       // 12
      "  }",                                       // 13
      "};",                                        // 14
      "}  // namespace at",                        // 15
  };
  const std::string patch =
      H(6, 6,
        {" }", "-static int kLimit = 3;", "+static int kLimit = 4;",
         " class Runner : public Base {"},
        "void first(int a) {") +
      H(11, 11,
        {"     const char* brace = \"}\";", "-    call(s);", "+    call(s, brace);", "   }"});
  auto facts =
      analyze_code(make_change({{"src/run.cc", patch}}), reader({{"src/run.cc", join(content)}}));
  ASSERT_EQ(facts.hunks.size(), 2u);
  EXPECT_EQ(facts.hunks[0].symbol, "");  // first() closed before the change
  EXPECT_EQ(facts.hunks[1].symbol, "Runner::run");
  EXPECT_TRUE(has(details(facts, "numeric_constant"), "kLimit: 3 \xE2\x86\x92 4"));
}

TEST(HunkSymbol, CppWithoutContentUsesFragmentAndSection) {
  // git names `void compute(...)`; the hunk shows its closing brace first.
  const std::string closed =
      H(50, 50, {"   return out;", " }", " ", "+int kExtra = 1;"}, "void compute(const Tensor& t)");
  const std::string open =
      H(80, 80, {"   auto y = x;", "-  y += 1;", "+  y += 2;"}, "void compute(const Tensor& t)");
  auto facts = analyze_code(make_change({{"k.cc", closed + open}}), nullptr);
  ASSERT_EQ(facts.hunks.size(), 2u);
  EXPECT_EQ(facts.hunks[0].symbol, "");
  EXPECT_EQ(facts.hunks[1].symbol, "compute");
}

TEST(HunkSymbol, CppConditionalCompilationKeepsBracesBalanced) {
  const std::vector<std::string> content = {
      "#ifdef USE_ROCM",       // 1
      "void launch(int a) {",  // 2
      "#else",                 // 3
      "void launch() {",       // 4
      "#endif",                // 5
      "  int x = 0;",          // 6
      "  go(x);",              // 7
      "}",                     // 8
      "void after() {",        // 9
      "  stop();",             // 10
      "}",                     // 11
  };
  const std::string patch = H(10, 10, {"-  halt();", "+  stop();", " }"}, "void after() {");
  auto facts = analyze_code(make_change({{"l.cu", patch}}), reader({{"l.cu", join(content)}}));
  ASSERT_EQ(facts.hunks.size(), 1u);
  EXPECT_EQ(facts.hunks[0].symbol, "after");
}

TEST(HunkSymbol, BalancedConditionalBranchesAreBothRead) {
  const std::vector<std::string> content = {
      "#ifndef USE_ROCM",            // 1
      "__global__ void k_cuda() {",  // 2
      "  a();",                      // 3
      "}",                           // 4
      "#else",                       // 5
      "__global__ void k_rocm() {",  // 6
      "  b();",                      // 7
      "}",                           // 8
      "#endif",                      // 9
  };
  const std::string patch = H(7, 7, {"-  c();", "+  b();", " }"});
  auto facts = analyze_code(make_change({{"k.cu", patch}}), reader({{"k.cu", join(content)}}));
  ASSERT_EQ(facts.hunks.size(), 1u);
  EXPECT_EQ(facts.hunks[0].symbol, "k_rocm");
}

TEST(HunkSymbol, EverySymbolAHunkChangesIsModified) {
  const std::string patch = H(10, 10,
                              {"     def alloc(self, n):", "-        return self.pool.pop(n)",
                               "+        with self._lock:", "+            return self.pool.pop(n)",
                               " ", "     def free(self, i):", "-        self.pool.push(i)",
                               "+        with self._lock:", "+            self.pool.push(i)"},
                              "class Pool:");
  auto facts = analyze_code(make_change({{"pool.py", patch}}), nullptr);
  ASSERT_EQ(facts.hunks.size(), 1u);
  EXPECT_EQ(facts.hunks[0].symbol, "Pool.alloc");
  ASSERT_NE(find_def(facts, "Pool.alloc"), nullptr);
  ASSERT_NE(find_def(facts, "Pool.free"), nullptr);
  EXPECT_EQ(find_def(facts, "Pool.free")->change, "modified");
  EXPECT_EQ(details(facts, "concurrency").size(), 2u);
}

TEST(HunkSymbol, RustGoAndTypeScriptMethodsAreQualified) {
  const std::vector<std::string> rs = {
      "impl<'a> Parser<'a> {",                         // 1
      "    pub fn next(&mut self) -> Option<char> {",  // 2
      "        let c = '{';",                          // 3
      "        self.pos += 1;",                        // 4
      "        Some(c)",                               // 5
      "    }",                                         // 6
      "}",                                             // 7
  };
  const std::vector<std::string> go = {
      "package server",                                                     // 1
      "",                                                                   // 2
      "func (s *Server) Handle(w http.ResponseWriter, r *http.Request) {",  // 3
      "\ts.count++",                                                        // 4
      "\ts.mu.Unlock()",                                                    // 5
      "}",                                                                  // 6
  };
  const std::vector<std::string> ts = {
      "export class Store {",                       // 1
      "  async load(id: string): Promise<void> {",  // 2
      "    const url = `/items/${id}`;",            // 3
      "    await fetch(url);",                      // 4
      "  }",                                        // 5
      "}",                                          // 6
  };
  const std::string prs =
      H(4, 4, {"-        self.pos += 2;", "+        self.pos += 1;", "         Some(c)"});
  const std::string pgo = H(4, 4, {"-\ts.count += 2", "+\ts.count++", " \ts.mu.Unlock()"});
  const std::string pts =
      H(3, 3, {"     const url = `/items/${id}`;", "-    fetch(url);", "+    await fetch(url);"});
  auto facts = analyze_code(
      make_change({{"src/parse.rs", prs}, {"server.go", pgo}, {"web/store.ts", pts}}),
      reader({{"src/parse.rs", join(rs)}, {"server.go", join(go)}, {"web/store.ts", join(ts)}}));
  ASSERT_EQ(facts.hunks.size(), 3u);
  EXPECT_EQ(facts.hunks[0].symbol, "Parser::next");
  EXPECT_EQ(facts.hunks[1].symbol, "Server.Handle");
  EXPECT_EQ(facts.hunks[2].symbol, "Store.load");
  EXPECT_EQ(facts.languages.at("server.go"), Language::kGo);
}

TEST(HunkSymbol, MarkdownHeadingsAndSectionDefinitions) {
  const std::vector<std::string> md = {
      "# Guide",          // 1
      "",                 // 2
      "## Install",       // 3
      "```bash",          // 4
      "# not a heading",  // 5
      "pip install x",    // 6
      "```",              // 7
      "",                 // 8
      "## Usage",         // 9
      "Run it.",          // 10
  };
  const std::string patch = H(6, 6, {"-pip install y", "+pip install x", " ```"}) +
                            H(8, 8, {" ", "+## Usage", "+Run it."});
  auto facts =
      analyze_code(make_change({{"docs/guide.md", patch}}), reader({{"docs/guide.md", join(md)}}));
  ASSERT_EQ(facts.hunks.size(), 2u);
  EXPECT_EQ(facts.hunks[0].symbol, "Install");
  EXPECT_EQ(facts.hunks[1].symbol, "Usage");
  const Definition* d = find_def(facts, "Usage");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->kind, "section");
  EXPECT_EQ(d->change, "added");
  EXPECT_TRUE(facts.signals.empty());
}

// ------------------------------------------------------------------ definitions

TEST(Definitions, PythonAddedRemovedAndSignatureChanged) {
  const std::string patch =
      H(1, 1,
        {"-def old_helper(x):", "-    return x", "-", " def scale(a, b):", " ",
         "-def run(model):", "+def run(model, *, dtype=None):", "     return model()", " ",
         "+def _private():", "+    pass", "+", "+class Engine(Base):", "+    pass"});
  auto facts = analyze_code(make_change({{"pkg/api.py", patch}}), nullptr);
  const Definition* removed = find_def(facts, "old_helper");
  ASSERT_NE(removed, nullptr);
  EXPECT_EQ(removed->change, "removed");
  const Definition* run = find_def(facts, "run");
  ASSERT_NE(run, nullptr);
  EXPECT_EQ(run->change, "signature_changed");
  EXPECT_EQ(run->at.line, 3);
  EXPECT_EQ(find_def(facts, "scale"), nullptr);  // untouched
  const Definition* engine = find_def(facts, "Engine");
  ASSERT_NE(engine, nullptr);
  EXPECT_EQ(engine->kind, "class");
  EXPECT_EQ(engine->change, "added");
  // Public API: run (re-signed) and Engine (added), not _private.
  const auto api = details(facts, "public_api");
  EXPECT_TRUE(has(api, "run"));
  EXPECT_TRUE(has(api, "Engine"));
  EXPECT_FALSE(has(api, "_private"));
  // old_helper is referenced nowhere on an added line: dead code.
  EXPECT_TRUE(has(details(facts, "dead_code_removed", false), "old_helper"));
}

TEST(Definitions, MultiLineParameterChangeAndFormattingOnlyChange) {
  const std::string patch =
      H(10, 10,
        {"     def forward(", "         self,", "-        x: Tensor,",
         "+        x: Tensor, positions: Tensor,", "     ) -> Tensor:", "         return x", " ",
         "-    def reset(self,a):", "+    def reset(self, a):", "         pass"},
        "class Attention(nn.Module):");
  auto facts = analyze_code(make_change({{"attn.py", patch}}), nullptr);
  const Definition* fwd = find_def(facts, "Attention.forward");
  ASSERT_NE(fwd, nullptr);
  EXPECT_EQ(fwd->change, "signature_changed");
  EXPECT_EQ(fwd->kind, "method");
  const Definition* reset = find_def(facts, "Attention.reset");
  ASSERT_NE(reset, nullptr);
  EXPECT_EQ(reset->change, "modified");               // only spacing changed
  EXPECT_TRUE(details(facts, "public_api").empty());  // methods are not top-level
}

TEST(Definitions, CppHeaderPrototypesAreApiAndStaticIsNot) {
  const std::string patch =
      H(3, 3,
        {" namespace ops {", "-void gemm(at::Tensor& out, int64_t n);",
         "+void gemm(at::Tensor& out, int64_t n, bool fp8);", "+static int helper(int a);",
         "+namespace detail { void hidden(int a); }", " }"});
  auto facts = analyze_code(make_change({{"csrc/ops.h", patch}}), nullptr);
  const Definition* gemm = find_def(facts, "gemm");
  ASSERT_NE(gemm, nullptr);
  EXPECT_EQ(gemm->change, "signature_changed");
  const auto api = details(facts, "public_api");
  EXPECT_TRUE(has(api, "gemm"));
  EXPECT_FALSE(has(api, "helper"));
  EXPECT_FALSE(has(api, "hidden"));
}

TEST(Definitions, CudaKernelAndMacroAdded) {
  const std::string patch =
      H(1, 1,
        {"+#define CEIL_DIV(a, b) (((a) + (b) - 1) / (b))", "+", "+template <typename T>",
         "+__global__ void __launch_bounds__(256) scale_kernel(T* out, int n) {",
         "+  int i = blockIdx.x * blockDim.x + threadIdx.x;", "+  if (i >= n) return;",
         "+  out[i] *= 2;", "+}"});
  auto facts = analyze_code(make_change({{"csrc/scale.cu", patch}}), nullptr);
  const Definition* k = find_def(facts, "scale_kernel");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->kind, "kernel");
  EXPECT_EQ(k->change, "added");
  const Definition* m = find_def(facts, "CEIL_DIV");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->kind, "macro");
  EXPECT_TRUE(has(details(facts, "early_return"), "if i >= n: return;"));
}

TEST(Definitions, RustGoAndJsDefinitionsAndExports) {
  const std::string rs = H(1, 1,
                           {"+pub fn parse(input: &str) -> Result<Ast> {", "+    todo!()", "+}",
                            "+fn internal() {}", "+pub struct Config {", "+}"});
  const std::string go = H(1, 1,
                           {"+func NewServer(addr string) *Server {", "+\treturn nil", "+}",
                            "+func helper() {", "+}", "+type Options struct {", "+}"});
  const std::string ts = H(
      1, 1,
      {"+export const useThing = async ({ a }: Props) => {", "+  return a;", "+};",
       "+function local(x) {", "+  return x;", "+}", "+export class Widget extends Base {", "+}"});
  auto facts = analyze_code(
      make_change({{"src/lib.rs", rs}, {"server.go", go}, {"web/hooks.ts", ts}}), nullptr);
  for (const char* name : {"parse", "internal", "Config", "NewServer", "helper", "Options",
                           "useThing", "local", "Widget"}) {
    const Definition* d = find_def(facts, name);
    ASSERT_NE(d, nullptr) << name;
    EXPECT_EQ(d->change, "added") << name;
  }
  const auto api = details(facts, "public_api");
  for (const char* name : {"parse", "Config", "NewServer", "Options", "useThing", "Widget"})
    EXPECT_TRUE(has(api, name)) << name;
  for (const char* name : {"internal", "helper", "local"}) EXPECT_FALSE(has(api, name)) << name;
}

TEST(Definitions, DeletedFileAndDeadCodeNeedsNoReference) {
  // a.py loses two functions; b.py still calls one of them on an added line.
  const std::string a =
      H(1, 0, {"-def unused(x):", "-    return x", "-", "-def still_called():", "-    return 1"});
  const std::string b = H(5, 5, {"-    v = 0", "+    v = still_called()"}, "def main():");
  auto facts = analyze_code(make_change({{"a.py", a, FileStatus::kDeleted}, {"b.py", b}}),
                            reader({{"b.py", "x\n"}}));
  ASSERT_GE(facts.hunks.size(), 2u);
  EXPECT_EQ(facts.hunks[0].symbol, "unused");  // from the old side of the hunk
  EXPECT_EQ(facts.hunks[0].new_start, 1);
  const auto dead = details(facts, "dead_code_removed", false);
  EXPECT_TRUE(has(dead, "unused"));
  EXPECT_FALSE(has(dead, "still_called"));
}

TEST(Definitions, ParameterAddedBelowTheHunkHeaderIsASignatureChange) {
  const std::vector<std::string> content = {
      "import torch",                                 // 1
      "",                                             // 2
      "def scaled_fp8_quant(",                        // 3
      "    input: torch.Tensor,",                     // 4
      "    scale: Optional[torch.Tensor] = None,",    // 5
      "    use_per_token_if_dynamic: bool = False,",  // 6
      ") -> Tuple[torch.Tensor, torch.Tensor]:",      // 7
      "    return input, scale",                      // 8
  };
  const std::string patch = H(
      4, 4,
      {"     input: torch.Tensor,", "     scale: Optional[torch.Tensor] = None,",
       "+    use_per_token_if_dynamic: bool = False,", " ) -> Tuple[torch.Tensor, torch.Tensor]:"},
      "def scaled_fp8_quant(");
  for (bool with_content : {true, false}) {
    auto facts = analyze_code(make_change({{"ops.py", patch}}),
                              with_content ? reader({{"ops.py", join(content)}}) : FileReader{});
    const Definition* d = find_def(facts, "scaled_fp8_quant");
    ASSERT_NE(d, nullptr) << with_content;
    EXPECT_EQ(d->change, "signature_changed") << with_content;
    EXPECT_TRUE(has(details(facts, "public_api"), "scaled_fp8_quant")) << with_content;
    EXPECT_EQ(facts.hunks[0].symbol, "scaled_fp8_quant") << with_content;
  }
}

TEST(Definitions, RenameIsNotDeadCodeAndScriptsHaveNoApi) {
  const std::string lib = H(99, 99,
                            {"-def get_tensor_model_parallel_world_size():",
                             "+def get_tp_world_size():", "     return _TP_SIZE"});
  const std::string script = H(1, 1, {"+def main():", "+    run()"});
  auto facts = analyze_code(make_change({{"dist/state.py", lib}, {"scripts/gen_table.py", script}}),
                            nullptr);
  EXPECT_TRUE(details(facts, "dead_code_removed", false).empty());
  const auto api = details(facts, "public_api");
  EXPECT_TRUE(has(api, "get_tp_world_size"));
  EXPECT_FALSE(has(api, "main"));
}

}  // namespace
}  // namespace mergelens
