// `mergelens run PATH`: the main job (ingest → sync → analyse → write, then
// the static export and/or the served pages), once or every --watch seconds.
#include <pthread.h>
#include <unistd.h>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <thread>

#include <fmt/format.h>

#include "mergelens/cli/commands.h"
#include "mergelens/deliver/deliver.h"
#include "mergelens/llm/client.h"
#include "mergelens/pipeline/run.h"
#include "mergelens/util/utf8.h"
#include "mergelens/web/export.h"
#include "mergelens/web/server.h"
#include "mergelens/web/tz.h"

namespace mergelens::cli {
namespace {

std::string env_token() {
  for (const char* name : {"GITHUB_TOKEN", "GH_TOKEN"})
    if (const char* v = std::getenv(name); v && *v) return v;
  return {};
}

void print_report(const std::string& repo, const RunReport& r) {
  fmt::print("{}: {} new change{} ingested", repo, r.ingest.stored,
             r.ingest.stored == 1 ? "" : "s");
  if (r.sync)
    fmt::print(", {} PR{} synced from GitHub ({} open)", r.sync->merged + r.sync->open,
               r.sync->merged + r.sync->open == 1 ? "" : "s", r.sync->open);
  fmt::print(", {} analysed, {} guide{} written ({} offline, {} by a model, {} cached)\n",
             r.analyze.analyzed, r.write.written, r.write.written == 1 ? "" : "s", r.write.offline,
             r.write.llm, r.write.cached);
  for (const auto& note : shallow_notes(r.ingest)) fmt::print("  note: {}\n", note);
  for (const auto& w : r.analyze.warnings)
    fmt::print(stderr, "mergelens run: warning: {}\n", terminal_safe(w, false));
  if (!r.fetch_failed.empty()) fmt::print("  not fetched: {}\n", r.fetch_failed);
  if (!r.sync_skipped.empty()) fmt::print("  no GitHub sync: {}\n", r.sync_skipped);
  for (const auto& [reason, n] : r.write.fallback_reasons)
    fmt::print("  offline fallback ×{}: {}\n", n, reason);
}

// Stops a long-running job on SIGINT/SIGTERM. While a pass is running the
// process exits at once (every step commits in small transactions, so the
// next run resumes); between passes the watch loop and the server stop
// cleanly. Construct before starting any thread: the signals are blocked in
// every thread and taken by one waiter.
class Stopper {
 public:
  Stopper() {
    sigemptyset(&set_);
    sigaddset(&set_, SIGINT);
    sigaddset(&set_, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set_, nullptr);
    waiter_ = std::thread([this] {
      int sig = 0;
      sigwait(&set_, &sig);
      if (in_pass_.load()) {
        std::fflush(stdout);
        _exit(128 + sig);
      }
      std::lock_guard lock(mu_);
      stopped_ = true;
      if (server_) {
        server_->stop();
        exit_after_grace(kStopGrace);
      }
      cv_.notify_all();
    });
  }
  ~Stopper() {
    {
      std::lock_guard lock(mu_);
      if (!stopped_) pthread_kill(waiter_.native_handle(), SIGTERM);
    }
    waiter_.join();
  }
  void in_pass(bool v) { in_pass_ = v; }
  void watch_server(web::Server* s) {
    std::lock_guard lock(mu_);
    server_ = s;
    if (stopped_) s->stop();
  }
  // Waits `seconds` (forever when negative); false once a signal came.
  bool wait(double seconds) {
    std::unique_lock lock(mu_);
    if (seconds < 0)
      cv_.wait(lock, [this] { return stopped_; });
    else
      cv_.wait_for(lock, std::chrono::duration<double>(seconds), [this] { return stopped_; });
    return !stopped_;
  }

 private:
  sigset_t set_;
  std::atomic<bool> in_pass_{false};
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopped_ = false;
  web::Server* server_ = nullptr;
  std::thread waiter_;
};

}  // namespace

Runner setup_run(CLI::App& sub, const Globals& g) {
  struct Args {
    RunOptions opt;
    std::string lang = "zh";
    bool use_llm = false;
    std::string config = "mergelens.toml";
    llm::Settings llm;
    double watch = 0;
    size_t batch = 0;
    std::string export_dir;
    bool serve = false;
    web::ServerOptions server;
    bool enqueue = false;
  };
  auto a = std::make_shared<Args>();
  sub.add_option("path", a->opt.ingest.repo_path, "Local clone (work tree or bare)")->required();
  sub.add_option("-b,--branch", a->opt.ingest.branch, "Branch to follow (default: HEAD's)");
  sub.add_option("--url-base", a->opt.ingest.url_base, "Web base for PR links (default: origin)");
  sub.add_option("--lang", a->lang, "Guide language: zh (default), en or both")
      ->capture_default_str();
  sub.add_flag("--llm", a->use_llm, "Write guides with a model (see `write --help`)");
  add_llm_options(sub, a->llm);
  sub.add_option("--config", a->config, "mergelens.toml with an [llm] table")
      ->capture_default_str()
      ->check(CLI::ExistingFile);
  sub.add_option("--github-api", a->opt.github_api_url,
                 "GitHub API base (sync runs when GITHUB_TOKEN or GH_TOKEN is set)")
      ->envname("MERGELENS_GITHUB_API")
      ->capture_default_str();
  sub.add_option("--batch", a->batch,
                 "Changes per transaction in every step (default: each "
                 "step's own)")
      ->check(CLI::Range(0, 100000));
  sub.add_option("--watch", a->watch,
                 "Keep the repository current: fetch origin and run again every N seconds")
      ->check(CLI::Range(0.0, 31622400.0));
  sub.add_option("--export", a->export_dir, "After each pass, write the static site into DIR");
  sub.add_flag("--serve", a->serve, "After the first pass, serve the pages until Ctrl-C");
  sub.add_flag("--enqueue", a->enqueue,
               "Do not run: add the clone to the workers' repositories (with --repo NAME) and "
               "queue its ingest for `mergelens worker`");
  sub.add_option("--host", a->server.host, "Address to serve on (with --serve)")
      ->capture_default_str();
  sub.add_option("--port", a->server.port, "Port to serve on (0: any free port)")
      ->capture_default_str()
      ->check(CLI::Range(0, 65535));
  sub.add_option("--tz", a->server.tz, "Time zone of day boundaries (served and exported)")
      ->capture_default_str();
  sub.add_option("--base-url", a->server.base_url,
                 "Public address of the site (served and exported): absolute feed links");
  return [a, &g]() -> Result<void> {
    auto langs = parse_langs(a->lang);
    if (!langs) return std::unexpected(langs.error());
    a->opt.write.langs = *langs;
    if (a->enqueue) return enqueue_run(g, a->opt.ingest, *langs, a->use_llm);
    a->opt.ingest.repo_name = g.repo;
    if (a->batch > 0)
      a->opt.ingest.batch_size = a->opt.analyze.batch_size = a->opt.write.batch_size = a->batch;
    a->opt.github_token = env_token();
    std::unique_ptr<llm::Client> client;
    if (a->use_llm) {
      auto settings = llm::resolve_settings(a->llm, a->config);
      if (!settings) return std::unexpected(settings.error());
      client = std::make_unique<llm::Client>(*settings);
      a->opt.write.client = client.get();
    }
    // Options the export and the server would reject fail before any work.
    // --base-url is checked whatever the flags, as serve, export and mcp check it.
    if (!a->export_dir.empty() || a->serve)
      if (auto tz = web::TimeZone::named(a->server.tz); !tz) return std::unexpected(tz.error());
    if (auto base = web::site_base_url(a->server.base_url); !base)
      return std::unexpected(base.error());
    // [[deliver]] targets: each pass delivers the days that have closed.
    auto targets = deliver::read_targets(a->config);
    if (!targets) return std::unexpected(targets.error());
    auto transport = deliver::real_transport();
    const bool watching = a->watch > 0;
    std::unique_ptr<Store> store;
    std::optional<Stopper> stopper;
    if (a->serve || watching) stopper.emplace();
    std::unique_ptr<web::Server> server;
    std::thread serving;
    auto finish = [&]() -> Result<void> {
      if (server) {
        server->stop();
        serving.join();
      }
      return {};
    };
    // Starts the server once: after the first pass, or in watch mode after a
    // first pass that failed (then on the repository named by --repo, or the
    // store's only one), tried again after each pass until it starts.
    auto start_server = [&](const std::string& repo) -> Result<void> {
      a->server.repo = repo;
      a->server.lang = (*langs)[0];
      a->server.extra_path = "/mcp";  // the MCP endpoint, as `serve` has it
      a->server.extra = mcp_endpoint(a->server, a->server.repo);
      const std::string db = g.db;
      auto created = web::Server::create(
          [db] { return open_store_at(db, StoreOptions{.create = false}); }, a->server);
      if (!created) return std::unexpected(created.error());
      auto port = (*created)->bind();
      if (!port) return std::unexpected(port.error());
      server = std::move(*created);
      const bool v6 = a->server.host.find(':') != std::string::npos;
      fmt::print("mergelens: serving the digest at http://{}{}{}:{}/ (Ctrl-C stops)\n",
                 v6 ? "[" : "", a->server.host, v6 ? "]" : "", *port);
      std::fflush(stdout);
      serving = std::thread([s = server.get()] { s->run(); });
      stopper->watch_server(server.get());
      return {};
    };
    for (;;) {
      if (stopper) stopper->in_pass(true);
      Result<RunReport> report = fail(ErrorKind::kInternal, "no pass");
      if (!store) {
        auto opened = open_store(g, /*create=*/true);
        if (opened)
          store = std::move(*opened);
        else
          report = std::unexpected(opened.error());
      }
      if (store) report = run_once(*store, a->opt, /*show_progress=*/true);
      if (stopper) stopper->in_pass(false);
      if (!report && watching) {
        // A pass that fails (the remote unreachable, the disk full, the store
        // unwritable), the first one included, is reported and tried again;
        // the pages are served meanwhile (what earlier passes stored).
        fmt::print(stderr, "mergelens: this pass failed, trying again in {} s: {}\n", a->watch,
                   report.error().message);
        if (a->serve && !server)
          if (auto r = start_server(g.repo); !r)
            fmt::print(stderr,
                       "mergelens: cannot serve yet, trying again after the next pass: {}\n",
                       r.error().message);
        if (!stopper->wait(a->watch)) return finish();
        a->opt.fetch = true;
        continue;
      }
      if (!report) {
        (void)finish();
        return std::unexpected(report.error());
      }
      print_report(report->ingest.repo.name, *report);
      if (!a->export_dir.empty()) {
        web::ExportOptions eo;
        eo.out = a->export_dir;
        eo.tz = a->server.tz;
        eo.base_url = a->server.base_url;
        eo.langs = *langs;
        eo.repo = report->ingest.repo.name;  // at the root; other repositories under r/
        auto stats = web::export_site(*store, eo);
        if (!stats) {
          (void)finish();
          return std::unexpected(stats.error());
        }
        fmt::print("exported {} pages and {} feeds to {}\n", stats->pages, stats->feeds,
                   a->export_dir);
      }
      if (!targets->empty()) {
        // A delivery that fails is reported and tried again on the next pass.
        auto repo = resolve_repo(*store, report->ingest.repo.name);
        auto sent = repo ? deliver::deliver_due(*store, *repo, *targets, *transport)
                         : Result<std::vector<deliver::DayReport>>(std::unexpected(repo.error()));
        if (!sent) fmt::print(stderr, "mergelens: delivery: {}\n", sent.error().message);
        for (const auto& r : sent ? *sent : std::vector<deliver::DayReport>{})
          fmt::print(r.error.empty() ? stdout : stderr, "delivered {}\n", deliver::describe(r));
      }
      if (a->serve && !server) {
        if (auto r = start_server(report->ingest.repo.name); !r) {
          if (!watching) return std::unexpected(r.error());
          fmt::print(stderr, "mergelens: cannot serve yet, trying again after the next pass: {}\n",
                     r.error().message);
        }
      }
      std::fflush(stdout);
      if (a->watch <= 0) {
        if (server) stopper->wait(-1);
        return finish();
      }
      if (!stopper->wait(a->watch)) return finish();
      a->opt.fetch = true;
    }
  };
}

}  // namespace mergelens::cli
