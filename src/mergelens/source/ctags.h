// Definitions of source files read by universal-ctags (Debian's
// `universal-ctags`, found by CMake), kept running in its interactive mode:
// one process per reader, file contents written to it on stdin, tags read back
// as JSON lines. Its seccomp sandbox is on (`--_interactive=sandbox`): the
// parser reads only what it is given.
//
// Python (functions, classes, methods, module variables) and C, C++ and CUDA
// (functions, classes, structs, macros, members with a body) are read; other
// files give no tags. Not thread-safe: one reader per thread.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "mergelens/model/code_tag.h"
#include "mergelens/util/error.h"

namespace mergelens {

class CtagsReader {
 public:
  // Starts ctags. kUnsupported when mergelens was built without it or the
  // program cannot be started (the context is then left out, never wrong).
  static Result<std::unique_ptr<CtagsReader>> start();
  ~CtagsReader();
  CtagsReader(const CtagsReader&) = delete;
  CtagsReader& operator=(const CtagsReader&) = delete;

  // Whether ctags reads `path`'s language (by its extension).
  static bool reads(std::string_view path);

  // The definitions of `content` as the file `path`, in the parser's order.
  // A process that died is restarted once; kIo when it cannot be.
  Result<std::vector<CodeTag>> tags(std::string_view path, std::string_view content);

  // The program run (empty when none was found at build time).
  static std::string program();

 private:
  CtagsReader() = default;
  Result<void> spawn();
  void stop();
  int in_ = -1, out_ = -1, pid_ = -1;
  std::string buffer_;  // bytes read past the last line
};

}  // namespace mergelens
