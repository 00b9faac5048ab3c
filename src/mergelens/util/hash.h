// A fast non-cryptographic content hash (FNV-1a, 64 bits) for cache keys.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <fmt/format.h>

namespace mergelens {

class Hasher {
 public:
  // Feeds bytes; a separator keeps ("ab","c") and ("a","bc") apart.
  Hasher& add(std::string_view bytes) {
    for (unsigned char c : bytes) {
      h_ ^= c;
      h_ *= 0x100000001b3ULL;
    }
    h_ ^= 0xff;
    h_ *= 0x100000001b3ULL;
    return *this;
  }
  Hasher& add(std::int64_t v) {
    return add(std::string_view(reinterpret_cast<const char*>(&v), sizeof v));
  }
  std::uint64_t value() const { return h_; }
  std::string hex() const { return fmt::format("{:016x}", h_); }

 private:
  std::uint64_t h_ = 0xcbf29ce484222325ULL;
};

}  // namespace mergelens
