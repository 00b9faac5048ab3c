// UTF-8 decoding and the text cleaners built on it: one strict decoder for
// every place that must tell valid UTF-8 from bytes that only look like it.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace mergelens {

// One decoded character: the code point and the bytes it took.
struct Utf8Char {
  static constexpr char32_t kInvalid = 0xFFFFFFFF;
  char32_t cp = kInvalid;  // kInvalid when the bytes at `pos` are not valid UTF-8
  size_t len = 1;          // bytes consumed: the sequence, or 1 for an invalid byte
};

// Decodes the character starting at s[pos] (pos < s.size()). Strict RFC 3629:
// overlong forms, encoded surrogates (ED A0 80 ... ED BF BF), code points above
// U+10FFFF, stray continuation bytes and truncated sequences are invalid, and
// consume one byte so decoding resumes at the next. Never fails otherwise.
Utf8Char decode_utf8(std::string_view s, size_t pos);

// `s` with every invalid byte (and the noncharacters U+FFFE, U+FFFF, which XML
// 1.0 forbids as well) replaced by U+FFFD and the C0 controls XML 1.0
// forbids dropped, with carriage return too (all below U+0020 except tab and
// newline). The result is valid UTF-8 and well-formed XML character data once
// &, < and > are escaped.
std::string clean_utf8_text(std::string_view s);

// `s` made inert for a terminal: control characters become visible escapes,
// C0 and DEL as "\x1b", C1 code points (U+0080..U+009F) as "\u009b", the
// bidirectional controls that reorder what a terminal shows (U+202A..U+202E
// embeddings and overrides, U+2066..U+2069 isolates, U+200E, U+200F and
// U+061C marks: "Trojan Source") as "\u202e", and each byte of invalid
// UTF-8 as "\xNN" (a lone 0x9B is CSI to an 8-bit terminal).
// Newlines and tabs are kept when `keep_newlines` (multi-line text such as a
// PR body), escaped otherwise (a one-line field such as a title). Other
// characters, backslash included, are copied as they are.
std::string terminal_safe(std::string_view s, bool keep_newlines = true);

}  // namespace mergelens
