// The default tag taxonomy (tags.h: default_taxonomy).
//
// Words are matched whole (see TagRule): "ep" matches "ep_moe.py" and "[EP]"
// but not "step.py"; "quantiz*" matches "quantization". Keep each rule to
// words that mean the topic in any ML-systems repository, not one project.

#include <initializer_list>

#include "mergelens/analysis/judgment/tags.h"

namespace mergelens {
namespace {

using Words = std::initializer_list<const char*>;

std::vector<std::string> list(Words w) {
  return {w.begin(), w.end()};
}

TagRule rule(const char* tag, Words prefixes, Words keywords, Words path_words, Words unless = {}) {
  TagRule r;
  r.tag = tag;
  r.source = "default";
  r.prefixes = list(prefixes);
  r.keywords = list(keywords);
  r.path_words = list(path_words);
  r.unless = list(unless);
  return r;
}

// Adds an any-glob-to-any-file alternative; the globs are fixed and valid.
TagRule with_globs(TagRule r, Words globs) {
  FilesCheck check;
  for (const char* g : globs)
    if (auto compiled = Glob::compile(g)) check.globs.push_back(std::move(*compiled));
  r.paths.push_back(PathAlternative{{CheckGroup{false, {std::move(check)}}}});
  return r;
}

TagRule with_code(TagRule r, Words words) {
  r.code_words = list(words);
  return r;
}

TagRule with_all_roles(TagRule r, std::initializer_list<FileRole> roles) {
  r.all_roles = roles;
  return r;
}

TagRule with_any_role(TagRule r, FileRole role, bool added) {
  r.any_roles = {role};
  r.any_role_added = added;
  return r;
}

std::vector<TagRule> build() {
  std::vector<TagRule> t;
  // ---- hardware and vendors
  t.push_back(
      with_code(rule("amd", {"amd", "rocm", "hip"},
                     {"amd", "rocm", "hip", "mi300*", "mi308*", "mi325*", "mi350*", "mi355*",
                      "aiter", "gfx942", "gfx950", "hipblaslt", "rccl", "composable kernel"},
                     {"amd", "amdgpu", "rocm", "hip", "aiter", "mi300*", "mi355*", "gfx9*",
                      "hipblas*", "rccl"}),
                {"hip", "rocm", "aiter", "gfx942", "gfx950", "gfx9*", "hipblaslt", "rccl", "mi300*",
                 "mi355*"}));
  t.push_back(
      rule("nvidia", {"nvidia", "cuda"},
           {"nvidia",  "cuda",   "cublas", "cublaslt", "cudnn", "cutlass", "cute dsl", "tensorrt",
            "trt llm", "trtllm", "nvlink", "nvshmem",  "h100",  "h200",    "h20",      "h800",
            "a100",    "b200",   "b300",   "gb200",    "gb300", "l40s"},
           {"nvidia", "cuda", "cutlass", "cublas*", "cudnn", "trtllm*", "tensorrt*", "nvshmem",
            "cute_dsl"},
           {"graph", "graphs", "cudagraph*"}));
  t.push_back(with_code(
      rule("blackwell", {"blackwell", "b200", "gb200", "sm100", "sm120"},
           {"blackwell", "b200", "b300", "gb200", "gb300", "sm100*", "sm103*", "sm120*", "sm10x",
            "sm12x", "nvfp4", "tcgen05", "rtx 5090"},
           {"blackwell", "sm100*", "sm103*", "sm120*", "sm10x", "sm12x", "nvfp4*", "tcgen05*"}),
      {"blackwell", "sm100*", "sm103*", "sm120*", "tcgen05*"}));
  t.push_back(with_code(rule("hopper", {"hopper", "h100", "h200", "sm90"},
                             {"hopper", "h100", "h200", "h20", "h800", "gh200", "sm90*", "wgmma",
                              "fa3", "flashattention 3", "flash attention 3"},
                             {"hopper", "sm90*", "wgmma*", "fa3"}),
                        {"hopper", "sm90*", "wgmma*"}));
  t.push_back(with_code(rule("intel", {"intel", "xpu", "hpu", "gaudi", "ipex"},
                             {"intel", "xpu", "xpus", "hpu", "gaudi", "habana", "ipex", "oneapi",
                              "onednn", "xeon", "sycl"},
                             {"intel", "xpu", "hpu", "gaudi", "habana", "ipex", "sycl", "onednn"}),
                        {"xpu", "hpu", "ipex", "habana", "sycl"}));
  t.push_back(with_code(rule("npu", {"npu", "ascend"},
                             {"npu", "npus", "ascend", "cann", "torch npu"}, {"npu", "ascend"}),
                        {"npu", "ascend", "torch_npu"}));
  t.push_back(with_code(
      rule("tpu", {"tpu", "jax"}, {"tpu", "jax", "pallas", "xla"}, {"tpu", "jax", "pallas", "xla"}),
      {"tpu", "pallas"}));
  t.push_back(with_globs(
      rule("cpu", {"cpu", "x86", "arm64", "aarch64"},
           {"cpu backend", "cpu support", "on cpu", "for cpu", "cpu only", "cpu inference", "x86",
            "avx2", "avx512", "amx", "aarch64", "arm64", "neon", "xeon", "graviton"},
           {"x86*", "avx*", "amx", "aarch64", "arm64", "neon"}),
      {"**/cpu/**", "**/*_cpu.*"}));

  // ---- subsystems
  t.push_back(rule(
      "moe", {"moe", "eplb"},
      {"moe", "mixture of experts", "fused moe", "fusedmoe", "expert", "experts", "eplb", "deepep"},
      {"moe", "fusedmoe", "expert*", "eplb", "deepep"}));
  t.push_back(rule("quantization",
                   {"quant", "quantization", "fp8", "fp4", "int4", "int8", "awq", "gptq", "nvfp4",
                    "mxfp4", "modelopt"},
                   {"quant",    "quantiz*",
                    "quantis*", "dequant*",
                    "fp8",      "fp4",
                    "fp6",      "int4",
                    "int8",     "w8a8",
                    "w4a8",     "w4a16",
                    "w8a16",    "w4afp8",
                    "awq",      "gptq",
                    "nvfp4",    "mxfp4",
                    "mxfp8",    "marlin",
                    "modelopt", "compressed tensors",
                    "gguf",     "bitsandbytes",
                    "quark",    "smoothquant",
                    "e4m3",     "e5m2"},
                   {"quant",      "quantiz*",     "quantis*",
                    "dequant*",   "fp8*",         "fp4*",
                    "int4*",      "int8*",        "w8a8*",
                    "w4a8*",      "w4a16*",       "w8a16*",
                    "w4afp8*",    "awq*",         "gptq*",
                    "nvfp4*",     "mxfp4*",       "mxfp8*",
                    "marlin*",    "modelopt*",    "compressed_tensors*",
                    "gguf",       "bitsandbytes", "quark",
                    "smoothquant"}));
  t.push_back(rule("attention", {"attention", "attn", "mla", "flashattention"},
                   {"attention",
                    "attn",
                    "flashattention",
                    "flash attention",
                    "flash attn",
                    "fa2",
                    "fa3",
                    "fa4",
                    "flashmla",
                    "flash mla",
                    "mla",
                    "mha",
                    "gqa",
                    "mqa",
                    "sdpa",
                    "paged attention",
                    "sliding window",
                    "swa",
                    "sparse attention",
                    "nsa",
                    "dsa",
                    "linear attention"},
                   {"attention", "attn", "flash_attn*", "flashattention", "flashmla", "mla", "mha",
                    "sdpa", "nsa", "swa"}));
  t.push_back(rule(
      "kv-cache", {"kv cache", "kvcache", "hicache", "radix cache", "prefix cache", "mem cache"},
      {"kv cache", "kvcache", "prefix cache", "prefix caching", "radix cache", "radix tree",
       "radixattention", "hicache", "hierarchical cache", "memory pool", "mem pool", "kv pool",
       "token pool", "kv offload*", "cache eviction", "eviction", "paged kv", "block manager"},
      {"kv_cache*", "kvcache*", "mem_cache", "radix*", "prefix_cach*", "hicache*", "hiradix*",
       "memory_pool*", "mem_pool*", "kv_pool*", "block_manager*", "kv_offload*", "evict*"}));
  t.push_back(rule(
      "speculative-decoding",
      {"spec", "spec decode", "speculative", "speculative decoding", "eagle*", "mtp", "specdec"},
      {"speculative", "spec decode", "spec decoding", "spec dec", "specdec", "eagle*", "medusa",
       "mtp", "draft model", "draft token*", "lookahead decoding", "multi token prediction",
       "suffix decoding"},
      {"speculative", "spec_decode*", "spec_dec*", "specdec*", "eagle*", "medusa*", "mtp",
       "draft*"}));
  t.push_back(rule("lora", {"lora", "multi lora"}, {"lora", "multi lora", "punica", "qlora"},
                   {"lora*", "punica*"}));
  t.push_back(
      rule("multimodal",
           {"multimodal", "multi modal", "mm", "vlm", "vision", "vl", "omni", "audio", "video"},
           {"multimodal", "multi modal", "multi modality", "vlm", "vision", "visual", "image",
            "video", "audio", "speech", "vl", "omni", "vit"},
           {"multimodal", "multi_modal", "mm_utils", "mm_processor*", "vision*", "vlm*", "vl",
            "visual", "image*", "video*", "audio*", "siglip*", "clip", "llava*", "whisper*", "vit"},
           {"docker", "dockerfile", "container", "diffusion", "multimodal_gen"}));
  t.push_back(rule(
      "diffusion",
      {"diffusion", "dit", "diffusers", "image generation", "video generation", "t2v", "t2i",
       "i2v"},
      {"diffusion",
       "diffusers",
       "dit",
       "vae",
       "unet",
       "text to image",
       "text to video",
       "image to video",
       "t2i",
       "t2v",
       "i2v",
       "flux",
       "sdxl",
       "sd3",
       "stable diffusion",
       "wan2*",
       "hunyuanvideo",
       "qwen image",
       "image generation",
       "video generation",
       "denoising"},
      {"diffusion", "diffusers", "multimodal_gen", "dit", "vae*", "unet*", "flux*", "sdxl", "sd3*",
       "wan2*", "wanvideo*", "qwen_image*", "hunyuanvideo*", "stable_diffusion*", "denois*"}));
  t.push_back(rule("distributed",
                   {"distributed", "parallel", "parallelism", "tp", "ep", "pp", "dp",
                    "dp attention", "multi node", "nccl"},
                   {"distributed",
                    "tensor parallel*",
                    "expert parallel*",
                    "pipeline parallel*",
                    "data parallel*",
                    "context parallel*",
                    "sequence parallel*",
                    "parallelism",
                    "tp",
                    "ep",
                    "pp",
                    "dp",
                    "dcp",
                    "dp attention",
                    "tp2",
                    "tp4",
                    "tp8",
                    "tp16",
                    "ep4",
                    "ep8",
                    "ep16",
                    "ep32",
                    "ep64",
                    "dp2",
                    "dp4",
                    "dp8",
                    "pp2",
                    "pp4",
                    "pp8",
                    "nccl",
                    "all reduce",
                    "allreduce",
                    "all gather",
                    "allgather",
                    "reduce scatter",
                    "all to all",
                    "alltoall",
                    "multi node",
                    "multinode",
                    "multi gpu",
                    "deepep",
                    "nvshmem",
                    "two batch overlap"},
                   {"distributed",
                    "parallel_state",
                    "tensor_parallel*",
                    "data_parallel*",
                    "pipeline_parallel*",
                    "expert_parallel*",
                    "context_parallel*",
                    "sequence_parallel*",
                    "tp",
                    "ep",
                    "pp",
                    "dp",
                    "dp_attention",
                    "nccl*",
                    "all_reduce*",
                    "allreduce*",
                    "all_gather*",
                    "allgather*",
                    "communicat*",
                    "deepep",
                    "nvshmem",
                    "ray",
                    "two_batch_overlap"}));
  t.push_back(rule("cuda-graph", {"cuda graph", "cudagraph", "piecewise cuda graph", "pcg"},
                   {"cuda graph", "cudagraph", "graph capture", "graph replay", "capture graph",
                    "piecewise cuda graph", "piecewise", "pcg", "hip graph", "graph runner"},
                   {"cuda_graph*", "cudagraph*", "graph_runner*", "piecewise*", "hip_graph*"}));
  t.push_back(
      rule("scheduler", {"scheduler", "scheduling"},
           {"scheduler", "scheduling", "schedule policy", "chunked prefill", "overlap schedule*",
            "continuous batching", "preemption", "preempt", "priority scheduling"},
           {"scheduler*", "schedule_batch", "schedule_policy", "scheduling"},
           {"diffusion", "diffusers", "multimodal_gen", "noise", "lr", "flow_match*", "euler",
            "ddim", "dpm*"}));
  t.push_back(rule("router", {"router", "gateway", "model gateway"},
                   {"router", "gateway", "model gateway", "load balancing", "load balancer",
                    "cache aware routing", "routing policy"},
                   {"router*", "gateway*", "model_gateway", "load_balanc*"},
                   {"moe", "expert", "experts", "gate", "gating", "topk", "logits"}));
  t.push_back(
      rule("sampling", {"sampling", "sampler"},
           {"sampling", "sampler", "sampling params", "top p", "top k", "min p", "temperature",
            "penalty", "penalties", "logprob*", "logit bias", "logits processor*", "beam search"},
           {"sampling*", "sampler*", "penalt*", "logits_processor*", "logprob*"},
           {"moe", "expert", "experts", "routing", "router"}));
  t.push_back(rule("structured-output",
                   {"structured output", "grammar", "constrained decoding", "json schema",
                    "xgrammar", "guided decoding"},
                   {"structured output*", "structured generation", "constrained decoding",
                    "constrained generation", "grammar", "xgrammar", "outlines", "llguidance",
                    "json schema", "json mode", "guided decoding", "guided json", "ebnf"},
                   {"constrained", "grammar*", "xgrammar*", "outlines*", "llguidance*",
                    "guided_decoding*", "structured_output*", "json_schema*"}));
  t.push_back(
      rule("tool-calling",
           {"tool", "tools", "tool call", "tool calling", "function call", "function calling",
            "tool parser"},
           {"tool call*", "tool use", "tool parser*", "tool choice", "function call*", "mcp"},
           {"function_call*", "tool_call*", "tool_parser*", "mcp"}));
  t.push_back(with_any_role(rule("model-support", {"model", "models", "new model", "model support"},
                                 {"new model", "new models", "model support"}, {}),
                            FileRole::kModel, true));
  t.push_back(with_any_role(rule("kernels", {"kernel", "kernels"},
                                 {"kernel", "kernels", "fused", "fuse", "fusion", "custom op"}, {}),
                            FileRole::kKernel, false));
  t.push_back(rule(
      "disaggregation",
      {"pd", "p d", "disagg", "disaggregation", "disaggregated", "pd disaggregation"},
      {"disaggregation", "disaggregated", "disagg", "pd", "p d", "pd disagg*", "nixl", "mooncake",
       "kv transfer", "kv connector", "epd"},
      {"disaggregat*", "disagg*", "nixl*", "mooncake*", "kv_transfer*", "kv_connector*", "pd"}));
  t.push_back(rule("deterministic", {"deterministic", "determinism", "batch invariant"},
                   {"deterministic", "determinism", "nondeterminism", "non deterministic",
                    "batch invariant*", "batch invariance", "reproducib*", "bitwise"},
                   {"deterministic*", "determinism", "batch_invariant*"}));

  // ---- generic kinds of change
  t.push_back(rule("bugfix", {"fix", "fixes", "bugfix", "bug", "hotfix", "bug fix"},
                   {"fix",        "fixes",        "fixed",      "fixing",     "bug",
                    "bugfix",     "hotfix",       "crash",      "crashes",    "workaround",
                    "correct",    "corrects",     "incorrect",  "resolve",    "resolves",
                    "wrong",      "mismatch",     "broken",     "error",      "errors",
                    "exception",  "failure",      "fails",      "failed",     "failing",
                    "hang",       "hangs",        "deadlock",   "regression", "out of bounds",
                    "nan",        "typeerror",    "indexerror", "keyerror",   "attributeerror",
                    "valueerror", "runtimeerror", "segfault",   "oom"},
                   {}));
  t.push_back(
      rule("feature",
           {"feat", "feature", "new feature", "enhancement", "support", "supports", "add", "adds",
            "enable", "enables", "allow", "allows", "introduce", "implement", "initial"},
           {"add support", "adds support", "support for", "new feature", "introduce", "introduces",
            "implement", "implements", "initial support", "supports"},
           {}));
  t.push_back(rule("perf", {"perf", "performance", "optimization", "optimize", "opt", "speedup"},
                   {"perf",         "performance",
                    "speedup",      "speed up",
                    "speeds up",    "faster",
                    "optimize",     "optimise",
                    "optimized",    "optimization",
                    "accelerate",   "throughput",
                    "overhead",     "latency",
                    "fused",        "overlap",
                    "multistream",  "multi stream",
                    "memory usage", "reduce memory",
                    "redundant",    "unnecessary",
                    "efficient",    "efficiency",
                    "optimizes",    "improve performance"},
                   {}));
  t.push_back(
      rule("refactor", {"refactor", "refactoring", "cleanup", "clean up", "chore", "style"},
           {"refactor",  "refactored",    "refactoring", "cleanup",     "clean up",   "rename",
            "renamed",   "simplify",      "simplifies",  "restructure", "reorganize", "deduplicate",
            "dead code", "remove unused", "tidy",        "move",        "moves",      "unify",
            "unifies",   "consolidate",   "extract",     "decouple",    "migrate",    "reorganise"},
           {}));
  t.push_back(with_all_roles(rule("docs", {"docs", "doc", "documentation", "readme"},
                                  {"docs", "documentation", "readme", "docstring", "tutorial"}, {}),
                             {FileRole::kDocs}));
  {
    TagRule ci = with_all_roles(rule("ci", {"ci", "workflow", "github actions"},
                                     {"ci", "workflow", "github actions", "nightly", "runner",
                                      "runners", "pre commit", "precommit", "linting"},
                                     {}),
                                {FileRole::kCi});
    ci.share_roles = {FileRole::kCi};
    ci.min_share = 1.0 / 3;  // CI files carry a third of the lines: a CI change with its tests
    t.push_back(std::move(ci));
  }
  t.push_back(
      with_all_roles(rule("tests", {"test", "tests", "testing", "unittest"},
                          {"test", "unittest", "unit test", "e2e test", "flaky", "testcase"}, {}),
                     {FileRole::kTest}));
  t.push_back(with_all_roles(
      with_globs(
          rule("deps", {"deps", "dependencies", "dependency", "bump", "upgrade"},
               {"bump", "bumps", "upgrade", "upgrades", "dependency", "dependencies", "deps",
                "requirements"},
               {}),
          {"**/requirements*.txt", "**/requirements/**", "**/pyproject.toml", "**/setup.py",
           "**/Cargo.toml", "**/Cargo.lock", "**/package.json", "**/package-lock.json", "**/go.mod",
           "**/go.sum", "**/poetry.lock", "**/uv.lock", "**/Pipfile", "**/environment.yml"}),
      {FileRole::kBuild}));
  t.push_back(rule("revert", {"revert", "reverts"}, {}, {}));
  prepare_tag_rules(t);
  return t;
}

}  // namespace

const std::vector<TagRule>& default_taxonomy() {
  static const std::vector<TagRule> kRules = build();
  return kRules;
}

}  // namespace mergelens
