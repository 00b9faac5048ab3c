// Line-level signal detectors (see code_signals.h).
//
// Each detector is a cheap substring test followed, when it passes, by one or
// two RE2 patterns compiled once in Latin-1 mode (so invalid UTF-8 is just
// bytes). Guards, try/except and fallbacks look at the neighbouring lines of
// the same side: the body of an `if` is the next code line (or the text after
// the condition), the branch an `else` belongs to is the nearest `if` above
// it at the same indentation.
#include <algorithm>
#include <bitset>
#include <initializer_list>
#include <optional>
#include <unordered_map>

#include <re2/re2.h>

#include "mergelens/analysis/code_outline.h"
#include "mergelens/analysis/code_signals.h"
#include "mergelens/analysis/language.h"

namespace mergelens {
namespace {

using outline_internal::is_ident_char;
using outline_internal::trim;

RE2::Options latin1() {
  RE2::Options o;
  o.set_encoding(RE2::Options::EncodingLatin1);
  o.set_log_errors(false);
  return o;
}

// Each pattern is compiled on first use and lives for the program.
#define ML_PATTERN(name, text)                       \
  const RE2& name() {                                \
    static const RE2* const re = new RE2(text, latin1()); \
    return *re;                                      \
  }

ML_PATTERN(py_if, R"re(^\s*(?:el)?if\s+(.+)$)re")
ML_PATTERN(c_if, R"re(^\s*(?:\}\s*)?(?:else\s+)?if\s*(?:constexpr\s*)?\()re")
ML_PATTERN(rs_go_if, R"re(^\s*(?:\}\s*)?(?:else\s+)?if\s+(.+?)\s*(?:\{\s*(.*?)\s*\}?\s*)?$)re")
ML_PATTERN(raise_like,
           R"re(^\s*\{?\s*(?:raise\b|throw\b|panic!|panic\(|bail!|unreachable!|return\s+Err\b|)re"
           R"re(return\s+.*\berr\b|return\s+.*Errorf|return\s+.*errors\.New|os\.Exit|log\.Fatal|)re"
           R"re(sys\.exit|exit\(|abort\(|std::abort|std::terminate|TORCH_CHECK\(\s*false|LOG\(FATAL\)))re")
ML_PATTERN(return_like, R"re(^\s*\{?\s*(?:return|continue|break)\b)re")
ML_PATTERN(raise_stmt,
           R"re(^\s*(?:raise\s+([\w.]+)|throw\s+(?:new\s+)?([\w:.]+)|(panic)!|(bail)!|return\s+(Err)\())re")
ML_PATTERN(assert_stmt,
           R"re(^\s*(assert!|assert_eq!|assert_ne!|debug_assert\w*!|ensure!|assert\b|static_assert\b|)re"
           R"re(TORCH_CHECK\w*|TORCH_INTERNAL_ASSERT\w*|AT_ASSERT\w*|C10_CUDA_CHECK|CUDA_CHECK|)re"
           R"re(HOST_CHECK|CHECK(?:_[A-Z]+)?|DCHECK\w*|console\.assert|invariant)(.*)$)re")
ML_PATTERN(py_except, R"re(^\s*except\b\s*(.*?)\s*:\s*(.*)$)re")
ML_PATTERN(finally_stmt, R"re(^\s*\}?\s*finally\s*(?::|\{))re")
ML_PATTERN(catch_stmt, R"re(\bcatch\s*(?:\(([^)]*)\))?\s*\{\s*(.*)$)re")
ML_PATTERN(else_stmt, R"re(^\s*\}?\s*else\s*(?::|\{)\s*$)re")
ML_PATTERN(fallback_word, R"re((?i)fall[ _-]?back)re")
ML_PATTERN(capability,
           R"re(\b(?:_?is_\w+|has_\w+|supports?_\w*|\w*_supported\w*|\w*available\w*|\w*_enabled\w*|)re"
           R"re(hasattr|getattr|\w*version\w*|\w*capability\w*|_?HAS_\w+|\w*_AVAILABLE|find_spec|)re"
           R"re(importlib|can_\w+|_?use_\w+|USE_\w+|ENABLE_\w+|\w*_ok|\w*fp8\w*|\w*cuda\w*|\w*hip\w*)\b)re")
ML_PATTERN(log_line, R"re(^\s*(?:logger|logging|log|warnings|print|LOG|console)\b)re")
ML_PATTERN(preprocessor, R"re(^\s*#\s*(if|ifdef|ifndef|elif|elifdef|elifndef)\b\s*(.*)$)re")
ML_PATTERN(todo_tag, R"re(\b(TODO|FIXME|XXX|HACK)\b[\s:(\-]*(.*)$)re")
// Environment variables.
ML_PATTERN(env_environ,
           R"re((?i:environ)\s*(?:\.\s*(?:get|pop|setdefault)\s*\(|\[)\s*[rbuf]?["']([A-Za-z_]\w*)["'])re")
ML_PATTERN(env_getenv,
           R"re((?i:getenv|lookupenv|setenv|unsetenv|putenv)\s*\(\s*[rbuf]?["']([A-Za-z_]\w*)["'])re")
ML_PATTERN(env_rust, R"re(\b(?:env::(?:var|var_os|set_var|remove_var)|(?:option_)?env!)\s*\(\s*"([A-Za-z_]\w*)")re")
ML_PATTERN(env_js, R"re(\b(?:process|import\.meta)\.env(?:\.([A-Za-z_]\w*)|\[\s*["'`]([A-Za-z_]\w*)["'`]))re")
ML_PATTERN(env_module, R"re(\benvs\.([A-Z][A-Z0-9]+_[A-Z0-9_]+))re")
ML_PATTERN(env_helper,
           R"re([A-Za-z_][\w.:]*(?i:env)\w*\s*\(\s*[rbuf]?["']?([A-Z][A-Z0-9]+_[A-Z0-9_]+)\b)re")
ML_PATTERN(env_subscript, R"re((?i:env)\w*\s*\[\s*["']([A-Z][A-Z0-9]+_[A-Z0-9_]+)["'])re")
ML_PATTERN(env_in, R"re(["']([A-Z][A-Z0-9]+_[A-Z0-9_]+)["']\s+(?:not\s+)?in\s+[\w.]*(?i:environ))re")
ML_PATTERN(env_definition,
           R"re(^\s*["']?([A-Z][A-Z0-9]+_[A-Z0-9_]+)["']?\s*(?::\s*[\w\[\], .]+)?[:=]\s*(?:Env\w*\(|lambda\b))re")
// Flags.
ML_PATTERN(flag_literal, R"re(["'](--?[A-Za-z0-9][\w.-]*)["'])re")
ML_PATTERN(flag_option, R"re(\.(?:option|Option)\(\s*["'](--?[\w-]+)["'])re")
ML_PATTERN(flag_gflags,
           R"re(\b(?:C10_)?DEFINE_(?:bool|int32|int64|uint32|uint64|double|string|float|int)\s*\(\s*(\w+))re")
ML_PATTERN(flag_absl, R"re(\bABSL_FLAG\s*\(\s*[\w:<>]+\s*,\s*(\w+))re")
ML_PATTERN(flag_clap, R"re(#\[(?:arg|clap|structopt)\((.*)\)\])re")
ML_PATTERN(flag_clap_long, R"re(\blong\s*=\s*"([\w-]+)")re")
ML_PATTERN(rust_field, R"re(^\s*(?:pub(?:\([^)]*\))?\s+)?([a-z_]\w*)\s*:)re")
ML_PATTERN(flag_go,
           R"re((?:\bflag|\bpflag|Flags\(\)|PersistentFlags\(\))\.\w+\(\s*(?:&[\w.\[\]]+\s*,\s*)?"([\w.-]+)")re")
ML_PATTERN(flag_field_meta, R"re(^\s+([A-Za-z_]\w*)\s*:[^=]*=\s*(?:dataclasses\.)?field\(.*\b(?:metadata|help)\b)re")
ML_PATTERN(config_field, R"re(^([A-Za-z_]\w*)\s*:\s*([^=()]+?)\s*(?:=.*)?$)re")
ML_PATTERN(config_class, R"re((?:Args|Arguments)$)re")
ML_PATTERN(cmake_option, R"re(^\s*(?:cmake_dependent_)?option\s*\(\s*(\w+))re")
// Branches.
ML_PATTERN(conditional,
           R"re(^\s*(?:\}\s*)?(?:if|elif|else\s+if|while|case|switch|match|when|assert)\b|)re"
           R"re(^\s*#\s*(?:if|elif|ifdef|ifndef)\b|[=!]=|\bif\b.*\belse\b|\bis_same|\band\b|\bor\b|)re"
           R"re(&&|\|\||#\[cfg|cfg!\s*\(|\s\?\s[^:]*\s:\s|\bnot\b)re")
ML_PATTERN(dtype,
           R"re((torch\.(?:float8_e4m3fnuz|float8_e4m3fn|float8_e5m2fnuz|float8_e5m2|float4_e2m1fn_x2|)re"
           R"re(bfloat16|float16|float32|float64|half|int8|uint8|int4|int32|int64)\b|)re"
           R"re(\b(?:__)?nv_bfloat16\w*|\b__half2?\b|\bhalf2\b|__nv_fp8\w*|\bc10::(?:BFloat16|Half|Float8\w*)|)re"
           R"re(\bat::k(?:BFloat16|Half|Float8\w*|Float|Byte|Char|Int|Long)\b|ScalarType::\w+|)re"
           R"re(\bk(?:BFloat16|Half|Float8_\w+)\b|\b\w*DISPATCH\w*(?:TYPES|FLOAT|HALF|FP8|DTYPE)\w*|)re"
           R"re(\b[A-Za-z0-9_]*(?i:fp8|fp4|nvfp4|mxfp[468]|w8a8|w4a8|w4a16|int4|bf16|fp16|fp32|e4m3|e5m2|)re"
           R"re(bfloat16|float16)[A-Za-z0-9_]*))re")
ML_PATTERN(arch_compare, R"re((__CUDA_ARCH__\s*[<>=!]=?\s*\d+))re")
ML_PATTERN(dtype_compare, R"re(\bdtype\s*(?:==|!=|\bin\b|\bis\b|\bnot\s+in\b))re")
ML_PATTERN(device,
           R"re((\b_?is_(?:cuda|hip|npu|xpu|cpu|hpu|mps|rocm|musa|tpu|mlu|gaudi|cuda_alike|sm\d+\w*|)re"
           R"re(blackwell\w*|hopper\w*|ampere\w*|gfx\w+|nvidia\w*|amd\w*|hip_\w+|cuda_\w+)\b(?:\(\))?|)re"
           R"re(torch\.version\.(?:hip|cuda)|torch\.(?:cuda|xpu|npu|mps)\.is_available\(\)|)re"
           R"re(\bget_device_capability\b|\bdevice_capability\b|\bcompute_capability\b|)re"
           R"re(\bcurrent_platform\.\w+|\bdevice(?:\.type|_type)?\s*[=!]=\s*["'][a-z]+["']|)re"
           R"re(["'](?:cuda|hip|npu|xpu|cpu|mps|hpu|rocm|musa)["']\s*(?:[=!]=|in\b)|)re"
           R"re(__CUDA_ARCH__(?:\s*[<>=!]=?\s*\d+)?|\b(?:USE_ROCM|__HIP_PLATFORM_AMD__|__HIPCC__|__HIP__|)re"
           R"re(__HIP_DEVICE_COMPILE__|CUDA_VERSION|CUDART_VERSION|TORCH_HIP_VERSION|HIP_VERSION|)re"
           R"re(__CUDACC_VER_MAJOR__|__CUDACC__|USE_CUDA)\b|\b[sS][mM]_?(?:[7-9]\d|1[0-2]\d)[af]?\b|)re"
           R"re(\bgfx(?:9|1[012])\w*))re")
ML_PATTERN(platform,
           R"re((\bsys\.platform\b|\bplatform\.(?:system|machine|processor)\(\)|\bos\.name\b|)re"
           R"re(\bruntime\.GOOS\b|\bruntime\.GOARCH\b|\bprocess\.platform\b|)re"
           R"re(\bcfg!?\s*\(\s*(?:target_os|target_arch|target_family|windows|unix)[^)]*\)|)re"
           R"re(\b_WIN32\b|\b_WIN64\b|\b__APPLE__\b|\b__linux__\b|\b_MSC_VER\b|\b__aarch64__\b|)re"
           R"re(\b__x86_64__\b|\b__ARM_NEON\w*|\b__AVX\w*__|\bIS_(?:WINDOWS|MACOS|LINUX)\b))re")
ML_PATTERN(concurrency,
           R"re((\bthreading\.(?:Lock|RLock|Event|Condition|Semaphore|BoundedSemaphore|Barrier|Thread)\b|)re"
           R"re(\basyncio\.(?:Lock|Event|Condition|Semaphore|Queue|gather|create_task|wait_for|wait|)re"
           R"re(run_coroutine_threadsafe|to_thread|shield)\b|\bmultiprocessing\.\w+|\bconcurrent\.futures\b|)re"
           R"re(\b(?:Thread|Process)PoolExecutor\b|\bwith\s+(?:self\.)?_?\w*lock\w*|\.acquire\(|)re"
           R"re(std::(?:mutex|shared_mutex|recursive_mutex|timed_mutex|lock_guard|unique_lock|scoped_lock|)re"
           R"re(shared_lock|atomic\w*|condition_variable\w*|thread|jthread|async|future|promise|)re"
           R"re(memory_order\w*)\b|\batomic(?:Add|Sub|Max|Min|CAS|Exch|And|Or|Inc|Dec)\w*|\batomic_\w+|)re"
           R"re(\bAtomic(?:Bool|Usize|Isize|Ptr|[IU](?:8|16|32|64))\b|\b__sync(?:threads\w*|warp)\b|)re"
           R"re(\b__threadfence\w*|\bcooperative_groups\b|\bgrid\.sync\(\)|\b(?:cuda::)?barrier\b|)re"
           R"re(\bcuda(?:Stream|Event)\w*|\bcudaDeviceSynchronize\b|)re"
           R"re(\btorch\.cuda\.(?:Stream|Event|synchronize|stream|current_stream|default_stream|set_stream)\b|)re"
           R"re(\.synchronize\(\)|\b(?:current|wait|record)_stream\(|\bdist\.barrier\b|)re"
           R"re(\bsync\.(?:Mutex|RWMutex|WaitGroup|Once|Cond|Map)\b|\bgo\s+func\b|\bchan\s+\w|)re"
           R"re(\b(?:Mutex|RwLock|Condvar)<|\btokio::(?:spawn|sync|select)\b|\bPromise\.all\b|)re"
           R"re(\bAtomics\.\w+))re")

#undef ML_PATTERN

// A capture group as a string_view (RE2 parses into any type with ParseFrom).
struct Cap : std::string_view {
  bool ParseFrom(const char* s, size_t n) {
    static_cast<std::string_view&>(*this) = std::string_view(s ? s : "", n);
    return true;
  }
};

bool c_family(Language l) { return l == Language::kCpp || l == Language::kCuda; }

std::string short_text(std::string_view s, size_t n = 100) {
  s = trim(s);
  std::string out;
  out.reserve(std::min(s.size(), n + 4));
  for (char c : s) {
    if (out.size() >= n) break;
    if (c == ' ' || c == '\t') {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else {
      out += c;
    }
  }
  // Never end inside a UTF-8 sequence (the cut or the source may split one).
  size_t i = out.size(), cont = 0;
  while (i > 0 && (static_cast<unsigned char>(out[i - 1]) & 0xC0) == 0x80 && cont < 3) --i, ++cont;
  if (i > 0) {
    const unsigned char lead = static_cast<unsigned char>(out[i - 1]);
    const size_t need = lead >= 0xF0 ? 3 : lead >= 0xE0 ? 2 : lead >= 0xC0 ? 1 : 0;
    if (lead >= 0xC0 && cont < need) out.resize(i - 1);
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  if (s.size() > n) out += "...";
  return out;
}

bool contains_icase(std::string_view s, std::string_view lower_needle) {
  if (lower_needle.size() > s.size()) return false;
  for (size_t i = 0; i + lower_needle.size() <= s.size(); ++i) {
    size_t k = 0;
    while (k < lower_needle.size()) {
      char c = s[i + k];
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
      if (c != lower_needle[k]) break;
      ++k;
    }
    if (k == lower_needle.size()) return true;
  }
  return false;
}

bool contains_any(std::string_view s, std::initializer_list<std::string_view> needles) {
  for (auto n : needles)
    if (s.find(n) != std::string_view::npos) return true;
  return false;
}

// The code part of a line: a trailing comment removed (quotes respected).
std::string_view code_part(Language lang, std::string_view s) {
  char quote = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (quote) {
      if (c == '\\') ++i;
      else if (c == quote) quote = 0;
      continue;
    }
    if (c == '"' || c == '\'' || c == '`') {
      if (lang == Language::kRust && c == '\'') continue;  // lifetimes
      quote = c;
    } else if (lang == Language::kPython && c == '#') {
      return trim(s.substr(0, i));
    } else if (lang != Language::kPython && c == '/' && i + 1 < s.size() && s[i + 1] == '/') {
      return trim(s.substr(0, i));
    }
  }
  return trim(s);
}

bool is_comment_line(Language lang, std::string_view t) {
  if (lang == Language::kPython) return t.starts_with("#");
  return t.starts_with("//") || t.starts_with("/*") || t.starts_with("*");
}

bool is_code_line(Language lang, std::string_view s) {
  const std::string_view t = trim(s);
  return !t.empty() && !is_comment_line(lang, t);
}

// Next code line after i in the side, or -1.
int next_code(Language lang, std::span<const SideLine> side, int i, int limit = 4) {
  for (int j = i + 1; j < static_cast<int>(side.size()) && j <= i + limit; ++j)
    if (is_code_line(lang, side[j].text)) return j;
  return -1;
}

int prev_code(Language lang, std::span<const SideLine> side, int i, int limit = 4) {
  for (int j = i - 1; j >= 0 && j >= i - limit; --j)
    if (is_code_line(lang, side[j].text)) return j;
  return -1;
}

std::string_view first_word(std::string_view code) {
  size_t e = 0;
  while (e < code.size() && is_ident_char(code[e])) ++e;
  return code.substr(0, e);
}

// "if ...", "elif ...", "else if ...", "} else if ..." (cheap test before parse_if).
bool starts_if(std::string_view code) {
  if (code.starts_with("}")) code = trim(code.substr(1));
  if (code.starts_with("else")) code = trim(code.substr(4));
  if (code.starts_with("elif")) code = code.substr(2);
  return code.starts_with("if") && (code.size() == 2 || !is_ident_char(code[2]));
}

// "assert x > 0, 'msg'" or "TORCH_CHECK(x.is_cuda(), \"msg\")": the check as
// written, a call cut at its closing parenthesis (marked "..." when the call
// continues on the next line).
std::string assert_detail(std::string_view macro, std::string_view rest) {
  if (!rest.starts_with("(")) {
    rest = trim(rest);
    while (!rest.empty() && (rest.back() == ';' || rest.back() == '{')) rest = trim(rest.substr(0, rest.size() - 1));
    return std::string(macro) + " " + std::string(rest);
  }
  int depth = 0;
  for (size_t i = 0; i < rest.size(); ++i) {
    if (rest[i] == '(') ++depth;
    if (rest[i] == ')' && --depth == 0) return std::string(macro) + std::string(rest.substr(0, i + 1));
  }
  std::string_view open = trim(rest);
  while (!open.empty() && open.back() == ',') open.remove_suffix(1);
  return std::string(macro) + std::string(open) + "...)";
}

struct IfInfo {
  std::string cond;
  std::string body;     // the body statement (inline or on body_index)
  int body_index = -1;  // -1 when the body is inline
};

std::optional<IfInfo> parse_if(Language lang, std::span<const SideLine> side, int i) {
  const std::string_view code = code_part(lang, side[i].text);
  IfInfo info;
  int header_end = i;
  if (lang == Language::kPython) {
    Cap rest;
    if (!RE2::FullMatch(code, py_if(), &rest)) return std::nullopt;
    if (rest.ends_with(":")) {
      info.cond = short_text(rest.substr(0, rest.size() - 1), 80);
    } else if (const size_t colon = rest.rfind(": "); colon != std::string_view::npos &&
                                                      RE2::PartialMatch(rest.substr(colon + 2),
                                                                        return_like()) ) {
      info.cond = short_text(rest.substr(0, colon), 80);
      info.body = short_text(rest.substr(colon + 2), 60);
      return info;
    } else if (const size_t colon2 = rest.rfind(": ");
               colon2 != std::string_view::npos &&
               RE2::PartialMatch(rest.substr(colon2 + 2), raise_like())) {
      info.cond = short_text(rest.substr(0, colon2), 80);
      info.body = short_text(rest.substr(colon2 + 2), 60);
      return info;
    } else {
      // A condition over several lines: find the line that ends with ':'.
      info.cond = short_text(rest, 80);
      header_end = -1;
      for (int j = i + 1; j < static_cast<int>(side.size()) && j <= i + 4; ++j)
        if (code_part(lang, side[j].text).ends_with(":")) {
          header_end = j;
          break;
        }
      if (header_end < 0) return std::nullopt;
    }
  } else if (lang == Language::kRust || lang == Language::kGo) {
    Cap cond, inline_body;
    if (!RE2::FullMatch(code, rs_go_if(), &cond, &inline_body)) return std::nullopt;
    info.cond = short_text(cond, 80);
    if (!inline_body.empty()) {
      info.body = short_text(inline_body, 60);
      return info;
    }
  } else {
    if (!RE2::PartialMatch(code, c_if())) return std::nullopt;
    const size_t open = code.find('(');
    int depth = 0;
    size_t close = std::string_view::npos;
    for (size_t k = open; k < code.size(); ++k) {
      if (code[k] == '(') ++depth;
      if (code[k] == ')' && --depth == 0) {
        close = k;
        break;
      }
    }
    if (close == std::string_view::npos) {
      info.cond = short_text(code.substr(open + 1), 80);
      header_end = -1;
      for (int j = i + 1; j < static_cast<int>(side.size()) && j <= i + 4; ++j) {
        const std::string_view c = code_part(lang, side[j].text);
        if (c.ends_with(")") || c.ends_with("{")) {
          header_end = j;
          break;
        }
      }
      if (header_end < 0) return std::nullopt;
    } else {
      info.cond = short_text(code.substr(open + 1, close - open - 1), 80);
      std::string_view rest = trim(code.substr(close + 1));
      if (rest.starts_with("{")) rest = trim(rest.substr(1));
      if (rest.ends_with("}")) rest = trim(rest.substr(0, rest.size() - 1));
      if (!rest.empty()) {
        info.body = short_text(rest, 60);
        return info;
      }
    }
  }
  info.body_index = next_code(lang, side, header_end);
  if (info.body_index < 0) return std::nullopt;
  if (lang == Language::kPython &&
      indentation(side[info.body_index].text) <= indentation(side[i].text))
    return std::nullopt;
  info.body = short_text(side[info.body_index].text, 60);
  return info;
}

// "guard", "early_return" or empty for the body of an if.
std::string guard_kind(std::string_view body) {
  if (RE2::PartialMatch(body, raise_like())) return "guard";
  if (RE2::PartialMatch(body, return_like())) return "early_return";
  return {};
}

class SideScanner {
 public:
  SideScanner(Language lang, std::span<const SideLine> side, bool added,
              std::vector<RawSignal>& out)
      : lang_(lang), side_(side), added_(added), out_(out), first_(out.size()) {}

  void run() {
    for (int i = 0; i < static_cast<int>(side_.size()); ++i) {
      if (!side_[i].changed) continue;
      const std::string_view text = side_[i].text;
      const std::string_view t = trim(text);
      if (t.empty() || text.size() > 2000) continue;
      lower_.assign(text);
      for (char& c : lower_)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
      bigrams_.reset();
      for (size_t k = 0; k + 1 < lower_.size(); ++k) bigrams_.set(bigram(lower_[k], lower_[k + 1]));
      const bool comment = is_comment_line(lang_, t) &&
                           !(c_family(lang_) && t.starts_with("#"));
      if (added_ && contains_any(text, {"TODO", "FIXME", "XXX", "HACK"})) todo(i, text);
      if (has("fall") && RE2::PartialMatch(text, fallback_word())) emit("fallback", short_text(t), i);
      if (comment) continue;
      const std::string_view code = code_part(lang_, text);
      if (c_family(lang_) && code.starts_with("#")) preprocessor_line(i, code);
      guards(i, code);
      try_except(i, code);
      if (has("else")) else_fallback(i, code);
      if (has("env")) env_vars(i, code);
      flags(i, code);
      branches(i, code);
      Cap conc;
      if (has_any({"lock", "thread", "asyncio", "multiprocessing", "concurrent", "executor",
                   "acquire", "mutex", "atomic", "sync", "barrier", "stream", "event", "chan ",
                   "go func", "condvar", "tokio", "promise", "future", "memory_order"}) &&
          RE2::PartialMatch(code, concurrency(), &conc))
        emit("concurrency", short_text(conc), i);
    }
  }

 private:
  // Substring tests on the lower-cased current line (cheap filters before the patterns).
  static size_t bigram(char a, char b) {
    return (static_cast<unsigned char>(a) * 31u + static_cast<unsigned char>(b)) & 4095u;
  }
  bool has(std::string_view needle) const {
    if (needle.size() >= 2 && (!bigrams_.test(bigram(needle[0], needle[1])) ||
                               !bigrams_.test(bigram(needle[needle.size() - 2], needle.back()))))
      return false;
    return lower_.find(needle) != std::string::npos;
  }
  bool has_any(std::initializer_list<std::string_view> needles) const {
    for (auto n : needles)
      if (has(n)) return true;
    return false;
  }

  void emit(std::string kind, std::string detail, int index) {
    for (size_t j = out_.size(); j > first_ && out_[j - 1].index == index; --j)
      if (out_[j - 1].kind == kind && out_[j - 1].detail == detail) return;
    out_.push_back({std::move(kind), std::move(detail), index});
  }

  void todo(int i, std::string_view text) {
    Cap tag, rest;
    if (!RE2::PartialMatch(text, todo_tag(), &tag, &rest)) return;
    // Only in a comment: a comment marker must precede the tag.
    const size_t at = static_cast<size_t>(tag.data() - text.data());
    const std::string_view before = text.substr(0, at);
    bool in_comment = false;
    if (lang_ == Language::kPython)
      in_comment = before.find('#') != std::string_view::npos;
    else
      in_comment = contains_any(before, {"//", "/*"}) || trim(before).starts_with("*");
    if (!in_comment) return;
    emit("todo", short_text(std::string(tag) + ": " + std::string(rest)), i);
  }

  void preprocessor_line(int i, std::string_view code) {
    Cap word, cond;
    if (RE2::FullMatch(code, preprocessor(), &word, &cond))
      emit("preprocessor", short_text("#" + std::string(word) + " " + std::string(cond)), i);
  }

  void guards(int i, std::string_view code) {
    bool under_guard = false;
    std::optional<IfInfo> own;
    if (starts_if(code)) own = parse_if(lang_, side_, i);
    if (own) {
      const auto& info = own;
      const std::string kind = guard_kind(info->body);
      if (!kind.empty()) emit(kind, short_text("if " + info->cond + ": " + info->body), i);
    } else {
      // A changed body line whose `if` is context.
      const int p = prev_code(lang_, side_, i);
      if (p >= 0 && starts_if(code_part(lang_, side_[p].text))) {
        if (auto info = parse_if(lang_, side_, p); info && info->body_index == i) {
          under_guard = true;
          const std::string kind = guard_kind(info->body);
          if (!side_[p].changed && !kind.empty())
            emit(kind, short_text("if " + info->cond + ": " + info->body), i);
        }
      }
    }
    const std::string_view fw = first_word(code);
    Cap a, b, c, d, e;
    if (!under_guard && (fw == "raise" || fw == "throw" || fw == "panic" || fw == "bail" ||
                         fw == "return") &&
        RE2::PartialMatch(code, raise_stmt(), &a, &b, &c, &d, &e)) {
      const std::string_view what = !a.empty() ? a : !b.empty() ? b : !c.empty() ? c : !d.empty() ? d : e;
      emit("raise", std::string(what), i);
    }
    Cap macro, rest;
    if (has_any({"assert", "check", "ensure!", "invariant"}) &&
        RE2::PartialMatch(code, assert_stmt(), &macro, &rest))
      emit("assert", short_text(assert_detail(macro, rest)), i);
  }

  // Body of a handler starting after line i: the first statement that is not
  // logging, or empty.
  std::string handler_body(int i, std::string_view inline_body) {
    if (!trim(inline_body).empty()) return std::string(trim(inline_body));
    int j = i;
    for (int n = 0; n < 3; ++n) {
      j = next_code(lang_, side_, j);
      if (j < 0) return {};
      const std::string_view t = trim(code_part(lang_, side_[j].text));
      if (lang_ == Language::kPython && indentation(side_[j].text) <= indentation(side_[i].text))
        return {};
      if (t == "}" ) return {};
      if (!RE2::PartialMatch(t, log_line())) return std::string(t);
    }
    return {};
  }

  void try_except(int i, std::string_view code) {
    if (!has_any({"except", "finally", "catch", "recover()"})) return;
    Cap what, inline_body;
    if (lang_ == Language::kPython && RE2::FullMatch(code, py_except(), &what, &inline_body)) {
      const std::string label = what.empty() ? "except" : "except " + std::string(what);
      emit("try", short_text(label), i);
      const std::string body = handler_body(i, inline_body);
      if (!body.empty() && !body.starts_with("raise") && body != "pass" && body != "..." &&
          !body.starts_with("continue") && !body.starts_with("break"))
        emit("fallback", short_text(label + ": " + body), i);
      return;
    }
    if (RE2::PartialMatch(code, finally_stmt())) {
      emit("try", "finally", i);
      return;
    }
    if (lang_ != Language::kPython && lang_ != Language::kRust && lang_ != Language::kGo &&
        RE2::PartialMatch(code, catch_stmt(), &what, &inline_body)) {
      const std::string label = "catch (" + std::string(trim(what)) + ")";
      emit("try", short_text(label), i);
      std::string_view ib = inline_body;
      if (ib.ends_with("}")) ib = trim(ib.substr(0, ib.size() - 1));
      const std::string body = handler_body(i, ib);
      if (!body.empty() && !body.starts_with("throw") && body != "}")
        emit("fallback", short_text(label + ": " + body), i);
      return;
    }
    if (lang_ == Language::kGo && code.find("recover()") != std::string_view::npos)
      emit("try", "recover()", i);
  }

  // An `else` whose `if` tests a capability: the else branch is a fallback.
  void else_fallback(int i, std::string_view code) {
    if (!RE2::FullMatch(code, else_stmt())) return;
    const int ind = indentation(side_[i].text);
    for (int j = i - 1; j >= 0 && j >= i - 60; --j) {
      const std::string_view t = trim(side_[j].text);
      if (t.empty() || is_comment_line(lang_, t)) continue;
      const int jind = indentation(side_[j].text);
      if (jind > ind) continue;
      if (jind < ind) return;
      const std::string_view c = code_part(lang_, side_[j].text);
      Cap cond;
      const bool is_if = lang_ == Language::kPython ? RE2::FullMatch(c, py_if(), &cond)
                                                     : RE2::PartialMatch(c, c_if()) ||
                                                           RE2::FullMatch(c, rs_go_if(), &cond);
      if (!is_if) {
        if (t.starts_with("}")) continue;  // "} else if (...) {" chains close here
        return;
      }
      if (RE2::PartialMatch(c, capability()))
        emit("fallback", short_text("else of " + std::string(trim(c))), i);
      return;
    }
  }

  void env_vars(int i, std::string_view code) {
    if (!contains_icase(code, "env")) return;
    auto all = [&](const RE2& re, int groups) {
      re2::StringPiece input(code.data(), code.size());
      Cap g1, g2;
      while (groups == 1 ? RE2::FindAndConsume(&input, re, &g1)
                         : RE2::FindAndConsume(&input, re, &g1, &g2)) {
        const std::string_view name = !g1.empty() ? g1 : g2;
        if (!name.empty()) emit("env_var", std::string(name), i);
        if (input.empty()) break;
      }
    };
    all(env_environ(), 1);
    all(env_getenv(), 1);
    all(env_rust(), 1);
    all(env_js(), 2);
    all(env_module(), 1);
    all(env_helper(), 1);
    all(env_subscript(), 1);
    all(env_in(), 1);
    Cap name;
    if (RE2::PartialMatch(code, env_definition(), &name)) emit("env_var", std::string(name), i);
  }

  void flags(int i, std::string_view code) {
    const bool python_field = lang_ == Language::kPython && !side_[i].class_body.empty();
    if (!python_field && !has_any({"add_argument", "option(", "define_", "absl_flag", "#[",
                                   "flag", "\"-", "'-"}))
      return;
    Cap name;
    if (code.find("add_argument(") != std::string_view::npos &&
        code.find("add_argument_group") == std::string_view::npos) {
      argparse(i, code.substr(code.find("add_argument(")));
    } else if (lang_ == Language::kPython && (code.starts_with("\"-") || code.starts_with("'-"))) {
      // "--flag", on the line after a bare `add_argument(`.
      const int p = prev_code(lang_, side_, i, 2);
      if (p >= 0 && !side_[p].changed && trim(side_[p].text).ends_with("add_argument("))
        argparse(i, code);
    }
    if (RE2::PartialMatch(code, flag_option(), &name)) emit("cli_flag", std::string(name), i);
    if (RE2::PartialMatch(code, flag_gflags(), &name) || RE2::PartialMatch(code, flag_absl(), &name))
      emit("cli_flag", "--" + std::string(name), i);
    if (lang_ == Language::kRust) {
      Cap args;
      if (RE2::PartialMatch(code, flag_clap(), &args) && has_long(args)) {
        if (RE2::PartialMatch(args, flag_clap_long(), &name)) {
          emit("cli_flag", "--" + std::string(name), i);
        } else {
          for (int j = i + 1; j < static_cast<int>(side_.size()) && j <= i + 4; ++j) {
            const std::string_view t = trim(side_[j].text);
            if (t.starts_with("#[") || t.starts_with("///") || t.empty()) continue;
            if (RE2::PartialMatch(t, rust_field(), &name)) emit("cli_flag", kebab(name), i);
            break;
          }
        }
      }
    }
    if (lang_ == Language::kGo && RE2::PartialMatch(code, flag_go(), &name))
      emit("cli_flag", "-" + std::string(name), i);
    if (lang_ == Language::kPython) {
      const std::string_view cls = side_[i].class_body;
      const bool args_class = cls.ends_with("Args") || cls.ends_with("Arguments");
      Cap type;
      if (RE2::PartialMatch(side_[i].text, flag_field_meta(), &name)) {
        emit("cli_flag", args_class ? kebab(name) : std::string(name), i);
      } else if (!cls.empty() && indentation(side_[i].text) > 0 &&
                 RE2::PartialMatch(cls, config_class()) &&
                 RE2::FullMatch(code_part(lang_, side_[i].text), config_field(), &name, &type) &&
                 type.find("ClassVar") == std::string_view::npos) {
        emit("cli_flag", args_class ? kebab(name) : std::string(name), i);
      }
    }
  }

  static bool has_long(std::string_view args) {
    for (size_t p = args.find("long"); p != std::string_view::npos; p = args.find("long", p + 1))
      if ((p == 0 || !is_ident_char(args[p - 1])) &&
          (p + 4 >= args.size() || !is_ident_char(args[p + 4])))
        return true;
    return false;
  }

  static std::string kebab(std::string_view name) {
    std::string out = "--";
    for (char c : name) out += c == '_' ? '-' : c;
    return out;
  }

  void argparse(int i, std::string_view call) {
    re2::StringPiece input(call.data(), call.size());
    Cap flag;
    std::string_view best;
    while (RE2::FindAndConsume(&input, flag_literal(), &flag)) {
      if (best.empty() || (flag.starts_with("--") && !best.starts_with("--"))) best = flag;
    }
    if (!best.empty()) emit("cli_flag", std::string(best), i);
  }

  void branches(int i, std::string_view code) {
    const bool maybe_dtype =
        has_any({"float", "fp8", "fp4", "fp16", "fp32", "bf16", "half", "int4", "int8", "e4m3",
                 "e5m2", "dispatch", "scalartype", "w8a8", "w4a", "mxfp", "dtype"});
    const bool maybe_device =
        has_any({"cuda", "hip", "npu", "xpu", "cpu", "hpu", "mps", "rocm", "musa", "tpu", "sm",
                 "gfx", "capability", "platform", "device", "blackwell", "hopper", "ampere",
                 "nvidia", "amd", "gaudi", "mlu"});
    const bool maybe_platform =
        has_any({"platform", "os.name", "goos", "goarch", "cfg", "_win", "apple", "linux", "_msc",
                 "aarch64", "x86_64", "arm_neon", "avx", "is_windows", "is_macos"});
    if (!maybe_dtype && !maybe_device && !maybe_platform) return;
    const bool cond = RE2::PartialMatch(code, conditional());
    Cap tok;
    if (!maybe_dtype) {
    } else if (RE2::PartialMatch(code, dtype(), &tok)) {
      const bool predicate = tok.starts_with("is_") || tok.starts_with("_is_") ||
                             tok.find("DISPATCH") != std::string_view::npos ||
                             RE2::PartialMatch(code, dtype_compare());
      if (cond || predicate) emit("dtype_branch", short_text(tok, 60), i);
    } else if (RE2::PartialMatch(code, dtype_compare())) {
      emit("dtype_branch", "dtype", i);
    }
    if (!maybe_device) {
    } else if (RE2::PartialMatch(code, arch_compare(), &tok)) {
      emit("device_branch", short_text(tok, 60), i);
    } else if (RE2::PartialMatch(code, device(), &tok) &&
               (cond || tok.starts_with("__CUDA_ARCH__"))) {
      emit("device_branch", short_text(tok, 60), i);
    }
    if (maybe_platform && RE2::PartialMatch(code, platform(), &tok) &&
        (cond || tok.starts_with("cfg")))
      emit("platform_branch", short_text(tok, 60), i);
  }

  const Language lang_;
  const std::span<const SideLine> side_;
  const bool added_;
  std::vector<RawSignal>& out_;
  const size_t first_;
  std::string lower_;           // the current line, lower-cased
  std::bitset<4096> bigrams_;   // hashed pairs of adjacent characters of lower_
};

// ---------------------------------------------------------------- numbers

struct Numbers {
  std::string skeleton;              // the line without whitespace, numbers as '\1'
  std::vector<std::string_view> nums;
  std::vector<size_t> positions;     // offsets of the numbers in the line
};

Numbers split_numbers(std::string_view s) {
  Numbers n;
  for (size_t i = 0; i < s.size();) {
    const char c = s[i];
    const bool starts = c >= '0' && c <= '9' && (i == 0 || (!is_ident_char(s[i - 1]) && s[i - 1] != '.'));
    if (!starts) {
      if (c != ' ' && c != '\t') n.skeleton += c;
      ++i;
      continue;
    }
    size_t e = i;
    while (e < s.size() && (is_ident_char(s[e]) || s[e] == '.' || s[e] == '\'')) {
      if ((s[e] == 'e' || s[e] == 'E') && e + 1 < s.size() && (s[e + 1] == '-' || s[e + 1] == '+') &&
          s[i] != '0')
        e += 2;
      else
        ++e;
    }
    while (e > i + 1 && s[e - 1] == '.') --e;
    n.nums.push_back(s.substr(i, e - i));
    n.positions.push_back(i);
    n.skeleton += '\1';
    i = e;
  }
  return n;
}

// The identifier a number is assigned or passed to: "BLOCK = 128" -> BLOCK.
std::string_view number_owner(std::string_view line, size_t pos) {
  size_t j = pos;
  int skipped = 0;
  while (j > 0 && skipped < 12 && std::string_view(" \t=:([,\"'-*<").find(line[j - 1]) != std::string_view::npos) {
    --j;
    ++skipped;
  }
  const size_t e = j;
  while (j > 0 && (is_ident_char(line[j - 1]) || line[j - 1] == '.')) --j;
  std::string_view w = line.substr(j, e - j);
  if (w == "return" || w == "if" || w == "case" || w == "else" || w == "and" || w == "or" ||
      w == "in" || w == "range" || w.empty() || (w[0] >= '0' && w[0] <= '9'))
    return {};
  return w;
}

}  // namespace

void detect_side_signals(Language lang, std::span<const SideLine> side, bool added,
                         std::vector<RawSignal>& out) {
  if (!is_code_language(lang) && lang != Language::kCMake) return;
  if (lang == Language::kCMake) {
    for (int i = 0; i < static_cast<int>(side.size()); ++i) {
      Cap name;
      if (side[i].changed && RE2::PartialMatch(side[i].text, cmake_option(), &name))
        out.push_back({"cli_flag", std::string(name), i});
    }
    return;
  }
  SideScanner(lang, side, added, out).run();
}

void detect_numeric_changes(std::span<const std::string_view> removed,
                            std::span<const std::string_view> added, Language lang,
                            std::vector<RawSignal>& out) {
  if (!is_code_language(lang)) return;
  std::unordered_map<std::string, std::vector<int>> by_skeleton;
  std::vector<Numbers> old_numbers(removed.size());
  for (int i = 0; i < static_cast<int>(removed.size()); ++i) {
    const std::string_view t = trim(removed[i]);
    if (t.size() > 400 || t.empty() || is_comment_line(lang, t)) continue;
    old_numbers[i] = split_numbers(t);
    if (!old_numbers[i].nums.empty()) by_skeleton[old_numbers[i].skeleton].push_back(i);
  }
  if (by_skeleton.empty()) return;
  for (auto& [_, v] : by_skeleton) std::reverse(v.begin(), v.end());
  for (int i = 0; i < static_cast<int>(added.size()); ++i) {
    const std::string_view t = trim(added[i]);
    if (t.size() > 400 || t.empty() || is_comment_line(lang, t)) continue;
    const Numbers now = split_numbers(t);
    if (now.nums.empty()) continue;
    auto it = by_skeleton.find(now.skeleton);
    if (it == by_skeleton.end() || it->second.empty()) continue;
    const Numbers& before = old_numbers[it->second.back()];
    it->second.pop_back();
    int reported = 0;
    for (size_t k = 0; k < now.nums.size() && k < before.nums.size() && reported < 3; ++k) {
      if (now.nums[k] == before.nums[k]) continue;
      const std::string_view owner = number_owner(t, now.positions[k]);
      std::string detail = owner.empty() ? "" : std::string(owner) + ": ";
      detail += std::string(before.nums[k]) + " \xE2\x86\x92 " + std::string(now.nums[k]);
      out.push_back({"numeric_constant", std::move(detail), i});
      ++reported;
    }
  }
}

bool signal_patterns_ok() {
  const RE2* all[] = {&py_if(), &c_if(), &rs_go_if(), &raise_like(), &return_like(), &raise_stmt(),
                      &assert_stmt(), &py_except(), &finally_stmt(), &catch_stmt(), &else_stmt(),
                      &fallback_word(), &capability(), &log_line(), &preprocessor(), &todo_tag(),
                      &env_environ(), &env_getenv(), &env_rust(), &env_js(), &env_module(),
                      &env_helper(), &env_subscript(), &env_in(), &env_definition(),
                      &flag_literal(), &flag_option(), &flag_gflags(), &flag_absl(), &flag_clap(),
                      &flag_clap_long(), &rust_field(), &flag_go(), &flag_field_meta(),
                      &config_field(), &config_class(), &cmake_option(), &conditional(), &dtype(),
                      &dtype_compare(), &arch_compare(), &device(), &platform(), &concurrency()};
  for (const RE2* re : all)
    if (!re->ok()) return false;
  return true;
}

}  // namespace mergelens
