// The citation checker's name lookups (citation_names.h): the names of a
// focus point's symbol, formatted and shorthand names, and the tokens of a
// code span looked up in the change, the repository and the libraries the
// change imports.
#include "mergelens/guide/citation_names.h"

#include <algorithm>
#include <cctype>

#include <re2/re2.h>

#include "mergelens/guide/citation_text.h"

namespace mergelens::citation_names {

using citation_text::span_text;
using citation_text::tokens_of;

bool names_code(std::string_view w) {
  if (std::none_of(w.begin(), w.end(), [](unsigned char ch) { return std::isalnum(ch); }))
    return false;  // "/" or "—" between words of a label
  for (size_t i = 0; i < w.size(); ++i) {
    const unsigned char ch = w[i];
    if (ch == '_' || ch == '.' || ch == '/' || ch == ':' || ch == '[' || ch == '<' ||
        std::isdigit(ch) || (i > 0 && std::isupper(ch)))
      return true;
    if (ch >= 0x80) return false;  // a label in Chinese
  }
  return false;
}

bool symbol_ok(const CitationIndex& ix, const std::string& s) {
  std::string c = span_text(s);
  if (c.empty() || ix.has_code_span(c)) return true;
  std::vector<std::string> words;
  for (size_t a = 0, b; a < c.size(); a = b + 1) {
    b = c.find_first_of(" \t,;()", a);
    if (b == std::string::npos) b = c.size();
    std::string w = c.substr(a, b - a);
    std::erase(w, '`');
    while (!w.empty() && (w.back() == ':' || w.back() == '.')) w.pop_back();
    if (!w.empty()) words.push_back(span_text(w));
  }
  auto name_ok = [&](const std::string& w) {
    if (ix.has_code_span(w) || ix.path_exists(w) || ix.names_file(w)) return true;
    auto toks = tokens_of(w);
    return !toks.empty() && std::all_of(toks.begin(), toks.end(), [&](const std::string& t) {
      return ix.has_token(t) || ix.built_token(t);
    });
  };
  for (const auto& w : words) {
    if (words.size() > 1 && !names_code(w)) continue;  // a word of the label
    if (!name_ok(w)) return false;
  }
  return true;
}

bool formatted_name(const CitationIndex& ix, const std::string& c) {
  static const RE2 kInstance(R"(^(<?[A-Za-z_]\w*_)\d+(>?)$)");
  std::string head, tail;
  return RE2::FullMatch(c, kInstance, &head, &tail) && ix.matches_pattern(head + "N" + tail);
}

bool shorthand_ok(const CitationIndex& ix, const std::string& c) {
  if (c.find(' ') != std::string::npos || c.find('/') == std::string::npos) return false;
  std::vector<std::string> parts;
  for (size_t a = 0, b; a <= c.size(); a = b + 1) {
    b = c.find('/', a);
    if (b == std::string::npos) b = c.size();
    parts.push_back(c.substr(a, b - a));
  }
  const auto cut = parts[0].rfind('_');
  if (parts.size() < 2 || cut == std::string::npos || cut == 0) return false;
  if (!ix.has_code_span(parts[0])) return false;
  for (size_t i = 1; i < parts.size(); ++i) {
    if (parts[i].empty() || parts[i].find('_') != std::string::npos) return false;
    if (!ix.has_code_span(parts[0].substr(0, cut + 1) + parts[i])) return false;
  }
  return true;
}

SpanNames span_names(const CitationIndex& ix, const std::string& c) {
  SpanNames out;
  auto library = ix.from_library(c);  // `torch.cuda.foo()` after `import torch`
  for (auto& l : ix.shape_labels(c)) library.push_back(std::move(l));  // `[n, bytes_per_x]`
  for (const auto& tok : tokens_of(c)) {
    if (ix.has_token(tok) || tok.size() == 1) continue;  // `i`, `x`: placeholders
    if (std::ranges::find(library, tok) != library.end()) continue;
    if (ix.known_token(tok)) {
      out.proposed = true;
      continue;
    }
    if (ix.built_token(tok)) continue;  // `train_sft` from `split += "_sft"`
    out.unknown.push_back(tok);
  }
  return out;
}

bool sets_known_name(const CitationIndex& ix, const std::string& c) {
  auto cut = c.find_first_of("= ");
  if (cut == std::string::npos || cut == 0) return false;
  std::string name = c.substr(0, cut);
  bool known = ix.is_variable(name);
  if (!known) {
    known = true;
    for (const auto& tok : tokens_of(name)) known = known && ix.known_token(tok);
    known = known && !tokens_of(name).empty();
  }
  return known;
}

}  // namespace mergelens::citation_names
