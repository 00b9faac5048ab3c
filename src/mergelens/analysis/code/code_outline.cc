// Outlines of Python (by indentation) and Markdown/reStructuredText (by
// headings), plus the helpers shared with the brace scanner.
//
// The Python scanner follows logical lines: it tracks bracket depth,
// backslash continuations and triple-quoted strings so that continuation
// lines and docstring bodies never count as indentation. A definition ends at
// the last code line before the first logical line indented at or left of it.
#include <algorithm>
#include <array>

#include "mergelens/analysis/code/code_outline.h"
#include "mergelens/analysis/code/language.h"

namespace mergelens {

using outline_internal::is_ident_char;
using outline_internal::is_space;
using outline_internal::strip_cr;

namespace outline_internal {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (is_space(s.front()) || s.front() == '\n')) s.remove_prefix(1);
  while (!s.empty() && (is_space(s.back()) || s.back() == '\n')) s.remove_suffix(1);
  return s;
}

std::string squeeze_params(std::string_view s) {
  // Whitespace survives only as one space between two identifier characters
  // ("const T* x" -> "const T*x"), so formatting changes compare equal.
  std::string out;
  out.reserve(s.size());
  bool pending_space = false;
  for (char c : s) {
    if (is_space(c) || c == '\n' || c == '\\') {
      pending_space = true;
      continue;
    }
    if (pending_space && !out.empty() && is_ident_char(out.back()) && is_ident_char(c)) out += ' ';
    pending_space = false;
    out += c;
  }
  std::string cleaned;
  cleaned.reserve(out.size());
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == ',' && (i + 1 == out.size() || out[i + 1] == ')' || out[i + 1] == ']')) continue;
    cleaned += out[i];
  }
  return cleaned;
}

bool macro_calls_only(std::string_view t) {
  size_t i = 0;
  bool any = false;
  while (i < t.size()) {
    if (t[i] == ' ') {
      ++i;
      continue;
    }
    size_t e = i;
    while (e < t.size() && is_ident_char(t[e])) {
      if (t[e] >= 'a' && t[e] <= 'z') return false;
      ++e;
    }
    if (e == i || e - i < 2) return false;
    if (e >= t.size() || t[e] != '(') {  // a bare macro ("_CCCL_DIAG_PUSH")
      i = e;
      any = true;
      continue;
    }
    int depth = 0;
    for (i = e; i < t.size(); ++i) {
      if (t[i] == '(') ++depth;
      if (t[i] == ')' && --depth == 0) break;
    }
    if (i >= t.size()) return false;
    ++i;
    any = true;
  }
  return any;
}

void sort_by_start(std::vector<OutlineDef>& defs) {
  // Stable sort by start, then remap parent indexes.
  std::vector<int> order(defs.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return defs[a].start < defs[b].start; });
  std::vector<int> new_index(order.size());
  for (size_t i = 0; i < order.size(); ++i) new_index[order[i]] = static_cast<int>(i);
  std::vector<OutlineDef> sorted;
  sorted.reserve(order.size());
  for (int old : order) {
    sorted.push_back(std::move(defs[old]));
    if (sorted.back().parent >= 0) sorted.back().parent = new_index[sorted.back().parent];
  }
  defs = std::move(sorted);
}

}  // namespace outline_internal

int indentation(std::string_view line) {
  int width = 0;
  for (char c : line) {
    if (c == ' ')
      ++width;
    else if (c == '\t')
      width = (width / 8 + 1) * 8;
    else
      break;
  }
  return width;
}

namespace {

bool starts_word(std::string_view s, size_t at, std::string_view word) {
  if (s.substr(at, word.size()) != word) return false;
  const size_t after = at + word.size();
  return after < s.size() && is_space(s[after]);
}

size_t skip_spaces(std::string_view s, size_t i) {
  while (i < s.size() && is_space(s[i])) ++i;
  return i;
}

// Characters the Python lexer acts on.
constexpr auto kPySpecial = [] {
  std::array<bool, 256> t{};
  for (unsigned char c : std::string_view("#\"'\\()[]{}")) t[c] = true;
  return t;
}();

struct PyDefHead {
  bool is_class = false;
  std::string name;
};

// "def name(", "async def name(", "def name[T](", "class Name(" or "class Name:".
std::optional<PyDefHead> python_def_head(std::string_view s) {
  size_t i = skip_spaces(s, 0);
  if (starts_word(s, i, "async")) i = skip_spaces(s, i + 5);
  PyDefHead head;
  if (starts_word(s, i, "def")) {
    i = skip_spaces(s, i + 3);
  } else if (starts_word(s, i, "class")) {
    head.is_class = true;
    i = skip_spaces(s, i + 5);
  } else {
    return std::nullopt;
  }
  const size_t name_start = i;
  if (i >= s.size() || !(is_ident_char(s[i]) && !(s[i] >= '0' && s[i] <= '9'))) return std::nullopt;
  while (i < s.size() && is_ident_char(s[i])) ++i;
  head.name.assign(s.substr(name_start, i - name_start));
  i = skip_spaces(s, i);
  if (i < s.size() && (s[i] == '(' || s[i] == '[' || (head.is_class && s[i] == ':'))) return head;
  return std::nullopt;
}

Outline python_outline(std::span<const std::string_view> lines, const OutlineOptions& opt) {
  Outline out;
  struct Open {
    int def;
    int indent;
  };
  std::vector<Open> stack;
  char triple = 0;  // quote character of an open triple-quoted string
  int depth = 0;    // bracket depth
  bool continued = false;
  int last_code = -1;
  int decorator_line = -1, decorator_indent = -1;
  int collecting = -1;  // definition whose header is being read
  int param_state = 0;  // 0: before '(', 1: inside the parameters, 2: done
  int param_depth = 0;
  std::string params;
  const int n = static_cast<int>(lines.size());
  const int last = opt.stop_line >= 0 ? std::min(n - 1, opt.stop_line) : n - 1;

  for (int i = 0; i <= last; ++i) {
    const std::string_view s = strip_cr(lines[i]);
    size_t first = 0;
    int ind = 0;  // indentation, a tab advancing to the next multiple of 8
    for (; first < s.size(); ++first) {
      if (s[first] == ' ')
        ++ind;
      else if (s[first] == '\t')
        ind = (ind / 8 + 1) * 8;
      else if (!is_space(s[first]))
        break;
    }
    const bool blank = first == s.size();
    // Only lines starting with these letters can open a definition.
    const bool maybe_def = !blank && (s[first] == 'd' || s[first] == 'c' || s[first] == 'a');
    // Recovery: a definition line ends an unbalanced bracket, and in a
    // fragment (which may start inside a docstring) a triple-quoted string.
    if (maybe_def && (depth > 0 || continued || (triple && opt.fragment)) &&
        python_def_head(s.substr(first)) && (!triple || opt.fragment)) {
      triple = 0;
      depth = 0;
      continued = false;
    }
    const bool logical_start = !triple && depth == 0 && !continued;
    const bool comment_only = logical_start && !blank && s[first] == '#';
    if (logical_start && !blank && !comment_only) {
      while (!stack.empty() && stack.back().indent >= ind) {
        out.defs[stack.back().def].end = last_code;
        stack.pop_back();
      }
      if (stack.empty()) out.outer_lines.emplace_back(i, ind);
      if (s[first] == '@') {
        if (decorator_line < 0 || decorator_indent != ind) {
          decorator_line = i;
          decorator_indent = ind;
        }
      } else {
        if (auto head = maybe_def ? python_def_head(s.substr(first)) : std::nullopt) {
          OutlineDef d;
          d.name = head->name;
          d.parent = stack.empty() ? -1 : stack.back().def;
          d.kind = head->is_class                                          ? "class"
                   : (d.parent >= 0 && out.defs[d.parent].kind == "class") ? "method"
                                                                           : "function";
          d.qualified = d.parent >= 0 ? out.defs[d.parent].qualified + "." + d.name : d.name;
          d.start = (decorator_line >= 0 && decorator_indent == ind) ? decorator_line : i;
          d.name_line = d.header_end = i;
          d.indent = ind;
          d.container = head->is_class;
          d.exported = d.parent < 0 && ind == 0 && !d.name.empty() && d.name[0] != '_';
          out.defs.push_back(std::move(d));
          collecting = static_cast<int>(out.defs.size()) - 1;
          stack.push_back({collecting, ind});
          param_state = 0;
          params.clear();
        }
        decorator_line = -1;
      }
    }
    // Lex the line: strings, comments, brackets, continuation.
    bool line_continues = false;
    size_t k = 0;
    while (k < s.size()) {
      if (triple) {
        const char q[4] = {triple, triple, triple, 0};
        const size_t close = s.find(q, k);
        if (close == std::string_view::npos) {
          k = s.size();
          break;
        }
        k = close + 3;
        triple = 0;
        continue;
      }
      if (param_state != 1) {  // skip ordinary characters outside a parameter list
        while (k < s.size() && !kPySpecial[static_cast<unsigned char>(s[k])]) ++k;
        if (k == s.size()) break;
      }
      const char c = s[k];
      if (c == '#') break;
      if (c == '"' || c == '\'') {
        if (k + 2 < s.size() && s[k + 1] == c && s[k + 2] == c) {
          triple = c;
          k += 3;
          continue;
        }
        size_t m = k + 1;
        while (m < s.size() && s[m] != c) m += (s[m] == '\\') ? 2 : 1;
        const size_t stop = std::min(m + 1, s.size());
        if (param_state == 1) params.append(s.substr(k, stop - k));
        k = stop;
        continue;
      }
      if (c == '\\' && k + 1 == s.size()) {
        line_continues = true;
        break;
      }
      if (c == '(' || c == '[' || c == '{') {
        if (collecting >= 0 && param_state == 0 && c == '(' && depth == 0) {
          param_state = 1;
          param_depth = depth + 1;
          ++depth;
          ++k;
          continue;
        }
        ++depth;
      } else if (c == ')' || c == ']' || c == '}') {
        depth = std::max(0, depth - 1);
        if (param_state == 1 && c == ')' && depth == param_depth - 1) {
          param_state = 2;
          ++k;
          continue;
        }
      }
      if (param_state == 1 && params.size() < 4000) params += c;
      ++k;
    }
    continued = line_continues && !triple;
    if (!blank && !comment_only) last_code = i;
    if (collecting >= 0 && !triple && depth == 0 && !continued) {
      OutlineDef& d = out.defs[collecting];
      d.header_end = i;
      d.params = outline_internal::squeeze_params(params);
      collecting = -1;
      param_state = 0;
    }
  }
  const bool complete = !opt.fragment && last == n - 1;
  for (const Open& o : stack) out.defs[o.def].end = complete ? last_code : kOpenEnd;
  return out;
}

// ATX heading ("## Text ##"): returns its level (1..6) and text.
std::optional<std::pair<int, std::string_view>> atx_heading(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && i < 3 && s[i] == ' ') ++i;
  size_t level = 0;
  while (i + level < s.size() && s[i + level] == '#') ++level;
  if (level == 0 || level > 6) return std::nullopt;
  i += level;
  if (i < s.size() && !is_space(s[i])) return std::nullopt;
  std::string_view text = outline_internal::trim(s.substr(i));
  while (!text.empty() && text.back() == '#') text.remove_suffix(1);
  return std::pair{static_cast<int>(level), outline_internal::trim(text)};
}

// Setext/reStructuredText underline: a run of one of =-~^" (at least 3).
int underline_level(std::string_view s) {
  s = outline_internal::trim(s);
  if (s.size() < 3) return 0;
  const char c = s[0];
  for (char x : s)
    if (x != c) return 0;
  switch (c) {
    case '=':
      return 1;
    case '-':
      return 2;
    case '~':
      return 3;
    case '^':
      return 4;
    case '"':
      return 5;
    default:
      return 0;
  }
}

Outline markdown_outline(std::span<const std::string_view> lines, const OutlineOptions& opt) {
  Outline out;
  struct Open {
    int def;
    int level;
  };
  std::vector<Open> stack;
  char fence = 0;
  size_t fence_len = 0;
  const int n = static_cast<int>(lines.size());
  const int last = opt.stop_line >= 0 ? std::min(n - 1, opt.stop_line) : n - 1;
  bool prev_is_text = false;  // the previous line is paragraph text
  auto add = [&](int level, std::string_view text, int start, int header_end) {
    while (!stack.empty() && stack.back().level >= level) {
      out.defs[stack.back().def].end = start - 1;
      stack.pop_back();
    }
    OutlineDef d;
    d.name.assign(text.substr(0, 160));
    d.qualified = d.name;
    d.kind = "section";
    d.start = d.name_line = start;
    d.header_end = header_end;
    d.parent = stack.empty() ? -1 : stack.back().def;
    d.indent = level;
    d.container = true;
    out.defs.push_back(std::move(d));
    stack.push_back({static_cast<int>(out.defs.size()) - 1, level});
  };
  for (int i = 0; i <= last; ++i) {
    const std::string_view s = strip_cr(lines[i]);
    const std::string_view t = outline_internal::trim(s);
    if ((t.starts_with("```") || t.starts_with("~~~")) && indentation(s) < 4) {
      const char c = t[0];
      size_t len = 0;
      while (len < t.size() && t[len] == c) ++len;
      if (!fence) {
        fence = c;
        fence_len = len;
      } else if (c == fence && len >= fence_len) {
        fence = 0;
      }
      prev_is_text = false;
      continue;
    }
    if (fence) continue;
    if (auto h = atx_heading(s)) {
      add(h->first, h->second, i, i);
      prev_is_text = false;
      continue;
    }
    if (const int level = underline_level(s); level > 0 && prev_is_text && i > 0) {
      add(level, outline_internal::trim(strip_cr(lines[i - 1])), i - 1, i);
      prev_is_text = false;
      continue;
    }
    prev_is_text = !t.empty() && indentation(s) < 4 && t[0] != '|' && t[0] != '<';
  }
  const bool complete = !opt.fragment && last == n - 1;
  for (const Open& o : stack) out.defs[o.def].end = complete ? last : kOpenEnd;
  return out;
}

}  // namespace

Outline build_outline(Language lang, std::span<const std::string_view> lines,
                      const OutlineOptions& options) {
  switch (lang) {
    case Language::kPython:
      return python_outline(lines, options);
    case Language::kMarkdown:
      return markdown_outline(lines, options);
    case Language::kCpp:
    case Language::kCuda:
    case Language::kRust:
    case Language::kGo:
    case Language::kJavaScript:
    case Language::kTypeScript:
      return outline_internal::brace_outline(lang, lines, options);
    default:
      return {};
  }
}

int innermost_def(const Outline& outline, int line) {
  const auto& defs = outline.defs;
  auto it = std::upper_bound(defs.begin(), defs.end(), line,
                             [](int l, const OutlineDef& d) { return l < d.start; });
  if (it == defs.begin()) return -1;
  int idx = static_cast<int>(it - defs.begin()) - 1;
  while (idx >= 0 && defs[idx].end < line) idx = defs[idx].parent;
  return idx;
}

std::optional<OutlineDef> parse_definition_line(Language lang, std::string_view text) {
  text = strip_cr(text);
  if (outline_internal::trim(text).empty()) return std::nullopt;
  std::string line(text);
  if (lang == Language::kMarkdown) {
    auto h = atx_heading(text);
    if (!h || h->second.empty()) return std::nullopt;
    OutlineDef d;
    d.name = d.qualified = std::string(h->second);
    d.kind = "section";
    d.indent = h->first;
    return d;
  }
  if (is_brace_language(lang)) {
    // Complete the header so the scanner sees it open a body.
    if (line.find('{') == std::string::npos) line += " {";
  }
  const std::string_view view = line;
  OutlineOptions opt;
  opt.fragment = true;
  Outline o = build_outline(lang, std::span<const std::string_view>(&view, 1), opt);
  if (o.defs.empty()) return std::nullopt;
  OutlineDef d = std::move(o.defs.back());
  d.indent = indentation(text);
  return d;
}

}  // namespace mergelens
