// Fuzz target: the repository configuration readers: mergelens.toml (roles,
// tags, [llm] is read elsewhere) and actions/labeler YAML. The input is split
// at the first NUL byte: TOML before, YAML after.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "mergelens/analysis/analyzer.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto nul = text.find('\0');
  std::string_view toml = text.substr(0, nul);
  std::string_view yaml = nul == std::string_view::npos ? std::string_view() : text.substr(nul + 1);
  (void)mergelens::make_context("o/r", toml, yaml);
  return 0;
}
