// Word forms for the tag rules, and what a title's prefixes say.
#include "mergelens/analysis/judgment/tag_words.h"

namespace mergelens::tag_words {

bool is_alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}
char lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}
bool is_sep(char c) {
  return c == '_' || c == '\n';
}

void append_words(std::string_view text, std::string& out) {
  const std::size_t start = out.size();
  for (char c : text) {
    if (is_alnum(c)) {
      out += lower(c);
    } else if (out.size() > start && out.back() != '_') {
      out += '_';
    }
  }
  if (out.size() > start && out.back() == '_') out.pop_back();
}

TitlePrefixes parse_prefixes(std::string_view title) {
  TitlePrefixes t;
  auto add = [&](std::string_view s) {
    if (!t.docs.empty()) t.docs += '\n';
    append_words(s, t.docs);
  };
  auto skip_space = [&] {
    while (!title.empty() && (title.front() == ' ' || title.front() == '\t'))
      title.remove_prefix(1);
  };
  skip_space();
  while (!title.empty() && title.front() == '[') {
    const std::size_t close = title.find(']');
    if (close == std::string_view::npos || close > 60) break;
    add(title.substr(1, close - 1));
    title.remove_prefix(close + 1);
    skip_space();
  }
  // Conventional commit: type(scope)!: ...
  std::size_t i = 0;
  while (i < title.size() && i <= 24 && (is_alnum(title[i]) || title[i] == '-' || title[i] == '_'))
    ++i;
  if (i > 0 && i < title.size() && is_alnum(title[0])) {
    std::size_t j = i;
    std::string_view scope;
    if (title[j] == '(') {
      const std::size_t close = title.find(')', j);
      if (close != std::string_view::npos && close - j <= 40) {
        scope = title.substr(j + 1, close - j - 1);
        j = close + 1;
      } else {
        j = title.size();
      }
    }
    if (j < title.size() && title[j] == '!') ++j;
    if (j < title.size() && title[j] == ':') {
      add(title.substr(0, i));
      if (!scope.empty()) add(scope);
    }
  }
  std::size_t w = 0;
  while (w < title.size() && is_alnum(title[w])) ++w;
  append_words(title.substr(0, w), t.first_word);
  return t;
}

}  // namespace mergelens::tag_words
