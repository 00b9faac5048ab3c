#include "mergelens/util/deadline.h"

namespace mergelens {

namespace {
thread_local const Deadline* t_current = nullptr;
}  // namespace

Deadline::Deadline(Clock::duration after, const std::atomic<bool>* cancelled)
    : limit_(after > Clock::duration::zero() ? after : Clock::duration::zero()),
      cancelled_(cancelled) {
  if (limit_ > Clock::duration::zero()) at_ = Clock::now() + limit_;
}

bool Deadline::passed() const {
  if (cancelled()) return true;
  return at_ != Clock::time_point::max() && Clock::now() >= at_;
}

DeadlineScope::DeadlineScope(const Deadline& deadline) : previous_(t_current) {
  t_current = &deadline;
}

DeadlineScope::~DeadlineScope() {
  t_current = previous_;
}

const Deadline* current_deadline() {
  return t_current;
}

bool deadline_passed() {
  return t_current && t_current->passed();
}

Result<void> check_deadline(std::string_view what) {
  if (!deadline_passed()) return {};
  if (t_current->cancelled())
    return fail(ErrorKind::kTimeout, "{} was cancelled: the process is stopping", what);
  return fail(ErrorKind::kTimeout, "{} ran past its time limit of {} s", what,
              std::chrono::duration_cast<std::chrono::seconds>(t_current->limit()).count());
}

}  // namespace mergelens
