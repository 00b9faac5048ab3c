// The citation checker's whole-tree name lookup (source/TreeLookup::in_tree)
// over consecutive merge commits, as a triage day or a `write --llm` asks it:
// one lookup per change, opened at its merge commit, asked a few names.
//
//   mergelens_tree_lookup_bench --repo PATH --shas FILE [--names a,b,c]
//
// FILE holds one commit sha per line (oldest first). Prints the time of the
// first in_tree call of each lookup (the tree's read), their median and
// total, the answers (so two builds can be compared), and the peak RSS.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "mergelens/source/tree_lookup.h"

using namespace mergelens;

int main(int argc, char** argv) {
  CLI::App app{"whole-tree name lookup over consecutive commits"};
  std::string repo, shas_file,
      names_arg = "ForwardBatch,zz_not_a_name,get_tensor_model_parallel_rank";
  app.add_option("--repo", repo, "a git repository")->required();
  app.add_option("--shas", shas_file, "commit shas, one per line")->required();
  app.add_option("--names", names_arg, "comma-separated names to ask");
  CLI11_PARSE(app, argc, argv);
  std::vector<std::string> shas, names;
  std::ifstream in(shas_file);
  for (std::string s; std::getline(in, s);)
    if (!s.empty()) shas.push_back(s);
  for (size_t i = 0, j; i <= names_arg.size(); i = j + 1) {
    j = names_arg.find(',', i);
    if (j == std::string::npos) j = names_arg.size();
    if (j > i) names.push_back(names_arg.substr(i, j - i));
  }
  std::vector<double> ms;
  std::string answers;
  for (const auto& sha : shas) {
    auto t = TreeLookup::open(repo, sha);
    if (!t) {
      fmt::print(stderr, "{}: {}\n", sha, t.error().message);
      return 1;
    }
    const auto start = std::chrono::steady_clock::now();
    for (const auto& n : names) answers.push_back((*t)->in_tree(n) ? '1' : '0');
    answers.push_back(' ');
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                     .count());
  }
  if (ms.empty()) return 1;
  double total = 0;
  for (double x : ms) total += x;
  auto sorted = ms;
  std::sort(sorted.begin(), sorted.end());
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  fmt::print("lookups {}  first {:.1f} ms  median {:.1f} ms  total {:.1f} ms  peak RSS {:.1f} MB\n",
             ms.size(), ms.front(), sorted[sorted.size() / 2], total,
             static_cast<double>(ru.ru_maxrss) / 1024.0);
  fmt::print("answers {}\n", answers);
  return 0;
}
