// Tests for file roles (analysis/code/roles.h) and a repository's
// mergelens.toml (analysis/repo_config.h).

#include <string>
#include <string_view>

#include <gtest/gtest.h>

#include "mergelens/analysis/code/roles.h"
#include "mergelens/analysis/judgment/tags.h"
#include "mergelens/analysis/repo_config.h"

namespace mergelens {
namespace {

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

}  // namespace
}  // namespace mergelens
