// Branches the change edits but did not add: a guard or early return whose
// condition has the shape of an `if` the same hunk removes ("if qconfig is
// None:" became "if existing_config is None: return new_config") existed at
// the parent, so no test gap or "what does it skip" question is new. And
// the AttributeError a `__getattr__` must raise for an unknown name, which is
// the protocol, not a new path.
#include <algorithm>
#include <string>
#include <string_view>

#include "mergelens/analysis/code/code_file.h"
#include "mergelens/analysis/code/code_outline.h"

namespace mergelens::code_internal {
namespace {

using outline_internal::is_ident_char;
using outline_internal::trim;

// The condition of an `if`/`elif`/`else if` line or signal detail, or empty.
std::string_view condition_of(std::string_view t) {
  t = trim(t);
  while (!t.empty() && (t.front() == '}' || t.front() == ' ')) t.remove_prefix(1);
  for (std::string_view kw : {"else if", "elif", "if"}) {
    if (!t.starts_with(kw) || t.size() == kw.size() || is_ident_char(t[kw.size()])) continue;
    t = trim(t.substr(kw.size()));
    if (t.starts_with("(")) {  // C family: the balanced parentheses
      int depth = 0;
      for (size_t i = 0; i < t.size(); ++i) {
        depth += t[i] == '(' ? 1 : t[i] == ')' ? -1 : 0;
        if (depth == 0) return t.substr(1, i - 1);
      }
      return t.substr(1);
    }
    const size_t colon = t.find(':');  // Python: up to the colon
    return trim(colon == std::string_view::npos ? t : t.substr(0, colon));
  }
  return {};
}

// The condition with every name replaced by one mark and blanks dropped:
// "qconfig is None" and "existing_config is None" share "x is None".
std::string shape_of(std::string_view cond) {
  std::string out;
  for (size_t i = 0; i < cond.size();) {
    if (is_ident_char(cond[i]) && !(cond[i] >= '0' && cond[i] <= '9')) {
      size_t e = i;
      while (e < cond.size() && (is_ident_char(cond[e]) || cond[e] == '.')) ++e;
      const std::string_view w = cond.substr(i, e - i);
      static constexpr std::string_view kKeep[] = {"is",      "not",  "and",  "or",
                                                   "in",      "None", "True", "False",
                                                   "nullptr", "NULL", "true", "false"};
      if (std::find(std::begin(kKeep), std::end(kKeep), w) != std::end(kKeep)) {
        out += ' ';
        out += w;
        out += ' ';
      } else if (!out.ends_with('x')) {
        out += 'x';
      }
      i = e;
      continue;
    }
    if (cond[i] != ' ' && cond[i] != '\t') out += cond[i];
    ++i;
  }
  return out;
}

// A shape that says more than "some name is truthy".
bool telling(std::string_view shape) {
  return shape != "x" && shape != " not x" && shape != "!x" && shape.size() >= 4;
}

}  // namespace

void drop_kept_branches(const Change& change, std::vector<Signal>& signals) {
  std::erase_if(signals, [&](const Signal& s) {
    if (!s.added || (s.kind != "guard" && s.kind != "early_return")) return false;
    const std::string shape = shape_of(condition_of(s.detail));
    if (!telling(shape)) return false;
    for (const FileChange& fc : change.files) {
      if (fc.path != s.at.path) continue;
      for (const Hunk& h : fc.hunks) {
        if (s.at.line < h.new_start || s.at.line >= h.new_start + std::max(h.new_lines, 1))
          continue;
        for (const DiffLine& l : h.lines)
          if (l.origin == '-' && shape_of(condition_of(l.text)) == shape) return true;
      }
    }
    return false;
  });
}

void drop_protocol_raises(const Change& change, std::vector<Signal>& signals) {
  auto indent = [](std::string_view t) {
    size_t n = 0;
    while (n < t.size() && (t[n] == ' ' || t[n] == '\t')) ++n;
    return n;
  };
  auto in_getattr = [&](const Signal& s) {
    for (const FileChange& fc : change.files) {
      if (fc.path != s.at.path || !fc.path.ends_with(".py")) continue;
      for (const Hunk& h : fc.hunks) {
        if (s.at.line < h.new_start || s.at.line >= h.new_start + std::max(h.new_lines, 1))
          continue;
        // The nearest `def` above the line, less indented; else git's section.
        size_t at_indent = std::string_view::npos;
        std::string_view def = h.section;
        for (auto it = h.lines.rbegin(); it != h.lines.rend(); ++it) {
          if (it->origin == '-' || it->new_no > s.at.line) continue;
          const std::string_view t = it->text;
          if (it->new_no == s.at.line) {
            at_indent = indent(t);
            continue;
          }
          const std::string_view body = trim(t);
          if ((body.starts_with("def ") || body.starts_with("async def ")) &&
              indent(t) < at_indent) {
            def = body;
            break;
          }
        }
        const size_t d = def.find("def ");
        if (d == std::string_view::npos) return false;
        const std::string_view name = trim(def.substr(d + 4));
        return name.starts_with("__getattr__(") || name.starts_with("__getattribute__(");
      }
    }
    return false;
  };
  std::erase_if(signals, [&](const Signal& s) {
    return s.added && (s.kind == "raise" || s.kind == "guard") &&
           s.detail.find("AttributeError") != std::string::npos && in_getattr(s);
  });
}

}  // namespace mergelens::code_internal
