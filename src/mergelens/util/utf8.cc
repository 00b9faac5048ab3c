#include "mergelens/util/utf8.h"

#include <fmt/format.h>

namespace mergelens {

Utf8Char decode_utf8(std::string_view s, size_t pos) {
  const auto b0 = static_cast<unsigned char>(s[pos]);
  if (b0 < 0x80) return {b0, 1};
  size_t len;
  char32_t cp, min;
  if ((b0 & 0xE0) == 0xC0) {
    len = 2, cp = b0 & 0x1F, min = 0x80;
  } else if ((b0 & 0xF0) == 0xE0) {
    len = 3, cp = b0 & 0x0F, min = 0x800;
  } else if ((b0 & 0xF8) == 0xF0) {
    len = 4, cp = b0 & 0x07, min = 0x10000;
  } else {
    return {};  // a continuation byte or 0xF8..0xFF
  }
  if (pos + len > s.size()) return {};
  for (size_t k = 1; k < len; ++k) {
    const auto b = static_cast<unsigned char>(s[pos + k]);
    if ((b & 0xC0) != 0x80) return {};
    cp = (cp << 6) | (b & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return {};
  return {cp, len};
}

std::string clean_utf8_text(std::string_view s) {
  // Copies runs of bytes that stay whole (most text is one run) instead of
  // appending code point by code point.
  std::string out;
  out.reserve(s.size());
  size_t run = 0;  // the first byte not yet copied
  for (size_t i = 0; i < s.size();) {
    const auto u = static_cast<unsigned char>(s[i]);
    if (u >= 0x20 && u < 0x80) {
      ++i;
      continue;
    }
    if (u == '\n' || u == '\t') {
      ++i;
      continue;
    }
    if (u < 0x20) {  // a control character: dropped
      out.append(s.substr(run, i - run));
      run = ++i;
      continue;
    }
    const Utf8Char c = decode_utf8(s, i);
    if (c.cp == Utf8Char::kInvalid || c.cp == 0xFFFE || c.cp == 0xFFFF) {
      out.append(s.substr(run, i - run));
      out += "\xEF\xBF\xBD";
      i += c.len;
      run = i;
      continue;
    }
    i += c.len;
  }
  out.append(s.substr(run));
  return out;
}

std::string terminal_safe(std::string_view s, bool keep_newlines) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const Utf8Char c = decode_utf8(s, i);
    if (c.cp == Utf8Char::kInvalid) {
      out += fmt::format("\\x{:02x}", static_cast<unsigned char>(s[i]));
    } else if (keep_newlines && (c.cp == '\n' || c.cp == '\t')) {
      out += static_cast<char>(c.cp);
    } else if (c.cp < 0x20 || c.cp == 0x7F) {
      out += fmt::format("\\x{:02x}", static_cast<unsigned>(c.cp));
    } else if ((c.cp >= 0x80 && c.cp <= 0x9F) || (c.cp >= 0x202A && c.cp <= 0x202E) ||
               (c.cp >= 0x2066 && c.cp <= 0x2069) || c.cp == 0x200E || c.cp == 0x200F ||
               c.cp == 0x061C) {
      out += fmt::format("\\u{:04x}", static_cast<unsigned>(c.cp));
    } else {
      out.append(s.substr(i, c.len));
    }
    i += c.len;
  }
  return out;
}

}  // namespace mergelens
