// Whether the names a guide cites are the change's: the name and library
// lookups of the citation checker (citations.cc), each reading a
// CitationIndex the caller owns (private to guide/).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "mergelens/guide/citations.h"

namespace mergelens::citation_names {

// A word that reads as code: `snake_case`, `CamelCase`, `a.b`, `f()`, a path,
// digits in a name; not "members" or "Design", nor a label in Chinese.
bool names_code(std::string_view w);

// Whether a focus point's symbol `s` names the change's code. Writers add a
// label to it ("`K2qCsrPipelineMc` (members)", "`f` (removed `_x`)") or write
// a label alone ("file header (design contract)"): words of prose claim
// nothing, names (names_code) must be the change's. A single word is a name.
bool symbol_ok(const CitationIndex& ix, const std::string& s);

// formatted_name: whether code span `c` is an instance of a name the code
// formats (`image_0`, `<image_0>` from `f"image_{i}"` or `<image_\d+>`).
// shorthand_ok: whether it is a slash shorthand of names the change has
// (`OPT_MHC_POST/PRE` for `OPT_MHC_POST` and `OPT_MHC_PRE`: each alternative
// replaces the last `_` part of the first).
bool formatted_name(const CitationIndex& ix, const std::string& c);
bool shorthand_ok(const CitationIndex& ix, const std::string& c);

// The identifier tokens of code span `c` that nothing supports: not the
// change's own nor a one-letter placeholder, not of a library its files
// import (CitationIndex::from_library) nor a shape's labels (shape_labels),
// not a name of the language, its protocols or the repository (known_token:
// the span then proposes it), nor built from the change's fragments
// (built_token).
struct SpanNames {
  std::vector<std::string> unknown;  // in the order written
  bool proposed = false;             // a token only known_token supports
};
SpanNames span_names(const CitationIndex& ix, const std::string& c);

// Whether `c` sets a name (`NAME=value`, `--flag value`: what stands before
// its first `=` or space) that is a variable of the change
// (CitationIndex::is_variable) or made only of known tokens (known_token).
bool sets_known_name(const CitationIndex& ix, const std::string& c);

}  // namespace mergelens::citation_names
