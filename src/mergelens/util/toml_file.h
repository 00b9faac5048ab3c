// TOML configuration text and files, read with one error style.
//
// Every mergelens.toml reader (model settings, delivery targets, worker
// repositories, a repository's own analysis settings) starts the same way:
// read the file, parse it, and say where it is wrong as "origin:line: what".
// These two functions do that once; each reader then walks the table.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <toml++/toml.h>

#include "mergelens/util/error.h"

namespace mergelens {

// Parses `text`; `origin` names it in messages. On success the caller owns the
// table. On a syntax error: kInvalidInput "origin:line: description". Never
// throws.
Result<toml::table> parse_toml(std::string_view text, std::string_view origin);

// Reads and parses the file at `path`. An empty path, or one naming no file,
// gives std::nullopt (no configuration, not an error). A path that cannot be
// read (a directory, no permission): kIo "cannot read path..."; bad syntax as
// parse_toml with the path as the origin. Never throws.
Result<std::optional<toml::table>> read_toml_file(const std::string& path);

}  // namespace mergelens
