// Names of job states, shared by both backends' job queues.
#include "mergelens/store/job_queue.h"

namespace mergelens {

const char* to_string(JobState s) {
  switch (s) {
    case JobState::kQueued:
      return "queued";
    case JobState::kRunning:
      return "running";
    case JobState::kDone:
      return "done";
    case JobState::kDead:
      return "dead";
  }
  return "queued";
}

namespace jobq {

std::optional<JobState> state_from_string(std::string_view s) {
  for (auto st : {JobState::kQueued, JobState::kRunning, JobState::kDone, JobState::kDead})
    if (s == to_string(st)) return st;
  return std::nullopt;
}

}  // namespace jobq
}  // namespace mergelens
