// What each job kind does (pipeline/worker.h describes the chain). Private
// to pipeline/: the worker loop calls run_job() for every job it claims.
#pragma once

#include <chrono>
#include <string>
#include <thread>

#include <fmt/format.h>

#include "mergelens/pipeline/worker.h"

namespace mergelens {

// How a job ended when it did not fail.
struct JobOutcome {
  UnixSeconds release_until = 0;  // > 0: give the job back, due then (the model budget is spent)
  std::string note;               // printed with --verbose
  size_t model_requests = 0;
};

struct JobContext {
  const WorkerOptions& options;
};

// Runs one job. Errors fail the attempt (kInvalidInput and kNotFound ones
// for good: running again would not help); store errors (kIo) are retried by
// the caller's backoff.
Result<JobOutcome> run_job(Store& store, const Job& job, const JobContext& ctx);

// Seconds since the epoch.
UnixSeconds now_seconds();

// Runs a store call again while it fails with kIo (the server restarting),
// for at most `seconds`, printing the error once.
template <class F>
auto patiently(double seconds, std::string_view what, F call) -> decltype(call()) {
  const auto start = std::chrono::steady_clock::now();
  bool told = false;
  double wait = 0.5;
  for (;;) {
    auto r = call();
    if (r || r.error().kind != ErrorKind::kIo ||
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > seconds) {
      if (told && r) fmt::print(stderr, "mergelens worker: the store is back ({})\n", what);
      return r;
    }
    if (!told)
      fmt::print(stderr, "mergelens worker: waiting for the store ({}): {}\n", what,
                 r.error().message);
    told = true;
    std::this_thread::sleep_for(std::chrono::duration<double>(wait));
    wait = std::min(wait * 2, 5.0);
  }
}

}  // namespace mergelens
