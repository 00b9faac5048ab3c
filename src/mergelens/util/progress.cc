#include "mergelens/util/progress.h"

#include <unistd.h>

#include <fmt/format.h>

namespace mergelens {

Progress::Progress(std::string label, size_t total, std::FILE* out)
    : Progress(std::move(label), total, out, isatty(fileno(out)) != 0) {}

Progress::Progress(std::string label, size_t total, std::FILE* out, bool tty)
    : label_(std::move(label)),
      total_(total),
      out_(out),
      tty_(tty),
      start_(std::chrono::steady_clock::now()),
      last_draw_(start_) {}

Progress::~Progress() {
  finish();
}

void Progress::advance(size_t n) {
  done_ += n;
  const auto now = std::chrono::steady_clock::now();
  const auto interval = tty_ ? std::chrono::milliseconds(100) : std::chrono::milliseconds(5000);
  if (now - last_draw_ >= interval) {
    last_draw_ = now;
    draw(false);
  }
}

void Progress::finish() {
  if (finished_) return;
  finished_ = true;
  draw(true);
}

void Progress::draw(bool final_line) {
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double rate = secs > 0 ? done_ / secs : 0.0;
  std::string line;
  if (final_line) {
    line = fmt::format("{}  {} in {:.1f}s ({:.0f}/s)", label_, done_, secs, rate);
  } else if (total_ > 0) {
    const double frac = std::min(1.0, static_cast<double>(done_) / total_);
    const int width = 24, filled = static_cast<int>(frac * width);
    const double eta = rate > 0 ? (total_ - std::min(done_, total_)) / rate : 0.0;
    line = fmt::format("{}  {}/{}  [{}{}]  {:.0f}/s  ETA {:.0f}s", label_, done_, total_,
                       std::string(filled, '='), std::string(width - filled, ' '), rate, eta);
  } else {
    line = fmt::format("{}  {}  {:.0f}/s", label_, done_, rate);
  }
  if (tty_) {
    fmt::print(out_, "\r\033[K{}{}", line, final_line ? "\n" : "");
  } else {
    fmt::print(out_, "{}\n", line);
  }
  std::fflush(out_);
}

}  // namespace mergelens
