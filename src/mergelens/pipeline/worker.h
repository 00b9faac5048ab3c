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

// Delivers one day of a repository (the deliver/ module plugs in here; until
// then deliver jobs fail with a message saying so and are dead-lettered).
using DeliverFn = std::function<Result<void>(Store&, const Job&)>;

struct WorkerOptions {
  std::string id;                  // unique per process; default host:pid
  std::vector<std::string> kinds;  // job kinds to take; empty: all
  int lease_seconds = 60;
  double poll_seconds = 1.0;      // wait between claims when the queue is empty
  bool exit_when_idle = false;    // stop once nothing is queued or running anywhere
  size_t max_jobs = 0;            // stop after this many jobs; 0: no limit
  llm::Client* client = nullptr;  // for repositories with llm = true; not owned
  size_t budget_tokens = 12000;   // prompt budget (see write.h)
  std::string github_token;
  std::string github_api_url = "https://api.github.com";
  double store_wait_seconds = 600;          // how long to wait for an unreachable store
  StoreOpener open_store;                   // connections for the heartbeat thread
  DeliverFn deliver;                        // empty: deliver jobs fail (not built yet)
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
