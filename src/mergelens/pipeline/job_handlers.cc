#include "mergelens/pipeline/job_handlers.h"

#include <ctime>
#include <optional>

#include "mergelens/pipeline/analyze.h"
#include "mergelens/pipeline/ingest.h"
#include "mergelens/pipeline/model_gate.h"
#include "mergelens/pipeline/sync.h"
#include "mergelens/pipeline/triage.h"
#include "mergelens/pipeline/write.h"
#include "mergelens/pipeline/write_llm.h"
#include "mergelens/source/git_source.h"
#include "mergelens/util/time.h"

namespace mergelens {

UnixSeconds now_seconds() {
  return static_cast<UnixSeconds>(std::time(nullptr));
}

namespace {

constexpr size_t kEnqueueChunk = 500;  // write jobs per enqueue transaction

std::string serial_of(const RepoSettings& repo) {
  return chain_serial(repo.name);
}

JobSpec chain_job(std::string_view kind, const RepoSettings& repo, std::int64_t repo_id) {
  JobSpec j;
  j.kind = std::string(kind);
  j.repo_id = repo_id;
  j.key = fmt::format("{}:{}", kind, repo.name);
  j.serial = serial_of(repo);
  j.payload = repo.name;
  j.priority = 10;  // the chain goes before the writes it feeds
  return j;
}

Result<RepoSettings> settings_of(Store& store, const Job& job) {
  auto all = store.list_repo_settings();
  if (!all) return std::unexpected(all.error());
  for (auto& s : *all)
    if (s.name == job.spec.payload) return s;
  return fail(ErrorKind::kNotFound,
              "repository '{}' has no worker settings (add it with `mergelens repos add`)",
              job.spec.payload);
}

Result<JobOutcome> run_ingest(Store& store, const Job& job, const JobContext& ctx) {
  auto repo = settings_of(store, job);
  if (!repo) return std::unexpected(repo.error());
  JobOutcome out;
  // An unreachable remote is not fatal: what the clone holds is ingested.
  if (auto src = GitSource::open(repo->path); src) {
    if (auto fetched = (*src)->fetch("origin"); !fetched)
      out.note = "not fetched: " + fetched.error().message;
  } else {
    return std::unexpected(src.error());
  }
  IngestOptions io;
  io.repo_path = repo->path;
  io.repo_name = repo->name;
  io.branch = repo->branch;
  auto ingested = ingest(store, io, nullptr);
  if (!ingested) return std::unexpected(ingested.error());
  out.note += fmt::format("{} new change(s)", ingested->stored);
  const bool sync = !repo->github.empty() && !ctx.options.github_token.empty();
  std::vector<JobSpec> next{chain_job(sync ? kJobSync : kJobAnalyze, *repo, ingested->repo.id)};
  if (repo->schedule_seconds > 0)
    next.push_back(ingest_job(*repo, now_seconds() + repo->schedule_seconds));
  if (auto r = store.enqueue_jobs(next, now_seconds()); !r) return std::unexpected(r.error());
  // The days that have closed for the repository's delivery targets.
  auto delivering = enqueue_deliveries(store, ingested->repo, ctx);
  if (!delivering) return std::unexpected(delivering.error());
  if (*delivering) out.note += fmt::format(", {} day(s) to deliver", *delivering);
  return out;
}

Result<JobOutcome> run_sync(Store& store, const Job& job, const JobContext& ctx) {
  auto repo = settings_of(store, job);
  if (!repo) return std::unexpected(repo.error());
  SyncOptions so;
  so.repo = repo->github;
  so.api_url = ctx.options.github_api_url;
  so.token = ctx.options.github_token;
  auto synced = sync_github(store, so, nullptr);
  if (!synced) return std::unexpected(synced.error());
  std::vector<JobSpec> next{chain_job(kJobAnalyze, *repo, synced->repo.id)};
  if (auto r = store.enqueue_jobs(next, now_seconds()); !r) return std::unexpected(r.error());
  return JobOutcome{0, fmt::format("{} PR(s) synced", synced->merged + synced->open), 0};
}

Result<size_t> enqueue_writes(Store& store, const RepoSettings& settings, std::int64_t repo_id,
                              const std::optional<std::string>& day);

Result<JobOutcome> run_analyze(Store& store, const Job& job, const JobContext& ctx) {
  auto settings = settings_of(store, job);
  if (!settings) return std::unexpected(settings.error());
  auto repo = resolve_repo(store, settings->name);
  if (!repo) return std::unexpected(repo.error());
  auto analysed = analyze(store, *repo, AnalyzeOptions{}, nullptr);
  if (!analysed) return std::unexpected(analysed.error());
  std::string warned;  // the repository's own malformed configuration, defaults used
  for (const auto& w : analysed->warnings) warned += "; warning: " + w;
  // With a model, each day of what needs writing is triaged first, and the
  // triage job queues that day's writes (pipeline/triage.h).
  if (settings->llm && ctx.options.client) {
    std::vector<std::int64_t> todo;
    for (const auto& lang : settings->langs) {
      auto ids = store.changes_needing_guide(repo->id, lang, true, false);
      if (!ids) return std::unexpected(ids.error());
      todo.insert(todo.end(), ids->begin(), ids->end());
    }
    auto days = triage_days_of(store, todo);
    if (!days) return std::unexpected(days.error());
    std::vector<JobSpec> triage;
    for (const auto& day : *days) {
      JobSpec t;
      t.kind = std::string(kJobTriage);
      t.repo_id = repo->id;
      t.key = fmt::format("triage:{}:{}", settings->name, day);
      t.payload = settings->name + "\n" + day;
      t.priority = 50;  // before the writes it feeds, after the chain
      triage.push_back(std::move(t));
    }
    auto n = store.enqueue_jobs(triage, now_seconds());
    if (!n) return std::unexpected(n.error());
    // Open PRs belong to no day: their writes go straight on.
    auto queued = enqueue_writes(store, *settings, repo->id, std::string());
    if (!queued) return std::unexpected(queued.error());
    return JobOutcome{0,
                      fmt::format("{} analysed, {} triage job(s) and {} write job(s) queued{}",
                                  analysed->analyzed, *n, *queued, warned),
                      0};
  }
  auto queued = enqueue_writes(store, *settings, repo->id, std::nullopt);
  if (!queued) return std::unexpected(queued.error());
  return JobOutcome{
      0, fmt::format("{} analysed, {} write job(s) queued{}", analysed->analyzed, *queued, warned),
      0};
}

// Queues a write job per change and language that needs a guide: every such
// change (`day` nullopt), those merged on UTC day *day, or ({} empty day) the
// open PRs only.
Result<size_t> enqueue_writes(Store& store, const RepoSettings& settings, std::int64_t repo_id,
                              const std::optional<std::string>& day) {
  size_t queued = 0;
  for (const auto& lang : settings.langs) {
    auto all = store.changes_needing_guide(repo_id, lang, settings.llm, false);
    if (!all) return std::unexpected(all.error());
    std::vector<std::int64_t> kept;
    for (auto id : *all) {
      if (!day) {
        kept.push_back(id);
        continue;
      }
      auto c = store.get_change_by_id(id);
      if (!c) return std::unexpected(c.error());
      if (!*c) continue;
      const bool merged = !(*c)->open && (*c)->merged_at > 0;
      if (day->empty() ? !merged : merged && format_day((*c)->merged_at) == *day)
        kept.push_back(id);
    }
    const auto* ids = &kept;
    std::vector<JobSpec> writes;
    for (size_t i = 0; i < ids->size(); ++i) {
      JobSpec w;
      w.kind = std::string(kJobWrite);
      w.repo_id = repo_id;
      w.change_id = (*ids)[i];
      w.lang = lang;
      w.key = fmt::format("write:{}:{}", w.change_id, lang);
      // Both languages of a change share the notes of a large PR (cached per
      // change, in no language): one at a time, they are asked for once.
      w.serial = fmt::format("write:{}", w.change_id);
      w.payload = settings.llm ? "llm" : "offline";
      writes.push_back(std::move(w));
      if (writes.size() == kEnqueueChunk || i + 1 == ids->size()) {
        auto n = store.enqueue_jobs(writes, now_seconds());
        if (!n) return std::unexpected(n.error());
        queued += *n;
        writes.clear();
      }
    }
  }
  return queued;
}

// One repository-day: the model compares its changes, then the day's
// writes are queued (with the analysis's judgment when the triage failed).
Result<JobOutcome> run_triage(Store& store, const Job& job, const JobContext& ctx) {
  const size_t nl = job.spec.payload.find('\n');
  if (nl == std::string::npos)
    return fail(ErrorKind::kInvalidInput, "triage job {}: payload is not 'repository\\nday'",
                job.spec.key);
  Job as_repo = job;
  as_repo.spec.payload = job.spec.payload.substr(0, nl);
  const std::string day = job.spec.payload.substr(nl + 1);
  auto settings = settings_of(store, as_repo);
  if (!settings) return std::unexpected(settings.error());
  auto repo = resolve_repo(store, settings->name);
  if (!repo) return std::unexpected(repo.error());
  JobOutcome out;
  if (ctx.options.client) {
    TriageOptions to;
    to.days = {day};
    auto report = triage_days(store, *repo, *ctx.options.client, to);
    if (!report) return std::unexpected(report.error());
    out.model_requests = report->calls;
    out.note = fmt::format("{} judged, {} call(s), {} cached, {} failed", report->judged,
                           report->calls, report->cached, report->failed);
    if (!report->problems.empty()) out.note += "; " + report->problems.front();
  }
  auto queued = enqueue_writes(store, *settings, repo->id, day);
  if (!queued) return std::unexpected(queued.error());
  out.note += fmt::format("; {} write job(s) queued", *queued);
  return out;
}

Result<JobOutcome> run_write(Store& store, const Job& job, const JobContext& ctx) {
  const std::string& lang = job.spec.lang;
  const bool want_llm = job.spec.payload == "llm";
  auto state = store.guide_state(job.spec.change_id, lang);
  if (!state) return std::unexpected(state.error());
  // The next analysis of the change enqueues it again.
  if (!state->analysed) return JobOutcome{0, "not analysed (yet): nothing to write", 0};
  if (state->exists && !state->stale && (!want_llm || state->writer == "llm"))
    return JobOutcome{0, "the guide is current", 0};
  auto change = store.get_change_by_id(job.spec.change_id);
  if (!change) return std::unexpected(change.error());
  auto facts = store.get_facts(job.spec.change_id);
  if (!facts) return std::unexpected(facts.error());
  if (!*change || !*facts) return JobOutcome{0, "the change or its facts are gone", 0};
  auto back = store.referenced_by(job.spec.repo_id, **change);
  if (!back) return std::unexpected(back.error());
  (*facts)->referenced_by = std::move(*back);
  // The day's triage, where there is one, is what the guide starts from.
  const std::int64_t id = job.spec.change_id;
  auto triage = store.triage_of(std::span(&id, 1));
  if (!triage) return std::unexpected(triage.error());
  std::optional<TriageJudgment> start;
  if (auto t = triage->find(id); t != triage->end()) start = triage_judgment_of(t->second);
  const TriageJudgment* from = start ? &*start : nullptr;
  Guide g;
  JobOutcome out;
  // A shallow boundary has no diff to show a model: the offline guide says so.
  if (want_llm && ctx.options.client && !(*change)->shallow) {
    LlmOptions lo;
    lo.budget_tokens = ctx.options.budget_tokens;
    lo.bilingual = false;             // one job per language
    auto repos = store.list_repos();  // the clone, for citations beyond the change's files
    if (!repos) return std::unexpected(repos.error());
    for (const auto& r : *repos)
      if (r.id == job.spec.repo_id) lo.clone_path = r.path;
    LlmWriter writer(*ctx.options.client, store, lo);
    LlmOutcome o;
    g = writer.write(**change, **facts, lang, &o, from);
    out.model_requests = static_cast<size_t>(o.requests);
    if (o.fallback_reason.find("daily budget") != std::string::npos) {
      // Written offline only because the budget ran out: wait for the next day.
      const UnixSeconds tomorrow = (now_seconds() / 86400 + 1) * 86400;
      return JobOutcome{tomorrow, "the model's daily budget is spent", out.model_requests};
    }
    out.note = o.cached ? "from the answer cache" : o.fallback_reason;
  } else {
    g = write_checked_offline(**change, **facts, lang, from);
  }
  const std::pair<std::int64_t, Guide> item{(*change)->id, std::move(g)};
  // The answer is paid for: wait for an unreachable store rather than lose it.
  auto put = patiently(ctx.options.store_wait_seconds, "storing a guide",
                       [&] { return store.put_guides(std::span(&item, 1)); });
  if (!put) return std::unexpected(put.error());
  return out;
}

}  // namespace

Result<JobOutcome> run_job(Store& store, const Job& job, const JobContext& ctx) {
  const std::string& kind = job.spec.kind;
  if (kind == kJobIngest) return run_ingest(store, job, ctx);
  if (kind == kJobSync) return run_sync(store, job, ctx);
  if (kind == kJobAnalyze) return run_analyze(store, job, ctx);
  if (kind == kJobWrite) return run_write(store, job, ctx);
  if (kind == kJobTriage) return run_triage(store, job, ctx);
  if (kind == kJobDeliver) return run_deliver(store, job, ctx);
  return fail(ErrorKind::kUnsupported, "unknown job kind '{}'", kind);
}

JobSpec ingest_job(const RepoSettings& repo, UnixSeconds not_before) {
  JobSpec j = chain_job(kJobIngest, repo, 0);
  j.not_before = not_before;
  return j;
}

Result<size_t> enqueue_ingests(Store& store, std::span<const RepoSettings> repos, UnixSeconds now) {
  std::vector<JobSpec> jobs;
  for (const auto& r : repos) jobs.push_back(ingest_job(r, now));
  return store.enqueue_jobs(jobs, now);
}

}  // namespace mergelens
