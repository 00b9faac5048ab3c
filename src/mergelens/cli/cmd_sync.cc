#include <cstdlib>

#include <fmt/format.h>

#include "mergelens/cli/commands.h"
#include "mergelens/pipeline/sync.h"

namespace mergelens::cli {
namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

}  // namespace

Runner setup_sync(CLI::App& sub, const Globals& g) {
  struct Args {
    SyncOptions opt;
    std::string since;
  };
  auto a = std::make_shared<Args>();
  a->opt.api_url.clear();  // --api-url, else MERGELENS_GITHUB_API, else api.github.com
  sub.add_option("repository", a->opt.repo, "GitHub repository, owner/repo")->required();
  sub.add_option(
      "--api-url", a->opt.api_url,
      "REST API base (GitHub Enterprise: https://HOST/api/v3; env MERGELENS_GITHUB_API)");
  sub.add_option("--since", a->since,
                 "Only PRs updated on or after this date (YYYY-MM-DD); the sync point stays put");
  sub.add_option("-n,--limit", a->opt.limit, "At most N PRs per list, most recently updated first")
      ->check(CLI::Range(0, 1000000000));
  sub.add_flag("--open,!--no-open", a->opt.open, "Also sync open pull requests (default: yes)");
  sub.add_option("--max-wait", a->opt.max_wait_seconds,
                 "Longest wait in seconds for a rate-limit reset before stopping")
      ->capture_default_str()
      ->check(CLI::Range(0, 86400));
  sub.add_option("--max-pages", a->opt.max_pages,
                 "Most pages followed per list; a longer or looping list stops the sync")
      ->capture_default_str()
      ->check(CLI::Range(size_t{1}, size_t{1000000}));
  return [a, &g]() -> Result<void> {
    if (auto r = parse_date_flag(a->since, "--since", a->opt.since); !r) return r;
    if (std::string api = env("MERGELENS_GITHUB_API"); !api.empty() && a->opt.api_url.empty())
      a->opt.api_url = api;
    if (a->opt.api_url.empty()) a->opt.api_url = "https://api.github.com";
    a->opt.token = env("GITHUB_TOKEN");
    if (a->opt.token.empty()) a->opt.token = env("GH_TOKEN");
    if (!g.repo.empty() && g.repo != a->opt.repo)
      return fail(ErrorKind::kInvalidInput, "--repo {} and the repository argument {} differ",
                  g.repo, a->opt.repo);
    auto store = open_store(g, /*create=*/true);
    if (!store) return std::unexpected(store.error());
    Progress progress("sync", 0);
    auto r = sync_github(**store, a->opt, &progress);
    if (!r) return std::unexpected(r.error());
    fmt::print(
        "{}: {} merged PR{} ({} joined with the clone, {} turned merged), {} open, {} unchanged, "
        "{} closed unmerged skipped; {} requests ({} not modified, {} retries)\n",
        r->repo.name, r->merged, r->merged == 1 ? "" : "s", r->joined, r->turned_merged, r->open,
        r->unchanged, r->skipped_unmerged, r->stats.requests, r->stats.not_modified,
        r->stats.retries);
    return {};
  };
}

}  // namespace mergelens::cli
