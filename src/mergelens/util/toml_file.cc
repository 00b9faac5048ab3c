#include "mergelens/util/toml_file.h"

#include <filesystem>
#include <fstream>
#include <iterator>

namespace mergelens {

Result<toml::table> parse_toml(std::string_view text, std::string_view origin) {
  try {
    return toml::parse(text, origin);
  } catch (const toml::parse_error& e) {
    return fail(ErrorKind::kInvalidInput, "{}:{}: {}", origin, e.source().begin.line,
                e.description());
  } catch (const std::exception& e) {
    return fail(ErrorKind::kInvalidInput, "{}: {}", origin, e.what());
  }
}

Result<std::optional<toml::table>> read_toml_file(const std::string& path) {
  std::error_code ec;
  if (path.empty() || !std::filesystem::exists(path, ec)) return std::optional<toml::table>();
  if (!std::filesystem::is_regular_file(path, ec))
    return fail(ErrorKind::kIo, "cannot read {}: not a regular file", path);
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail(ErrorKind::kIo, "cannot read {}", path);
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (in.bad()) return fail(ErrorKind::kIo, "cannot read {}", path);
  auto root = parse_toml(text, path);
  if (!root) return std::unexpected(root.error());
  return std::optional<toml::table>(std::move(*root));
}

}  // namespace mergelens
