// Deliver jobs (worker.h describes them): enqueued by each ingest for the
// days its repository's targets have closed, run once the day's work has
// left the queue. The sending itself is cli's DeliverHooks::deliver (the
// deliver/ module), which records each part in the store: this file only
// decides when.
#include <algorithm>
#include <set>

#include <nlohmann/json.hpp>

#include "mergelens/pipeline/job_handlers.h"

namespace mergelens {

namespace {

constexpr int kDeliverPriority = 200;  // after the writes that fill the day

std::string deliver_serial(std::string_view target) {
  return "deliver:" + std::string(target);
}

JobSpec deliver_job(const RepoRecord& repo, const DeliveryDay& d) {
  JobSpec j;
  j.kind = std::string(kJobDeliver);
  j.repo_id = repo.id;
  j.key = fmt::format("deliver:{}:{}:{}", repo.name, d.target, d.day);
  j.serial = deliver_serial(d.target);
  j.payload = nlohmann::json{
      {"repo", repo.name},
      {"target", d.target},
      {"day", d.day},
      {"since", d.since},
      {"until",
       d.until}}.dump();
  j.priority = kDeliverPriority;
  return j;
}

struct Payload {
  std::string repo;
  DeliveryDay day;
};

Result<Payload> read_payload(const Job& job) {
  const auto j = nlohmann::json::parse(job.spec.payload, nullptr, false);
  if (!j.is_object() || !j.contains("repo") || !j.contains("target") || !j.contains("day"))
    return fail(ErrorKind::kInvalidInput, "deliver job {}: malformed payload", job.id);
  try {
    Payload p;
    p.repo = j["repo"].get<std::string>();
    p.day.target = j["target"].get<std::string>();
    p.day.day = j["day"].get<std::string>();
    p.day.since = j.value("since", UnixSeconds{0});
    p.day.until = j.value("until", UnixSeconds{0});
    return p;
  } catch (const nlohmann::json::exception&) {
    return fail(ErrorKind::kInvalidInput, "deliver job {}: malformed payload", job.id);
  }
}

// Why the day should wait, or empty: the repository's chain is running or
// due, a write of one of the day's changes is queued or running, or an
// earlier day of the same target is queued.
Result<std::string> still_pending(Store& store, const Job& job, const RepoRecord& repo,
                                  const Payload& p, UnixSeconds now) {
  JobQuery q;
  q.limit = 100000;
  q.serial = job.spec.serial;
  q.state = JobState::kQueued;
  auto same_target = store.list_jobs(q);
  if (!same_target) return std::unexpected(same_target.error());
  for (const auto& other : *same_target) {
    if (other.id == job.id) continue;
    auto o = read_payload(other);
    if (o && o->day.day < p.day.day) return fmt::format("{} goes first", o->day.day);
  }
  q.serial = chain_serial(repo.name);
  for (const JobState state : {JobState::kRunning, JobState::kQueued}) {
    q.state = state;
    auto chain = store.list_jobs(q);
    if (!chain) return std::unexpected(chain.error());
    for (const auto& c : *chain)
      if (state == JobState::kRunning || c.spec.not_before <= now)
        return fmt::format("the repository's {} is not done", c.spec.kind);
  }
  ListQuery lq;
  lq.since = p.day.since;
  lq.until = p.day.until;
  auto changes = store.list_changes(repo.id, lq);
  if (!changes) return std::unexpected(changes.error());
  std::set<std::int64_t> ids;
  for (const auto& c : *changes) ids.insert(c.id);
  JobQuery wq;
  wq.limit = 100000;
  wq.repo_id = repo.id;
  // A triage of the repository's days queues writes when it ends.
  wq.kind = std::string(kJobTriage);
  for (const JobState state : {JobState::kRunning, JobState::kQueued}) {
    wq.state = state;
    auto triage = store.list_jobs(wq);
    if (!triage) return std::unexpected(triage.error());
    if (!triage->empty()) return std::string("the model's triage of the days is not done");
  }
  wq.kind = std::string(kJobWrite);
  for (const JobState state : {JobState::kRunning, JobState::kQueued}) {
    wq.state = state;
    auto writes = store.list_jobs(wq);
    if (!writes) return std::unexpected(writes.error());
    const size_t n = static_cast<size_t>(std::count_if(
        writes->begin(), writes->end(), [&](const Job& w) { return ids.count(w.spec.change_id); }));
    if (n) return fmt::format("{} guide(s) of the day still to write", n);
  }
  return std::string();
}

}  // namespace

std::vector<std::string> default_kinds(const WorkerOptions& o) {
  if (!o.kinds.empty() || o.deliver) return o.kinds;
  std::vector<std::string> kinds;
  for (const auto k : {kJobIngest, kJobSync, kJobAnalyze, kJobTriage, kJobWrite})
    kinds.emplace_back(k);
  return kinds;
}

Result<size_t> enqueue_deliveries(Store& store, const RepoRecord& repo, const JobContext& ctx) {
  if (!ctx.options.deliver) return size_t{0};
  auto days = ctx.options.deliver.due(store, repo, now_seconds());
  if (!days) return std::unexpected(days.error());
  std::vector<JobSpec> jobs;
  for (const auto& d : *days) jobs.push_back(deliver_job(repo, d));
  if (jobs.empty()) return size_t{0};
  return store.enqueue_jobs(jobs, now_seconds());
}

Result<JobOutcome> run_deliver(Store& store, const Job& job, const JobContext& ctx) {
  const WorkerOptions& o = ctx.options;
  if (!o.deliver)
    return fail(ErrorKind::kUnsupported,
                "this worker has no [[deliver]] targets (give it the --config that names them)");
  auto p = read_payload(job);
  if (!p) return std::unexpected(p.error());
  auto repo = resolve_repo(store, p->repo);
  if (!repo) return std::unexpected(repo.error());
  const UnixSeconds now = now_seconds();
  if (static_cast<double>(now - job.created_at) < o.deliver_wait_seconds) {
    auto pending = still_pending(store, job, *repo, *p, now);
    if (!pending) return std::unexpected(pending.error());
    if (!pending->empty()) {
      JobOutcome later;
      later.release_until = now + static_cast<UnixSeconds>(o.deliver_poll_seconds);
      if (later.release_until <= now) later.release_until = now;
      later.note = "waiting: " + *pending;
      return later;
    }
  }
  auto sent = o.deliver.deliver(store, *repo, p->day);
  if (!sent) return std::unexpected(sent.error());
  return JobOutcome{0, *sent, 0};
}

}  // namespace mergelens
