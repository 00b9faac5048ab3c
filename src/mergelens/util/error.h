// Error values used across mergelens.
//
// Library functions never let exceptions escape a module: they return
// Result<T>, which holds either the value or an Error. The CLI is the one
// place that turns an Error into a message and an exit code
// (see cli/exit_codes.h).
#pragma once

#include <expected>
#include <string>
#include <utility>

#include <fmt/format.h>

namespace mergelens {

enum class ErrorKind {
  kInvalidInput,  // the user gave something unusable: a path, a ref, a flag value
  kNotFound,      // a named thing does not exist (branch, change, repository)
  kCorrupt,       // stored data cannot be read (damaged database, bad blob)
  kUnsupported,   // valid input this build cannot handle (newer schema)
  kIo,            // the operating system refused (permissions, disk full)
  kInternal,      // a bug or an unexpected library failure
  kTimeout,       // the work ran past its deadline, or was cancelled (util/deadline.h)
};

// Short lowercase name of the kind ("invalid input", "io", ...).
const char* to_string(ErrorKind kind);

struct Error {
  ErrorKind kind = ErrorKind::kInternal;
  std::string message;  // complete sentence naming the input, no trailing newline
  // The message holds what only the operator may read: a file path, SQL, a
  // database's or a library's own text. The CLI prints it; a server logs it
  // and tells a remote client only what public_message() gives.
  bool internal = false;
};

template <class T>
using Result = std::expected<T, Error>;

// Builds an unexpected Error with a formatted message:
//   return fail(ErrorKind::kNotFound, "branch {} not found in {}", b, path);
template <class... Args>
std::unexpected<Error> fail(ErrorKind kind, fmt::format_string<Args...> f, Args&&... args) {
  return std::unexpected(Error{kind, fmt::format(f, std::forward<Args>(args)...)});
}

// Prefixes the message of an error with context ("while reading X: ...").
inline std::unexpected<Error> wrap(const Error& e, std::string_view context) {
  return std::unexpected(Error{e.kind, fmt::format("{}: {}", context, e.message), e.internal});
}

// The same error marked `internal` (its message is for the operator only).
inline std::unexpected<Error> internal_error(Error e) {
  e.internal = true;
  return std::unexpected(std::move(e));
}

// What a remote client (a web page, an API or MCP answer) may read of `e`:
// the message of a mistake in its own input (kInvalidInput, kNotFound) that
// holds nothing internal; otherwise a fixed sentence by kind, which names
// no path, SQL or library text. The caller logs the whole message.
std::string public_message(const Error& e);

}  // namespace mergelens
