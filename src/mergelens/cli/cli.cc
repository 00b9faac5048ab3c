#include "mergelens/cli/cli.h"

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <thread>

#include "mergelens/cli/commands.h"
#include "mergelens/model/repo_name.h"

namespace mergelens {
namespace cli {

// Commands read the store once, as batch jobs: no mmap (see StoreOptions).
// The server opens its own connections, mapped.
Result<std::unique_ptr<Store>> open_store(const Globals& g, bool create) {
  return open_store_at(g.db, StoreOptions{.create = create, .map_file = false});
}

Result<void> parse_date_flag(const std::string& text, const char* flag,
                             std::optional<UnixSeconds>& out) {
  if (text.empty()) return {};
  auto t = parse_instant(text);
  if (!t) return wrap(t.error(), flag);
  out = *t;
  return {};
}

Result<void> parse_range_flags(const std::string& since, const std::string& until,
                               std::optional<UnixSeconds>& since_out,
                               std::optional<UnixSeconds>& until_out) {
  if (auto r = parse_date_flag(since, "--since", since_out); !r) return r;
  if (auto r = parse_date_flag(until, "--until", until_out); !r) return r;
  return check_range(since_out, until_out, "--since " + since, "--until " + until);
}

void exit_after_grace(std::chrono::seconds grace) {
  std::thread([grace] {
    std::this_thread::sleep_for(grace);
    std::fprintf(stderr, "mergelens: still stopping after %lld s; exiting now\n",
                 static_cast<long long>(grace.count()));
    std::fflush(stderr);
    std::_Exit(1);
  }).detach();
}

void add_llm_options(CLI::App& sub, llm::Settings& llm, const char* concurrency_help) {
  sub.add_option("--llm-base-url", llm.base_url, "Model server, e.g. http://127.0.0.1:30000");
  sub.add_option("--llm-model", llm.model, "Model name");
  sub.add_option("--llm-concurrency", llm.concurrency, concurrency_help)->check(CLI::Range(1, 256));
  sub.add_option("--llm-max-retries", llm.max_retries, "Retries per request")
      ->check(CLI::Range(0, 20));
}

namespace {

struct Command {
  const char* name;
  const char* description;
  Runner (*setup)(CLI::App&, const Globals&);
};

constexpr Command kCommands[] = {
    {"run", "The main job: ingest a clone, sync from GitHub (with a token), analyse, write guides",
     setup_run},
    {"ingest", "Read merged pull requests from a local git clone into the store", setup_ingest},
    {"analyze", "Compute facts, focus, tags, scores and verdicts for stored changes",
     setup_analyze},
    {"write", "Write reading guides for analysed changes (offline by default, or with a model)",
     setup_write},
    {"triage", "Ask a model to compare each day's changes: order, verdicts and calibrated scores",
     setup_triage},
    {"themes", "Ask a model for a week's or a release's themes (what its highlights would name)",
     setup_themes},
    {"schema", "Print the JSON schema of a guide (docs/guide.schema.json)", setup_schema},
    {"list", "List stored changes by day, newest first", setup_list},
    {"show", "Show one stored change (REF = PR number, #N or commit sha)", setup_show},
    {"sync", "Fetch PR descriptions, labels, reviews and open PRs from the GitHub REST API",
     setup_sync},
    {"serve", "Serve the reading guides as web pages, feeds and JSON (read-only)", setup_serve},
    {"mcp", "Answer Model Context Protocol clients on stdio (read-only tools over the store)",
     setup_mcp},
    {"export", "Write the pages as a static site with relative links", setup_export},
    {"digest", "Print one day's or one week's digest as Markdown or JSON", setup_digest},
    {"notes", "Draft release notes for a range of revisions or dates (Markdown or JSON)",
     setup_notes},
    {"deliver", "Send a day's digest to Feishu, DingTalk, WeCom, Slack or e-mail", setup_deliver},
    {"worker", "Run jobs from the store's queue (many workers may share one store)", setup_worker},
    {"jobs", "Show the job queue: counts, dead-lettered jobs and why", setup_jobs},
    {"repos", "Add, remove and list the repositories workers keep current", setup_repos},
    {"migrate-store", "Copy this store (e.g. SQLite) into an empty one (e.g. PostgreSQL)",
     setup_migrate},
};

int exit_code_for(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kInvalidInput:
    case ErrorKind::kNotFound:
    case ErrorKind::kCorrupt:
    case ErrorKind::kUnsupported:
      return kExitUsage;
    case ErrorKind::kIo:
    case ErrorKind::kInternal:
    case ErrorKind::kTimeout:
      return kExitFailure;
  }
  return kExitFailure;
}

}  // namespace
}  // namespace cli

int run_cli(int argc, char** argv) {
  try {
    CLI::App app{"mergelens: reads every merged pull request and says which deserve a close read",
                 "mergelens"};
    app.set_version_flag("--version", "mergelens 0.1.0");
    app.require_subcommand(1);
    app.fallthrough();  // --db and --repo may follow the subcommand
    cli::Globals globals;
    app.add_option("--db", globals.db, "SQLite database file, or a postgresql:// URL")
        ->capture_default_str()
        ->envname("MERGELENS_DB");
    app.add_option("--repo", globals.repo,
                   "Repository in the store to work on (needed when it holds several)");
    std::vector<std::pair<CLI::App*, cli::Runner>> runners;
    for (const auto& cmd : cli::kCommands) {
      CLI::App* sub = app.add_subcommand(cmd.name, cmd.description);
      runners.emplace_back(sub, cmd.setup(*sub, globals));
    }
    try {
      app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
      const int code = app.exit(e);
      return code == 0 ? kExitOk : kExitUsage;
    }
    for (auto& [sub, runner] : runners) {
      if (!sub->parsed()) continue;
      auto r = globals.repo.empty() ? Result<void>() : check_repo_name(globals.repo, "--repo");
      if (r) r = runner();
      if (!r) {
        std::fprintf(stderr, "mergelens %s: %s\n", sub->get_name().c_str(),
                     r.error().message.c_str());
        return cli::exit_code_for(r.error().kind);
      }
      return kExitOk;
    }
    return kExitUsage;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mergelens: internal error: %s\n", e.what());
    return kExitFailure;
  }
}

}  // namespace mergelens
