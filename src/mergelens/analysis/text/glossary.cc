// The zh/en domain glossary (glossary.h). Entries for tag names come first:
// every tag of the default taxonomy (taxonomy.cc), the aliases that
// canonical_tag_name folds into them, and the tags a real repository's
// labeler emits (sglang's .github/labeler.yml). Plain terms follow: words a
// reader searches for in either language (prefill 预填充, throughput 吞吐).
//
// A form belongs to one entry only, so a translation never widens a search
// into an unrelated topic. Keep forms to translations and spellings of the
// same idea; related tools (eagle for speculative decoding) are tag rules,
// not glossary forms.
#include "mergelens/analysis/text/glossary.h"

#include <algorithm>

namespace mergelens {
namespace {

const std::vector<GlossaryEntry>& entries() {
  static const std::vector<GlossaryEntry> kEntries = {
      // ---- tags: hardware and vendors
      {"amd", "AMD", "AMD", {"rocm", "hip", "AMD 显卡"}},
      {"nvidia", "NVIDIA", "英伟达", {"nvidia gpu", "cuda", "英伟达显卡"}},
      {"blackwell", "Blackwell", "Blackwell 架构", {"sm100", "sm10x", "b200"}},
      {"hopper", "Hopper", "Hopper 架构", {"sm90", "h100", "h200"}},
      {"intel", "Intel", "英特尔", {"xpu", "gaudi"}},
      {"npu", "NPU", "昇腾 NPU", {"ascend", "昇腾"}},
      {"tpu", "TPU", "TPU", {"jax"}},
      {"cpu", "CPU", "CPU 后端", {"cpu backend"}},
      {"mthreads", "Moore Threads", "摩尔线程", {"musa", "moore threads gpu"}},
      {"apple-silicon", "Apple silicon", "苹果芯片", {"mlx", "apple m series"}},
      // ---- tags: subsystems
      {"moe", "MoE", "混合专家", {"mixture of experts", "混合专家模型", "fused moe"}},
      {"quantization",
       "quantization",
       "量化",
       {"quant", "quantisation", "quantize", "quantized", "quantizing", "量化方案"}},
      {"attention", "attention", "注意力", {"attn", "注意力机制", "attention backend"}},
      {"kv-cache", "KV cache", "KV 缓存", {"kvcache", "键值缓存", "kv 缓存池"}},
      {"speculative-decoding",
       "speculative decoding",
       "投机解码",
       {"speculative", "spec decode", "spec decoding", "speculative decode", "specdec", "推测解码",
        "投机采样"}},
      {"lora", "LoRA", "LoRA 适配器", {"low rank adaptation", "低秩适配"}},
      {"multimodal",
       "multimodal",
       "多模态",
       {"multi modal", "multi modality", "vlm", "视觉语言模型", "多模态模型"}},
      {"diffusion", "diffusion", "扩散模型", {"diffusion model", "diffusers", "扩散", "文生图"}},
      {"distributed", "distributed", "分布式", {"parallelism", "并行", "分布式推理", "多机"}},
      {"cuda-graph",
       "CUDA graph",
       "CUDA 图",
       {"cudagraph", "cuda graphs", "图捕获", "graph capture"}},
      {"piecewise-cuda-graph", "piecewise CUDA graph", "分段 CUDA 图", {"pcg", "piecewise graph"}},
      {"scheduler", "scheduler", "调度", {"scheduling", "调度器", "调度策略", "schedule policy"}},
      {"router", "router", "路由", {"routing", "路由器", "request routing"}},
      {"model-gateway", "model gateway", "模型网关", {"gateway", "网关"}},
      {"sampling", "sampling", "采样", {"sampler", "采样器", "采样参数", "sampling params"}},
      {"structured-output",
       "structured output",
       "结构化输出",
       {"structured outputs", "constrained decoding", "约束解码", "grammar", "语法约束",
        "json schema"}},
      {"tool-calling",
       "tool calling",
       "工具调用",
       {"tool call", "tool calls", "function call", "function calling", "函数调用", "tool parser"}},
      {"model-support", "model support", "模型支持", {"new model", "新模型", "模型适配"}},
      {"models", "models", "模型实现", {"model code", "模型代码"}},
      {"kernels", "kernels", "算子", {"kernel", "内核", "算子实现", "custom op"}},
      {"sgl-kernel", "sgl-kernel", "sgl-kernel 算子库", {"sgl kernel", "sgl_kernel"}},
      {"jit-kernel", "JIT kernel", "JIT 算子", {"jit kernels", "即时编译算子"}},
      {"disaggregation",
       "disaggregation",
       "PD 分离",
       {"disagg", "pd disaggregation", "prefill decode disaggregation", "预填充解码分离",
        "分离式部署"}},
      {"deterministic",
       "deterministic inference",
       "确定性推理",
       {"determinism", "deterministic", "确定性", "batch invariant", "批次不变"}},
      {"deepseek", "DeepSeek", "DeepSeek 模型", {"deepseek v3", "deepseek r1", "深度求索"}},
      {"memory-pool", "memory pool", "内存池", {"mem pool", "kv pool", "token pool", "显存池"}},
      {"unified-radix-cache", "unified radix cache", "统一基数缓存", {"unified radix"}},
      {"hicache",
       "HiCache",
       "分层缓存",
       {"hierarchical cache", "hierarchical caching", "多级缓存"}},
      // ---- tags: kinds of change
      {"bugfix", "bug fix", "缺陷修复", {"fix", "bug", "hotfix", "修复", "问题修复"}},
      {"feature", "feature", "新功能", {"new feature", "enhancement", "功能", "新特性"}},
      {"perf",
       "performance",
       "性能",
       {"optimization", "optimize", "speedup", "性能优化", "优化", "加速"}},
      {"refactor", "refactor", "重构", {"refactoring", "cleanup", "clean up", "代码清理"}},
      {"docs", "docs", "文档", {"documentation", "doc", "readme", "文档更新"}},
      {"ci",
       "CI",
       "持续集成",
       {"continuous integration", "workflow", "github actions", "流水线配置"}},
      {"tests", "tests", "测试", {"test", "testing", "unit test", "unittest", "单元测试"}},
      {"deps", "dependencies", "依赖", {"dependency", "bump", "依赖升级", "版本升级"}},
      {"revert", "revert", "回退", {"reverts", "reverted", "回滚", "撤销"}},

      // ---- plain terms
      {"cache", "cache", "缓存", {"caching", "cached"}},
      {"prefix cache", "prefix cache", "前缀缓存", {"prefix caching", "radix cache", "基数缓存"}},
      {"prefill", "prefill", "预填充", {"prefilling", "预填"}},
      {"chunked prefill", "chunked prefill", "分块预填充", {"chunked prefilling"}},
      {"decode", "decode", "解码", {"decoding", "解码阶段"}},
      {"throughput", "throughput", "吞吐", {"吞吐量", "tokens per second"}},
      {"latency", "latency", "延迟", {"时延", "ttft", "tpot"}},
      {"memory", "memory", "显存", {"gpu memory", "vram", "内存占用", "显存占用"}},
      {"memory leak", "memory leak", "内存泄漏", {"memory leaks", "leak", "泄漏"}},
      {"out of memory", "out of memory", "显存不足", {"oom", "内存不足"}},
      {"tensor parallel",
       "tensor parallelism",
       "张量并行",
       {"tensor parallelism", "tensor parallel size"}},
      {"pipeline parallel", "pipeline parallelism", "流水线并行", {"pipeline parallelism"}},
      {"data parallel", "data parallelism", "数据并行", {"data parallelism", "dp attention"}},
      {"expert parallel", "expert parallelism", "专家并行", {"expert parallelism"}},
      {"expert", "expert", "专家", {"experts", "专家层"}},
      {"load balancing", "load balancing", "负载均衡", {"load balancer", "负载均衡器"}},
      {"communication",
       "communication",
       "通信",
       {"collective", "集合通信", "all reduce", "allreduce"}},
      {"tokenizer", "tokenizer", "分词器", {"tokenizers", "tokenization", "分词"}},
      {"detokenizer", "detokenizer", "反分词器", {"detokenization", "detokenize"}},
      {"weight loading",
       "weight loading",
       "权重加载",
       {"load weights", "weight loader", "加载权重"}},
      {"checkpoint", "checkpoint", "检查点", {"checkpoints", "模型权重文件"}},
      {"deadlock", "deadlock", "死锁", {"deadlocks", "hang", "卡死"}},
      {"race condition", "race condition", "竞态条件", {"data race", "race", "竞态"}},
      {"crash", "crash", "崩溃", {"crashes", "segfault", "段错误"}},
      {"timeout", "timeout", "超时", {"timeouts", "timed out"}},
      {"fusion", "fusion", "融合", {"fused", "fuse", "算子融合", "kernel fusion"}},
      {"benchmark", "benchmark", "基准测试", {"benchmarks", "bench", "性能测试"}},
      {"regression", "regression", "回归", {"regressions", "回归问题"}},
      {"accuracy", "accuracy", "精度", {"precision", "准确率", "数值精度"}},
      {"overlap", "overlap", "重叠", {"overlapping", "计算通信重叠"}},
      {"batch", "batch", "批处理", {"batching", "batch size", "批大小"}},
      {"continuous batching", "continuous batching", "连续批处理", {"连续批"}},
      {"embedding", "embedding", "嵌入", {"embeddings", "向量嵌入"}},
      {"rotary embedding", "rotary embedding", "旋转位置编码", {"rope", "rotary"}},
      {"normalization", "normalization", "归一化", {"layernorm", "rmsnorm", "norm", "层归一化"}},
      {"activation", "activation", "激活函数", {"activations", "silu", "gelu"}},
      {"sparse", "sparse", "稀疏", {"sparsity", "稀疏性"}},
      {"sliding window", "sliding window attention", "滑动窗口注意力", {"swa", "滑动窗口"}},
      {"inference", "inference", "推理", {"serving", "推理服务"}},
      {"reasoning", "reasoning", "思维链", {"reasoning parser", "thinking", "思考模式"}},
      {"streaming", "streaming", "流式输出", {"stream", "流式"}},
      {"logprobs", "logprobs", "对数概率", {"logprob", "log probs"}},
      {"warmup", "warmup", "预热", {"warm up"}},
      {"compile", "compile", "编译", {"compilation", "torch compile", "torch.compile"}},
      {"offload", "offload", "卸载", {"offloading", "cpu offload"}},
      {"eviction", "eviction", "驱逐", {"evict", "缓存驱逐", "淘汰"}},
      {"draft model", "draft model", "草稿模型", {"draft", "draft tokens"}},
      {"metrics", "metrics", "监控指标", {"prometheus", "指标", "可观测性"}},
      {"logging", "logging", "日志", {"log", "logs", "日志输出"}},
      {"configuration", "configuration", "配置", {"config", "configs", "配置项"}},
      {"environment variable", "environment variable", "环境变量", {"env var", "env vars"}},
      {"command line flag", "command line flag", "命令行参数", {"cli flag", "server args"}},
      {"api", "API", "接口", {"openai api", "endpoint", "endpoints", "接口兼容"}},
      {"vision", "vision", "视觉", {"visual", "图像理解"}},
      {"image", "image", "图像", {"images", "图片"}},
      {"video", "video", "视频", {"videos", "视频生成"}},
      {"audio", "audio", "音频", {"speech", "语音"}},
      {"gpu", "GPU", "显卡", {"gpus", "图形处理器"}},
  };
  return kEntries;
}

// ASCII lowercase; '-', '_' and whitespace runs as one space; trimmed; no
// space beside a non-ASCII character.
std::string fold(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '-' || c == '_' || c == ' ' || c == '\t' || c == '\n') {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else {
      out += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    }
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  // "KV 缓存" and "KV缓存" are one term: no space next to a non-ASCII letter.
  std::string tight;
  for (size_t i = 0; i < out.size(); ++i) {
    const bool around_cjk = out[i] == ' ' && i > 0 && i + 1 < out.size() &&
                            (static_cast<unsigned char>(out[i - 1]) >= 0x80 ||
                             static_cast<unsigned char>(out[i + 1]) >= 0x80);
    if (!around_cjk) tight += out[i];
  }
  return tight;
}

}  // namespace

std::span<const GlossaryEntry> glossary() {
  return entries();
}

const GlossaryEntry* glossary_find(std::string_view term) {
  const std::string t = fold(term);
  if (t.empty()) return nullptr;
  // Every form folded once (pages look a name up per tag of every entry),
  // in the order matches() was tried: key, en, zh, then the other forms.
  struct Form {
    std::string folded;  // without the trailing * of a prefix form
    bool prefix;
    const GlossaryEntry* entry;
  };
  static const std::vector<Form> forms = [] {
    std::vector<Form> out;
    auto add = [&](std::string_view form, const GlossaryEntry& e) {
      std::string f = fold(form);
      const bool prefix = !f.empty() && f.back() == '*';
      if (prefix) f.pop_back();
      if (!f.empty() || !prefix) out.push_back({std::move(f), prefix, &e});
    };
    for (const auto& e : entries()) {
      add(e.key, e);
      add(e.en, e);
      add(e.zh, e);
      for (const char* f : e.forms) add(f, e);
    }
    return out;
  }();
  for (const Form& f : forms)
    if (f.prefix ? t.starts_with(f.folded) : f.folded == t) return f.entry;
  return nullptr;
}

std::string tag_display_name(std::string_view tag, std::string_view lang) {
  if (lang != "zh") return std::string(tag);
  const GlossaryEntry* e = glossary_find(tag);
  return e ? std::string(e->zh) : std::string(tag);
}

std::vector<std::string> search_forms(std::string_view term) {
  const GlossaryEntry* e = glossary_find(term);
  if (!e) return {};
  std::vector<std::string> out;
  auto add = [&](std::string_view f) {
    std::string s = fold(f);
    if (!s.empty() && std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
  };
  add(e->key);
  add(e->en);
  add(e->zh);
  for (const char* f : e->forms) add(f);
  return out;
}

}  // namespace mergelens
