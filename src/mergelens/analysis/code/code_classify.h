// Classification of a statement header of a brace language: the text
// between the previous ';', '{' or '}' and the '{' (or ';') that ends it.
//
// Internal to the analysis module (used by code_outline_brace.cc). Headers
// arrive with comments removed, string literals reduced to "" and runs of
// whitespace collapsed to one space.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "mergelens/analysis/facts.h"

namespace mergelens::outline_internal {

// The header being accumulated by the scanner.
struct Header {
  std::string text;
  int start_line = -1;                     // line of its first character
  int last_line = -1;                      // line of its last character
  int paren = 0;                           // open '(' and '[' in it
  int init_braces = 0;                     // open '{' of a C++ constructor's member initialiser
  std::vector<std::pair<int, int>> marks;  // (offset in text, line) at each new line
  bool overflow = false;                   // too long: never a definition
};

// Where the header sits.
struct HeaderContext {
  Language lang = Language::kUnknown;
  bool in_class = false;     // directly in the body of a class-like definition
  bool in_function = false;  // inside a function body or an anonymous block
  bool private_ns = false;   // inside an anonymous/detail/internal namespace
  bool cpp_header = false;   // the file is a C/C++ header
  bool fragment = false;     // the text is a piece of a file
  std::string parent_kind;   // kind of the innermost enclosing definition, if any
};

struct HeaderClass {
  enum What { kBlock, kDef, kNamespace } what = kBlock;
  std::string name, kind, params;
  std::string qualifier;  // Go method receiver type
  size_t name_pos = 0;    // offset of the name in the header text
  bool exported = false;
  bool container = false;
  bool private_ns = false;  // for namespaces: anonymous/detail/internal
};

// Classifies `text`. With `declaration` set the header ended with ';' and
// only function prototypes (C/C++ headers, Rust trait methods) are accepted.
HeaderClass classify_header(std::string_view text, const HeaderContext& ctx, bool declaration);

// True when a '{' at this point of a C++ header opens a member initialiser
// ("Foo::Foo(int a) : a_{a}") rather than the body.
bool is_ctor_init_brace(const Header& h);

}  // namespace mergelens::outline_internal
