#include "mergelens/pipeline/analyze.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <ctime>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>
#include <unordered_map>

#include <malloc.h>

#include <fmt/format.h>

#include "mergelens/analysis/analyzer.h"
#include "mergelens/analysis/repo_config.h"
#include "mergelens/pipeline/analyze_tree.h"
#include "mergelens/source/git_source.h"

namespace mergelens {
namespace {

Result<std::string> read_local_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail(ErrorKind::kInvalidInput, "cannot read configuration file {}", path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// CPU time of the calling thread (the machine may be shared: wall time says little).
double thread_cpu_micros() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e6 + static_cast<double>(ts.tv_nsec) / 1e3;
}

// A shallow clone's boundary has no diff (see Change::shallow): what the
// analysis found in an empty file list says nothing about the change, so the
// facts say that instead. A later deepened ingest drops them for a real read.
void mark_shallow(Facts& f) {
  const std::string why = "shallow clone boundary: the diff was not read";
  f.importance = Score{1, {why}};
  f.insight = Score{1, {why}};
  f.verdict = Verdict::kSkip;
  f.verdict_scope.clear();
  f.cleanup.clear();
}

// The repository's stored history for thread links, with the files changes
// merged since `since` added. Every stored change is a candidate (links
// point backward only), so the links of a change do not depend on which
// other changes this run analyses.
Result<void> fill_thread_index(Store& store, const RepoRecord& repo, UnixSeconds since,
                               ThreadIndex& index) {
  index = ThreadIndex();
  auto rows = store.list_changes(repo.id, ListQuery{});
  if (!rows) return std::unexpected(rows.error());
  for (auto& r : *rows) {
    if (r.open || r.merged_at <= 0) continue;
    index.add({std::move(r.sha), r.number.value_or(0), std::move(r.title),
               r.author.login.empty() ? std::move(r.author.name) : std::move(r.author.login),
               r.merged_at});
  }
  auto added = store.added_files(repo.id, since);
  if (!added) return std::unexpected(added.error());
  for (auto& [sha, path] : *added) index.add_added_path(sha, std::move(path));
  index.finish();
  return {};
}

// libgit2's object cache while analysing (ingest keeps GitSource's 64 MiB).
constexpr size_t kAnalyzeObjectCache = size_t{16} << 20;

// How far back a change's "builds on" link looks (threads.h: 30 days), with a day to spare.
constexpr UnixSeconds kThreadLookBack = 31 * 86400;

}  // namespace

Result<AnalyzeReport> analyze(Store& store, const RepoRecord& repo, const AnalyzeOptions& opt,
                              Progress* progress) {
  AnalyzeReport report;
  const unsigned threads =
      std::max(1u, std::min(opt.threads ? opt.threads : std::thread::hardware_concurrency(), 8u));

  // File readers over the clone, one per thread; the analysis works without them.
  std::vector<std::unique_ptr<GitSource>> sources;
  std::string tip;
  if (!repo.path.empty()) {
    for (unsigned i = 0; i < threads; ++i) {
      auto s = GitSource::open(repo.path);
      if (!s) break;
      sources.push_back(std::move(*s));
    }
    if (!sources.empty()) {
      auto t = sources.front()->resolve_branch(repo.branch);
      if (t) tip = *t;
    }
  }
  report.clone_available = !sources.empty();
  // Each blob is read about once here: a small object cache keeps the RSS
  // down at little cost (bench/README.md, issue 36 item 5). Put back for
  // whatever runs next in this process (ingest reads commits and trees again
  // and again).
  struct CacheLimit {
    std::optional<size_t> previous;
    ~CacheLimit() {
      if (previous) (void)GitSource::set_object_cache_limit(*previous);
    }
  } cache_limit;
  if (report.clone_available)
    if (auto r = GitSource::set_object_cache_limit(kAnalyzeObjectCache)) cache_limit.previous = *r;

  std::string toml, labeler;
  if (!opt.config_path.empty()) {
    auto text = read_local_file(opt.config_path);
    if (!text) return std::unexpected(text.error());
    toml = std::move(*text);
  } else if (!tip.empty()) {
    if (auto t = sources.front()->read_file(tip, "mergelens.toml"); t && *t) toml = **t;
  }
  if (!tip.empty())
    if (auto l = sources.front()->read_file(tip, ".github/labeler.yml"); l && *l) labeler = **l;
  // The watched repository's own files are its authors' to break: a malformed
  // one is a warning naming it (and the line), and the defaults are used.
  // A file named by --config is ours, and its errors stop the run.
  if (!labeler.empty())
    if (auto r = parse_labeler_yml(labeler, ".github/labeler.yml"); !r) {
      report.warnings.push_back(r.error().message + " (the repository's labels are not used)");
      labeler.clear();
    }
  if (!toml.empty() && opt.config_path.empty())
    if (auto r = parse_mergelens_toml(toml, "mergelens.toml"); !r) {
      report.warnings.push_back(r.error().message + " (the default settings are used)");
      toml.clear();
    }
  auto ctx = make_context(repo.name, toml, labeler);
  if (!ctx) return std::unexpected(ctx.error());
  // The import graph has its own reader: it walks the changes in order on a
  // thread of its own while the workers analyse them.
  std::unique_ptr<GitSource> graph_source;
  if (!sources.empty())
    if (auto s = GitSource::open(repo.path)) graph_source = std::move(*s);
  ContentCache contents;
  auto origins = store.switch_origins(repo.id);
  if (!origins) return std::unexpected(origins.error());
  TreeTracker tree(graph_source.get(), ctx->config, contents, *origins);

  // Pass 1 analyses what is missing (or everything with --force); facts that
  // name older changes as fixed, followed up or reverted invalidate those, and
  // later passes recompute them with the back-reference (at most 3 passes).
  ThreadIndex thread_index;
  UnixSeconds thread_horizon = INT64_MAX;
  for (int pass = 0; pass < 3; ++pass) {
    auto ids =
        store.changes_needing_analysis(repo.id, opt.force && pass == 0 ? -1 : kAnalyzerVersion);
    if (!ids) return std::unexpected(ids.error());
    if (ids->empty()) break;
    if (progress) progress->set_total(report.analyzed + ids->size());

    // The thread index reaches back far enough for the oldest change to analyse.
    {
      UnixSeconds oldest = INT64_MAX;
      for (auto id : *ids) {
        auto c = store.get_change_by_id(id);  // merge order: the first is the oldest
        if (!c) return std::unexpected(c.error());
        if (*c && !(*c)->open && (*c)->merged_at > 0) {
          oldest = (*c)->merged_at;
          break;
        }
      }
      if (oldest != INT64_MAX && oldest - kThreadLookBack < thread_horizon) {
        if (auto r = fill_thread_index(store, repo, oldest - kThreadLookBack, thread_index); !r)
          return std::unexpected(r.error());
        thread_horizon = oldest - kThreadLookBack;
        ctx->threads = &thread_index;
      }
    }
    const size_t batch = std::max<size_t>(1, opt.batch_size);
    for (size_t start = 0; start < ids->size(); start += batch) {
      const size_t n = std::min(batch, ids->size() - start);
      const auto batch_start = std::chrono::steady_clock::now();
      std::vector<Change> changes;
      changes.reserve(n);
      for (size_t i = 0; i < n; ++i) {
        auto c = store.get_change_by_id((*ids)[start + i]);
        if (!c) return std::unexpected(c.error());
        if (*c) changes.push_back(std::move(**c));
      }
      std::vector<std::vector<Backlink>> backlinks(changes.size());
      for (size_t i = 0; i < changes.size(); ++i) {
        auto b = store.referenced_by(repo.id, changes[i]);
        if (!b) return std::unexpected(b.error());
        backlinks[i] = std::move(*b);
      }
      // Reaches, in order, beside the analysis: a worker waits for its change's.
      std::vector<TreeFacts> reaches(changes.size());
      size_t reached = 0;
      std::mutex reach_mu;
      std::condition_variable reach_cv;
      std::thread grapher([&] {
        const double g0 = thread_cpu_micros();
        for (size_t i = 0; i < changes.size(); ++i) {
          if (!changes[i].open) reaches[i] = tree.at(changes[i]);
          std::lock_guard lock(reach_mu);
          reached = i + 1;
          reach_cv.notify_all();
        }
        report.graph_micros += thread_cpu_micros() - g0;
      });
      std::vector<std::pair<std::int64_t, Facts>> results(changes.size());
      std::vector<double> micros(changes.size());
      auto work = [&](unsigned t) {
        AnalysisContext local = *ctx;
        for (size_t i = t; i < changes.size(); i += threads) {
          const Change& c = changes[i];
          if (t < sources.size()) {
            GitSource* src = sources[t].get();
            local.read_new_file =
                [src, &c, &contents](const std::string& path) -> std::optional<std::string> {
              std::optional<std::string> cached;
              if (contents.get(c.sha, path, cached)) return cached;
              auto r = src->read_file(c.sha, path, 1u << 20);
              return r ? *r : std::nullopt;
            };
          }
          local.referenced_by = backlinks[i];
          {
            std::unique_lock lock(reach_mu);
            reach_cv.wait(lock, [&] { return reached > i; });
            local.reach = reaches[i].reach;
            local.switches = std::move(reaches[i].switches);
            local.switches_known = reaches[i].switches_known;
            local.context = std::move(reaches[i].context);
            local.definition_fates = std::move(reaches[i].fates);
            local.context_known = reaches[i].context_known;
          }
          const auto t0 = std::chrono::steady_clock::now();
          results[i] = {c.id, analyze_change(c, local)};
          if (c.shallow) mark_shallow(results[i].second);
          micros[i] =
              std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0)
                  .count();
        }
      };
      std::vector<std::thread> pool;
      for (unsigned t = 1; t < threads && t < changes.size(); ++t) pool.emplace_back(work, t);
      work(0);
      for (auto& th : pool) th.join();
      grapher.join();
      contents.clear();
      auto put = store.put_facts(results);
      if (!put) return std::unexpected(put.error());
      report.invalidated += *put;
      for (const auto& [id, f] : results) ++report.verdicts[to_string(f.verdict)];
      report.analyzed += results.size();
      report.micros.insert(report.micros.end(), micros.begin(), micros.end());
      const double wall =
          std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - batch_start)
              .count();
      report.wall_micros.insert(report.wall_micros.end(), micros.size(),
                                micros.empty() ? 0 : wall / static_cast<double>(micros.size()));
      if (progress) progress->advance(n);
      // Free the batch (its changes, facts and tree facts) and give the pages
      // back to the system before the next batch reads its changes.
      decltype(changes)().swap(changes);
      decltype(results)().swap(results);
      decltype(reaches)().swap(reaches);
      decltype(backlinks)().swap(backlinks);
      malloc_trim(0);
    }
  }
  if (progress) progress->finish();
  report.graph_rebuilds = tree.rebuilds();
  return report;
}

}  // namespace mergelens
