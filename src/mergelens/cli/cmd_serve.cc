#include <malloc.h>

#include <csignal>
#include <cstdio>
#include <thread>

#include <fmt/format.h>

#include "mergelens/cli/commands.h"
#include "mergelens/web/server.h"

namespace mergelens::cli {

Runner setup_serve(CLI::App& sub, const Globals& g) {
  auto o = std::make_shared<web::ServerOptions>();
  sub.add_option("--host", o->host, "Address to listen on")->capture_default_str();
  sub.add_option("--port", o->port, "Port (0: any free port)")
      ->capture_default_str()
      ->check(CLI::Range(0, 65535));
  sub.add_option("--tz", o->tz, "Time zone of day boundaries (tz database name)")
      ->capture_default_str();
  sub.add_option("--lang", o->lang, "Default language: zh or en")->capture_default_str();
  sub.add_option("--base-url", o->base_url,
                 "Public address of the site (https://host/path) for absolute feed links; "
                 "default: the Host the client asked for");
  sub.add_option("--loops", o->loops, "Event-loop threads (own the connections)")
      ->capture_default_str()
      ->check(CLI::Range(1, 64));
  sub.add_option("--workers", o->workers, "Threads building pages")
      ->capture_default_str()
      ->check(CLI::Range(1, 1024));
  auto config = std::make_shared<std::string>("mergelens.toml");
  sub.add_option("--config", *config, "mergelens.toml with [subscriptions.NAME] filters")
      ->capture_default_str();
  auto* cors =
      sub.add_option("--cors", o->cors.allow_origin,
                     "CORS of the read-only API (/api/): \"*\" any origin, a comma-separated list "
                     "of origins, or \"\" none")
          ->capture_default_str();
  sub.add_option("--timeout", o->request_timeout,
                 "Seconds a page, an API answer or an MCP call may take to build (0: no limit)")
      ->capture_default_str()
      ->check(CLI::Range(0, 3600));
  sub.add_option("--cache-mb", o->cache_mb, "Memory for rendered pages, in MiB")
      ->capture_default_str()
      ->check(CLI::Range(1, 65536));
  auto no_mcp = std::make_shared<bool>(false);
  sub.add_flag("--no-mcp", *no_mcp, "Do not serve the MCP endpoint at /mcp");
  return [o, config, no_mcp, cors, &g]() -> Result<void> {
    o->repo = g.repo;
    auto subs = report::read_subscriptions(*config);
    if (!subs) return std::unexpected(subs.error());
    o->subscriptions = std::move(*subs);
    if (!*no_mcp) {
      o->extra_path = "/mcp";
      o->extra = mcp_endpoint(*o, g.repo);
    }
    const std::string db = g.db;
    // SIGINT/SIGTERM are waited for by one thread, which stops the server.
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
    // No fastbins: a request frees thousands of small blocks (its JSON), and
    // glibc merged them all on the next request's first large allocation
    // (SQLite's full-text buffers), 5 % of a search's CPU
    // (bench/README.md, "Search, 2026-12-05"). tcache still serves the small ones.
    mallopt(M_MXFAST, 0);
    auto server =
        web::Server::create([db] { return open_store_at(db, StoreOptions{.create = false}); }, *o);
    if (!server) return std::unexpected(server.error());
    auto port = (*server)->bind();
    if (!port) return std::unexpected(port.error());
    const bool v6 = o->host.find(':') != std::string::npos;
    fmt::print("mergelens: serving {} at http://{}{}{}:{}/\n", db, v6 ? "[" : "", o->host,
               v6 ? "]" : "", *port);
    if (cors->count() == 0 && o->cors.allow_origin == "*")
      fmt::print(stderr,
                 "mergelens: warning: /api/ answers every origin (CORS \"*\"): any web page a "
                 "reader opens can read this store's digests through their browser. For a "
                 "private repository, start with --cors \"\" (or a list of origins); pass "
                 "--cors \"*\" to keep it and silence this warning.\n");
    std::fflush(stdout);
    web::Server* s = server->get();
    std::thread waiter([s, set] {
      int sig = 0;
      sigwait(&set, &sig);
      s->stop();
      if (sig == SIGTERM || sig == SIGINT) exit_after_grace(kStopGrace);
    });
    s->run();
    // run() also returns when listening fails; wake the waiter either way.
    pthread_kill(waiter.native_handle(), SIGTERM);
    waiter.join();
    return {};
  };
}

}  // namespace mergelens::cli
