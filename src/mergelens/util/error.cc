#include "mergelens/util/error.h"

namespace mergelens {

const char* to_string(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kInvalidInput:
      return "invalid input";
    case ErrorKind::kNotFound:
      return "not found";
    case ErrorKind::kCorrupt:
      return "corrupt data";
    case ErrorKind::kUnsupported:
      return "unsupported";
    case ErrorKind::kIo:
      return "i/o error";
    case ErrorKind::kInternal:
      return "internal error";
    case ErrorKind::kTimeout:
      return "timeout";
  }
  return "error";
}

std::string public_message(const Error& e) {
  const bool theirs = e.kind == ErrorKind::kInvalidInput || e.kind == ErrorKind::kNotFound;
  if (theirs && !e.internal) return e.message;
  switch (e.kind) {
    case ErrorKind::kInvalidInput:
      return "the request could not be answered as asked: the store refused its input";
    case ErrorKind::kNotFound:
      return "not found";
    case ErrorKind::kTimeout:
      return "the answer took too long to build; try again, or ask for less";
    case ErrorKind::kIo:
      return "the store could not be read; try again later";
    default:
      return "internal error";
  }
}

}  // namespace mergelens
