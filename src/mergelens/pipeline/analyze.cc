#include "mergelens/pipeline/analyze.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "mergelens/analysis/analyzer.h"
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
  auto ctx = make_context(repo.name, toml, labeler);
  if (!ctx) return std::unexpected(ctx.error());

  // Pass 1 analyses what is missing (or everything with --force); facts that
  // name older changes as fixed, followed up or reverted invalidate those, and
  // later passes recompute them with the back-reference (at most 3 passes).
  for (int pass = 0; pass < 3; ++pass) {
    auto ids =
        store.changes_needing_analysis(repo.id, opt.force && pass == 0 ? -1 : kAnalyzerVersion);
    if (!ids) return std::unexpected(ids.error());
    if (ids->empty()) break;
    if (progress) progress->set_total(report.analyzed + ids->size());

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
      std::vector<std::pair<std::int64_t, Facts>> results(changes.size());
      std::vector<double> micros(changes.size());
      auto work = [&](unsigned t) {
        AnalysisContext local = *ctx;
        for (size_t i = t; i < changes.size(); i += threads) {
          const Change& c = changes[i];
          if (t < sources.size()) {
            GitSource* src = sources[t].get();
            local.read_new_file = [src, &c](const std::string& path) -> std::optional<std::string> {
              auto r = src->read_file(c.sha, path, 1u << 20);
              return r ? *r : std::nullopt;
            };
          }
          local.referenced_by = backlinks[i];
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
    }
  }
  if (progress) progress->finish();
  return report;
}

}  // namespace mergelens
