// Progress reporting for long jobs.
//
// On a terminal it redraws one line: "ingest  1234/2000  [=====>    ]  310/s  ETA 2s".
// Elsewhere (pipes, CI logs) it prints a plain line at most every few seconds
// and a final summary, so logs stay short.
#pragma once

#include <chrono>
#include <cstdio>
#include <string>

namespace mergelens {

class Progress {
 public:
  // `out` is not owned and must outlive the Progress. `total` may be 0 when unknown.
  Progress(std::string label, size_t total, std::FILE* out = stderr);
  // Forces the choice between the terminal bar and plain lines (for tests).
  Progress(std::string label, size_t total, std::FILE* out, bool tty);
  ~Progress();

  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  void set_total(size_t total) { total_ = total; }
  // Records that `n` more items are done and redraws when it is time to.
  void advance(size_t n = 1);
  // Prints the final line ("ingest  2000 in 6.4s (312/s)"). Idempotent.
  void finish();

 private:
  void draw(bool final_line);

  std::string label_;
  size_t total_;
  size_t done_ = 0;
  std::FILE* out_;
  bool tty_;
  bool finished_ = false;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
};

}  // namespace mergelens
