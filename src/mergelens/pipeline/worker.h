// `mergelens worker`: takes jobs from the store's queue (store/jobs.h) and
// runs them, until stopped. Any number of workers, on one machine (SQLite)
// or many (PostgreSQL), share one store.
//
// The jobs of a repository form a chain, each enqueueing the next:
//   ingest (fetch origin, ingest the clone) → sync (GitHub, when the
//   repository has a github name and a token is set) → analyze (everything
//   that needs it) → one write job per change and language that needs a
//   guide; an ingest with a schedule enqueues the next ingest, due after it.
// Ingest, sync and analyze of one repository share a serial (never two at
// once, so they run in order); each write job is its own serial, keyed by
// change and language, and checks before writing that the guide is still
// needed, so a guide is never written twice for the same key and a job run
// again after its worker died redoes only what was not stored.
//
// While a job runs, a heartbeat thread (its own store connection) extends
// the lease every lease/3 seconds. A failed job is retried with exponential
// backoff (10 s, 20 s, 40 s, ... at most 10 min); after its attempts it is
// dead-lettered with the error, shown by `mergelens jobs`. When the store
// itself is unreachable (PostgreSQL restarting), the worker waits and tries
// again, printing the error (which names the server) once per outage.
//
// Delivering digests: each ingest job asks `DeliverHooks::due` which days
// have closed for the repository's delivery targets and enqueues one
// deliver job per target and day (key repository:target:day, serial per
// target, so one target is never sent to by two workers at once). A deliver
// job waits (given back, not counted as an attempt) while the day's work is
// still in the queue (the repository's ingest, sync or analyze, a write of
// one of the day's changes) and while an earlier day of the target is
// queued, for at most `deliver_wait_seconds`; then `DeliverHooks::deliver`
// sends the day. The delivery module records every part in the store, so a
// job run again (a retry, a worker killed mid-send, the same day enqueued
// twice) sends only what is still unsent.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "mergelens/store/store.h"

namespace mergelens {

namespace llm {
class Client;
}

using StoreOpener = std::function<Result<std::unique_ptr<Store>>()>;

// One day due for one delivery target.
struct DeliveryDay {
  std::string target;                // the target's name (a [[deliver]] table)
  std::string day;                   // "YYYY-MM-DD" in the target's time zone
  UnixSeconds since = 0, until = 0;  // the day: changes merged in [since, until)
};

// Delivering digests, passed in by cli (pipeline/ does not depend on
// deliver/; see ARCHITECTURE.md). Both empty: this worker takes no deliver
// jobs and enqueues none.
struct DeliverHooks {
  // The days due at `now` for the targets of `repo`, oldest first.
  std::function<Result<std::vector<DeliveryDay>>(Store&, const RepoRecord&, UnixSeconds now)> due;
  // Delivers one day: planned once in the store, only the unsent parts
  // sent. Returns a line for the log; an error fails the attempt (kIo:
  // retried with backoff; kInvalidInput, kNotFound: dead-lettered).
  std::function<Result<std::string>(Store&, const RepoRecord&, const DeliveryDay&)> deliver;
  explicit operator bool() const { return due && deliver; }
};

struct WorkerOptions {
  std::string id;                  // unique per process; default host:pid
  std::vector<std::string> kinds;  // job kinds to take; empty: all
  int lease_seconds = 60;
  // A job still running after this long gives up at its next store statement
  // (util/deadline.h) and fails, to be retried with backoff: what it
  // committed stays, so the next attempt goes on from there. 0: no limit.
  double job_timeout_seconds = 6 * 3600;
  double poll_seconds = 1.0;      // wait between claims when the queue is empty
  bool exit_when_idle = false;    // stop once nothing is queued or running anywhere
  size_t max_jobs = 0;            // stop after this many jobs; 0: no limit
  llm::Client* client = nullptr;  // for repositories with llm = true; not owned
  size_t budget_tokens = 12000;   // prompt budget (see write.h)
  std::string github_token;
  std::string github_api_url = "https://api.github.com";
  double store_wait_seconds = 600;          // how long to wait for an unreachable store
  StoreOpener open_store;                   // connections for the heartbeat thread
  DeliverHooks deliver;                     // empty: no deliver jobs (no [[deliver]] target)
  double deliver_wait_seconds = 3 * 3600;   // a deliver job waits at most this for its day's guides
  double deliver_poll_seconds = 20;         // ... looking again this often
  const std::atomic<bool>* stop = nullptr;  // set by a signal handler
  bool verbose = false;                     // print one line per job
};

struct WorkerReport {
  size_t done = 0, failed = 0, dead = 0, released = 0;
  std::map<std::string, size_t> by_kind;  // jobs done, by kind
  size_t model_requests = 0;
};

// Runs jobs until `stop`, max_jobs or (exit_when_idle) an empty queue. Fails
// only when the store stays unreachable longer than store_wait_seconds.
Result<WorkerReport> run_worker(Store& store, const WorkerOptions& options);

// The first job of a repository's chain: ingest, due at `not_before`.
JobSpec ingest_job(const RepoSettings& repo, UnixSeconds not_before);

// Enqueues an ingest for each repository (skipped when one is queued).
// Returns how many were added.
Result<size_t> enqueue_ingests(Store& store, std::span<const RepoSettings> repos, UnixSeconds now);

}  // namespace mergelens
