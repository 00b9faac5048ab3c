// Runs of added or removed lines around a decorator (see context.h): which
// definition a decorator line of a diff belongs to.
#include <algorithm>

#include "mergelens/analysis/code/context.h"

namespace mergelens {

// A Python decorator line: `@name...` after indentation.
bool decorator_line(std::string_view text) {
  const size_t at = text.find_first_not_of(" \t");
  return at != std::string_view::npos && text[at] == '@';
}

// Whether the run of added lines holding `lines[k]` is decorators (and
// blank lines) only, followed by a line the change keeps: decorators added
// to a kept definition, not a new definition placed before it.
bool decorators_only_run(const std::vector<DiffLine>& lines, size_t k) {
  size_t a = k, b = k;
  while (a > 0 && lines[a - 1].origin == '+') --a;
  while (b + 1 < lines.size() && lines[b + 1].origin == '+') ++b;
  for (size_t i = a; i <= b; ++i)
    if (lines[i].text.find_first_not_of(" \t\r") != std::string::npos &&
        !decorator_line(lines[i].text))
      return false;
  return b + 1 < lines.size() && lines[b + 1].origin == ' ';
}

// Whether the run of removed lines holding `lines[k]` removes a `def` or
// `class` line: a decorator in it is that definition's, wherever the diff
// slides the run (removing `@classmethod def a` before a kept `@classmethod
// def b` may show as removing `def a ... @classmethod`, the decorator above
// `b`, which keeps one).
bool removes_a_definition(const std::vector<DiffLine>& lines, size_t k) {
  size_t a = k, b = k;
  while (a > 0 && lines[a - 1].origin == '-') --a;
  while (b + 1 < lines.size() && lines[b + 1].origin == '-') ++b;
  for (size_t i = a; i <= b; ++i) {
    std::string_view t = lines[i].text;
    t.remove_prefix(std::min(t.find_first_not_of(" \t"), t.size()));
    if (t.starts_with("def ") || t.starts_with("async def ") || t.starts_with("class "))
      return true;
  }
  return false;
}

}  // namespace mergelens
