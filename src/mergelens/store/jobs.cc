// Names of job states.
#include "mergelens/store/jobs.h"

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

}  // namespace mergelens
