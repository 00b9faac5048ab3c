#include "mergelens/pipeline/worker.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "mergelens/pipeline/job_handlers.h"
#include "mergelens/pipeline/model_gate.h"
#include "mergelens/util/deadline.h"

namespace mergelens {
namespace {

std::string default_id() {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  return fmt::format("{}:{}", host[0] ? host : "localhost", getpid());
}

// Extends the lease of the running job every lease/3 seconds on a
// connection of its own, until stopped.
class Heartbeat {
 public:
  Heartbeat(const WorkerOptions& o, std::int64_t job) : o_(o), job_(job) {
    if (!o.open_store) return;
    thread_ = std::thread([this] { loop(); });
  }
  ~Heartbeat() {
    {
      std::lock_guard lock(mu_);
      done_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
  }

 private:
  void loop() {
    std::unique_ptr<Store> store;
    const auto every = std::chrono::seconds(std::max(1, o_.lease_seconds / 3));
    std::unique_lock lock(mu_);
    while (!cv_.wait_for(lock, every, [this] { return done_; })) {
      lock.unlock();
      if (!store) {
        if (auto s = o_.open_store(); s) store = std::move(*s);
      }
      if (store) (void)store->heartbeat_job(job_, o_.id, now_seconds(), o_.lease_seconds);
      lock.lock();
    }
  }

  const WorkerOptions& o_;
  std::int64_t job_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;
};

// Backoff after the n-th failed attempt: 10 s, 20 s, 40 s, ... at most 10 min.
int backoff_seconds(int attempts) {
  return std::min(600, 10 << std::clamp(attempts - 1, 0, 6));
}

bool permanent(const Error& e) {
  return e.kind == ErrorKind::kInvalidInput || e.kind == ErrorKind::kNotFound ||
         e.kind == ErrorKind::kUnsupported;
}

// Nothing of `kinds` (any when empty) due now or soon, and nothing running
// anywhere (a running job may enqueue more).
Result<bool> idle(Store& store, const std::vector<std::string>& kinds) {
  JobQuery q;
  q.state = JobState::kRunning;
  q.limit = 1;
  auto running = store.list_jobs(q);
  if (!running) return std::unexpected(running.error());
  if (!running->empty()) return false;
  q.state = JobState::kQueued;
  q.limit = 100000;
  auto queued = store.list_jobs(q);
  if (!queued) return std::unexpected(queued.error());
  const UnixSeconds soon = now_seconds() + 60;
  return std::none_of(queued->begin(), queued->end(), [&](const Job& j) {
    const bool mine =
        kinds.empty() || std::find(kinds.begin(), kinds.end(), j.spec.kind) != kinds.end();
    return mine && j.spec.not_before <= soon;
  });
}

}  // namespace

Result<WorkerReport> run_worker(Store& store, const WorkerOptions& in) {
  WorkerOptions o = in;
  if (o.id.empty()) o.id = default_id();
  o.kinds = default_kinds(o);  // deliver jobs only with delivery hooks
  WorkerReport report;
  JobContext ctx{o};
  auto stopping = [&] { return o.stop && o.stop->load(); };
  size_t handled = 0;
  while (!stopping() && (o.max_jobs == 0 || handled < o.max_jobs)) {
    auto claimed = patiently(o.store_wait_seconds, "claiming a job", [&] {
      return store.claim_job(o.id, o.kinds, now_seconds(), o.lease_seconds);
    });
    if (!claimed) return std::unexpected(claimed.error());
    if (!*claimed) {
      if (o.exit_when_idle) {
        auto done = patiently(o.store_wait_seconds, "checking the queue",
                              [&] { return idle(store, o.kinds); });
        if (!done) return std::unexpected(done.error());
        if (*done) break;
      }
      std::this_thread::sleep_for(std::chrono::duration<double>(o.poll_seconds));
      continue;
    }
    const Job job = std::move(**claimed);
    ++handled;
    Result<JobOutcome> outcome;
    {
      Heartbeat beat(o, job.id);
      const Deadline deadline(std::chrono::duration_cast<Deadline::Clock::duration>(
                                  std::chrono::duration<double>(o.job_timeout_seconds)),
                              nullptr);
      const DeadlineScope scope(deadline);
      outcome = run_job(store, job, ctx);
    }
    const std::string label =
        fmt::format("job {} ({} {}{}{})", job.id, job.spec.kind, job.spec.payload,
                    job.spec.change_id ? " #" : "",
                    job.spec.change_id ? std::to_string(job.spec.change_id) : std::string());
    if (outcome && outcome->release_until > 0) {
      ++report.released;
      auto r = patiently(o.store_wait_seconds, "releasing a job",
                         [&] { return store.release_job(job.id, o.id, outcome->release_until); });
      if (!r) return std::unexpected(r.error());
      continue;
    }
    if (outcome) {
      report.model_requests += outcome->model_requests;
      auto r = patiently(o.store_wait_seconds, "completing a job",
                         [&] { return store.complete_job(job.id, o.id, now_seconds()); });
      if (!r) return std::unexpected(r.error());
      ++report.done;
      ++report.by_kind[job.spec.kind];
      if (o.verbose)
        fmt::print("{} done{}{}\n", label, outcome->note.empty() ? "" : ": ", outcome->note);
      continue;
    }
    const Error& e = outcome.error();
    const bool dead = permanent(e) || job.attempts >= job.spec.max_attempts;
    auto r = patiently(o.store_wait_seconds, "recording a failure", [&] {
      return store.fail_job(job.id, o.id, e.message, now_seconds(), backoff_seconds(job.attempts),
                            permanent(e));
    });
    if (!r) return std::unexpected(r.error());
    ++(dead ? report.dead : report.failed);
    fmt::print(stderr, "mergelens worker: {} failed{}: {}\n", label,
               dead ? " for good (dead-lettered)" : ", will retry", e.message);
  }
  return report;
}

}  // namespace mergelens
