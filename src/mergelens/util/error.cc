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
  }
  return "error";
}

}  // namespace mergelens
