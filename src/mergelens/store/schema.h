// The SQLite schema as an ordered list of migrations. Migration i (0-based)
// takes a database from user_version i to i + 1. Never edit a shipped entry:
// append a new one.
#pragma once

#include <span>
#include <string_view>

namespace mergelens::sql {

// 'MLNS': marks a database file as mergelens'.
inline constexpr int kApplicationId = 0x4D4C4E53;

std::span<const std::string_view> migrations();

}  // namespace mergelens::sql
