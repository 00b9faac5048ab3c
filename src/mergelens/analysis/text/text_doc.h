// Private to the text_*.cc files of the analysis: the shared reading of free
// text. A Doc is the text cleaned (valid UTF-8, invalid bytes replaced by
// U+FFFD, no CR or NUL, no HTML comments) and cut into prose sentences
// (paragraph lines joined, then split at sentence punctuation outside code
// spans and quotes, never longer than ~1.5 KB) and Markdown tables (kept whole,
// also inside code fences, whose other lines are dropped).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace mergelens::text_detail {

using sv = std::string_view;

// Byte classes (ASCII only: UTF-8 lead and continuation bytes are never word bytes).
[[gnu::always_inline]] inline bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
[[gnu::always_inline]] inline bool is_alpha(char c) {
  return ((c | 0x20) >= 'a' && (c | 0x20) <= 'z');
}
[[gnu::always_inline]] inline bool is_word(char c) {
  return is_digit(c) || is_alpha(c) || c == '_';
}
[[gnu::always_inline]] inline bool is_space(char c) {
  return c == ' ' || c == '\t';
}
inline char lower_c(char c) {
  return (c >= 'A' && c <= 'Z') ? char(c - 'A' + 'a') : c;
}

std::string lower(sv s);         // ASCII lowercase copy
sv trim(sv s);                   // without blanks and newlines at both ends
bool has_byte(sv s, char c);     // s contains c
bool has_pr(sv s);               // s contains "pr" in any case
std::string clean_text(sv raw);  // valid UTF-8, no CR/NUL, no <!-- comments -->

// A byte range [b, e) of a sentence.
struct Span {
  size_t b, e;
};
// Whether pos lies in one of the sorted, disjoint spans; `end` gets that span's end.
bool in_spans(const std::vector<Span>& v, size_t pos, size_t* end = nullptr);
std::vector<Span> code_spans(sv s);  // `code` spans, backticks included
std::vector<Span> url_spans(sv s);   // scheme://... up to a blank, quote or bracket

struct Sent {
  std::string text;
  bool table = false;      // a whole table row (references and mentions only)
  bool task = false;       // from a "- [ ]" task-list item (PR templates)
  std::vector<Span> code;  // `code` spans
  std::vector<Span> urls;  // URLs
  std::vector<Span> mask;  // both, merged: where numbers are not read
};
struct Table {
  std::vector<std::string> head;
  std::vector<std::vector<std::string>> rows;
};
struct Doc {
  std::vector<Sent> sents;
  std::vector<Table> tables;
};

// The Doc of `raw`, memoised per thread for the last few texts (the analyzer asks
// for the numbers, references and mentions of one body in turn). Never null; the
// shared_ptr keeps the Doc alive for its reader.
std::shared_ptr<const Doc> cached_doc(sv raw);

// `s` when it is at most `max` bytes, else a window of about `max` bytes around
// [b, e) cut at UTF-8 character boundaries, with "…" where it was cut.
std::string clip(sv s, size_t b, size_t e, size_t max = 300);

}  // namespace mergelens::text_detail
