// Deadlines: how long one piece of work (a web request, an MCP call, a
// worker's job) may run, and a flag that cancels it early (a server
// stopping on SIGTERM).
//
// The work's owner opens a DeadlineScope on the thread that runs it; code
// below that cannot see the owner (the store, a filter's loop) asks
// deadline_passed() or check_deadline() between steps and gives up with
// ErrorKind::kTimeout. The store checks before every statement and, on
// SQLite, every few thousand virtual-machine steps inside one, so a slow
// query is interrupted too. Checking costs one clock read.
#pragma once

#include <atomic>
#include <chrono>
#include <string_view>

#include "mergelens/util/error.h"

namespace mergelens {

class Deadline {
 public:
  using Clock = std::chrono::steady_clock;

  // No limit and no cancellation.
  Deadline() = default;
  // Passes `after` from now (a zero or negative duration: no time limit),
  // or as soon as `*cancelled` is true (not owned; may be null; must
  // outlive the Deadline).
  Deadline(Clock::duration after, const std::atomic<bool>* cancelled);

  bool passed() const;
  // True when it passed because `cancelled` was set.
  bool cancelled() const { return cancelled_ && cancelled_->load(std::memory_order_relaxed); }
  // The time limit it was made with (zero: none).
  Clock::duration limit() const { return limit_; }

 private:
  Clock::time_point at_ = Clock::time_point::max();
  Clock::duration limit_{0};
  const std::atomic<bool>* cancelled_ = nullptr;
};

// Makes `deadline` the deadline of the work this thread runs until the scope
// ends; the deadline before it comes back then. The Deadline must outlive
// the scope.
class DeadlineScope {
 public:
  explicit DeadlineScope(const Deadline& deadline);
  ~DeadlineScope();
  DeadlineScope(const DeadlineScope&) = delete;
  DeadlineScope& operator=(const DeadlineScope&) = delete;

 private:
  const Deadline* previous_;
};

// The deadline of this thread's work, or null outside any scope.
const Deadline* current_deadline();

// True when this thread's work has passed its deadline or was cancelled.
bool deadline_passed();

// Ok, or kTimeout saying that `what` ("the page", "the job") ran past its
// limit or was cancelled, when deadline_passed().
Result<void> check_deadline(std::string_view what);

}  // namespace mergelens
