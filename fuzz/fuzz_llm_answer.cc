// Fuzz target: the repair ladder for model answers, then the guide-schema
// reader, as the model writer runs them.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "mergelens/guide/guide_json.h"
#include "mergelens/llm/repair.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> steps;
  auto json = mergelens::llm::parse_json_answer(text, &steps);
  if (json) (void)mergelens::guide_from_answer(*json);
  return 0;
}
