#include "mergelens/pipeline/run.h"

#include <memory>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "mergelens/source/git_source.h"
#include "mergelens/util/progress.h"

namespace mergelens {

namespace {

// Between steps: what a step freed goes back to the system (glibc keeps
// freed memory in each thread's arena otherwise, so one process running
// every step would peak at the sum of the steps' heaps, not the largest).
void release_freed_memory() {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

}  // namespace

Result<RunReport> run_once(Store& store, const RunOptions& opt, bool show_progress) {
  RunReport report;
  // One progress line per step: each counts its own items against its own total.
  auto step = [&](const char* label) {
    return show_progress ? std::make_unique<Progress>(label, 0) : nullptr;
  };
  if (opt.fetch) {
    auto src = GitSource::open(opt.ingest.repo_path);
    if (!src) return std::unexpected(src.error());
    // An unreachable remote is not fatal: what the clone holds (commits
    // made in it, or fetched by someone else) is still ingested.
    if (auto fetched = (*src)->fetch("origin"); fetched)
      report.fetched = *fetched;
    else
      report.fetch_failed = fetched.error().message;
  }
  IngestOptions io = opt.ingest;
  io.follow_fetched = io.follow_fetched || opt.fetch;
  auto ingested = ingest(store, io, step("ingest").get());
  if (!ingested) return std::unexpected(ingested.error());
  report.ingest = *ingested;
  release_freed_memory();
  const RepoRecord& repo = ingested->repo;
  if (!opt.github_token.empty()) {
    if (repo.name.find('/') == std::string::npos) {
      report.sync_skipped = "the repository name is not owner/repo: pass --repo";
    } else {
      SyncOptions so;
      so.repo = repo.name;
      so.api_url = opt.github_api_url;
      so.token = opt.github_token;
      auto synced = sync_github(store, so, step("sync").get());
      if (!synced) return std::unexpected(synced.error());
      report.sync = *synced;
    }
  }
  auto fresh = resolve_repo(store, repo.name);
  if (!fresh) return std::unexpected(fresh.error());
  auto analysed = analyze(store, *fresh, opt.analyze, step("analyze").get());
  if (!analysed) return std::unexpected(analysed.error());
  report.analyze = std::move(*analysed);
  release_freed_memory();
  auto written = write_guides(store, *fresh, opt.write, step("write").get());
  if (!written) return std::unexpected(written.error());
  report.write = std::move(*written);
  release_freed_memory();
  return report;
}

}  // namespace mergelens
