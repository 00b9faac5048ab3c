// Helpers shared by the signal detectors (see code_text.h).
#include "mergelens/analysis/code/code_text.h"

#include <cctype>

#include <algorithm>

#include "mergelens/analysis/code/code_outline.h"

namespace mergelens {
namespace signal_internal {

using outline_internal::trim;

RE2::Options latin1() {
  RE2::Options o;
  o.set_encoding(RE2::Options::EncodingLatin1);
  o.set_log_errors(false);
  return o;
}

std::string short_text(std::string_view s, size_t n) {
  s = trim(s);
  std::string out;
  out.reserve(std::min(s.size(), n + 4));
  size_t used = 0;  // bytes of `s` read into `out`
  for (char c : s) {
    if (out.size() >= n) break;
    ++used;
    if (c == ' ' || c == '\t') {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else {
      out += c;
    }
  }
  // A cut never splits a name or a number: back off to where the token began
  // (when that leaves at least half).
  auto ident = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  };
  if (used < s.size() && !out.empty() && ident(out.back()) && ident(s[used])) {
    size_t k = out.size();
    while (k > 0 && ident(out[k - 1])) --k;
    if (k >= n / 2) out.resize(k);
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

int bracket_balance(std::string_view t, std::string_view open, std::string_view close,
                    bool* in_string) {
  int depth = 0;
  char quote = 0;
  for (size_t i = 0; i < t.size(); ++i) {
    const char c = t[i];
    if (quote) {
      if (c == '\\')
        ++i;
      else if (c == quote)
        quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (open.find(c) != std::string_view::npos) {
      ++depth;
    } else if (close.find(c) != std::string_view::npos) {
      --depth;
    }
  }
  if (in_string) *in_string = quote != 0;
  return depth;
}

std::vector<std::string_view> call_args(std::string_view s, size_t open) {
  std::vector<std::string_view> out;
  int d = 0;
  char q = 0;
  size_t arg = open + 1;
  for (size_t i = open; i < s.size(); ++i) {
    char c = s[i];
    if (q) {
      if (c == '\\')
        ++i;
      else if (c == q)
        q = 0;
      continue;
    }
    if (c == '"' || c == '\'') {
      q = c;
    } else if (c == '(' || c == '[' || c == '{') {
      ++d;
    } else if (c == ')' || c == ']' || c == '}') {
      if (--d == 0) {
        out.push_back(s.substr(arg, i - arg));
        break;
      }
    } else if (c == ',' && d == 1) {
      out.push_back(s.substr(arg, i - arg));
      arg = i + 1;
    }
  }
  for (auto& a : out) {
    while (!a.empty() && std::isspace(static_cast<unsigned char>(a.front()))) a.remove_prefix(1);
    while (!a.empty() && std::isspace(static_cast<unsigned char>(a.back()))) a.remove_suffix(1);
  }
  if (out.size() == 1 && out[0].empty()) out.clear();
  return out;
}

std::string statement_text(std::string_view line, size_t n) {
  std::string out = short_text(line, n);
  const bool cut = out.ends_with("...");
  if (cut) out.resize(out.size() - 3);
  bool quote = false;
  const int depth = bracket_balance(out, "([{", ")]}", &quote);
  if (quote || depth <= 0) return cut ? out + "..." : out;
  while (!out.empty() && out.back() == ' ') out.pop_back();
  // Close what is open, innermost first, in the order it was opened.
  std::string closers;
  for (char c : out) {
    if (c == '(' || c == '[' || c == '{') closers.push_back(c == '(' ? ')' : c == '[' ? ']' : '}');
    if ((c == ')' || c == ']' || c == '}') && !closers.empty()) closers.pop_back();
  }
  std::reverse(closers.begin(), closers.end());
  return out + "..." + closers;
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
      if (c == '\\')
        ++i;
      else if (c == quote)
        quote = 0;
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

std::string without_strings(std::string_view code) {
  std::string out(code);
  char quote = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    const char c = out[i];
    if (!quote) {
      if (c == '"' || c == '\'') quote = c;
      continue;
    }
    if (c == '\\' && i + 1 < out.size()) {
      out[i] = out[i + 1] = ' ';
      ++i;
    } else if (c == quote) {
      quote = 0;
    } else {
      out[i] = ' ';
    }
  }
  return out;
}

}  // namespace signal_internal

}  // namespace mergelens
