// Conservative token estimates for budgeting prompts without a tokenizer.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "mergelens/llm/client.h"

namespace mergelens::llm {

// Tokens added per chat message for its role and framing, and per request for the reply's
// priming (OpenAI documents 3-4; we round up).
inline constexpr std::size_t kTokensPerMessage = 4;
inline constexpr std::size_t kTokensPerRequest = 3;

// An upper estimate of the tokens BPE tokenizers (cl100k, o200k, Llama 3, Qwen) produce for
// English, source code, diffs and CJK text. The rule:
//   - ASCII: ceil(bytes / 3), except that a run of 8+ letters and digits mixing both (hashes,
//     ids, base64) counts ceil(length / 2), as such runs split into short pieces;
//   - a non-ASCII code point counts its UTF-8 length minus one: 1 for 2-byte (accented Latin,
//     Cyrillic, Greek), 2 for 3-byte (CJK, kana, Hangul, symbols), 3 for 4-byte (emoji);
//   - a byte that is not valid UTF-8 counts 1.
// Typical English is ~4 bytes per token and code ~3.5, so the estimate runs 10-40% high for
// them; CJK runs high for tokenizers with large CJK vocabularies. No byte-level BPE produces
// more tokens than bytes, and the estimate never exceeds bytes either.
std::size_t estimate_tokens(std::string_view text);

// The estimate for a whole request: each message's content plus kTokensPerMessage, plus
// kTokensPerRequest.
std::size_t estimate_tokens(const std::vector<Message>& messages);

}  // namespace mergelens::llm
