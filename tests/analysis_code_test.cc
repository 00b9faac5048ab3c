// Tests of analysis/code/language.h and analysis/code/code_facts.h on small
// hand-written diffs.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "mergelens/analysis/code/code_facts.h"
#include "mergelens/analysis/code/code_signals.h"
#include "mergelens/analysis/code/language.h"
#include "mergelens/model/diff.h"

namespace mergelens {
namespace {

// One hunk in unified format; the header counts come from the lines.
std::string H(int old_start, int new_start, const std::vector<std::string>& lines,
              const std::string& section = "") {
  int o = 0, n = 0;
  for (const auto& l : lines) {
    if (l.empty() || l[0] == ' ') ++o, ++n;
    if (!l.empty() && l[0] == '-') ++o;
    if (!l.empty() && l[0] == '+') ++n;
  }
  std::string out = fmt::format("@@ -{},{} +{},{} @@", old_start, o, new_start, n);
  if (!section.empty()) out += " " + section;
  out += "\n";
  for (const auto& l : lines) out += l + "\n";
  return out;
}

struct FileSpec {
  FileSpec(std::string p, std::string diff, FileStatus st = FileStatus::kModified,
           std::string old = "", bool bin = false)
      : path(std::move(p)),
        patch(std::move(diff)),
        status(st),
        old_path(std::move(old)),
        binary(bin) {}
  std::string path;
  std::string patch;
  FileStatus status;
  std::string old_path;
  bool binary;
};

Change make_change(const std::vector<FileSpec>& specs) {
  Change c;
  for (const auto& s : specs) {
    FileChange f;
    f.path = s.path;
    f.old_path = s.old_path;
    f.status = s.status;
    f.binary = s.binary;
    if (!s.patch.empty()) {
      auto p = parse_patch(s.patch);
      EXPECT_TRUE(p) << p.error().message;
      if (p) f.hunks = std::move(p->hunks);
    }
    c.files.push_back(std::move(f));
  }
  return c;
}

std::string join(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

FileReader reader(std::map<std::string, std::string> files) {
  return [files = std::move(files)](const std::string& path) -> std::optional<std::string> {
    auto it = files.find(path);
    if (it == files.end()) return std::nullopt;
    return it->second;
  };
}

std::vector<std::string> details(const CodeFacts& f, const std::string& kind, bool added = true) {
  std::vector<std::string> out;
  for (const auto& s : f.signals)
    if (s.kind == kind && s.added == added) out.push_back(s.detail);
  return out;
}

bool has(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

const Definition* find_def(const CodeFacts& f, const std::string& name) {
  for (const auto& d : f.definitions)
    if (d.name == name) return &d;
  return nullptr;
}

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

// ------------------------------------------------------------------ signals

TEST(Signals, PythonGuardsRaisesAndEarlyReturns) {
  const std::string patch = H(
      1, 1,
      {" def check(x, ok):", "+    if x is None:", "+        raise ValueError(\"x is required\")",
       "+    if not ok:", "+        return None",
       "     if x < 0:", "+        raise RuntimeError(\"neg\")", "+    raise NotImplementedError"});
  auto facts = analyze_code(make_change({{"c.py", patch}}), nullptr);
  const auto guards = details(facts, "guard");
  EXPECT_TRUE(has(guards, "if x is None: raise ValueError(\"x is required\")"));
  EXPECT_TRUE(has(guards, "if x < 0: raise RuntimeError(\"neg\")"));  // `if` is context
  EXPECT_TRUE(has(details(facts, "early_return"), "if not ok: return None"));
  // A raise under a guard is the guard; the bare one is a raise.
  const auto raises = details(facts, "raise");
  EXPECT_EQ(raises.size(), 1u);
  EXPECT_TRUE(has(raises, "NotImplementedError"));
  for (const auto& s : facts.signals) EXPECT_EQ(s.at.symbol, "check") << s.kind;
}

TEST(Signals, PythonAssertTryExceptAndFallback) {
  const std::string patch =
      H(1, 1,
        {"+try:", "+    from flash_attn import flash_fn",
         "+except ImportError:", "+    logger.warning(\"no flash\")",
         "+    flash_fn = naive_attention", "+try:", "+    run()",
         "+except (OSError, ValueError) as e:", "+    raise RuntimeError(str(e))",
         "+assert n > 0, \"n must be positive\""});
  auto facts = analyze_code(make_change({{"att.py", patch}}), nullptr);
  const auto tries = details(facts, "try");
  EXPECT_TRUE(has(tries, "except ImportError"));
  EXPECT_TRUE(has(tries, "except (OSError, ValueError) as e"));
  // A handler that goes on with other code is a handled exception, not a
  // checked fallback: nothing says the other code is what ran before.
  const auto handlers = details(facts, "handler");
  ASSERT_EQ(handlers.size(), 1u);
  EXPECT_EQ(handlers[0], "except ImportError: flash_fn = naive_attention");
  EXPECT_TRUE(details(facts, "fallback").empty());
  EXPECT_TRUE(has(details(facts, "assert"), "assert n > 0, \"n must be positive\""));
}

TEST(Signals, ElseAfterCapabilityCheckIsAMentionUnlessItKeepsTheOldCode) {
  // The `if` is old and the `else` gets new code: a mention, not a checked fallback.
  const std::string patch =
      H(3, 3,
        {"     if _is_hip:", "         impl = rocm_impl", "-    else:", "-        impl = None",
         "+    else:", "+        impl = triton_impl", "+    if mode == \"fast\":", "+        x = 1",
         "+    else:", "+        x = 2"},
        "def pick():");
  auto facts = analyze_code(make_change({{"p.py", patch}}), nullptr);
  EXPECT_TRUE(details(facts, "fallback").empty());
  const auto mentions = details(facts, "fallback_mention");
  ASSERT_EQ(mentions.size(), 1u);
  EXPECT_EQ(mentions[0], "else of if _is_hip:");
  const auto fb = std::find_if(facts.signals.begin(), facts.signals.end(),
                               [](const Signal& s) { return s.kind == "fallback_mention"; });
  EXPECT_EQ(fb->at.line, 5);
  EXPECT_EQ(fb->at.symbol, "pick");

  // A new capability check whose `else` keeps the removed lines: the new path
  // is added beside the old one. The detail is the condition.
  const std::string kept = H(
      3, 3,
      {"-    impl = triton_impl(x)", "-    impl.warm()",
       "+    if _is_hip and aiter_available():", "+        impl = aiter_impl(x)",
       "+    else:", "+        impl = triton_impl(x)", "+        impl.warm()", "     return impl"},
      "def pick(x):");
  auto checked = analyze_code(make_change({{"p.py", kept}}), nullptr);
  const auto fallbacks = details(checked, "fallback");
  ASSERT_EQ(fallbacks.size(), 1u);
  EXPECT_EQ(fallbacks[0], "_is_hip and aiter_available()");
}

TEST(Signals, CppChecksGuardsAndPreprocessor) {
  const std::string patch =
      H(10, 10,
        {" void run(const at::Tensor& x, int n) {",
         "+  TORCH_CHECK(x.is_cuda(), \"x must be on CUDA\");", "+  if (n == 0) { return; }",
         "+  if (!ok)", "+    throw std::runtime_error(\"bad\");",
         "+#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900",
         "+  static_assert(sizeof(T) == 2, \"half only\");", "+#endif", "+  try {", "+    go();",
         "+  } catch (const std::exception& e) {", "+    use_slow_path();", "+  }"});
  auto facts = analyze_code(make_change({{"csrc/run.cu", patch}}), nullptr);
  const auto asserts = details(facts, "assert");
  EXPECT_TRUE(has(asserts, "TORCH_CHECK(x.is_cuda(), \"x must be on CUDA\")"));
  EXPECT_EQ(asserts.size(), 2u);
  EXPECT_TRUE(has(details(facts, "early_return"), "if n == 0: return;"));
  EXPECT_TRUE(has(details(facts, "guard"), "if !ok: throw std::runtime_error(\"bad\");"));
  EXPECT_TRUE(
      has(details(facts, "preprocessor"), "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900"));
  EXPECT_TRUE(has(details(facts, "device_branch"), "__CUDA_ARCH__ >= 900"));
  EXPECT_TRUE(has(details(facts, "try"), "catch (const std::exception& e)"));
  EXPECT_TRUE(has(details(facts, "handler"), "catch (const std::exception& e): use_slow_path();"));
  for (const auto& s : facts.signals) EXPECT_EQ(s.at.symbol, "run") << s.kind;
}

TEST(Signals, RustAndGoGuards) {
  const std::string rs =
      H(1, 1,
        {" fn load(p: &Path) -> Result<Data> {", "+    if p.as_os_str().is_empty() {",
         "+        return Err(Error::Empty);", "+    }",
         "+    let d = read(p).unwrap_or_else(|_| panic!(\"unreadable\"));",
         "+    assert!(d.len() > 0);"});
  const std::string go =
      H(1, 1,
        {" func (s *Server) Start() error {", "+\tconn, err := dial(s.addr)", "+\tif err != nil {",
         "+\t\treturn fmt.Errorf(\"dial: %w\", err)", "+\t}", "+\tif conn == nil { return nil }"});
  auto facts = analyze_code(make_change({{"src/load.rs", rs}, {"srv.go", go}}), nullptr);
  const auto guards = details(facts, "guard");
  EXPECT_TRUE(has(guards, "if p.as_os_str().is_empty(): return Err(Error::Empty);"));
  EXPECT_TRUE(has(guards, "if err != nil: return fmt.Errorf(\"dial: %w\", err)"));
  EXPECT_TRUE(has(details(facts, "early_return"), "if conn == nil: return nil"));
  EXPECT_TRUE(has(details(facts, "assert"), "assert!(d.len() > 0)"));
}

TEST(Signals, EnvironmentVariablesAcrossLanguages) {
  const std::string py =
      H(1, 1,
        {"+a = os.environ.get(\"SGLANG_FOO\", \"0\")", "+b = os.getenv('HF_TOKEN')",
         "+c = get_bool_env_var(\"SGLANG_ENABLE_X\")", "+if envs.SGLANG_USE_Y.get():", "+    pass",
         "+d = \"VLLM_Z\" in os.environ", "+os.environ[\"CUDA_VISIBLE_DEVICES\"] = \"0\"",
         "+print(\"SGLANG_NOT_AN_ENV\")", "-e = os.getenv(\"LUMEN_OLD\")"});
  const std::string env_defs = H(1, 1, {"+    SGLANG_NEW_FLAG = EnvBool(False)"}, "class Envs:");
  const std::string cc = H(1, 1, {"+  const char* d = std::getenv(\"NCCL_DEBUG\");"});
  const std::string rs = H(1, 1, {"+    let v = std::env::var(\"LUMEN_THREADS\").ok();"});
  const std::string go = H(1, 1, {"+\tdev := os.Getenv(\"CUDA_DEVICE_ORDER\")"});
  const std::string js = H(1, 1, {"+const mode = process.env.NODE_ENV;"});
  auto facts = analyze_code(make_change({{"cfg.py", py},
                                         {"environ.py", env_defs},
                                         {"c.cc", cc},
                                         {"src/m.rs", rs},
                                         {"m.go", go},
                                         {"app.js", js}}),
                            nullptr);
  const auto env = details(facts, "env_var");
  for (const char* name : {"SGLANG_FOO", "HF_TOKEN", "SGLANG_ENABLE_X", "SGLANG_USE_Y", "VLLM_Z",
                           "CUDA_VISIBLE_DEVICES", "SGLANG_NEW_FLAG", "NCCL_DEBUG", "LUMEN_THREADS",
                           "CUDA_DEVICE_ORDER", "NODE_ENV"})
    EXPECT_TRUE(has(env, name)) << name;
  EXPECT_FALSE(has(env, "SGLANG_NOT_AN_ENV"));
  EXPECT_TRUE(has(details(facts, "env_var", false), "LUMEN_OLD"));
  EXPECT_EQ(env.size(), 11u);
}

TEST(Signals, CliAndConfigFlagsAcrossLanguages) {
  const std::string py =
      H(1, 1,
        {"+    parser.add_argument(\"-t\", \"--tp-size\", type=int)",
         "+    parser.add_argument_group(\"x\")", "+@click.option(\"--dry-run\", is_flag=True)"});
  const std::string multi = H(9, 9,
                              {"     parser.add_argument(", "+        \"--enable-fp8\",",
                               "         action=\"store_true\","});
  const std::string args = H(20, 20,
                             {"     tp_size: int = 1", "+    enable_mixed_chunk: bool = False",
                              "+    lora_paths: Optional[List[str]] = None"},
                             "class ServerArgs:");
  const std::string vllm =
      H(5, 5, {"+    max_loras: int = field(default=1, metadata={\"help\": \"n\"})"},
        "class LoRAConfig:");
  const std::string cc = H(1, 1, {"+DEFINE_bool(use_cache, true, \"cache\");"});
  const std::string rs =
      H(1, 1,
        {"+    #[arg(long, default_value_t = 8)]", "+    pub num_workers: usize,",
         "+    #[arg(long = \"model-path\")]", "+    model: String,"});
  const std::string go = H(1, 1, {"+\tport := flag.Int(\"port\", 8080, \"listen port\")"});
  auto facts = analyze_code(make_change({{"launch.py", py},
                                         {"cli.py", multi},
                                         {"server_args.py", args},
                                         {"config.py", vllm},
                                         {"flags.cc", cc},
                                         {"src/cli.rs", rs},
                                         {"main.go", go}}),
                            nullptr);
  const auto flags = details(facts, "cli_flag");
  for (const char* f :
       {"--tp-size", "--dry-run", "--enable-fp8", "--enable-mixed-chunk", "--lora-paths",
        "max_loras", "--use_cache", "--num-workers", "--model-path", "-port"})
    EXPECT_TRUE(has(flags, f)) << f;
  EXPECT_FALSE(has(flags, "--tp-size-x"));
  EXPECT_EQ(flags.size(), 10u);
}

TEST(Signals, DtypeBranchesNeedACondition) {
  const std::string patch =
      H(1, 1,
        {"+    if dtype == torch.float8_e4m3fn:", "+        scale = 448.0",
         "+    x = x.to(torch.bfloat16)", "+    if self.use_fp8_w8a8:", "+        pass",
         "+    out = a if is_fp8 else b"});
  const std::string cc = H(1, 1,
                           {"+  AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), \"k\", [&] {",
                            "+    __half h = 0;", "+  });"});
  auto facts = analyze_code(make_change({{"q.py", patch}, {"k.cu", cc}}), nullptr);
  const auto d = details(facts, "dtype_branch");
  EXPECT_TRUE(has(d, "torch.float8_e4m3fn"));
  EXPECT_TRUE(has(d, "use_fp8_w8a8"));
  EXPECT_TRUE(has(d, "is_fp8"));
  EXPECT_TRUE(has(d, "AT_DISPATCH_FLOATING_TYPES"));
  EXPECT_FALSE(has(d, "torch.bfloat16"));  // a cast, not a branch
  EXPECT_FALSE(has(d, "__half"));
}

TEST(Signals, ADtypeCheckThatOnlyRaisesOrAValueATernaryPicksIsNoBranch) {
  const std::string patch =
      H(1, 1,
        {"+    if x.dtype != torch.int8:", "+        raise ValueError(\"int8 only\")",
         "+    w1 = layer.fused_w1 if fused_scale_flag else layer.w13_scale_fp32_list",
         "+    use_fp8 = x.dtype == torch.float8_e4m3fn"});
  auto facts = analyze_code(make_change({{"q.py", patch}}), nullptr);
  EXPECT_TRUE(details(facts, "dtype_branch").empty())
      << ::testing::PrintToString(details(facts, "dtype_branch"));
  EXPECT_TRUE(
      has(details(facts, "guard"), "if x.dtype != torch.int8: raise ValueError(\"int8 only\")"));
}

TEST(Signals, AConditionOverSeveralLinesAndAnOpenCallReadWhole) {
  const std::string patch =
      H(1, 1,
        {"     def handle(self, req):", "+        if (", "+            req.layer is None",
         "+            and req.chunk is None", "+        ):", "+            raise RuntimeError(",
         "+                \"no layer\"", "+            )", "         return req"});
  auto facts = analyze_code(make_change({{"h.py", patch}}), nullptr);
  const auto g = details(facts, "guard");
  ASSERT_EQ(g.size(), 1u);
  EXPECT_EQ(g[0], "if req.layer is None and req.chunk is None: raise RuntimeError(...)");
}

TEST(Signals, DeviceAndPlatformBranches) {
  const std::string patch = H(
      1, 1,
      {"+if _is_hip:", "+    pass", "+if torch.cuda.get_device_capability()[0] >= 9:", "+    pass",
       "+if sys.platform == \"win32\":", "+    pass", "+t = torch.empty(4, device=\"cuda\")",
       "+elif device.type == \"xpu\":", "+    pass"});
  const std::string rs = H(1, 1, {"+    if cfg!(target_os = \"linux\") {", "+    }"});
  auto facts = analyze_code(make_change({{"d.py", patch}, {"src/p.rs", rs}}), nullptr);
  const auto dev = details(facts, "device_branch");
  EXPECT_TRUE(has(dev, "_is_hip"));
  EXPECT_TRUE(has(dev, "get_device_capability"));
  EXPECT_TRUE(has(dev, "device.type == \"xpu\""));
  EXPECT_EQ(dev.size(), 3u);  // the device= keyword argument is not a branch
  const auto plat = details(facts, "platform_branch");
  EXPECT_TRUE(has(plat, "sys.platform"));
  EXPECT_TRUE(has(plat, "cfg!(target_os = \"linux\")"));
}

TEST(Signals, ConcurrencyPrimitives) {
  const std::string py = H(1, 1,
                           {"+        self._lock = threading.Lock()", "+        with self._lock:",
                            "+            torch.cuda.synchronize()", "+        total = a + b"});
  const std::string cu = H(1, 1,
                           {"+  __shared__ float buf[32];", "+  __syncthreads();",
                            "+  std::lock_guard<std::mutex> g(mu_);", "+  atomicAdd(&out[0], v);"});
  auto facts = analyze_code(make_change({{"w.py", py}, {"k.cu", cu}}), nullptr);
  const auto c = details(facts, "concurrency");
  for (const char* x : {"threading.Lock", "with self._lock", "torch.cuda.synchronize",
                        "__syncthreads", "std::lock_guard", "atomicAdd"})
    EXPECT_TRUE(has(c, x)) << x;
  EXPECT_EQ(c.size(), 6u);
}

TEST(Signals, TodosOnlyInAddedComments) {
  const std::string patch =
      H(1, 1,
        {"-# TODO: old note", "+# TODO(alice): drop after v0.5", "+x = \"XXX\"  # placeholder",
         "+// FIXME not python but fine", "+y = 1  # HACK work around NCCL hang"});
  auto facts = analyze_code(make_change({{"t.py", patch}}), nullptr);
  const auto todos = details(facts, "todo");
  EXPECT_TRUE(has(todos, "TODO(alice): drop after v0.5"));
  EXPECT_TRUE(has(todos, "HACK: work around NCCL hang"));
  EXPECT_EQ(todos.size(), 2u);
  EXPECT_TRUE(details(facts, "todo", false).empty());
}

TEST(Signals, NumericConstantsPairedBySkeleton) {
  const std::string patch =
      H(1, 1,
        {"-BLOCK_SIZE = 128", "-    kernel[grid](x, num_warps=4, num_stages=2)", "-timeout = 30",
         "+BLOCK_SIZE = 256", "+    kernel[grid](x, num_warps=8, num_stages=2)", "+retries = 3",
         "+eps = 1e-6"});
  auto facts = analyze_code(make_change({{"cfg.py", patch}}), nullptr);
  const auto n = details(facts, "numeric_constant");
  EXPECT_TRUE(has(n, "BLOCK_SIZE: 128 \xE2\x86\x92 256"));
  EXPECT_TRUE(has(n, "num_warps: 4 \xE2\x86\x92 8"));
  EXPECT_EQ(n.size(), 2u);  // timeout/retries differ in more than numbers
  const auto it = std::find_if(facts.signals.begin(), facts.signals.end(), [](const Signal& s) {
    return s.kind == "numeric_constant" && s.detail.starts_with("BLOCK");
  });
  EXPECT_EQ(it->at.line, 1);
}

TEST(Signals, NamesAddedToAllArePublicApiOutsideTests) {
  const std::vector<std::string> content = {
      "from .a import alpha, beta",  // 1
      "",                            // 2
      "__all__ = [",                 // 3
      "    \"alpha\",",              // 4
      "    \"beta\",",               // 5
      "]",                           // 6
  };
  const std::string patch = H(4, 4, {"     \"alpha\",", "+    \"beta\",", " ]"});
  auto facts = analyze_code(
      make_change({{"pkg/__init__.py", patch}, {"tests/test_x.py", patch}}),
      reader({{"pkg/__init__.py", join(content)}, {"tests/test_x.py", join(content)}}));
  const auto api = details(facts, "public_api");
  ASSERT_EQ(api.size(), 1u);
  EXPECT_EQ(api[0], "beta");
  // Without content the hunk header names the list.
  auto again = analyze_code(
      make_change({{"pkg/__init__.py", H(4, 4, {"+    \"gamma\","}, "__all__ = [")}}), nullptr);
  EXPECT_TRUE(has(details(again, "public_api"), "gamma"));
}

TEST(Signals, DocstringsAndStringsAreNotConditions) {
  const std::string patch =
      H(1, 1,
        {" def quantize(w):", "+    \"\"\"Quantize to fp8 and return the scale.", "+",
         "+    Works for bf16 or fp16 weights, not int8.", "+    \"\"\"",
         "+    warnings.warn(\"fp8 and int4 are experimental\")",
         "+    if w.dtype == torch.bfloat16:", "+        w = w.float()"});
  auto facts = analyze_code(make_change({{"q.py", patch}}), nullptr);
  const auto d = details(facts, "dtype_branch");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0], "torch.bfloat16");
  EXPECT_EQ(facts.signals[0].at.line, 7);
}

TEST(Signals, ConfigFieldsOnlyInArgsClasses) {
  const std::string topk = H(10, 10, {"     top_k: int", "+    renormalize: bool = True"},
                             "class TopKConfig(NamedTuple):");
  auto facts = analyze_code(make_change({{"layers/topk.py", topk}}), nullptr);
  EXPECT_TRUE(details(facts, "cli_flag").empty());
}

TEST(Signals, JavaScriptGuardsAndCatchFallback) {
  const std::string patch =
      H(1, 1,
        {" export async function load(id) {", "+  if (!id) throw new Error(\"id\");", "+  try {",
         "+    return await fetchItem(id);", "+  } catch (err) {", "+    return cachedItem(id);",
         "+  }"});
  auto facts = analyze_code(make_change({{"web/load.ts", patch}}), nullptr);
  EXPECT_TRUE(has(details(facts, "guard"), "if !id: throw new Error(\"id\");"));
  EXPECT_TRUE(has(details(facts, "try"), "catch (err)"));
  EXPECT_TRUE(has(details(facts, "handler"), "catch (err): return cachedItem(id);"));
  EXPECT_TRUE(details(facts, "raise").empty());  // the throw is the guard's body
  for (const auto& s : facts.signals) EXPECT_EQ(s.at.symbol, "load") << s.kind;
}

// ------------------------------------------------------------------ moved code and robustness

TEST(MovedCode, LinesMovedAcrossFilesButNotReindentedInPlace) {
  const std::vector<std::string> body = {"def moved(a, b):", "    total = a + b",
                                         "    total *= scale_factor", "    return total"};
  std::vector<std::string> removed, added, reindent;
  for (const auto& l : body) removed.push_back("-" + l), added.push_back("+" + l);
  // An in-place wrap: other lines, re-indented, inside one hunk.
  const std::vector<std::string> wrapped = {
      "items = load_items(path)", "for item in items:", "    process(item)", "report(items)"};
  for (const auto& l : wrapped) reindent.push_back("-" + l);
  reindent.push_back("+with timer():");
  for (const auto& l : wrapped) reindent.push_back("+    " + l);
  const std::vector<std::string> small = {"-x = compute_one()", "+x = compute_two()"};
  auto facts = analyze_code(make_change({{"old.py", H(10, 9, removed)},
                                         {"new.py", H(1, 1, added)},
                                         {"wrap.py", H(1, 1, reindent)},
                                         {"small.py", H(3, 3, small)}}),
                            nullptr);
  ASSERT_EQ(facts.hunks.size(), 4u);
  EXPECT_TRUE(facts.hunks[0].moved);
  EXPECT_TRUE(facts.hunks[1].moved);
  EXPECT_FALSE(facts.hunks[2].moved);
  EXPECT_FALSE(facts.hunks[3].moved);
  // A move is not dead code: the definition is added again.
  EXPECT_TRUE(details(facts, "dead_code_removed", false).empty());
}

TEST(Robustness, CrlfNoNewlineAtEndAndInvalidUtf8) {
  const std::string patch =
      "@@ -1,2 +1,3 @@ def f():\r\n"
      "     x = 1\r\n"
      "-    return x\r\n"
      "\\ No newline at end of file\r\n"
      "+    y = os.getenv(\"SGLANG_CRLF\")\r\n"
      "+    return caf\xe9 + \"\xff\xfe\"  # TODO: fix \xc3\r\n"
      "\\ No newline at end of file\r\n";
  const std::string content =
      "def f():\r\n    x = 1\r\n    y = os.getenv(\"SGLANG_CRLF\")\r\n"
      "    return caf\xe9 + \"\xff\xfe\"  # TODO: fix \xc3";
  auto facts = analyze_code(make_change({{"f.py", patch}}), reader({{"f.py", content}}));
  ASSERT_EQ(facts.hunks.size(), 1u);
  EXPECT_EQ(facts.hunks[0].symbol, "f");
  EXPECT_EQ(facts.hunks[0].added, 2);
  EXPECT_EQ(facts.hunks[0].removed, 1);
  EXPECT_TRUE(has(details(facts, "env_var"), "SGLANG_CRLF"));
  const auto todos = details(facts, "todo");
  ASSERT_EQ(todos.size(), 1u);
  EXPECT_EQ(todos[0].find('\r'), std::string::npos);
  EXPECT_EQ(todos[0], "TODO: fix");  // a dangling UTF-8 lead byte is dropped
}

TEST(Robustness, BinaryRenamedAndThrowingReader) {
  const std::string patch =
      H(3, 3, {"     def run(self):", "-        pass", "+        return 1"}, "class A:");
  Change change =
      make_change({{"img/logo.png", "", FileStatus::kModified, "", true},
                   {"pkg/new_name.py", patch, FileStatus::kRenamed, "pkg/old_name.py"}});
  std::vector<std::string> asked;
  FileReader throwing = [&](const std::string& path) -> std::optional<std::string> {
    asked.push_back(path);
    throw std::runtime_error("blob missing");
  };
  auto facts = analyze_code(change, throwing);
  EXPECT_EQ(facts.languages.at("img/logo.png"), Language::kUnknown);
  ASSERT_EQ(facts.hunks.size(), 1u);  // the binary file has none
  EXPECT_EQ(facts.hunks[0].file, 1u);
  EXPECT_EQ(facts.hunks[0].symbol, "A.run");  // from the hunk itself
  EXPECT_TRUE(has(asked, "pkg/new_name.py"));
  EXPECT_FALSE(has(asked, "img/logo.png"));
}

TEST(Robustness, AddedScriptWithoutExtensionUsesItsShebang) {
  const std::string patch =
      H(0, 1,
        {"+#!/usr/bin/env python3", "+import os", "+level = os.environ.get(\"TOOL_LOG_LEVEL\")"});
  auto facts = analyze_code(make_change({{"bin/tool", patch, FileStatus::kAdded}}),
                            reader({{"bin/tool", "unused"}}));
  EXPECT_EQ(facts.languages.at("bin/tool"), Language::kPython);
  EXPECT_TRUE(has(details(facts, "env_var"), "TOOL_LOG_LEVEL"));
}

TEST(Robustness, PureDeletionPositionAndSpan) {
  const std::string patch =
      H(40, 39, {"-    a = 1", "-    b = 2"}) +
      H(60, 58, {"     keep()", "+    one()", "-    two()", "+    three()", "     end()"});
  auto facts = analyze_code(make_change({{"s.py", patch}}), nullptr);
  ASSERT_EQ(facts.hunks.size(), 2u);
  EXPECT_EQ(facts.hunks[0].new_start, 40);  // where the lines used to be: after line 39
  EXPECT_EQ(facts.hunks[0].new_end, 40);
  EXPECT_EQ(facts.hunks[0].added, 0);
  EXPECT_EQ(facts.hunks[1].new_start, 59);
  EXPECT_EQ(facts.hunks[1].new_end, 60);
}

TEST(Robustness, LargeGeneratedFileStaysFastAndCapped) {
  std::vector<std::string> lines;
  std::string content;
  for (int i = 0; i < 50000; ++i) {
    const std::string l =
        fmt::format("    v{} = os.getenv(\"GEN_VAR_{}\") if is_hip() else {}", i, i, i);
    lines.push_back("+" + l);
    content += l + "\n";
  }
  const auto start = std::chrono::steady_clock::now();
  auto facts = analyze_code(make_change({{"gen/big_table.py", H(0, 1, lines), FileStatus::kAdded}}),
                            reader({{"gen/big_table.py", content}}));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(facts.hunks.size(), 1u);
  EXPECT_EQ(facts.hunks[0].added, 50000);
  EXPECT_LE(facts.signals.size(), 400u);
  EXPECT_GT(facts.signals.size(), 100u);
  EXPECT_LT(seconds, 3.0);
}

}  // namespace
}  // namespace mergelens
