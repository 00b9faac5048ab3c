// Search: parsing what a reader typed into terms the store can run (no user
// text is ever passed to FTS5 as syntax), and highlighted snippets.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "mergelens/store/store.h"
#include "mergelens/util/error.h"

namespace mergelens::web {

// Parses a query: words, "a phrase", -excluded, prefix*. Terms are ANDed.
// kInvalidInput with a message for the reader when the query is empty, too
// long (over 256 bytes or 12 terms), has an unclosed quote, a '*' that does
// not end a word, a lone '-', a term without letters or digits, or only
// excluded terms.
Result<std::vector<SearchTerm>> parse_query(std::string_view q);

// Search across the two languages: every term that names a glossary entry
// (analysis/text/glossary.h: "量化", "quantization", "KV cache", ...) gets the
// entry's other forms as alternatives, so a Chinese query finds what its
// English terms find and the reverse. Two or three words typed apart that
// name one entry ("speculative decoding", "CUDA 图") become that one term.
// Terms without an entry, prefix terms ("quant*") and identifiers stay as
// typed (the index stays exact).
std::vector<SearchTerm> expand_terms(std::vector<SearchTerm> terms);

// A window of the first of `texts` that contains an included term, as
// [{"t": "...", "hit": bool}], the hits being the matched terms
// (case-insensitive for ASCII), alternatives included. Empty when no text
// contains a term.
nlohmann::json snippet(const std::vector<std::string>& texts, const std::vector<SearchTerm>& terms,
                       size_t width = 240);

}  // namespace mergelens::web
