#include <algorithm>

#include <fmt/format.h>

#include "mergelens/cli/commands.h"
#include "mergelens/pipeline/analyze.h"
#include "mergelens/util/utf8.h"

namespace mergelens::cli {

Runner setup_analyze(CLI::App& sub, const Globals& g) {
  auto opt = std::make_shared<AnalyzeOptions>();
  auto stats = std::make_shared<bool>(false);
  sub.add_flag("--stats", *stats, "Print per-change timing percentiles and verdict/score counts");
  sub.add_option("--config", opt->config_path,
                 "mergelens.toml to use (default: the one at the root of the clone, if any)")
      ->check(CLI::ExistingFile);
  sub.add_flag("--force", opt->force, "Recompute facts that are already current");
  sub.add_option("-j,--threads", opt->threads, "Worker threads (default: one per core)")
      ->check(CLI::Range(0, 1024));
  return [opt, stats, &g]() -> Result<void> {
    auto store = open_store(g, /*create=*/false);
    if (!store) return std::unexpected(store.error());
    auto repo = resolve_repo(**store, g.repo);
    if (!repo) return std::unexpected(repo.error());
    Progress progress("analyze", 0);
    auto report = analyze(**store, *repo, *opt, &progress);
    if (!report) return std::unexpected(report.error());
    for (const auto& w : report->warnings)
      fmt::print(stderr, "mergelens analyze: warning: {}\n", terminal_safe(w, false));
    std::string verdicts;
    for (const auto& [name, n] : report->verdicts)
      verdicts += fmt::format("{}{} {}", verdicts.empty() ? "" : ", ", n, name);
    fmt::print("{}: {} change{} analysed{}{}{}\n", repo->name, report->analyzed,
               report->analyzed == 1 ? "" : "s", verdicts.empty() ? "" : " (" + verdicts + ")",
               report->invalidated
                   ? fmt::format("; {} older changes re-analysed for later references",
                                 report->invalidated)
                   : "",
               report->clone_available ? "" : "; clone not found, symbols from hunk headers only");
    if (*stats && !report->micros.empty()) {
      // By tenth of the run: whether later changes cost more to analyse
      // (bigger files) or the run itself slows down (the rest of the batch).
      const auto& mi = report->micros;
      const auto& wa = report->wall_micros;
      std::string tenths;
      for (size_t k = 0; k < 10 && mi.size() >= 10 && wa.size() == mi.size(); ++k) {
        const size_t lo = mi.size() * k / 10, hi = mi.size() * (k + 1) / 10;
        double a = 0, w = 0;
        for (size_t i = lo; i < hi; ++i) a += mi[i], w += wa[i];
        tenths += fmt::format("{}{:.2f}/{:.2f}", k ? " " : "", a / 1000 / (hi - lo),
                              w / 1000 / (hi - lo));
      }
      if (!tenths.empty())
        fmt::print("per change by tenth of the run, analysis/wall ms: {}\n", tenths);
      auto m = report->micros;
      std::sort(m.begin(), m.end());
      auto pct = [&](double p) {
        return m[std::min(m.size() - 1, static_cast<size_t>(p * m.size()))] / 1000;
      };
      fmt::print("per change: p50 {:.2f} ms, p90 {:.2f} ms, p99 {:.2f} ms, max {:.2f} ms\n",
                 pct(0.5), pct(0.9), pct(0.99), m.back() / 1000);
      fmt::print("import graph: {:.1f} s of CPU beside the analysis, read whole {} time{}\n",
                 report->graph_micros / 1e6, report->graph_rebuilds,
                 report->graph_rebuilds == 1 ? "" : "s");
    }
    return {};
  };
}

}  // namespace mergelens::cli
