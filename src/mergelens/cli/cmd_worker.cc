// `mergelens worker`: runs jobs from the store's queue until stopped
// (pipeline/worker.h). SIGTERM or SIGINT stops it after the job in hand; a
// second signal stops it at once (the job's lease then runs out and another
// worker takes it again).
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdlib>

#include <fmt/format.h>

#include "mergelens/cli/commands.h"
#include "mergelens/cli/deliver_jobs.h"
#include "mergelens/deliver/config.h"
#include "mergelens/deliver/transport.h"
#include "mergelens/llm/client.h"
#include "mergelens/pipeline/model_gate.h"
#include "mergelens/pipeline/repos_config.h"
#include "mergelens/pipeline/worker.h"
#include "mergelens/pipeline/write_llm.h"

namespace mergelens::cli {
namespace {

std::atomic<bool> g_stop{false};

void on_signal(int sig) {
  if (g_stop.exchange(true)) _exit(128 + sig);
}

std::string env_token() {
  for (const char* name : {"GITHUB_TOKEN", "GH_TOKEN"})
    if (const char* v = std::getenv(name); v && *v) return v;
  return {};
}

}  // namespace

Runner setup_worker(CLI::App& sub, const Globals& g) {
  struct Args {
    WorkerOptions opt;
    std::string kinds;
    std::string config = "mergelens.toml";
    llm::Settings llm;
    ModelLimits limits;
    bool offline = false;
  };
  auto a = std::make_shared<Args>();
  sub.add_option("--id", a->opt.id, "This worker's name in the queue (default host:pid)");
  sub.add_option(
      "--kinds", a->kinds,
      "Job kinds to take, comma-separated (ingest, sync, analyze, triage, write, deliver)");
  sub.add_option("--lease", a->opt.lease_seconds, "Lease of a claimed job, seconds")
      ->capture_default_str()
      ->check(CLI::Range(1, 86400));
  sub.add_option("--job-timeout", a->opt.job_timeout_seconds,
                 "Seconds one job may run before it gives up and is retried (0: no limit)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 7 * 86400.0));
  sub.add_option("--poll", a->opt.poll_seconds, "Wait between claims when idle, seconds")
      ->capture_default_str()
      ->check(CLI::Range(0.01, 3600.0));
  sub.add_flag("--exit-when-idle", a->opt.exit_when_idle,
               "Stop once no job is running or due within a minute");
  sub.add_option("--max-jobs", a->opt.max_jobs, "Stop after N jobs")
      ->check(CLI::Range(0, 1000000000));
  sub.add_option("--store-wait", a->opt.store_wait_seconds,
                 "How long to wait for an unreachable store before giving up, seconds")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 604800.0));
  sub.add_option("--config", a->config, "mergelens.toml with [[repo]] tables and [llm]")
      ->capture_default_str()
      ->check(CLI::ExistingFile);
  add_llm_options(sub, a->llm, "Requests in flight (this worker)");
  sub.add_option("--rpm", a->limits.requests_per_minute,
                 "Model requests per minute, shared by every worker (0: no limit)")
      ->check(CLI::Range(0.0, 1000000.0));
  sub.add_option("--tokens-per-day", a->limits.tokens_per_day,
                 "Model tokens per UTC day, shared by every worker (0: no limit)")
      ->check(CLI::Range(std::int64_t{0}, std::int64_t{1000000000000000}));
  sub.add_option("--burst", a->limits.burst, "Requests that may go at once after a pause")
      ->capture_default_str()
      ->check(CLI::Range(1, 10000));
  sub.add_option("--budget", a->opt.budget_tokens, "Prompt budget in estimated tokens")
      ->capture_default_str()
      ->check(CLI::Range(1000, 1000000));
  sub.add_option("--github-api", a->opt.github_api_url, "GitHub API base")
      ->envname("MERGELENS_GITHUB_API")
      ->capture_default_str();
  sub.add_flag("--offline", a->offline,
               "Write every guide with the offline writer, even for repositories with llm");
  sub.add_flag("-v,--verbose", a->opt.verbose, "Print one line per job");
  return [a, &g]() -> Result<void> {
    for (size_t s = 0; s < a->kinds.size();) {
      size_t e = a->kinds.find(',', s);
      if (e == std::string::npos) e = a->kinds.size();
      if (e > s) a->opt.kinds.push_back(a->kinds.substr(s, e - s));
      s = e + 1;
    }
    auto store = open_store(g, /*create=*/true);
    if (!store) return std::unexpected(store.error());
    auto loaded = load_repo_tables(**store, a->config);
    if (!loaded) return std::unexpected(loaded.error());
    auto all = (*store)->list_repo_settings();
    if (!all) return std::unexpected(all.error());
    std::vector<RepoSettings> scheduled;
    bool want_llm = false;
    for (const auto& r : *all) {
      if (r.schedule_seconds > 0) scheduled.push_back(r);
      want_llm = want_llm || r.llm;
    }
    if (auto n = enqueue_ingests(**store, scheduled, static_cast<UnixSeconds>(std::time(nullptr)));
        !n)
      return std::unexpected(n.error());
    const std::string db = g.db;
    a->opt.open_store = [db] { return open_store_at(db, StoreOptions{.create = false}); };
    std::unique_ptr<llm::Client> client;
    std::unique_ptr<StoreGate> gate;
    if (want_llm && !a->offline) {
      auto settings = llm::resolve_settings(a->llm, a->config);
      if (!settings) return std::unexpected(settings.error());
      client = std::make_unique<llm::Client>(*settings);
      auto gate_store = a->opt.open_store();
      if (!gate_store) return std::unexpected(gate_store.error());
      gate = std::make_unique<StoreGate>(std::move(*gate_store), settings->model, a->limits);
      client->set_gate(gate.get());
      a->opt.client = client.get();
    }
    // [[deliver]] targets: ingests enqueue the days that close, and this
    // worker sends them (deliver jobs; pipeline/worker.h).
    auto targets = deliver::read_targets(a->config);
    if (!targets) return std::unexpected(targets.error());
    a->opt.deliver = deliver_hooks(std::move(*targets), a->config,
                                   std::shared_ptr<deliver::Transport>(deliver::real_transport()));
    a->opt.github_token = env_token();
    a->opt.stop = &g_stop;
    std::signal(SIGTERM, on_signal);
    std::signal(SIGINT, on_signal);
    auto report = run_worker(**store, a->opt);
    if (!report) return std::unexpected(report.error());
    std::string kinds;
    for (const auto& [k, n] : report->by_kind)
      kinds += fmt::format("{}{} {}", kinds.empty() ? "" : ", ", n, k);
    fmt::print(
        "worker: {} job{} done ({}), {} failed and queued again, {} dead-lettered, {} given "
        "back; {} model request{}{}\n",
        report->done, report->done == 1 ? "" : "s", kinds.empty() ? "none" : kinds, report->failed,
        report->dead, report->released, report->model_requests,
        report->model_requests == 1 ? "" : "s",
        gate ? fmt::format(", {:.1f} s waiting for the shared rate limit",
                           static_cast<double>(gate->waited_ms()) / 1000)
             : "");
    if (client) {
      WriteRunRecord l;
      l.writer = "llm";
      l.model = client->settings().model;
      l.finished_at = static_cast<UnixSeconds>(std::time(nullptr));
      l.guides = static_cast<std::int64_t>(report->by_kind[std::string(kJobWrite)]);
      LlmWriter(*client, **store, LlmOptions{}).fill_ledger(l);
      if (auto r = (*store)->record_write_run(l); !r) return std::unexpected(r.error());
    }
    return {};
  };
}

}  // namespace mergelens::cli
