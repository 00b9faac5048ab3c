#include "mergelens/model/repo_name.h"

#include <algorithm>
#include <cctype>

#include "mergelens/util/utf8.h"

namespace mergelens {
namespace {

bool valid_segment(std::string_view s) {
  if (s.empty() || s == "." || s == "..") return false;
  return std::all_of(s.begin(), s.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '.' || c == '_' || c == '-';
  });
}

}  // namespace

Result<void> check_repo_name(std::string_view name, std::string_view what) {
  const size_t slash = name.find('/');
  const bool ok = name.size() <= kMaxRepoNameBytes &&
                  (slash == std::string_view::npos ? valid_segment(name)
                                                   : valid_segment(name.substr(0, slash)) &&
                                                         valid_segment(name.substr(slash + 1)));
  if (ok) return {};
  return fail(ErrorKind::kInvalidInput,
              "{}: repository name \"{}\" is not valid: use owner/name or name, each part of "
              "letters, digits, '.', '_' and '-' (not \".\" or \"..\"), at most {} bytes",
              what, terminal_safe(name.substr(0, kMaxRepoNameBytes), /*keep_newlines=*/false),
              kMaxRepoNameBytes);
}

}  // namespace mergelens
