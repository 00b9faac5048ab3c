// Search across the two languages: for each zh/en query pair of a file, the
// changes each finds with the glossary's query expansion (web/search.h
// expand_terms) and without it (the baseline: the query as typed), the
// recall of the Chinese query against the English one, and whether the two
// find the same changes. Prints one row per pair and a summary.
#include <algorithm>
#include <chrono>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "mergelens/store/store.h"
#include "mergelens/web/search.h"

using namespace mergelens;

namespace {

struct Found {
  std::set<std::int64_t> ids;
  double ms = 0;
};

Found run(Store& store, const RepoRecord& repo, const std::string& q, bool expand) {
  Found f;
  auto terms = web::parse_query(q);
  if (!terms) {
    fmt::print(stderr, "query {}: {}\n", q, terms.error().message);
    return f;
  }
  auto t = expand ? web::expand_terms(*terms) : *terms;
  const auto start = std::chrono::steady_clock::now();
  auto hits = store.search(repo.id, t, "zh", 1000000);
  f.ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (!hits) {
    fmt::print(stderr, "query {}: {}\n", q, hits.error().message);
    return f;
  }
  for (const auto& h : *hits) f.ids.insert(h.change.id);
  return f;
}

double recall(const std::set<std::int64_t>& zh, const std::set<std::int64_t>& en) {
  if (en.empty()) return zh.empty() ? 1.0 : 0.0;
  size_t both = 0;
  for (auto id : en) both += zh.count(id);
  return static_cast<double>(both) / static_cast<double>(en.size());
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"zh/en search recall with and without the glossary"};
  std::string db, pairs_path;
  app.add_option("--db", db)->required();
  app.add_option("--pairs", pairs_path)->required();
  CLI11_PARSE(app, argc, argv);
  auto store = open_sqlite_store(db, StoreOptions{.create = false});
  if (!store) {
    fmt::print(stderr, "{}\n", store.error().message);
    return 1;
  }
  auto repo = resolve_repo(**store, "");
  if (!repo) {
    fmt::print(stderr, "{}\n", repo.error().message);
    return 1;
  }
  std::ifstream in(pairs_path);
  std::vector<std::pair<std::string, std::string>> pairs;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    const size_t tab = line.find('\t');
    if (tab != std::string::npos) pairs.emplace_back(line.substr(0, tab), line.substr(tab + 1));
  }
  fmt::print("{:<22} {:>7} {:>7} {:>7}  {:>7} {:>7} {:>7} {}\n", "pair (zh / en)", "zh", "en",
             "recall", "zh+g", "en+g", "recall", "same");
  double base_sum = 0, exp_sum = 0, base_ms = 0, exp_ms = 0;
  size_t same = 0, base_same = 0;
  for (const auto& [zh, en] : pairs) {
    const Found bz = run(**store, *repo, zh, false), be = run(**store, *repo, en, false);
    const Found ez = run(**store, *repo, zh, true), ee = run(**store, *repo, en, true);
    const double rb = recall(bz.ids, be.ids), re = recall(ez.ids, ee.ids);
    base_sum += rb;
    exp_sum += re;
    same += ez.ids == ee.ids;
    base_same += bz.ids == be.ids;
    base_ms += bz.ms + be.ms;
    exp_ms += ez.ms + ee.ms;
    fmt::print("{:<22} {:>7} {:>7} {:>7.3f}  {:>7} {:>7} {:>7.3f} {}\n", zh + " / " + en,
               bz.ids.size(), be.ids.size(), rb, ez.ids.size(), ee.ids.size(), re,
               ez.ids == ee.ids ? "yes" : "NO");
  }
  const double n = static_cast<double>(pairs.size());
  fmt::print("\n{} pairs. Mean recall of the zh query against the en query's changes:\n",
             pairs.size());
  fmt::print("  baseline (as typed):      {:.3f}  ({} of {} pairs find the same changes)\n",
             base_sum / n, base_same, pairs.size());
  fmt::print("  with the glossary:        {:.3f}  ({} of {} pairs find the same changes)\n",
             exp_sum / n, same, pairs.size());
  fmt::print(
      "  search time per query, mean: baseline {:.1f} ms, with the glossary {:.1f} ms (x{:.2f})\n",
      base_ms / (2 * n), exp_ms / (2 * n), base_ms > 0 ? exp_ms / base_ms : 0);
  return same == pairs.size() ? 0 : 3;
}
