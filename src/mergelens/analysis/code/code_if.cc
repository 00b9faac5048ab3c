// The reading of an `if` and of the lines around a changed line for the
// line-level signal detectors (signals.cc): the condition, the body, and
// whether the body is a guard or an early return. See code_if.h.
#include "mergelens/analysis/code/code_if.h"

#include <re2/re2.h>

#include "mergelens/analysis/code/code_outline.h"
#include "mergelens/analysis/code/code_text.h"

namespace mergelens::if_internal {

using outline_internal::is_ident_char;
using outline_internal::trim;
using namespace signal_internal;

ML_PATTERN(py_if, R"re(^\s*(?:el)?if\s+(.+)$)re")
ML_PATTERN(c_if, R"re(^\s*(?:\}\s*)?(?:else\s+)?if\s*(?:constexpr\s*)?\()re")
ML_PATTERN(rs_go_if, R"re(^\s*(?:\}\s*)?(?:else\s+)?if\s+(.+?)\s*(?:\{\s*(.*?)\s*\}?\s*)?$)re")
ML_PATTERN(
    raise_like,
    R"re(^\s*\{?\s*(?:raise\b|throw\b|panic!|panic\(|bail!|unreachable!|return\s+Err\b|)re"
    R"re(return\s+.*\berr\b|return\s+.*Errorf|return\s+.*errors\.New|os\.Exit|log\.Fatal|)re"
    R"re(sys\.exit|exit\(|abort\(|std::abort|std::terminate|TORCH_CHECK\(\s*false|LOG\(FATAL\)))re")
ML_PATTERN(return_like, R"re(^\s*\{?\s*(?:return|continue|break)\b)re")

bool c_family(Language l) {
  return l == Language::kCpp || l == Language::kCuda;
}

bool is_code_line(Language lang, std::string_view s) {
  const std::string_view t = trim(s);
  return !t.empty() && !is_comment_line(lang, t);
}

// Next code line after i in the side, or -1.
int next_code(Language lang, std::span<const SideLine> side, int i, int limit) {
  for (int j = i + 1; j < static_cast<int>(side.size()) && j <= i + limit; ++j)
    if (is_code_line(lang, side[j].text)) return j;
  return -1;
}

int prev_code(Language lang, std::span<const SideLine> side, int i, int limit) {
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

namespace {

// A condition written over lines first..last of `side` after `head` (the
// rest of the `if` line), joined, without the closing ':' or '{' and without
// the parentheses around the whole of it: "if (\n a and\n b\n):" gives
// "a and b". Cut at a token boundary (short_text).
std::string joined_condition(Language lang, std::span<const SideLine> side, std::string_view head,
                             int first, int last, char closer) {
  std::string c(trim(head));
  for (int j = first; j <= last && j < static_cast<int>(side.size()); ++j) {
    c += ' ';
    c += code_part(lang, side[j].text);
  }
  std::string_view v = trim(c);
  while (!v.empty() && (v.back() == closer || v.back() == ' ')) v.remove_suffix(1);
  if (v.size() >= 2 && v.front() == '(' && v.back() == ')') {
    int depth = 0;
    bool outer = true;  // the first parenthesis closes at the end
    for (size_t k = 0; k < v.size(); ++k) {
      depth += v[k] == '(' ? 1 : v[k] == ')' ? -1 : 0;
      if (depth == 0 && k + 1 < v.size()) outer = false;
    }
    if (outer) v = trim(v.substr(1, v.size() - 2));
  }
  return short_text(v, 80);
}

}  // namespace

std::optional<IfInfo> parse_if(Language lang, std::span<const SideLine> side, int i) {
  const std::string_view code = code_part(lang, side[i].text);
  IfInfo info;
  int header_end = i;
  if (lang == Language::kPython) {
    Cap rest;
    if (!RE2::FullMatch(code, py_if(), &rest)) return std::nullopt;
    if (rest.ends_with(":")) {
      info.cond = short_text(rest.substr(0, rest.size() - 1), 80);
    } else if (const size_t colon = rest.rfind(": ");
               colon != std::string_view::npos &&
               RE2::PartialMatch(rest.substr(colon + 2), return_like())) {
      info.cond = short_text(rest.substr(0, colon), 80);
      info.body = statement_text(rest.substr(colon + 2), 60);
      return info;
    } else if (const size_t colon2 = rest.rfind(": ");
               colon2 != std::string_view::npos &&
               RE2::PartialMatch(rest.substr(colon2 + 2), raise_like())) {
      info.cond = short_text(rest.substr(0, colon2), 80);
      info.body = statement_text(rest.substr(colon2 + 2), 60);
      return info;
    } else {
      // A condition over several lines: find the line that ends with ':'.
      header_end = -1;
      for (int j = i + 1; j < static_cast<int>(side.size()) && j <= i + 4; ++j)
        if (code_part(lang, side[j].text).ends_with(":")) {
          header_end = j;
          break;
        }
      if (header_end < 0) return std::nullopt;
      info.cond = joined_condition(lang, side, rest, i + 1, header_end, ':');
    }
  } else if (lang == Language::kRust || lang == Language::kGo) {
    Cap cond, inline_body;
    if (!RE2::FullMatch(code, rs_go_if(), &cond, &inline_body)) return std::nullopt;
    info.cond = short_text(cond, 80);
    if (!inline_body.empty()) {
      info.body = statement_text(inline_body, 60);
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
      header_end = -1;
      for (int j = i + 1; j < static_cast<int>(side.size()) && j <= i + 4; ++j) {
        const std::string_view c = code_part(lang, side[j].text);
        if (c.ends_with(")") || c.ends_with("{")) {
          header_end = j;
          break;
        }
      }
      if (header_end < 0) return std::nullopt;
      info.cond = joined_condition(lang, side, code.substr(open), i + 1, header_end, '{');
    } else {
      info.cond = short_text(code.substr(open + 1, close - open - 1), 80);
      std::string_view rest = trim(code.substr(close + 1));
      if (rest.starts_with("{")) rest = trim(rest.substr(1));
      if (rest.ends_with("}")) rest = trim(rest.substr(0, rest.size() - 1));
      if (!rest.empty()) {
        info.body = statement_text(rest, 60);
        return info;
      }
    }
  }
  info.body_index = next_code(lang, side, header_end);
  if (info.body_index < 0) return std::nullopt;
  if (lang == Language::kPython &&
      indentation(side[info.body_index].text) <= indentation(side[i].text))
    return std::nullopt;
  info.body = statement_text(side[info.body_index].text, 60);
  return info;
}

// "guard", "early_return" or empty for the body of an if.
std::string guard_kind(std::string_view body) {
  if (RE2::PartialMatch(body, raise_like())) return "guard";
  if (RE2::PartialMatch(body, return_like())) return "early_return";
  return {};
}

}  // namespace mergelens::if_internal
