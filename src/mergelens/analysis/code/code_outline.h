// Outlines: the definitions of a source text (functions, classes, structs,
// kernels, macros, headings) with the lines they span.
//
// Internal to the analysis module. code_facts.cc builds one outline per new
// file (to find the symbol enclosing each hunk) and one per side of each hunk
// (to find the definitions the hunk adds, removes or re-signs). The scanners
// are heuristic and never fail: they lex comments and strings well enough to
// count indentation (Python) or braces (C++/CUDA, Rust, Go, JavaScript,
// TypeScript) and read headings (Markdown); anything they cannot classify is
// an anonymous block.
#pragma once

#include <climits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "mergelens/analysis/facts.h"

namespace mergelens {

inline constexpr int kOpenEnd = INT_MAX;  // OutlineDef::end of a definition still open

struct OutlineDef {
  std::string name;          // as written: "forward", "Foo::bar" (out-of-line C++), heading text
  std::string qualified;     // with enclosing definitions: "Model.forward", "Foo::bar"
  std::string kind;          // "function", "method", "class", "struct", "enum", "union", "kernel",
                             // "macro", "impl", "trait", "interface", "type", "section"
  std::string params;        // parameter text with whitespace removed; empty when none
  int start = 0;             // first line (decorators, template line), 0-based index
  int name_line = 0;         // line holding the name
  int header_end = 0;        // line that ends the header (':' in Python, '{' or ';')
  int end = kOpenEnd;        // last line of the body, kOpenEnd when open at the end of the text
  int parent = -1;           // index of the enclosing definition, -1 at top level
  int indent = 0;            // indentation of the name line
  bool container = false;    // class-like: its members are qualified with its name
  bool exported = false;     // public by the language's rules (see build_outline)
  bool declaration = false;  // a prototype without a body (C/C++ headers, Rust traits)
};

struct Outline {
  std::vector<OutlineDef> defs;  // ordered by start line; spans nest or are disjoint
  // (line, indentation) of each place where the text leaves a scope opened
  // before it: a '}' without its '{', or a Python logical line outside every
  // definition of the text. Used on hunk fragments to tell whether the
  // function git named in the hunk header is still open at a given line.
  std::vector<std::pair<int, int>> outer_lines;
};

struct OutlineOptions {
  bool fragment = false;    // the text is a piece of a file (one side of a hunk)
  int stop_line = -1;       // stop after this 0-based line (-1: read everything);
                            // definitions still open there keep end == kOpenEnd
  bool cpp_header = false;  // C/C++ header: also record function prototypes, mark exports
};

// Builds the outline of `lines` (no line terminators; a trailing '\r' is
// ignored) in language `lang`. Languages without a scanner give an empty
// outline. `exported` means: Python top-level name without a leading '_';
// C++ namespace-scope function or class in a header, not static and not in a
// detail/internal/anonymous namespace; Rust `pub`; Go capitalised; JS/TS
// `export`. The returned outline owns its strings; `lines` is not retained.
Outline build_outline(Language lang, std::span<const std::string_view> lines,
                      const OutlineOptions& options = {});

// Index of the innermost definition whose span [start, end] contains `line`,
// or -1. Logarithmic in the number of definitions plus the nesting depth.
int innermost_def(const Outline& outline, int line);

// Parses one line of text that names a definition (a hunk header's section
// text such as "def forward(self, x):", "static void foo(int a)" or
// "## Usage") and returns it, or nothing when the text is not a definition.
// Only name, kind, indent and params are set.
std::optional<OutlineDef> parse_definition_line(Language lang, std::string_view text);

// Leading indentation width (a tab advances to the next multiple of 8).
int indentation(std::string_view line);

namespace outline_internal {
// The scanner for brace languages (code_outline_brace.cc).
Outline brace_outline(Language lang, std::span<const std::string_view> lines,
                      const OutlineOptions& options);
// Small text helpers shared by the scanners.
inline bool is_ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}
inline bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}
inline std::string_view strip_cr(std::string_view s) {
  if (!s.empty() && s.back() == '\r') s.remove_suffix(1);
  return s;
}
std::string_view trim(std::string_view s);
// Removes all whitespace and a trailing comma before ')' / ']' / the end.
std::string squeeze_params(std::string_view s);
// True when `header` is only macro invocations in capitals
// ("_CCCL_DIAG_PUSH GTEST_REPEATER_METHOD_(A, B)"): at the end of a line that
// closes a call, such a header is a statement of its own.
bool macro_calls_only(std::string_view header);
// Sorts definitions by start line (stably), keeping each parent index
// pointing at the same definition.
void sort_by_start(std::vector<OutlineDef>& defs);
}  // namespace outline_internal

}  // namespace mergelens
