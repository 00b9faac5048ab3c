// Small string helpers shared by several stages.
#pragma once

#include <cctype>
#include <cstdint>
#include <string>
#include <string_view>

namespace mergelens {

// `s` without leading and trailing whitespace (std::isspace, byte-wise; bytes
// of invalid UTF-8 are kept). The result views the same memory as `s`.
inline std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// An English count with its noun in the right number: plural(1, "line")
// is "1 line", plural(3, "line") "3 lines", plural(2, "repository",
// "repositories") "2 repositories" (`many` defaults to `one` + "s"). Every
// English text that puts a number before a noun goes through it
// (tests/check_plurals.py finds those that do not).
inline std::string plural(std::int64_t n, std::string_view one, std::string_view many = {}) {
  std::string out = std::to_string(n) + " ";
  if (n == 1 || n == -1) return out.append(one);
  if (many.empty()) return out.append(one).append("s");
  return out.append(many);
}

}  // namespace mergelens
