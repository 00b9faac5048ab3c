#include "mergelens/llm/repair.h"

#include <algorithm>
#include <exception>
#include <optional>

namespace mergelens::llm {
namespace {

using nlohmann::json;

constexpr int kMaxStarts = 64;  // '{' positions tried as the start of an object
constexpr int kMaxCuts = 256;   // cut points tried when closing a truncated answer
constexpr int kMaxDepth = 256;  // deeper answers are refused

std::optional<json> as_object(std::string_view s) {
  json doc = json::parse(s.begin(), s.end(), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) return std::nullopt;
  return doc;
}

// Length of the valid UTF-8 sequence at s[i], or 0 when invalid.
std::size_t utf8_length(std::string_view s, std::size_t i) {
  auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = b(i);
  if (c < 0x80) return 1;
  std::size_t n = c >= 0xC2 && c <= 0xDF   ? 2
                  : c >= 0xE0 && c <= 0xEF ? 3
                  : c >= 0xF0 && c <= 0xF4 ? 4
                                           : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    if ((b(i + k) & 0xC0) != 0x80) return 0;
  }
  if (c == 0xE0 && b(i + 1) < 0xA0) return 0;   // overlong
  if (c == 0xED && b(i + 1) >= 0xA0) return 0;  // surrogate
  if (c == 0xF0 && b(i + 1) < 0x90) return 0;   // overlong
  if (c == 0xF4 && b(i + 1) >= 0x90) return 0;  // above U+10FFFF
  return n;
}

std::string fix_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    std::size_t n = utf8_length(s, i);
    if (n == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  return out;
}

// The body of the first ``` fenced block that holds a '{' (to the end when unterminated).
std::string_view strip_fence(std::string_view s) {
  std::size_t open = s.find("```");
  while (open != std::string_view::npos) {
    std::size_t line_end = s.find('\n', open);
    if (line_end == std::string_view::npos) return s;
    // The closing fence starts a line (a ``` inside a JSON string does not close).
    std::size_t close = s.find("\n```", line_end);
    std::string_view block = s.substr(
        line_end + 1, close == std::string_view::npos ? std::string_view::npos : close - line_end);
    if (block.find('{') != std::string_view::npos) return block;
    if (close == std::string_view::npos) return s;
    open = s.find("```", close + 4);
  }
  return s;
}

// Tracks whether the bytes of JSON text fed one by one are inside a string literal.
struct StringState {
  bool in_string = false, escape = false;
  // Feeds the next byte; true when it is structural (outside strings, not a quote).
  bool structural(char c) {
    if (in_string) {
      if (escape) {
        escape = false;
      } else if (c == '\\') {
        escape = true;
      } else if (c == '"') {
        in_string = false;
      }
      return false;
    }
    if (c == '"') {
      in_string = true;
      return false;
    }
    return true;
  }
};

// End (one past the '}') of the object starting at s[start] == '{', string-aware; npos when it
// never closes.
std::size_t balanced_end(std::string_view s, std::size_t start) {
  int depth = 0;
  StringState str;
  for (std::size_t i = start; i < s.size(); ++i) {
    char c = s[i];
    if (!str.structural(c)) continue;
    if (c == '{' || c == '[') {
      ++depth;
    } else if ((c == '}' || c == ']') && --depth == 0) {
      return i + 1;
    }
  }
  return std::string_view::npos;
}

// The first balanced {...} of `s` that parses as an object, trying each '{' up to the first
// one that never closes.
std::optional<json> first_balanced(std::string_view s) {
  std::size_t start = s.find('{');
  for (int tries = 0; start != std::string_view::npos && tries < kMaxStarts; ++tries) {
    std::size_t end = balanced_end(s, start);
    // An object that never closes holds every later '{': they are members of a truncated
    // answer, not answers of their own.
    if (end == std::string_view::npos) break;
    if (auto obj = as_object(s.substr(start, end - start))) return obj;
    start = s.find('{', start + 1);
  }
  return std::nullopt;
}

bool at(std::string_view s, std::size_t i, std::string_view what) {
  return s.substr(i, what.size()) == what;
}

// Removes comments and trailing commas and turns smart or single quotes outside strings into
// '"' (escaping '"' inside such strings). Strings opened by '"' are kept as they are.
std::string fix_syntax(std::string_view s) {
  constexpr std::string_view kLeft = "\xE2\x80\x9C", kRight = "\xE2\x80\x9D";
  std::string out;
  out.reserve(s.size());
  enum class Str { kNone, kPlain, kSmart, kSingle } str = Str::kNone;
  bool escape = false;
  auto drop_trailing_comma = [&] {
    std::size_t k = out.find_last_not_of(" \t\r\n");
    if (k != std::string::npos && out[k] == ',') out.erase(k, 1);
  };
  for (std::size_t i = 0; i < s.size();) {
    char c = s[i];
    if (str == Str::kPlain) {
      out += c;
      if (escape) {
        escape = false;
      } else if (c == '\\') {
        escape = true;
      } else if (c == '"') {
        str = Str::kNone;
      }
      ++i;
    } else if (str == Str::kSmart || str == Str::kSingle) {
      if (escape) {
        out += (c == '\'' ? std::string("'") : std::string("\\") + c);
        escape = false;
        ++i;
      } else if (c == '\\') {
        escape = true;
        ++i;
      } else if (str == Str::kSmart && (at(s, i, kLeft) || at(s, i, kRight))) {
        out += '"';
        str = Str::kNone;
        i += 3;
      } else if (str == Str::kSingle && c == '\'') {
        out += '"';
        str = Str::kNone;
        ++i;
      } else {
        out += c == '"' ? std::string("\\\"") : std::string(1, c);
        ++i;
      }
    } else if (c == '"') {
      out += c;
      str = Str::kPlain;
      ++i;
    } else if (at(s, i, kLeft) || at(s, i, kRight)) {
      out += '"';
      str = Str::kSmart;
      i += 3;
    } else if (c == '\'') {
      out += '"';
      str = Str::kSingle;
      ++i;
    } else if (at(s, i, "//")) {
      std::size_t nl = s.find('\n', i);
      i = nl == std::string_view::npos ? s.size() : nl;
    } else if (at(s, i, "/*")) {
      std::size_t end = s.find("*/", i + 2);
      i = end == std::string_view::npos ? s.size() : end + 2;
    } else {
      if (c == '}' || c == ']') drop_trailing_comma();
      out += c;
      ++i;
    }
  }
  if (str == Str::kSmart || str == Str::kSingle) out += '"';
  return out;
}

// Closing text for an open-container stack ("{[" -> "]}").
std::string closers(std::string_view stack) {
  std::string out;
  for (auto it = stack.rbegin(); it != stack.rend(); ++it) out += *it == '{' ? '}' : ']';
  return out;
}

std::string trim_dangling(std::string text) {
  std::size_t k = text.find_last_not_of(" \t\r\n");
  text.erase(k == std::string::npos ? 0 : k + 1);
  if (!text.empty() && text.back() == ',') text.pop_back();
  return text;
}

// Closes an answer cut off before its end (see step 5 in repair.h).
std::optional<json> close_truncated(std::string_view s) {
  struct Cut {
    std::size_t pos;
    std::string stack;
  };
  std::vector<Cut> cuts;
  std::string stack;
  StringState str;
  std::size_t string_start = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '"' && !str.in_string) string_start = i;
    if (!str.structural(c)) continue;
    if (c == '{' || c == '[') {
      stack += c;
      cuts.push_back({i + 1, stack});
    } else if (c == '}' || c == ']') {
      if (stack.empty()) return std::nullopt;
      stack.pop_back();
      if (stack.empty()) return std::nullopt;  // complete, yet it did not parse
    } else if (c == ',') {
      cuts.push_back({i, stack});
    }
    if (cuts.size() > 2 * kMaxCuts) cuts.erase(cuts.begin(), cuts.begin() + kMaxCuts);
  }
  if (stack.empty()) return std::nullopt;
  // (a) keep everything, ending an unterminated string.
  std::string full(s);
  if (str.in_string) {
    if (str.escape) full.pop_back();
    // A half \uXXXX escape at the end.
    std::size_t u = full.rfind("\\u");
    if (u != std::string::npos && u > string_start && full.size() - u < 6) full.erase(u);
    full += '"';
  }
  if (auto obj = as_object(trim_dangling(full) + closers(stack))) return obj;
  // (b) cut back to the last point where a member or element was complete.
  int tries = 0;
  for (auto it = cuts.rbegin(); it != cuts.rend() && tries < kMaxCuts; ++it, ++tries) {
    std::string text = trim_dangling(std::string(s.substr(0, it->pos)));
    if (auto obj = as_object(text + closers(it->stack))) return obj;
  }
  return std::nullopt;
}

// Deepest nesting of brackets outside strings.
int max_depth(std::string_view s) {
  int depth = 0, deepest = 0;
  StringState str;
  for (char c : s) {
    if (!str.structural(c)) continue;
    if (c == '{' || c == '[') deepest = std::max(deepest, ++depth);
    if (c == '}' || c == ']') --depth;
  }
  return deepest;
}

Result<json> ladder(std::string_view content, std::vector<std::string>& steps) {
  // Copying or printing a deeper document recurses once per level; no answer nests this deep.
  if (max_depth(content) > kMaxDepth) {
    return fail(ErrorKind::kCorrupt, "the model's answer nests deeper than {} levels", kMaxDepth);
  }
  if (auto obj = as_object(content)) return std::move(*obj);
  std::string text(content);
  if (std::string fixed = fix_utf8(text); fixed != text) {
    steps.push_back(kStepUtf8);
    text = std::move(fixed);
    if (auto obj = as_object(text)) return std::move(*obj);
  }
  if (std::string_view body = strip_fence(text); body.size() != text.size()) {
    steps.push_back(kStepFence);
    text = std::string(body);
    if (auto obj = as_object(text)) return std::move(*obj);
  }
  std::size_t first = text.find('{');
  if (first == std::string::npos) {
    return fail(ErrorKind::kCorrupt, "the model's answer holds no JSON object: \"{}\"",
                fix_utf8(text.substr(0, 120)));
  }
  std::size_t last = text.rfind('}');
  if (last != std::string::npos && last > first) {
    if (auto obj = as_object(std::string_view(text).substr(first, last + 1 - first))) {
      if (first > 0 || last + 1 < text.size()) steps.push_back(kStepProse);
      return std::move(*obj);
    }
  }
  if (auto obj = first_balanced(text)) {
    steps.push_back(kStepBalanced);
    return std::move(*obj);
  }
  std::string fixed = fix_syntax(std::string_view(text).substr(first));
  if (auto obj = first_balanced(fixed)) {
    steps.push_back(kStepSyntax);
    return std::move(*obj);
  }
  // An empty object closed from a lone '{' is no answer.
  if (auto obj = close_truncated(fixed); obj && !obj->empty()) {
    if (fixed != text.substr(first)) steps.push_back(kStepSyntax);
    steps.push_back(kStepClose);
    return std::move(*obj);
  }
  return fail(ErrorKind::kCorrupt, "the model's answer is not a JSON object, even repaired: \"{}\"",
              fix_utf8(text.substr(first, 120)));
}

}  // namespace

Result<json> parse_json_answer(std::string_view content, std::vector<std::string>* steps) {
  std::vector<std::string> local;
  try {
    auto result = ladder(content, local);
    if (result && steps) steps->insert(steps->end(), local.begin(), local.end());
    return result;
  } catch (const std::exception& e) {
    return fail(ErrorKind::kCorrupt, "the model's answer cannot be read as JSON: {}", e.what());
  }
}

}  // namespace mergelens::llm
