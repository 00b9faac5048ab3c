// The operator's log of a long-running process (`serve`, `mcp`): one line
// per event on stderr, with the UTC time, written whole even when several
// threads log at once. What a remote client is not told (util/error.h,
// public_message) is written here.
#pragma once

#include <string_view>

#include "mergelens/util/error.h"

namespace mergelens {

// Writes "mergelens: 2026-09-01T10:15:00Z <what>: <message>\n" to stderr.
void log_line(std::string_view what, std::string_view message);

// Logs `e` when a remote client was not told all of it (its message is
// internal, or it is not a mistake in the client's input).
void log_hidden(std::string_view what, const Error& e);

}  // namespace mergelens
