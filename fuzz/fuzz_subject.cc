// Fuzz target: commit-subject classification (PR numbers, merge commits) and
// the PR-reference, number and mention extractors over free text.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "mergelens/analysis/text/text_facts.h"
#include "mergelens/source/subject.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)mergelens::classify_message(text, size % 2 == 0);
  (void)mergelens::login_from_email(text);
  (void)mergelens::parse_remote_url(text);
  (void)mergelens::extract_references(text, "body", "o/r");
  (void)mergelens::extract_numbers(text, "body");
  (void)mergelens::extract_mentions(text);
  return 0;
}
