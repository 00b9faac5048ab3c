#include "mergelens/llm/tokens.h"

#include <cctype>

namespace mergelens::llm {
namespace {

std::size_t ceil_div(std::size_t a, std::size_t b) {
  return (a + b - 1) / b;
}

// Length of the UTF-8 sequence starting with lead byte `c` (0 for a continuation byte or an
// invalid lead).
std::size_t sequence_length(unsigned char c) {
  if (c >= 0xC2 && c <= 0xDF) return 2;
  if (c >= 0xE0 && c <= 0xEF) return 3;
  if (c >= 0xF0 && c <= 0xF4) return 4;
  return 0;
}

}  // namespace

std::size_t estimate_tokens(std::string_view text) {
  std::size_t plain_ascii = 0;  // ASCII bytes outside mixed alphanumeric runs
  std::size_t tokens = 0;
  std::size_t i = 0;
  while (i < text.size()) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (std::isalnum(c)) {
      std::size_t j = i;
      bool letters = false, digits = false;
      while (j < text.size() && std::isalnum(static_cast<unsigned char>(text[j]))) {
        (std::isdigit(static_cast<unsigned char>(text[j])) ? digits : letters) = true;
        ++j;
      }
      if (j - i >= 8 && letters && digits) {
        tokens += ceil_div(j - i, 2);
      } else {
        plain_ascii += j - i;
      }
      i = j;
    } else if (c < 0x80) {
      ++plain_ascii;
      ++i;
    } else {
      std::size_t n = sequence_length(c);
      bool valid = n > 0 && i + n <= text.size();
      for (std::size_t k = 1; valid && k < n; ++k) {
        valid = (static_cast<unsigned char>(text[i + k]) & 0xC0) == 0x80;
      }
      if (valid) {
        tokens += n - 1;
        i += n;
      } else {
        tokens += 1;
        ++i;
      }
    }
  }
  return tokens + ceil_div(plain_ascii, 3);
}

std::size_t estimate_tokens(const std::vector<Message>& messages) {
  std::size_t total = kTokensPerRequest;
  for (const auto& m : messages) total += estimate_tokens(m.content) + kTokensPerMessage;
  return total;
}

}  // namespace mergelens::llm
