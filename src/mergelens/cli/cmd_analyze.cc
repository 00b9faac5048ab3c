#include <algorithm>

#include <fmt/format.h>

#include "mergelens/cli/commands.h"
#include "mergelens/pipeline/analyze.h"

namespace mergelens::cli {

Runner setup_analyze(CLI::App& sub, const Globals& g) {
  auto opt = std::make_shared<AnalyzeOptions>();
  auto stats = std::make_shared<bool>(false);
  sub.add_flag("--stats", *stats, "Print per-change timing percentiles and verdict/score counts");
  sub.add_option("--config", opt->config_path,
                 "mergelens.toml to use (default: the one at the root of the clone, if any)");
  sub.add_flag("--force", opt->force, "Recompute facts that are already current");
  sub.add_option("-j,--threads", opt->threads, "Worker threads (default: one per core)");
  return [opt, stats, &g]() -> Result<void> {
    auto store = open_store(g, /*create=*/false);
    if (!store) return std::unexpected(store.error());
    auto repo = resolve_repo(**store, g.repo);
    if (!repo) return std::unexpected(repo.error());
    Progress progress("analyze", 0);
    auto report = analyze(**store, *repo, *opt, &progress);
    if (!report) return std::unexpected(report.error());
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
      auto m = report->micros;
      std::sort(m.begin(), m.end());
      auto pct = [&](double p) {
        return m[std::min(m.size() - 1, static_cast<size_t>(p * m.size()))] / 1000;
      };
      fmt::print("per change: p50 {:.2f} ms, p90 {:.2f} ms, p99 {:.2f} ms, max {:.2f} ms\n",
                 pct(0.5), pct(0.9), pct(0.99), m.back() / 1000);
    }
    return {};
  };
}

}  // namespace mergelens::cli
