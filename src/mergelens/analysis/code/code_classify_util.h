// Text helpers for classifying statement headers (code_classify.cc,
// code_classify_langs.cc). Internal to the analysis module.
#pragma once

#include <algorithm>
#include <initializer_list>
#include <string>
#include <string_view>

#include "mergelens/analysis/code/code_classify.h"
#include "mergelens/analysis/code/code_outline.h"

namespace mergelens::outline_internal {

inline constexpr size_t npos = std::string_view::npos;

inline bool one_of(std::string_view w, std::initializer_list<std::string_view> set) {
  return std::find(set.begin(), set.end(), w) != set.end();
}

inline size_t skip_sp(std::string_view t, size_t i) {
  while (i < t.size() && t[i] == ' ') ++i;
  return i;
}

inline std::string_view word_at(std::string_view t, size_t i) {
  size_t e = i;
  while (e < t.size() && is_ident_char(t[e])) ++e;
  return t.substr(i, e - i);
}

inline bool is_upper_macro(std::string_view w) {
  if (w.size() < 2) return false;
  bool letter = false;
  for (char c : w) {
    if (c >= 'A' && c <= 'Z')
      letter = true;
    else if (!(c >= '0' && c <= '9') && c != '_')
      return false;
  }
  return letter;
}

inline bool has_word(std::string_view t, std::string_view w) {
  for (size_t p = t.find(w); p != npos; p = t.find(w, p + 1)) {
    const bool left = p == 0 || !is_ident_char(t[p - 1]);
    const bool right = p + w.size() >= t.size() || !is_ident_char(t[p + w.size()]);
    if (left && right) return true;
  }
  return false;
}

// Position of the bracket closing the one at `open`, or npos.
inline size_t match_close(std::string_view t, size_t open) {
  const char o = t[open];
  const char c = o == '(' ? ')' : o == '[' ? ']' : o == '{' ? '}' : '>';
  int depth = 0;
  for (size_t i = open; i < t.size(); ++i) {
    if (t[i] == o) {
      ++depth;
    } else if (t[i] == c) {
      if (o == '<' && i > 0 && t[i - 1] == '-') continue;
      if (--depth == 0) return i;
    }
  }
  return npos;
}

// Offset of `sub` (a view into `text`) from the start of `text`.
inline size_t offset_in(std::string_view text, std::string_view sub) {
  return static_cast<size_t>(sub.data() - text.data());
}

inline HeaderClass def(std::string_view text, std::string_view name, std::string kind,
                       std::string_view params, bool exported, bool container = false) {
  HeaderClass h;
  h.what = HeaderClass::kDef;
  h.name.assign(name);
  h.kind = std::move(kind);
  h.params = squeeze_params(params);
  h.name_pos = offset_in(text, name);
  h.exported = exported;
  h.container = container;
  return h;
}

// First top-level '=' that is an assignment (not ==, !=, <=, >=, =>).
inline size_t top_level_assign(std::string_view t, size_t from = 0) {
  int depth = 0;
  for (size_t i = from; i < t.size(); ++i) {
    const char c = t[i];
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') depth = std::max(0, depth - 1);
    if (c != '=' || depth > 0) continue;
    const char prev = i > 0 ? t[i - 1] : 0;
    const char next = i + 1 < t.size() ? t[i + 1] : 0;
    if (next == '=' || next == '>' || prev == '=' || prev == '!' || prev == '<' || prev == '>')
      continue;
    return i;
  }
  return npos;
}

// Per-language classifiers (code_classify_langs.cc); see classify_header.
HeaderClass classify_rust(std::string_view text, const HeaderContext& ctx, bool decl);
HeaderClass classify_go(std::string_view text, const HeaderContext& ctx, bool decl);
HeaderClass classify_js(std::string_view text, const HeaderContext& ctx, bool decl);

}  // namespace mergelens::outline_internal
