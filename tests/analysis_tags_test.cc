// Tests for labeler files (.github/labeler.yml) and tags; globs are in
// analysis_glob_test.cc, file roles and mergelens.toml in analysis_config_test.cc.

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
