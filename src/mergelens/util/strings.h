// Small string helpers shared by several stages.
#pragma once

#include <cctype>
#include <string_view>

namespace mergelens {

// `s` without leading and trailing whitespace (std::isspace, byte-wise; bytes
// of invalid UTF-8 are kept). The result views the same memory as `s`.
inline std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

}  // namespace mergelens
