// Fuzz target: the unified-hunk parser (stored patches and GitHub's `patch`),
// and the render → parse round trip.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "mergelens/model/diff.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto parsed = mergelens::parse_patch(text);
  if (!parsed) return 0;
  std::string again = mergelens::render_patch(parsed->hunks);
  auto reparsed = mergelens::parse_patch(again);
  if (!reparsed || reparsed->hunks.size() != parsed->hunks.size()) __builtin_trap();
  return 0;
}
