// The analyze step over a real repository: back-references between changes
// are complete after one run, however long the chain of follow-ups.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "mergelens/pipeline/analyze.h"
#include "mergelens/pipeline/ingest.h"
#include "test_helpers.h"

namespace mergelens {
namespace {

using testing::GitRepo;
using testing::TempDir;

TEST(Analyze, AChainOfFollowUpsIsCompleteAfterOneRun) {
  TempDir dir;
  GitRepo repo(dir / "work");
  repo.write("pkg/core.py", "def step():\n    return 0\n");
  repo.commit("Initial import", "2026-09-01T08:00:00Z");
  // #101 <- #102 <- ... <- #106: each follows up the one before.
  for (int n = 101; n <= 106; ++n) {
    repo.write("pkg/core.py", fmt::format("def step():\n    return {}\n", n));
    const std::string msg =
        n == 101 ? "Make step configurable (#101)"
                 : fmt::format("Adjust step again (#{})\n\nFollow-up to #{}.", n, n - 1);
    repo.commit(msg, fmt::format("2026-09-0{}T10:00:00Z", n - 99));
  }
  auto store = open_sqlite_store(dir / "db.sqlite");
  ASSERT_TRUE(store);
  IngestOptions io;
  io.repo_path = repo.path();
  ASSERT_TRUE(ingest(**store, io, nullptr));
  auto rec = resolve_repo(**store, "");
  ASSERT_TRUE(rec);
  auto report = analyze(**store, *rec, AnalyzeOptions{}, nullptr);
  ASSERT_TRUE(report) << report.error().message;
  auto missing = (*store)->changes_needing_analysis(rec->id, kAnalyzerVersion);
  ASSERT_TRUE(missing);
  EXPECT_TRUE(missing->empty()) << missing->size() << " changes left without facts";
  // Each of #101..#105 knows the change that follows it up.
  for (int n = 101; n <= 105; ++n) {
    auto c = (*store)->get_change_by_number(rec->id, n);
    ASSERT_TRUE(c && *c);
    auto f = (*store)->get_facts((**c).id);
    ASSERT_TRUE(f && *f) << "#" << n << " has no facts";
    ASSERT_EQ((**f).referenced_by.size(), 1u) << "#" << n;
    EXPECT_EQ((**f).referenced_by[0].ref, fmt::format("#{}", n + 1));
  }
  // Re-analysing drops nothing that is still right: a second run has no work.
  auto again = analyze(**store, *rec, AnalyzeOptions{}, nullptr);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->analyzed, 0u);
}

}  // namespace
}  // namespace mergelens
