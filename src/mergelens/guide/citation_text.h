// Tokens and figures of text as the citation index and checker read them
// (private to guide/).
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace mergelens::citation_text {

bool word_char(unsigned char c);

// "2.30" → "2.3", "2.0" → "2", "007" → "7".
std::string normalise(std::string_view n);

struct NumberToken {
  std::string text;      // as written, without unit
  std::string written;   // as written, with its unit ("3.7x", "41.5 ms")
  size_t pos = 0;        // byte offset in the scanned text
  size_t end = 0;        // just past the number (and its unit)
  bool strict = false;   // a decimal or a figure with a unit
  bool version = false;  // dotted version such as 0.4.1
};

// Numbers standing alone in `text` (not inside identifiers such as fp8 or H100).
std::vector<NumberToken> scan_numbers(std::string_view text);

// Whether a figure the change does not write is worked out from `operands`
// (figures it does give, cited in the same place): a ratio of two ("1.36x"
// for 1191.79 / 877.16), a percentage (a difference relative to one, "1.5%"
// for 1006.81 against 1022.05, or one as a share of the other), or a
// difference of two plain decimals, within the rounding of the digits
// written. A figure with another unit (ms, GB, tok/s) is never derived.
bool derived_figure(const NumberToken& n, const std::vector<double>& operands);

// Identifier tokens of `text` ([A-Za-z_][A-Za-z0-9_]*) of at least `min_len`.
void scan_tokens(std::string_view text, std::set<std::string>& out, size_t min_len = 1);
std::vector<std::string> tokens_of(std::string_view text);

// A cited code span as compared: without a trailing ellipsis, "()" or spaces.
std::string span_text(std::string span);

// Whether a code span looks like a file path ("a/b/c.py", "c.py", "a/b/",
// "c.py:12", "c.py:12-30"); `path` gets the path, `first`/`last` the cited
// lines (0 when none), `ext` whether it ends in a file extension.
bool path_like(std::string_view span, std::string* path, int* first, int* last,
               bool* ext = nullptr);

}  // namespace mergelens::citation_text
