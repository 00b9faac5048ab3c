// The job queue, the shared model rate limit and the per-repository
// settings: the part of the store that lets several `mergelens worker`
// processes (on one machine with SQLite, on many with PostgreSQL) share the
// work. `Store` derives from `JobStore`, so both backends implement it.
//
// A job is claimed under a lease: the claimer must heartbeat before the
// lease runs out, or another worker may claim the job again (the first one
// died). Claiming counts an attempt; a failed attempt is queued again after
// a backoff, and after `max_attempts` the job is dead-lettered with its last
// error. Two rules make the queue safe to enqueue into from anywhere:
//   - `key`: at most one *queued* job per key (enqueueing the same key again
//     while one waits does nothing), so repeated scans never pile up work;
//   - `serial`: at most one *running* job per serial, so jobs of one
//     repository's ingest chain, or the writes of one change's guides (they
//     share a large PR's notes), never run at once. A claim skips jobs whose
//     serial is busy.
// Times are the caller's clock, in seconds (leases) or milliseconds (rate).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mergelens/model/change.h"
#include "mergelens/util/error.h"

namespace mergelens {

// Job kinds (JobSpec::kind).
inline constexpr std::string_view kJobIngest = "ingest";    // fetch and ingest a clone
inline constexpr std::string_view kJobSync = "sync";        // sync from GitHub
inline constexpr std::string_view kJobAnalyze = "analyze";  // analyse what needs it
inline constexpr std::string_view kJobWrite = "write";      // write one guide in one language
inline constexpr std::string_view kJobTriage = "triage";    // a model triages a repository-day
inline constexpr std::string_view kJobDeliver = "deliver";  // deliver a day (deliver/)

struct JobSpec {
  std::string kind;
  std::int64_t repo_id = 0;
  std::int64_t change_id = 0;  // write jobs
  std::string lang;            // write jobs
  std::string key;             // at most one queued job per key (required)
  std::string serial;          // at most one running job per serial ("" = no limit)
  std::string payload;         // free text the handler reads (JSON)
  int priority = 100;          // lower runs first
  UnixSeconds not_before = 0;  // not claimed before this time
  int max_attempts = 5;
};

enum class JobState { kQueued, kRunning, kDone, kDead };
const char* to_string(JobState s);

struct Job {
  std::int64_t id = 0;
  JobSpec spec;
  JobState state = JobState::kQueued;
  int attempts = 0;  // claims so far
  std::string owner;
  UnixSeconds lease_until = 0;
  std::string last_error;
  UnixSeconds created_at = 0, updated_at = 0;
};

struct JobCount {
  std::string kind;
  JobState state = JobState::kQueued;
  std::int64_t count = 0;
};

struct JobQuery {
  std::optional<JobState> state;  // any when empty
  std::string kind;               // any when empty
  size_t limit = 50;
  std::int64_t repo_id = 0;  // JobSpec::repo_id; any when 0
  std::string serial;        // JobSpec::serial; any when empty
};

// The shared model limits: requests per minute (0 = none) and tokens per
// UTC day (0 = none). `burst`: requests that may go at once after a pause.
struct ModelLimits {
  double requests_per_minute = 0;
  std::int64_t tokens_per_day = 0;
  int burst = 1;
};

// What take_model_slot answers: granted, or how long to wait and why.
struct ModelGrant {
  bool granted = false;
  std::int64_t wait_ms = 0;
  bool budget_spent = false;  // the daily token budget is used up
};

// Per-repository settings for workers (`mergelens repos`, `[[repo]]`).
struct RepoSettings {
  std::string name;    // the store's repository name
  std::string path;    // local clone (fetched from origin before each ingest)
  std::string branch;  // empty: HEAD's
  std::string github;  // owner/repo for sync; empty: no sync
  std::int64_t schedule_seconds =
      0;  // ingest again this long after the last ingest; 0: only when asked
  std::vector<std::string> langs{"zh"};
  bool llm = false;  // write guides with the model
};

// The state of one guide, for a write job deciding whether to write.
struct GuideState {
  bool analysed = false;  // the change has facts
  bool exists = false;
  bool stale = false;
  std::string writer;
};

class JobStore {
 public:
  virtual ~JobStore() = default;

  // Enqueues the jobs in one transaction, skipping any whose key already has
  // a queued job. Returns how many were added.
  virtual Result<size_t> enqueue_jobs(std::span<const JobSpec> jobs, UnixSeconds now) = 0;
  // Claims the next job for `worker` (kinds empty: any kind): a queued job
  // due by `now`, or a running one whose lease ran out, lowest priority
  // first, then oldest, skipping busy serials; leases it until now + lease.
  // A job whose lease ran out `max_attempts` times is dead-lettered instead
  // ("the worker died ..."). nullopt when nothing is ready.
  virtual Result<std::optional<Job>> claim_job(std::string_view worker,
                                               std::span<const std::string> kinds, UnixSeconds now,
                                               int lease_seconds) = 0;
  // Extends the lease; false when the job is no longer this worker's.
  virtual Result<bool> heartbeat_job(std::int64_t id, std::string_view worker, UnixSeconds now,
                                     int lease_seconds) = 0;
  // Marks the job done; false when it was no longer this worker's (its work
  // is idempotent, so nothing is undone).
  virtual Result<bool> complete_job(std::int64_t id, std::string_view worker, UnixSeconds now) = 0;
  // Records a failed attempt: queued again at now + retry_in, or dead when
  // its attempts reached max_attempts (or `permanent`). False when the job
  // was no longer this worker's.
  virtual Result<bool> fail_job(std::int64_t id, std::string_view worker, std::string_view error,
                                UnixSeconds now, int retry_in, bool permanent) = 0;
  // Gives a claimed job back without counting the attempt (waiting for the
  // model budget, a worker stopping): queued again at `not_before`.
  virtual Result<bool> release_job(std::int64_t id, std::string_view worker,
                                   UnixSeconds not_before) = 0;
  virtual Result<std::vector<Job>> list_jobs(const JobQuery& query) = 0;
  virtual Result<std::vector<JobCount>> job_counts() = 0;
  // Dead jobs of `kind` (any when empty) queued again with their attempts
  // reset. Returns how many.
  virtual Result<size_t> retry_dead_jobs(std::string_view kind, UnixSeconds now) = 0;
  // Deletes done jobs last updated before `before`. Returns how many.
  virtual Result<size_t> prune_jobs(UnixSeconds before) = 0;

  // One model request under the shared limits of `name` (a model): granted
  // (and counted), or how long to wait. `now_ms` is milliseconds.
  virtual Result<ModelGrant> take_model_slot(std::string_view name, const ModelLimits& limits,
                                             std::int64_t now_ms) = 0;
  // Adds used tokens to the day's count of `name`.
  virtual Result<void> add_model_tokens(std::string_view name, std::int64_t tokens,
                                        std::int64_t now_ms) = 0;

  virtual Result<void> put_repo_settings(const RepoSettings& settings) = 0;
  virtual Result<std::vector<RepoSettings>> list_repo_settings() = 0;
  // Drops the settings (and the queued jobs) of a repository; its stored
  // changes and guides stay. False when it had none.
  virtual Result<bool> remove_repo_settings(std::string_view name) = 0;

  virtual Result<GuideState> guide_state(std::int64_t change_id, std::string_view lang) = 0;
};

}  // namespace mergelens
