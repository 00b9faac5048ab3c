// A definition found in a source file by a parser (source/ctags.h reads them
// with universal-ctags): what the context resolver indexes. No I/O.
#pragma once

#include <cstdint>
#include <string>

namespace mergelens {

struct CodeTag {
  std::string name;       // as written: "forward"
  std::string scope;      // enclosing definitions joined by '.': "Model" ("" at file level)
  std::string kind;       // "function", "method", "class", "struct", "variable", "macro", ...
  std::int32_t line = 0;  // 1-based line of the name
  std::int32_t end = 0;   // last line of the body (== line when the parser gave none)
  std::string signature;  // "(self, x, y=2)" for functions; "" otherwise
  std::string bases;      // a class's bases as written: "Base, Mixin" ("" when none)

  std::string qualified() const { return scope.empty() ? name : scope + "." + name; }
};

}  // namespace mergelens
