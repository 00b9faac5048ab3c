// Subcommands of the CLI. Each registers its options on a CLI11 subcommand and
// returns a runner; cli.cc owns the table and the error mapping.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "mergelens/llm/settings.h"
#include "mergelens/pipeline/ingest.h"
#include "mergelens/pipeline/triage.h"
#include "mergelens/store/store.h"
#include "mergelens/util/error.h"
#include "mergelens/web/server.h"

namespace mergelens::cli {

// Options shared by every subcommand.
struct Globals {
  std::string db = ".mergelens/mergelens.db";
  std::string repo;  // --repo: which repository of the store
};

using Runner = std::function<Result<void>()>;

Runner setup_ingest(CLI::App& sub, const Globals& g);
Runner setup_list(CLI::App& sub, const Globals& g);
Runner setup_show(CLI::App& sub, const Globals& g);
Runner setup_analyze(CLI::App& sub, const Globals& g);
Runner setup_write(CLI::App& sub, const Globals& g);
Runner setup_triage(CLI::App& sub, const Globals& g);
Runner setup_themes(CLI::App& sub, const Globals& g);
Runner setup_schema(CLI::App& sub, const Globals& g);
Runner setup_run(CLI::App& sub, const Globals& g);
Runner setup_serve(CLI::App& sub, const Globals& g);
Runner setup_mcp(CLI::App& sub, const Globals& g);
// The MCP endpoint `serve` puts at /mcp (cmd_mcp.cc): streamable HTTP over
// the store connection the server lends, with `options`' time zone (UTC
// when invalid: the server refuses it first), language and public URL;
// `repo` as --repo.
std::function<web::HttpResponse(const web::HttpRequest&, Store&)> mcp_endpoint(
    const web::ServerOptions& options, const std::string& repo);
Runner setup_export(CLI::App& sub, const Globals& g);
Runner setup_digest(CLI::App& sub, const Globals& g);
Runner setup_deliver(CLI::App& sub, const Globals& g);
Runner setup_notes(CLI::App& sub, const Globals& g);

// "zh", "en" or "both" → the languages; kInvalidInput otherwise.
Result<std::vector<std::string>> parse_langs(const std::string& lang);
Runner setup_sync(CLI::App& sub, const Globals& g);
// Scale-out: workers, the job queue, the repository list, moving a store.
Runner setup_worker(CLI::App& sub, const Globals& g);
Runner setup_jobs(CLI::App& sub, const Globals& g);
Runner setup_repos(CLI::App& sub, const Globals& g);
Runner setup_migrate(CLI::App& sub, const Globals& g);
// `run --enqueue`: stores the clone as a worker repository and queues its ingest (cmd_repos.cc).
Result<void> enqueue_run(const Globals& g, const IngestOptions& ingest,
                         const std::vector<std::string>& langs, bool llm);

// Parses a date option (`flag` names it in errors) into `out`; empty text
// leaves `out` unset. Fails with kInvalidInput naming the flag.
Result<void> parse_date_flag(const std::string& text, const char* flag,
                             std::optional<UnixSeconds>& out);
// Parses --since and --until (either may be empty) and checks that the range
// is not reversed or empty (util/time.h, check_range).
Result<void> parse_range_flags(const std::string& since, const std::string& until,
                               std::optional<UnixSeconds>& since_out,
                               std::optional<UnixSeconds>& until_out);

// Called once a server was told to stop: if the process is still running
// after `grace` (a worker stuck where no deadline reaches), says so on stderr
// and ends it with exit code 1. Returns at once.
void exit_after_grace(std::chrono::seconds grace);
// The grace `serve` and `run --serve` give their workers after SIGTERM.
inline constexpr std::chrono::seconds kStopGrace{10};

// Registers the model options every model-using command shares (--llm-base-url,
// --llm-model, --llm-concurrency, --llm-max-retries) on `sub`, writing into
// `llm`, which must outlive the parse. `concurrency_help` tells what the
// concurrency counts (this process, this worker).
void add_llm_options(CLI::App& sub, llm::Settings& llm,
                     const char* concurrency_help = "Requests in flight");

// A revision range along the first parent (cmd_notes.cc).
struct RevRange {
  std::string from, to;           // full shas (`from` empty when not given)
  std::vector<std::string> shas;  // the first-parent commits of `to` down to, not incl., `from`
};
// The first-parent commits of `to` down to (not including) `from` in the
// clone at `path`: the merges a release `from..to` adds on its branch.
// kInvalidInput naming --from/--to when a revision does not resolve or
// `from` is not on that history.
Result<RevRange> first_parent_range(const std::string& path, const std::string& from,
                                    const std::string& to);

// Prints what a triage did: days, calls, cache hits, failures and problems.
void print_triage_report(const TriageReport& report);
// Opens the store named by --db. `create`: make it when missing.
Result<std::unique_ptr<Store>> open_store(const Globals& g, bool create);

}  // namespace mergelens::cli
