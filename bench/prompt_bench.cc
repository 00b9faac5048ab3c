// Prompt benchmark: over the newest N analysed changes of a store, the size of
// the model prompt at a budget and the share of each change's top-3 focus
// regions it shows, against a largest-files-first selection at a larger
// budget (whole files, biggest first, what pr-agent does), in the same run.
//
//   mergelens_prompt_bench --db FILE [--repo NAME] [--last 2000] [--budget 12000]
//                          [--baseline-budget 32000] [--lang zh]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "mergelens/guide/prompt.h"
#include "mergelens/store/store.h"

using namespace mergelens;

namespace {

double pct(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())))];
}

double mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0 : s / static_cast<double>(v.size());
}

double share_full(const std::vector<double>& v) {
  return v.empty() ? 0
                   : static_cast<double>(
                         std::count_if(v.begin(), v.end(), [](double x) { return x >= 0.999; })) /
                         static_cast<double>(v.size());
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"prompt size and focus coverage"};
  std::string db, repo_name, lang = "zh";
  size_t last = 2000, budget = 12000, baseline_budget = 32000;
  app.add_option("--db", db)->required();
  app.add_option("--repo", repo_name);
  app.add_option("--last", last);
  app.add_option("--budget", budget);
  app.add_option("--baseline-budget", baseline_budget);
  app.add_option("--lang", lang);
  CLI11_PARSE(app, argc, argv);
  auto store = open_sqlite_store(db, StoreOptions{.create = false});
  if (!store) {
    std::fprintf(stderr, "%s\n", store.error().message.c_str());
    return 1;
  }
  auto repo = resolve_repo(**store, repo_name);
  if (!repo) {
    std::fprintf(stderr, "%s\n", repo.error().message.c_str());
    return 1;
  }
  ListQuery query;
  query.limit = last;
  auto list = (*store)->list_changes(repo->id, query);
  if (!list) return 1;
  std::vector<double> tokens, base_tokens, share, base_share, build_ms;
  size_t with_focus = 0, over_budget_changes = 0;
  for (const auto& s : *list) {
    auto c = (*store)->get_change_by_id(s.id);
    auto f = (*store)->get_facts(s.id);
    if (!c || !*c || !f || !*f) continue;
    auto t0 = std::chrono::steady_clock::now();
    Prompt p = build_prompt(**c, **f, lang, budget);
    build_ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    BaselineCoverage b = largest_files_first(**c, **f, baseline_budget);
    tokens.push_back(static_cast<double>(p.estimated_tokens));
    base_tokens.push_back(static_cast<double>(b.tokens));
    if (p.estimated_tokens > budget) ++over_budget_changes;
    if ((*f)->focus.empty()) continue;
    ++with_focus;
    share.push_back(p.coverage.top3_share);
    base_share.push_back(b.top3_share);
  }
  fmt::print("changes: {} ({} with focus regions)\n", tokens.size(), with_focus);
  fmt::print(
      "mergelens prompt @ {} tokens: median {:.0f}, p90 {:.0f}, max {:.0f} est. tokens; "
      "{} over budget\n",
      budget, pct(tokens, 0.5), pct(tokens, 0.9), pct(tokens, 1.0), over_budget_changes);
  fmt::print("largest-files-first @ {} tokens: median {:.0f}, p90 {:.0f} est. tokens (diff only)\n",
             baseline_budget, pct(base_tokens, 0.5), pct(base_tokens, 0.9));
  fmt::print(
      "top-3 focus lines shown: mergelens mean {:.3f}, all shown in {:.1f}% of PRs; "
      "baseline mean {:.3f}, all shown in {:.1f}%; ratio of means {:.2f}\n",
      mean(share), 100 * share_full(share), mean(base_share), 100 * share_full(base_share),
      mean(base_share) > 0 ? mean(share) / mean(base_share) : 0.0);
  fmt::print("prompt build time: median {:.2f} ms, p99 {:.2f} ms\n", pct(build_ms, 0.5),
             pct(build_ms, 0.99));
  return 0;
}
