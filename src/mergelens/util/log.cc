#include "mergelens/util/log.h"

#include <cstdio>
#include <ctime>
#include <mutex>

#include "mergelens/util/time.h"

namespace mergelens {

void log_line(std::string_view what, std::string_view message) {
  static std::mutex mu;
  const std::string line =
      fmt::format("mergelens: {} {}: {}\n", format_utc(std::time(nullptr)), what, message);
  std::lock_guard lock(mu);
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fflush(stderr);
}

void log_hidden(std::string_view what, const Error& e) {
  if (public_message(e) != e.message) log_line(what, e.message);
}

}  // namespace mergelens
