// Tests for globs, file roles, repository configuration (mergelens.toml,
// .github/labeler.yml) and tags.

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "mergelens/analysis/code/roles.h"
#include "mergelens/analysis/glob.h"
#include "mergelens/analysis/judgment/tags.h"
#include "mergelens/analysis/repo_config.h"

namespace mergelens {
namespace {

Glob glob(std::string_view pattern) {
  auto g = Glob::compile(pattern);
  EXPECT_TRUE(g.has_value()) << pattern << ": " << (g ? "" : g.error().message);
  return g ? *g : Glob();
}

// ------------------------------------------------------------------ globs --

TEST(Glob, StarStaysInsideOneSegment) {
  const Glob g = glob("src/*.py");
  EXPECT_TRUE(g.matches("src/a.py"));
  EXPECT_TRUE(g.matches("src/.hidden.py"));
  EXPECT_FALSE(g.matches("src/sub/a.py"));
  EXPECT_FALSE(g.matches("src/a.pyc"));
  EXPECT_FALSE(glob("a*b").matches("a/b"));
  EXPECT_TRUE(glob("a*b").matches("ab"));
}

TEST(Glob, GlobstarAtStartMiddleAndEnd) {
  const Glob start = glob("**/CMakeLists.txt");
  EXPECT_TRUE(start.matches("CMakeLists.txt"));  // zero folders
  EXPECT_TRUE(start.matches("a/b/CMakeLists.txt"));
  EXPECT_FALSE(start.matches("a/xCMakeLists.txt"));

  const Glob middle = glob("a/**/b");
  EXPECT_TRUE(middle.matches("a/b"));
  EXPECT_TRUE(middle.matches("a/x/y/b"));
  EXPECT_FALSE(middle.matches("a/xb"));
  EXPECT_FALSE(middle.matches("a/b/c"));
  EXPECT_TRUE(glob("a/**/b/**/c").matches("a/x/b/y/z/c"));

  const Glob end = glob("docs/**");
  EXPECT_TRUE(end.matches("docs/a.md"));
  EXPECT_TRUE(end.matches("docs/x/y/z.png"));
  EXPECT_FALSE(end.matches("docs"));  // minimatch: "a/**" does not match "a"
  EXPECT_FALSE(end.matches("docsx/a.md"));

  const Glob all_under = glob("sgl-model-gateway/**/*");
  EXPECT_TRUE(all_under.matches("sgl-model-gateway/Cargo.toml"));
  EXPECT_TRUE(all_under.matches("sgl-model-gateway/src/a/b.rs"));
  EXPECT_FALSE(all_under.matches("sgl-model-gateway"));

  EXPECT_TRUE(glob("**").matches("any/thing/at/all"));
  EXPECT_TRUE(glob("a**b").matches("axxb"));  // "**" inside a segment is a plain star
  EXPECT_FALSE(glob("a**b").matches("ax/xb"));
}

TEST(Glob, PatternWithoutSlashMatchesWholePathNotBasename) {
  EXPECT_TRUE(glob("*.md").matches("README.md"));
  EXPECT_FALSE(glob("*.md").matches("docs/README.md"));
  EXPECT_TRUE(glob("README*").matches("README.rst"));
  EXPECT_FALSE(glob("README*").matches("python/README.md"));
}

TEST(Glob, BracesAndSequences) {
  const Glob g = glob("{src,lib}/**/*.{cc,h}");
  EXPECT_TRUE(g.matches("src/a.cc"));
  EXPECT_TRUE(g.matches("lib/x/y.h"));
  EXPECT_FALSE(g.matches("src/a.py"));
  EXPECT_FALSE(g.matches("test/a.cc"));
  EXPECT_TRUE(glob("a{b,{c,d}e}f").matches("adef"));
  EXPECT_TRUE(glob("v{1..3}.txt").matches("v2.txt"));
  EXPECT_FALSE(glob("v{1..3}.txt").matches("v4.txt"));
  EXPECT_TRUE(glob("f{01..10}").matches("f07"));
  EXPECT_TRUE(glob("{a..c}x").matches("bx"));
  EXPECT_TRUE(glob("a{b}c").matches("a{b}c"));  // not a set: literal, as brace-expansion does
  EXPECT_TRUE(glob("x{,.bak}").matches("x"));
  EXPECT_TRUE(glob("x{,.bak}").matches("x.bak"));
}

TEST(Glob, DotfilesMatchLikeDotTrue) {
  EXPECT_TRUE(glob("*").matches(".gitignore"));
  EXPECT_TRUE(glob("**/*.yml").matches(".github/workflows/ci.yml"));
  EXPECT_TRUE(glob("**/*").matches(".pre-commit-config.yaml"));
  EXPECT_TRUE(glob("?git*").matches(".gitmodules"));
}

TEST(Glob, NegativeExtglob) {
  const Glob dir = glob("python/sglang/kernels/!(aot)/**/*");
  EXPECT_FALSE(dir.matches("python/sglang/kernels/aot/x.py"));
  EXPECT_FALSE(dir.matches("python/sglang/kernels/aot/csrc/a/b.cu"));
  EXPECT_TRUE(dir.matches("python/sglang/kernels/jit/x.py"));
  EXPECT_TRUE(dir.matches("python/sglang/kernels/aotx/x.py"));  // only the whole segment "aot"
  EXPECT_FALSE(dir.matches("python/sglang/kernels/x.py"));      // needs a folder

  const Glob file = glob("python/sglang/kernels/!(*.md)");
  EXPECT_TRUE(file.matches("python/sglang/kernels/x.py"));
  EXPECT_FALSE(file.matches("python/sglang/kernels/README.md"));
  EXPECT_FALSE(file.matches("python/sglang/kernels/jit/x.py"));

  // The negated part sees the rest of the segment (minimatch semantics).
  const Glob tail = glob("x!(a)b");
  EXPECT_FALSE(tail.matches("xab"));
  EXPECT_TRUE(tail.matches("xb"));
  EXPECT_TRUE(tail.matches("xcb"));
  EXPECT_TRUE(tail.matches("xaab"));
  EXPECT_TRUE(glob("!(a|b)").matches("c"));  // leading '!' is negation of "(a|b)"
}

TEST(Glob, PositiveExtglobs) {
  EXPECT_TRUE(glob("@(a|b).py").matches("b.py"));
  EXPECT_FALSE(glob("@(a|b).py").matches("ab.py"));
  EXPECT_TRUE(glob("x?(y).c").matches("x.c"));
  EXPECT_TRUE(glob("x?(y).c").matches("xy.c"));
  EXPECT_FALSE(glob("x?(y).c").matches("xyy.c"));
  EXPECT_TRUE(glob("+(ab)c").matches("ababc"));
  EXPECT_FALSE(glob("+(ab)c").matches("c"));
  EXPECT_TRUE(glob("*(ab)c").matches("c"));
  EXPECT_FALSE(glob("*(ab)c").matches("abac"));
  EXPECT_TRUE(glob("test_@(foo|bar*).py").matches("test_barbaz.py"));
  EXPECT_TRUE(glob("a/@(b|c)/**").matches("a/c/d"));
}

TEST(Glob, CharacterClasses) {
  EXPECT_TRUE(glob("[abc].txt").matches("b.txt"));
  EXPECT_FALSE(glob("[abc].txt").matches("d.txt"));
  EXPECT_TRUE(glob("[!a-c]x").matches("dx"));
  EXPECT_FALSE(glob("[!a-c]x").matches("bx"));
  EXPECT_TRUE(glob("[^a]x").matches("zx"));
  EXPECT_TRUE(glob("v[[:digit:]]").matches("v7"));
  EXPECT_FALSE(glob("v[[:digit:]]").matches("vx"));
  EXPECT_TRUE(glob("[]]").matches("]"));
  EXPECT_FALSE(glob("a[!x]b").matches("a/b"));  // never crosses '/'
}

TEST(Glob, NegationCommentEscapesAndUtf8) {
  const Glob neg = glob("!docs/**");
  EXPECT_TRUE(neg.negated());
  EXPECT_FALSE(neg.matches("docs/a.md"));
  EXPECT_TRUE(neg.matches("src/a.py"));
  EXPECT_TRUE(glob("!!a").matches("a"));              // double negation
  EXPECT_FALSE(glob("#docs/**").matches("#docs/a"));  // a comment matches nothing
  EXPECT_TRUE(glob("a\\*b").matches("a*b"));
  EXPECT_FALSE(glob("a\\*b").matches("axb"));
  EXPECT_TRUE(glob("caf?.md").matches("caf\xC3\xA9.md"));  // '?' is one code point
  EXPECT_TRUE(glob("/docs/*.md").matches("docs/a.md"));    // leading '/' and './' dropped
  EXPECT_TRUE(glob("./docs/*.md").matches("./docs/a.md"));
  EXPECT_FALSE(Glob().matches("anything"));
}

TEST(Glob, MalformedPatternsAreErrorsNamingThePattern) {
  for (const char* bad :
       {"", "a[bc", "@(a|b", "x/+(a/b)", "{a,b", "a\\", "[z-a]", "[[:nope:]]", "!", "v{1..5000}"}) {
    auto g = Glob::compile(bad);
    ASSERT_FALSE(g.has_value()) << bad;
    EXPECT_EQ(g.error().kind, ErrorKind::kInvalidInput);
    EXPECT_NE(g.error().message.find(std::string("'") + bad + "'"), std::string::npos)
        << g.error().message;
  }
}

TEST(Glob, PathologicalPatternsStayFast) {
  const Glob g = glob("**/*a*a*a*a*a*a*a*a*b/**/*c*c*c*d");
  const std::string seg(60, 'a');
  std::string path;
  for (int i = 0; i < 12; ++i) path += seg + "/";
  path += "ccccccccccccccccccccccccccccccccccccccccc";
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_FALSE(g.matches(path));
  EXPECT_FALSE(glob("+(a|aa|aaa)b").matches(std::string(40, 'a')));
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(2));
}

// Nested extglobs made the backtracking matcher take minutes for one path
// (issue 34); the automaton's work is states × length whatever the pattern.
TEST(Glob, NestedExtglobsMatchInLinearTime) {
  const std::string seg(200, 'Q');
  for (const char* p : {"*(*(*(*(?))))[Q]*", "*(*(*(*(?))))x", "+(+(+(a|aa)))b", "*(!(*(a)))b",
                        "@(*|*)*(*|*)*(*|*)*(*|*)x", "!(!(!(!(*a*))))z"}) {
    const Glob g = glob(p);
    ASSERT_FALSE(g.pattern().empty()) << p;
    for (const std::string& path : {seg, "d/" + seg, std::string(4000, 'a')}) g.matches(path);
  }
  EXPECT_TRUE(glob("*(*(*(*(?))))[Q]*").matches("QQQ"));
  EXPECT_FALSE(glob("*(*(*(*(?))))x").matches(seg));
  EXPECT_TRUE(glob("*(*(*(*(?))))x").matches(seg + "x"));
  // Many globstars: segments × parts, not a search over every split.
  std::string deep;
  for (int i = 0; i < 200; ++i) deep += "x/";
  EXPECT_FALSE(glob("**/x/**/x/**/x/**/x/**/x/**/x/**/y").matches(deep + "z"));
  EXPECT_TRUE(glob("**/x/**/x/**/x/**/x/**/x/**/x/**/y").matches(deep + "y"));
}

TEST(Glob, OversizedPatternsAreRefused) {
  std::string nested;
  for (int i = 0; i < 20; ++i) nested += "@(";
  nested += "a";
  for (int i = 0; i < 20; ++i) nested += ")";
  auto deep = Glob::compile(nested);
  ASSERT_FALSE(deep);
  EXPECT_NE(deep.error().message.find("nested"), std::string::npos) << deep.error().message;
  // 1024 alternatives of a ~30-state pattern: more states than one glob may hold.
  auto big = Glob::compile(
      "{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}/*(a|b)*(c|d)*(e|f)*(g|h)???????????");
  ASSERT_FALSE(big);
  EXPECT_NE(big.error().message.find("too complex"), std::string::npos) << big.error().message;
}

TEST(Glob, ExtglobSemanticsKeptByTheAutomaton) {
  EXPECT_TRUE(
      glob("*(a|b)").matches(""
                             "ab"));
  EXPECT_TRUE(glob("a*(b)").matches("a"));
  EXPECT_FALSE(glob("+(a)").matches("b"));
  EXPECT_TRUE(glob("z!(a)").matches("zb"));
  EXPECT_FALSE(glob("z!(a)").matches("za"));
  EXPECT_TRUE(glob("z!(a)").matches("zaa"));
  EXPECT_TRUE(glob("z*(!(a))").matches("zaa"));
  EXPECT_TRUE(glob("d/!(*.py|*.md)").matches("d/x.cc"));
  EXPECT_FALSE(glob("d/!(*.py|*.md)").matches("d/x.md"));
  EXPECT_TRUE(glob("a/!(b)/c").matches("a/x/c"));
  EXPECT_FALSE(glob("a/!(b)/c").matches("a/b/c"));
  EXPECT_TRUE(glob("@(a|b)!(c)").matches("ad"));
  EXPECT_FALSE(glob("@(a|b)!(c)").matches("ac"));
  EXPECT_TRUE(glob("**").matches("a/b"));
  EXPECT_TRUE(glob("a/**/b/**/c").matches("a/b/c"));
  EXPECT_TRUE(glob("a/**/b/**/c").matches("a/x/b/y/z/c"));
  EXPECT_FALSE(glob("a/**/b/**/c").matches("a/x/c"));
  EXPECT_FALSE(glob("a/**").matches("a"));
  EXPECT_TRUE(glob("caf[\xC3\xA9]").matches("caf\xC3\xA9"));
}

// ------------------------------------------------------------------ roles --

const char* role(std::string_view path, const RepoConfig& cfg = {}) {
  return to_string(classify_role(path, cfg));
}

TEST(Roles, SglangLikeLayout) {
  EXPECT_STREQ(role("python/sglang/srt/managers/scheduler.py"), "core");
  EXPECT_STREQ(role("python/sglang/srt/models/deepseek_v2.py"), "model");
  EXPECT_STREQ(role("python/sglang/srt/layers/moe/fused_moe_triton/configs/"
                    "E=64,N=640,device_name=NVIDIA_H100.json"),
               "config");
  EXPECT_STREQ(role("python/sglang/srt/layers/moe/fused_moe_triton/fused_moe.py"), "kernel");
  EXPECT_STREQ(role("python/sglang/srt/layers/attention/triton_backend.py"), "core");
  EXPECT_STREQ(role("python/sglang/srt/layers/attention/triton_ops/decode_attention.py"), "kernel");
  EXPECT_STREQ(role("sgl-kernel/csrc/gemm/fp8_gemm_kernel.cu"), "kernel");
  EXPECT_STREQ(role("sgl-kernel/python/sgl_kernel/gemm.py"), "kernel");
  EXPECT_STREQ(role("sgl-kernel/tests/test_fp8_gemm.py"), "test");
  EXPECT_STREQ(role("sgl-kernel/benchmark/bench_fp8_gemm.py"), "benchmark");
  EXPECT_STREQ(role("sgl-kernel/CMakeLists.txt"), "build");
  EXPECT_STREQ(role("sgl-kernel/3rdparty/cutlass/include/cute/tensor.hpp"), "generated");
  EXPECT_STREQ(role("test/srt/test_eagle_infer.py"), "test");
  EXPECT_STREQ(role("test/README.md"), "docs");
  EXPECT_STREQ(role("python/sglang/bench_serving.py"), "benchmark");
  EXPECT_STREQ(role("docs/advanced_features/server_arguments.md"), "docs");
  EXPECT_STREQ(role("docs/conf.py"), "docs");
  EXPECT_STREQ(role("docker/Dockerfile.rocm"), "build");
  EXPECT_STREQ(role("docker/npu.Dockerfile"), "build");
  EXPECT_STREQ(role("scripts/ci/ci_install_dependency.sh"), "ci");
  EXPECT_STREQ(role(".github/workflows/pr-test.yml"), "ci");
  EXPECT_STREQ(role(".github/CODEOWNERS"), "ci");
  EXPECT_STREQ(role("python/pyproject.toml"), "build");
  EXPECT_STREQ(role("sgl-model-gateway/src/routers/http/router.rs"), "core");
  EXPECT_STREQ(role("sgl-model-gateway/Cargo.lock"), "generated");
  EXPECT_STREQ(role("python/sglang/srt/grpc/sglang_scheduler_pb2.py"), "generated");
  EXPECT_STREQ(role("examples/runtime/engine/offline_batch_inference.py"), "docs");
}

TEST(Roles, VllmLikeLayout) {
  EXPECT_STREQ(role("vllm/model_executor/models/llama.py"), "model");
  EXPECT_STREQ(role("vllm/model_executor/layers/fused_moe/fused_moe.py"), "core");
  EXPECT_STREQ(role("csrc/attention/paged_attention_v1.cu"), "kernel");
  EXPECT_STREQ(role("csrc/torch_bindings.cpp"), "kernel");
  EXPECT_STREQ(role("vllm/attention/ops/triton_decode_attention.py"), "kernel");
  EXPECT_STREQ(role("tests/models/test_llama.py"), "test");
  EXPECT_STREQ(role("tests/conftest.py"), "test");
  EXPECT_STREQ(role("benchmarks/kernels/benchmark_moe.py"), "benchmark");
  EXPECT_STREQ(role("requirements/cuda.txt"), "build");
  EXPECT_STREQ(role("requirements-dev.txt"), "build");
  EXPECT_STREQ(role(".buildkite/test-pipeline.yaml"), "ci");
  EXPECT_STREQ(role("vllm/transformers_utils/configs/mllama.py"), "core");
  EXPECT_STREQ(role("vllm/entrypoints/openai/tool_parsers/hermes_tool_parser.py"), "core");
  EXPECT_STREQ(role("cmake/utils.cmake"), "build");
  EXPECT_STREQ(role("LICENSE"), "docs");
  EXPECT_STREQ(role("vllm/security_utils.py"), "core");  // "security*" docs only for text files
}

TEST(Roles, PytorchLikeLayout) {
  EXPECT_STREQ(role("aten/src/ATen/native/cuda/Reduce.cuh"), "kernel");
  EXPECT_STREQ(role("aten/src/ATen/native/native_functions.yaml"), "config");
  EXPECT_STREQ(role("torch/_inductor/codegen/triton.py"), "core");
  EXPECT_STREQ(role("torch/testing/_internal/common_utils.py"), "test");
  EXPECT_STREQ(role("test/inductor/test_torchinductor.py"), "test");
  EXPECT_STREQ(role(".ci/pytorch/test.sh"), "ci");
  EXPECT_STREQ(role(".jenkins/pytorch/build.sh"), "ci");
  EXPECT_STREQ(role("third_party/fbgemm/src/Fbgemm.cc"), "generated");
  EXPECT_STREQ(role("tools/autograd/gen_variable_type.py"), "core");
  EXPECT_STREQ(role("c10/util/Logging_test.cpp"), "test");
  EXPECT_STREQ(role("BUILD.bazel"), "build");
  EXPECT_STREQ(role("third_party/xnnpack.buck.bzl"), "generated");
  EXPECT_STREQ(role("web/ui/src/app.spec.ts"), "test");
  EXPECT_STREQ(role("web/ui/dist/app.min.js"), "generated");
  EXPECT_STREQ(role("go/pkg/api.pb.go"), "generated");
  EXPECT_STREQ(role("go.sum"), "generated");
  EXPECT_STREQ(role("Docs/Guide.MD"), "docs");  // case-insensitive
}

TEST(Roles, OverridesComeFirstInOrder) {
  auto cfg = parse_mergelens_toml(R"(
[roles]
"python/pkg/layers/moe/configs/**" = "kernel"
"python/pkg/**/*.json" = "core"
"python/pkg/layers/**" = "config"
)",
                                  "mergelens.toml");
  ASSERT_TRUE(cfg) << cfg.error().message;
  ASSERT_EQ(cfg->roles.size(), 3u);
  EXPECT_EQ(cfg->roles[0].glob, "python/pkg/layers/moe/configs/**");  // file order kept
  EXPECT_STREQ(role("python/pkg/layers/moe/configs/a.json", *cfg), "kernel");
  EXPECT_STREQ(role("python/pkg/layers/b.json", *cfg), "core");
  EXPECT_STREQ(role("python/pkg/layers/linear.py", *cfg), "config");
  EXPECT_STREQ(role("python/pkg/test_x.py", *cfg), "test");  // built-in rules still apply
}

// ------------------------------------------------------------ mergelens.toml --

TEST(MergelensToml, ParsesRolesTagsAndDisabled) {
  auto cfg = parse_mergelens_toml(R"(
disable_tags = ["CI"]

[roles]
"python/sglang/srt/layers/moe/configs/**" = "config"

[[tags]]
name = "moe"
paths = ["**/moe/**"]
keywords = ["MoE"]
prefixes = ["[MoE]"]

[[tags]]
name = "gemma"
path_words = ["gemma*"]
keywords = "Gemma"
body = true
unless = ["gemma2"]
all_roles = ["model"]
)",
                                  "mergelens.toml");
  ASSERT_TRUE(cfg) << cfg.error().message;
  ASSERT_EQ(cfg->roles.size(), 1u);
  EXPECT_EQ(cfg->roles[0].role, FileRole::kConfig);
  ASSERT_EQ(cfg->tags.size(), 2u);
  const TagRule& moe = cfg->tags[0];
  EXPECT_EQ(moe.tag, "moe");
  EXPECT_EQ(moe.source, "config");
  ASSERT_EQ(moe.paths.size(), 1u);
  EXPECT_EQ(moe.paths[0].groups[0].checks[0].globs[0].pattern(), "**/moe/**");
  EXPECT_EQ(moe.keywords, std::vector<std::string>{"MoE"});
  EXPECT_EQ(moe.prefixes, std::vector<std::string>{"[MoE]"});
  const TagRule& gemma = cfg->tags[1];
  EXPECT_TRUE(gemma.keywords_in_body);
  EXPECT_EQ(gemma.keywords, std::vector<std::string>{"Gemma"});
  EXPECT_EQ(gemma.unless, std::vector<std::string>{"gemma2"});
  EXPECT_EQ(gemma.all_roles, std::vector<FileRole>{FileRole::kModel});
  EXPECT_EQ(cfg->disabled_tags, std::vector<std::string>{"CI"});
  EXPECT_TRUE(cfg->warnings.empty());
}

TEST(MergelensToml, BriefExampleWithDisableAfterTagArray) {
  auto cfg = parse_mergelens_toml(R"(
[roles]
"python/sglang/srt/layers/moe/configs/**" = "config"
[[tags]]
name = "moe"
paths = ["**/moe/**"]
keywords = ["MoE"]
prefixes = ["[MoE]"]
[tags.disable]
names = ["ci"]
)",
                                  "mergelens.toml");
  ASSERT_TRUE(cfg) << cfg.error().message;
  ASSERT_EQ(cfg->tags.size(), 1u);
  EXPECT_EQ(cfg->tags[0].tag, "moe");
  EXPECT_EQ(cfg->disabled_tags, std::vector<std::string>{"ci"});
  EXPECT_TRUE(cfg->warnings.empty());
}

TEST(MergelensToml, TagTablesAndDisableTableAndWarnings) {
  auto cfg = parse_mergelens_toml(R"(
[tags.moe]
paths = ["**/moe/**"]
colour = "blue"

[tags.disable]
names = ["ci", "tests"]

[llm]
model = "x"
)",
                                  "repo/mergelens.toml");
  ASSERT_TRUE(cfg) << cfg.error().message;
  ASSERT_EQ(cfg->tags.size(), 1u);
  EXPECT_EQ(cfg->tags[0].tag, "moe");
  EXPECT_EQ(cfg->disabled_tags, (std::vector<std::string>{"ci", "tests"}));
  ASSERT_EQ(cfg->warnings.size(), 2u);
  std::string all = cfg->warnings[0] + "\n" + cfg->warnings[1];
  EXPECT_NE(all.find("repo/mergelens.toml:4: unknown key 'colour'"), std::string::npos) << all;
  EXPECT_NE(all.find("unknown section 'llm'"), std::string::npos) << all;
}

TEST(MergelensToml, ErrorsNameFileAndLine) {
  struct Case {
    const char* text;
    const char* expect;
  };
  const Case cases[] = {
      {"[roles]\n\"a/**\" = \"kernal\"\n",
       "mergelens.toml:2: [roles] 'a/**': unknown role 'kernal'"},
      {"[roles]\n\"a/[b\" = \"core\"\n", "mergelens.toml:2: [roles] invalid glob 'a/[b'"},
      {"[[tags]]\nname = \"x\"\npaths = [\"ok/**\", \"{bad\"]\n", "mergelens.toml:3: invalid glob"},
      {"[[tags]]\nname = \"x\"\n", "mergelens.toml:1: tag 'x' has no paths"},
      {"[[tags]]\npaths = [\"a\"]\n", "mergelens.toml:1: tag rule without a name"},
      {"[[tags]]\nname = \"x\"\nkeywords = [1, 2]\n", "mergelens.toml:3: 'keywords' must be"},
      {"[[tags]]\nname = \"x\"\nbody = \"yes\"\nkeywords = [\"a\"]\n",
       "mergelens.toml:3: tag 'body' must be true or false"},
      {"a = 1\n[roles\n", "mergelens.toml:2: "},
  };
  for (const auto& c : cases) {
    auto cfg = parse_mergelens_toml(c.text, "mergelens.toml");
    ASSERT_FALSE(cfg.has_value()) << c.text;
    EXPECT_EQ(cfg.error().kind, ErrorKind::kInvalidInput);
    EXPECT_EQ(cfg.error().message.rfind(c.expect, 0), 0u) << cfg.error().message;
  }
}

// ---------------------------------------------------------------- labeler --

Change change_with(std::vector<std::string> paths, std::string title = "Update code") {
  Change c;
  c.title = std::move(title);
  for (auto& p : paths) {
    FileChange f;
    f.path = std::move(p);
    c.files.push_back(std::move(f));
  }
  return c;
}

std::set<std::string> tag_names(const Change& c, const std::vector<TagRule>& rules) {
  std::set<std::string> out;
  for (const auto& t : assign_tags(c, {}, rules)) out.insert(t.name);
  return out;
}

TEST(Labeler, V4Format) {
  auto rules = parse_labeler_yml(R"(
docs: docs/**
frontend:
  - web/**/*
  - '**/*.css'
core-only:
  - any: ['src/**', '!src/docs/**']
    all: ['!**/*.md']
)",
                                 ".github/labeler.yml");
  ASSERT_TRUE(rules) << rules.error().message;
  ASSERT_EQ(rules->size(), 3u);
  EXPECT_EQ((*rules)[0].tag, "docs");
  EXPECT_EQ((*rules)[0].source, "labeler");
  EXPECT_EQ((*rules)[1].paths.size(), 2u);  // each list item is an alternative
  EXPECT_EQ(tag_names(change_with({"docs/a.md"}), *rules), std::set<std::string>{"docs"});
  EXPECT_EQ(tag_names(change_with({"x/y.css"}), *rules), std::set<std::string>{"frontend"});
  // any: some file matches every glob; all: every file matches every glob.
  EXPECT_EQ(tag_names(change_with({"src/a.py"}), *rules), std::set<std::string>{"core-only"});
  EXPECT_TRUE(tag_names(change_with({"src/docs/a.py"}), *rules).empty());
  EXPECT_TRUE(tag_names(change_with({"src/a.py", "NOTES.md"}), *rules).empty());
}

TEST(Labeler, V5FormatOperatorsAndGroups) {
  auto rules = parse_labeler_yml(R"(
changed-files-labels-limit: 5
source:
  - all:
    - changed-files:
      - any-glob-to-any-file: 'src/**/*'
      - all-globs-to-all-files: '!src/docs/*'
docs-only:
  - changed-files:
    - any-glob-to-all-files: ['docs/**', '**/*.md']
feature:
  - head-branch: ['^feature', 'feature']
both:
  - changed-files: 'a/**'
  - changed-files:
    - all-globs-to-any-file: ['b/**', '**/*.py']
and-groups:
  - any:
    - changed-files: 'x/**'
  - all:
    - changed-files:
      - any-glob-to-all-files: '**/*.py'
)",
                                 "labeler.yml");
  ASSERT_TRUE(rules) << rules.error().message;
  ASSERT_EQ(rules->size(), 5u);  // the limit option is not a label
  EXPECT_EQ((*rules)[2].tag, "feature");
  EXPECT_TRUE((*rules)[2].paths.empty() || (*rules)[2].paths[0].groups[0].checks.empty());

  EXPECT_EQ(tag_names(change_with({"src/a.py"}), *rules), std::set<std::string>{"source"});
  EXPECT_TRUE(tag_names(change_with({"src/a.py", "src/docs/x.md"}), *rules).count("source") == 0);
  // any-glob-to-all-files: ONE glob must match every file.
  EXPECT_EQ(tag_names(change_with({"docs/a.png", "docs/b.md"}), *rules),
            std::set<std::string>{"docs-only"});
  EXPECT_TRUE(tag_names(change_with({"docs/a.png", "README.md"}), *rules).empty());
  // Bare changed-files items are alternatives (merged into one `any` group).
  EXPECT_EQ(tag_names(change_with({"a/z.txt"}), *rules), std::set<std::string>{"both"});
  EXPECT_EQ(tag_names(change_with({"b/z.py"}), *rules), std::set<std::string>{"both"});
  EXPECT_TRUE(tag_names(change_with({"b/z.txt"}), *rules).empty());
  // Top-level any/all groups must all hold.
  EXPECT_EQ(tag_names(change_with({"x/a.py"}), *rules), std::set<std::string>{"and-groups"});
  EXPECT_TRUE(tag_names(change_with({"x/a.py", "y.txt"}), *rules).empty());
  EXPECT_TRUE(tag_names(Change{}, *rules).empty());  // no files: nothing holds
}

TEST(Labeler, ErrorsNameFileLineAndLabel) {
  auto bad_op = parse_labeler_yml("x:\n  - changed-files:\n    - any-glob-to-some-file: 'a'\n",
                                  "labeler.yml");
  ASSERT_FALSE(bad_op);
  EXPECT_EQ(bad_op.error().message.rfind("labeler.yml:3: label 'x': unknown \"changed-files\"", 0),
            0u)
      << bad_op.error().message;

  auto bad_glob = parse_labeler_yml("ok: '**'\nbroken:\n  - 'a/**'\n  - 'b/[x'\n", "labeler.yml");
  ASSERT_FALSE(bad_glob);
  EXPECT_EQ(bad_glob.error().message.rfind("labeler.yml:4: label 'broken': invalid glob 'b/[x'", 0),
            0u)
      << bad_glob.error().message;

  auto bad_yaml = parse_labeler_yml("a: [b\nc: d\n", "labeler.yml");
  ASSERT_FALSE(bad_yaml);
  EXPECT_EQ(bad_yaml.error().kind, ErrorKind::kInvalidInput);
  EXPECT_EQ(bad_yaml.error().message.rfind("labeler.yml:", 0), 0u);

  auto bad_shape = parse_labeler_yml("a:\n  b: c\n", "labeler.yml");
  ASSERT_FALSE(bad_shape);
  EXPECT_NE(bad_shape.error().message.find("label 'a'"), std::string::npos);

  auto empty = parse_labeler_yml("# nothing\n", "labeler.yml");
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty->empty());
}

std::filesystem::path shared_data_dir() {
  if (const char* env = std::getenv("MERGELENS_SHARED_DATA")) return env;
  // The source root is the parent of tests/; the shared data sits beside it.
  const auto beside =
      std::filesystem::path(__FILE__).parent_path().parent_path() / ".." / "shared" / "data";
  if (std::filesystem::exists(beside)) return beside;
  return "/work/shared/data";
}

std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(Labeler, RealSglangLabelerFile) {
  const auto path = shared_data_dir() / "sglang-labeler.yml";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "no " << path << " (MERGELENS_SHARED_DATA)";
  const std::string text = read_text(path);
  auto rules = parse_labeler_yml(text, "sglang-labeler.yml");
  ASSERT_TRUE(rules) << rules.error().message;

  // Every top-level key of the file is a label, in file order.
  std::vector<std::string> keys;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);)
    if (!line.empty() && line[0] != '#' && line[0] != ' ' && line.back() == ':')
      keys.push_back(line.substr(0, line.size() - 1));
  ASSERT_GE(keys.size(), 15u);
  std::vector<std::string> labels;
  for (const auto& r : *rules) {
    labels.push_back(r.tag);
    EXPECT_FALSE(r.paths.empty()) << r.tag;
  }
  EXPECT_EQ(labels, keys);

  auto labels_of = [&](std::string path) {
    return tag_names(change_with({std::move(path)}), *rules);
  };
  using S = std::set<std::string>;
  EXPECT_EQ(labels_of("sgl-model-gateway/src/routers/http/router.rs"), S{"model-gateway"});
  EXPECT_EQ(labels_of("python/sglang/kernels/aot/csrc/gemm/per_token_group_quant_8bit.cu"),
            (S{"sgl-kernel", "quant"}));
  EXPECT_EQ(labels_of("python/sglang/kernels/jit/norm.py"), S{"jit-kernel"});
  EXPECT_EQ(labels_of("python/sglang/kernels/activation.py"), S{"jit-kernel"});
  EXPECT_EQ(labels_of("python/sglang/kernels/README.md"), S{"documentation"});
  EXPECT_EQ(labels_of("docs/advanced_features/lora.ipynb"), (S{"documentation", "lora"}));
  EXPECT_EQ(labels_of("python/pyproject.toml"), S{"dependencies"});
  EXPECT_EQ(labels_of("sgl-model-gateway/Cargo.toml"), (S{"model-gateway", "dependencies"}));
  EXPECT_EQ(labels_of("python/sglang/srt/layers/quantization/w8a8_int8_quant.py"), S{"quant"});
  // "**/*quant*" looks at the last segment only: a folder name does not count.
  EXPECT_EQ(labels_of("python/sglang/srt/layers/quantization/fp8.py"), S{});
  EXPECT_EQ(labels_of("python/sglang/srt/mem_cache/memory_pool.py"), S{"memory-pool"});
  EXPECT_EQ(labels_of("python/sglang/srt/mem_cache/radix_cache.py"), S{"unified-radix-cache"});
  EXPECT_EQ(labels_of("python/sglang/srt/mem_cache/storage/mooncake_store/store.py"), S{"hicache"});
  EXPECT_EQ(labels_of("python/sglang/srt/batch_invariant_ops/batch_invariant_ops.py"),
            S{"deterministic"});
  EXPECT_EQ(labels_of("python/sglang/srt/compilation/backend.py"), S{"piecewise-cuda-graph"});
  EXPECT_EQ(labels_of("python/sglang/multimodal_gen/runtime/pipelines/flux.py"), S{"diffusion"});
  EXPECT_EQ(labels_of("python/sglang/srt/multimodal/processors/qwen_vl.py"), S{});
  EXPECT_EQ(labels_of("python/sglang/srt/managers/multimodal_processor.py"), S{"Multi-modal"});
  EXPECT_EQ(labels_of("python/sglang/srt/layers/attention/trtllm_mla_backend.py"), S{"blackwell"});
  EXPECT_EQ(labels_of("python/sglang/srt/hardware_backend/npu/attention/ascend_backend.py"),
            S{"npu"});
  EXPECT_EQ(labels_of("python/sglang/srt/speculative/eagle_worker.py"), S{});
  EXPECT_EQ(labels_of("python/sglang/srt/speculative/speculative_utils.py"),
            S{"speculative-decoding"});
  EXPECT_EQ(labels_of("python/sglang/srt/managers/scheduler.py"), S{});
  // The file's globs are substrings: "**/*npu*" also matches "input".
  EXPECT_EQ(labels_of("python/sglang/srt/managers/input_format.py"), S{"npu"});
}

// ------------------------------------------------------------------- tags --

std::map<std::string, Tag> tags_by_name(const Change& c, const std::vector<TagRule>& rules) {
  std::map<std::string, Tag> out;
  std::map<std::string, FileRole> roles;
  for (const auto& f : c.files) roles[f.path] = classify_role(f.path, {});
  for (auto& t : assign_tags(c, roles, rules)) out[t.name] = t;
  return out;
}

TEST(Tags, DefaultTaxonomyOnRealisticChanges) {
  const auto& rules = default_taxonomy();
  auto t = tags_by_name(change_with({"python/sglang/srt/layers/moe/fused_moe_triton/layer.py",
                                     "python/sglang/srt/layers/quantization/fp8_kernel.py"},
                                    "[AMD] Fix MoE FP8 accuracy on MI300X"),
                        rules);
  ASSERT_TRUE(t.count("amd"));
  EXPECT_EQ(t["amd"].source, "prefix");
  EXPECT_EQ(t["amd"].rule, "amd");
  EXPECT_EQ(t["moe"].source, "path");
  EXPECT_EQ(t["quantization"].source, "path");
  EXPECT_EQ(t["quantization"].rule, "quantiz*");
  EXPECT_EQ(t["bugfix"].source, "prefix");  // first word after the bracket tags
  EXPECT_EQ(t["bugfix"].rule, "fix");
  EXPECT_EQ(t["kernels"].source, "generic");
  EXPECT_FALSE(t.count("nvidia"));
  EXPECT_FALSE(t.count("docs"));

  t = tags_by_name(change_with({"vllm/v1/spec_decode/eagle.py"},
                               "[Spec Decode] Support EAGLE-3 with CUDA graphs"),
                   rules);
  EXPECT_TRUE(t.count("speculative-decoding"));
  EXPECT_EQ(t["speculative-decoding"].source, "prefix");
  EXPECT_TRUE(t.count("cuda-graph"));
  EXPECT_TRUE(t.count("feature"));  // first word "Support"
  EXPECT_FALSE(t.count("nvidia"));  // "CUDA graph" is not about the vendor

  t = tags_by_name(change_with({"src/server.py"}, "Avoid a crash on empty prompts"), rules);
  EXPECT_EQ(t["bugfix"].source, "keyword");
  EXPECT_EQ(t["bugfix"].rule, "crash");
  EXPECT_EQ(t.size(), 1u);
}

TEST(Tags, WholeWordsNotSubstrings) {
  const auto& rules = default_taxonomy();
  auto t = tags_by_name(change_with({"python/pkg/managers/input_processor.py", "src/step_fn.py"},
                                    "Improve input handling for steps"),
                        rules);
  EXPECT_FALSE(t.count("npu"));
  EXPECT_FALSE(t.count("distributed"));
  t = tags_by_name(
      change_with({"python/pkg/hardware_backend/npu/utils.py", "pkg/ep_moe/layer.py"}, "Update"),
      rules);
  EXPECT_TRUE(t.count("npu"));
  EXPECT_TRUE(t.count("distributed"));
  EXPECT_EQ(t["distributed"].rule, "ep");
  EXPECT_TRUE(t.count("moe"));
  // Keywords too: "prefix caching" is kv-cache, not "fix".
  t = tags_by_name(change_with({"a.py"}, "Speed up prefix caching"), rules);
  EXPECT_TRUE(t.count("kv-cache"));
  EXPECT_TRUE(t.count("perf"));
  EXPECT_FALSE(t.count("bugfix"));
}

TEST(Tags, PrefixForms) {
  const auto& rules = default_taxonomy();
  auto names = [&](std::string title) { return tag_names(change_with({"x.py"}, title), rules); };
  EXPECT_TRUE(names("[Bugfix][ROCm] handle empty batch").count("amd"));
  EXPECT_TRUE(names("[Bugfix][ROCm] handle empty batch").count("bugfix"));
  EXPECT_TRUE(names("fix(router): handle timeouts").count("router"));
  EXPECT_TRUE(names("fix(router): handle timeouts").count("bugfix"));
  EXPECT_TRUE(names("feat!: new api").count("feature"));
  EXPECT_TRUE(names("Revert \"[Perf] faster decode\"").count("revert"));
  EXPECT_TRUE(names("[PD Disaggregation] retry transfer").count("disaggregation"));
  EXPECT_TRUE(names("[AMD/ROCm] enable aiter").count("amd"));
  EXPECT_TRUE(names("chore(deps): update lockfile").count("deps"));
  EXPECT_FALSE(names("Prefix tree cleanup").count("bugfix"));
  EXPECT_FALSE(names("Use revert-safe writes").count("revert"));
}

TEST(Tags, RoleDerivedGenericTags) {
  const auto& rules = default_taxonomy();
  auto t = tags_by_name(change_with({"docs/a.md", "README.md"}, "Update guide"), rules);
  EXPECT_EQ(t["docs"].source, "generic");
  EXPECT_EQ(t["docs"].rule, "all files docs");
  EXPECT_TRUE(tags_by_name(change_with({"test/srt/test_a.py"}, "Update"), rules).count("tests"));
  EXPECT_TRUE(tags_by_name(change_with({".github/workflows/a.yml"}, "Update"), rules).count("ci"));
  EXPECT_TRUE(tags_by_name(change_with({"CMakeLists.txt"}, "Update"), rules).count("deps"));
  EXPECT_FALSE(tags_by_name(change_with({"docs/a.md", "src/a.py"}, "Update"), rules).count("docs"));

  Change added =
      change_with({"python/pkg/models/newnet.py", "python/pkg/models/registry.py"}, "Add NewNet");
  added.files[0].status = FileStatus::kAdded;
  auto m = tags_by_name(added, rules);
  ASSERT_TRUE(m.count("model-support"));
  EXPECT_EQ(m["model-support"].rule, "added model file python/pkg/models/newnet.py");
  added.files[0].status = FileStatus::kModified;
  EXPECT_FALSE(tags_by_name(added, rules).count("model-support"));
}

TEST(Tags, UnlessWordsVoidAMatch) {
  const auto& rules = default_taxonomy();
  EXPECT_FALSE(tags_by_name(change_with({"pkg/layers/moe/router.py"}), rules).count("router"));
  EXPECT_TRUE(tags_by_name(change_with({"sgl-router/src/lib.rs"}), rules).count("router"));
  EXPECT_FALSE(
      tags_by_name(change_with({"a.py"}, "Tune MoE top-k routing"), rules).count("sampling"));
  EXPECT_TRUE(
      tags_by_name(change_with({"a.py"}, "Support min-p and top-k"), rules).count("sampling"));
  EXPECT_FALSE(
      tags_by_name(change_with({"x.py"}, "Fix CUDA graph capture"), rules).count("nvidia"));
  EXPECT_TRUE(tags_by_name(change_with({"x.py"}, "Require CUDA 12.8"), rules).count("nvidia"));
}

TEST(Tags, BodyOnlyWhenRuleAllowsIt) {
  TagRule title_only;
  title_only.tag = "gemma";
  title_only.source = "config";
  title_only.keywords = {"Gemma"};
  TagRule with_body = title_only;
  with_body.tag = "gemma-any";
  with_body.keywords_in_body = true;
  Change c = change_with({"a.py"}, "Add a model");
  c.body = "This adds support for gemma-3 checkpoints.";
  auto t = tags_by_name(c, {title_only, with_body});
  EXPECT_FALSE(t.count("gemma"));
  ASSERT_TRUE(t.count("gemma-any"));
  EXPECT_EQ(t["gemma-any"].source, "config");
  EXPECT_EQ(t["gemma-any"].rule, "Gemma");
}

TEST(Tags, EachTagOnceFromFirstMatchingRuleRanked) {
  TagRule a;
  a.tag = "zeta";
  a.source = "config";
  a.path_words = {"foo"};
  TagRule b = a;
  b.source = "labeler";
  b.path_words = {"bar"};
  TagRule c;
  c.tag = "alpha";
  c.source = "config";
  c.prefixes = {"[Alpha]"};
  auto tags = assign_tags(change_with({"src/foo/bar.py"}, "[alpha] x"), {}, {a, b, c});
  ASSERT_EQ(tags.size(), 2u);
  // Both are the repository's own rules; zeta's files hold every changed line.
  EXPECT_EQ(tags[0].name, "zeta");
  EXPECT_EQ(tags[0].rule, "foo");
  EXPECT_DOUBLE_EQ(tags[0].share, 1.0);
  EXPECT_EQ(tags[0].evidence, "src/foo/bar.py, 100% of changed lines");
  EXPECT_EQ(tags[1].name, "alpha");
  EXPECT_EQ(tags[1].source, "config");
  EXPECT_EQ(tags[1].rule, "[Alpha]");
  EXPECT_EQ(tags[1].evidence, "title prefix [Alpha]");
  EXPECT_GT(tags[0].weight, tags[1].weight);
}

TEST(Tags, OldPathsOfRenamesCount) {
  Change c = change_with({"src/common/util.py"});
  c.files[0].status = FileStatus::kRenamed;
  c.files[0].old_path = "src/lora/util.py";
  EXPECT_TRUE(tags_by_name(c, default_taxonomy()).count("lora"));
}

TEST(Tags, EffectiveRulesMergeReplaceAndDisable) {
  auto labeler = parse_labeler_yml("documentation:\n  - '**/*.txt'\nquant: '**/q/**'\n", "l.yml");
  ASSERT_TRUE(labeler);
  auto cfg = parse_mergelens_toml(
      "disable_tags = [\"CI\"]\n[[tags]]\nname = \"MoE\"\npath_words = [\"mixture\"]\n", "m.toml");
  ASSERT_TRUE(cfg);
  const auto rules = effective_rules(&*labeler, &*cfg);
  ASSERT_FALSE(rules.empty());
  EXPECT_EQ(rules[0].tag, "moe");
  EXPECT_EQ(rules[0].source, "config");
  EXPECT_EQ(
      std::count_if(rules.begin(), rules.end(), [](const TagRule& r) { return r.tag == "moe"; }),
      1);
  EXPECT_EQ(
      std::count_if(rules.begin(), rules.end(), [](const TagRule& r) { return r.tag == "ci"; }), 0);
  EXPECT_EQ(rules[1].tag, "docs");  // the labeler's "documentation", merged with the default
  EXPECT_EQ(rules[2].tag, "quantization");

  auto t = tags_by_name(change_with({"notes/a.txt", "pkg/q/x.py"}, "[CI] moe tweak"), rules);
  EXPECT_EQ(t["docs"].source, "labeler");
  EXPECT_EQ(t["quantization"].rule, "**/q/**");
  EXPECT_FALSE(t.count("ci"));
  EXPECT_FALSE(t.count("moe"));  // the config rule replaced the default one
  EXPECT_TRUE(tags_by_name(change_with({"a/mixture.py"}), rules).count("moe"));

  const auto defaults = effective_rules(nullptr, nullptr);
  EXPECT_EQ(defaults.size(), default_taxonomy().size());
}

TEST(Tags, CanonicalNames) {
  EXPECT_EQ(canonical_tag_name("Multi-modal"), "multimodal");
  EXPECT_EQ(canonical_tag_name("documentation"), "docs");
  EXPECT_EQ(canonical_tag_name("quant"), "quantization");
  EXPECT_EQ(canonical_tag_name("Speculative Decoding"), "speculative-decoding");
  EXPECT_EQ(canonical_tag_name("  KV_Cache "), "kv-cache");
  EXPECT_EQ(canonical_tag_name("sgl-kernel"), "sgl-kernel");
}

TEST(Tags, DefaultTaxonomyCoversTheListedTags) {
  std::set<std::string> names;
  for (const auto& r : default_taxonomy()) {
    EXPECT_EQ(r.source, "default");
    EXPECT_TRUE(names.insert(r.tag).second) << "duplicate " << r.tag;
    EXPECT_EQ(canonical_tag_name(r.tag), r.tag);
    for (const auto& alt : r.paths)
      for (const auto& g : alt.groups)
        for (const auto& c : g.checks) EXPECT_FALSE(c.globs.empty()) << r.tag;
  }
  for (const char* t : {"amd",
                        "nvidia",
                        "blackwell",
                        "hopper",
                        "intel",
                        "npu",
                        "tpu",
                        "cpu",
                        "moe",
                        "quantization",
                        "attention",
                        "kv-cache",
                        "speculative-decoding",
                        "lora",
                        "multimodal",
                        "diffusion",
                        "distributed",
                        "cuda-graph",
                        "scheduler",
                        "router",
                        "sampling",
                        "structured-output",
                        "tool-calling",
                        "model-support",
                        "kernels",
                        "disaggregation",
                        "deterministic",
                        "bugfix",
                        "feature",
                        "perf",
                        "refactor",
                        "docs",
                        "ci",
                        "tests",
                        "deps",
                        "revert"})
    EXPECT_TRUE(names.count(t)) << t;
}

}  // namespace
}  // namespace mergelens
