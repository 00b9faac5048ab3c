// Reading guide prose as the checker and the validator see it: code spans in
// backticks, sentences, and whether a sentence proposes or claims.
//
// A guide mixes two kinds of text. A claim says something about the change
// ("`_pad_intermediate_size` pads after loading"); it must be true of the
// change. A suggestion proposes or reasons ("add a test that sets
// `CUDA_MODULE_LOADING=EAGER`", "does it raise `KeyError` when ...?"); the
// code it proposes is not in the change by nature. The cues below tell the
// two apart at the level of a sentence, in Chinese and English; the checker
// decides per code span with them (guide/citations.h). Pure functions, no
// allocation beyond the returned values.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace mergelens::prose {

// A `code span` of a text: [begin, end) covers the backticks too; `code` is
// what stands between them. An unmatched backtick opens no span.
struct Span {
  size_t begin = 0, end = 0;
  std::string_view code;
};
std::vector<Span> code_spans(std::string_view text);

// The sentences of `text` as [begin, end) byte ranges that together cover it
// (trailing spaces belong to the sentence before). A sentence ends after 。！？；
// or a newline, or after . ! ? ; followed by a space — but not inside a code
// span, a number ("2.3x"), or after "e.g." / "i.e." / "etc." / "vs." / "cf.".
struct Range {
  size_t begin = 0, end = 0;
};
std::vector<Range> sentences(std::string_view text);

// Whether a sentence proposes, asks or reasons hypothetically rather than
// states a fact about the change: a question, advice ("建议", "should",
// "consider"), a test or measurement to add ("补一个", "add a test"), an
// example ("例如", "e.g."), an alternative ("改为", "instead of").
bool is_suggestion(std::string_view sentence);

// Whether the words right before byte `at` of `sentence` introduce new code:
// "add `x`", "新增 `x`", "rename it to `x`", "e.g. `x`", "例如 `x`",
// "用 `x` 代替", "such as `x`". Looks back at most ~24 bytes.
bool introduces_code(std::string_view sentence, size_t at);

// `text` with every code span replaced by spaces (same length).
std::string without_code(std::string_view text);

// Whether `text` contains a CJK ideograph (U+4E00..U+9FFF).
bool has_cjk(std::string_view text);
// Count of CJK ideographs and of other non-space characters (code spans
// included), for a language check that is not fooled by a quoted string.
struct Letters {
  size_t cjk = 0, latin = 0;
};
Letters count_letters(std::string_view text);

// Display width in "Chinese characters": a CJK character or full-width
// punctuation counts 1, any other character 0.375 (80 Latin ≈ 30 Chinese).
double width(std::string_view text);

// Trims ASCII and full-width spaces and leading/trailing sentence
// punctuation that a removal leaves dangling (", ；：").
std::string tidy(std::string_view text);

}  // namespace mergelens::prose
