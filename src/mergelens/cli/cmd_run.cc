// `mergelens run PATH`: the main job (ingest → sync → analyse → write), once or
// every --watch seconds.
#include <chrono>
#include <cstdlib>
#include <thread>

#include <fmt/format.h>

#include "mergelens/cli/commands.h"
#include "mergelens/llm/client.h"
#include "mergelens/pipeline/run.h"

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
  if (!r.sync_skipped.empty()) fmt::print("  no GitHub sync: {}\n", r.sync_skipped);
  for (const auto& [reason, n] : r.write.fallback_reasons)
    fmt::print("  offline fallback ×{}: {}\n", n, reason);
}

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
  };
  auto a = std::make_shared<Args>();
  sub.add_option("path", a->opt.ingest.repo_path, "Local clone (work tree or bare)")->required();
  sub.add_option("-b,--branch", a->opt.ingest.branch, "Branch to follow (default: HEAD's)");
  sub.add_option("--url-base", a->opt.ingest.url_base, "Web base for PR links (default: origin)");
  sub.add_option("--lang", a->lang, "Guide language: zh (default), en or both")
      ->capture_default_str();
  sub.add_flag("--llm", a->use_llm, "Write guides with a model (see `write --help`)");
  sub.add_option("--llm-base-url", a->llm.base_url, "Model server");
  sub.add_option("--llm-model", a->llm.model, "Model name");
  sub.add_option("--config", a->config, "mergelens.toml with an [llm] table")
      ->capture_default_str();
  sub.add_option("--github-api", a->opt.github_api_url,
                 "GitHub API base (sync runs when GITHUB_TOKEN or GH_TOKEN is set)")
      ->envname("MERGELENS_GITHUB_API")
      ->capture_default_str();
  sub.add_option("--batch", a->batch,
                 "Changes per transaction in every step (default: each "
                 "step's own)");
  sub.add_option("--watch", a->watch,
                 "Keep the repository current: fetch origin and run again every N seconds");
  return [a, &g]() -> Result<void> {
    auto langs = parse_langs(a->lang);
    if (!langs) return std::unexpected(langs.error());
    a->opt.write.langs = *langs;
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
    auto store = open_store(g, /*create=*/true);
    if (!store) return std::unexpected(store.error());
    Progress progress("run", 0);
    for (;;) {
      auto report = run_once(**store, a->opt, &progress);
      if (!report) return std::unexpected(report.error());
      print_report(report->ingest.repo.name, *report);
      if (a->watch <= 0) return {};
      std::fflush(stdout);
      std::this_thread::sleep_for(std::chrono::duration<double>(a->watch));
      a->opt.fetch = true;
    }
  };
}

}  // namespace mergelens::cli
