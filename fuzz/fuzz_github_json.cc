// Fuzz target: the GitHub REST decoders (every endpoint) on arbitrary bodies.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "mergelens/source/github_json.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace mergelens::github;
  std::string_view body(reinterpret_cast<const char*>(data), size);
  (void)decode_pulls(body, "GET /pulls");
  std::int64_t changed = 0;
  (void)decode_pull(body, "GET /pulls/1", &changed);
  (void)decode_files(body, "GET /pulls/1/files");
  (void)decode_commits(body, "GET /pulls/1/commits");
  (void)decode_reviews(body, "GET /pulls/1/reviews");
  (void)decode_review_comments(body, "GET /pulls/1/comments");
  (void)decode_issue_comments(body, "GET /issues/1/comments");
  return 0;
}
