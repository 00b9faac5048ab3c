// The analyze step over a real repository: back-references between changes
// are complete after one run, however long the chain of follow-ups; reach
// is measured on the import graph at each change's commit.
#include <functional>
#include <string>
#include <utility>

#include <gtest/gtest.h>

#include <fmt/format.h>

#include "mergelens/analysis/facts.h"
#include "mergelens/analysis/facts_json.h"
#include "mergelens/pipeline/analyze.h"
#include "mergelens/pipeline/ingest.h"
#include "test_helpers.h"

namespace mergelens {
namespace {

using testing::GitRepo;
using testing::TempDir;

// Commits #101 <- #102 <- ... <- #106 on `repo` after an initial import of
// `body(100)`: each follows up the one before, with pkg/core.py as body(n).
void commit_chain(GitRepo& repo, const std::function<std::string(int)>& body) {
  repo.write("pkg/core.py", body(100));
  repo.commit("Initial import", "2026-09-01T08:00:00Z");
  for (int n = 101; n <= 106; ++n) {
    repo.write("pkg/core.py", body(n));
    const std::string msg =
        n == 101 ? "Make step configurable (#101)"
                 : fmt::format("Adjust step again (#{})\n\nFollow-up to #{}.", n, n - 1);
    repo.commit(msg, fmt::format("2026-09-0{}T10:00:00Z", n - 99));
  }
}

// A store at `db` with `repo` ingested, and its repository record; a null
// store when either failed (the failure is reported).
std::pair<std::unique_ptr<Store>, RepoRecord> ingested(const std::string& db, const GitRepo& repo) {
  auto store = open_sqlite_store(db);
  EXPECT_TRUE(store);
  if (!store) return {};
  IngestOptions io;
  io.repo_path = repo.path();
  auto in = ingest(**store, io, nullptr);
  EXPECT_TRUE(in);
  auto rec = resolve_repo(**store, "");
  EXPECT_TRUE(rec);
  if (!in || !rec) return {};
  return {std::move(*store), std::move(*rec)};
}

TEST(Analyze, AChainOfFollowUpsIsCompleteAfterOneRun) {
  TempDir dir;
  GitRepo repo(dir / "work");
  commit_chain(repo,
               [](int n) { return fmt::format("def step():\n    return {}\n", n == 100 ? 0 : n); });
  auto [store, rec] = ingested(dir / "db.sqlite", repo);
  ASSERT_TRUE(store);
  auto report = analyze(*store, rec, AnalyzeOptions{}, nullptr);
  ASSERT_TRUE(report) << report.error().message;
  auto missing = store->changes_needing_analysis(rec.id, kAnalyzerVersion);
  ASSERT_TRUE(missing);
  EXPECT_TRUE(missing->empty()) << missing->size() << " changes left without facts";
  // Each of #101..#105 knows the change that follows it up.
  for (int n = 101; n <= 105; ++n) {
    auto c = store->get_change_by_number(rec.id, n);
    ASSERT_TRUE(c && *c);
    auto f = store->get_facts((**c).id);
    ASSERT_TRUE(f && *f) << "#" << n << " has no facts";
    ASSERT_EQ((**f).referenced_by.size(), 1u) << "#" << n;
    EXPECT_EQ((**f).referenced_by[0].ref, fmt::format("#{}", n + 1));
  }
  // Re-analysing drops nothing that is still right: a second run has no work.
  auto again = analyze(*store, rec, AnalyzeOptions{}, nullptr);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->analyzed, 0u);
}

// A change merged before #N that names it (written while #N was still open)
// is not one of #N's later references; a change merged after it is.
TEST(Analyze, AnEarlierChangeNamingAPrIsNotALaterReference) {
  TempDir dir;
  GitRepo repo(dir / "work");
  repo.write("pkg/core.py", "def step():\n    return 0\n");
  repo.commit("Initial import", "2026-09-01T08:00:00Z");
  repo.write("pkg/core.py", "def step():\n    return 1\n");
  repo.commit("Guard the step (#301)\n\nNeeded once #302 lands.", "2026-09-02T10:00:00Z");
  repo.write("pkg/core.py", "def step():\n    return 2\n");
  repo.commit("Make step faster (#302)", "2026-09-03T10:00:00Z");
  repo.write("pkg/core.py", "def step():\n    return 3\n");
  repo.commit("Fix step (#303)\n\nFollow-up to #302.", "2026-09-04T10:00:00Z");
  auto [store, rec] = ingested(dir / "db.sqlite", repo);
  ASSERT_TRUE(store);
  ASSERT_TRUE(analyze(*store, rec, AnalyzeOptions{}, nullptr));
  auto c = store->get_change_by_number(rec.id, 302);
  ASSERT_TRUE(c && *c);
  auto f = store->get_facts((**c).id);
  ASSERT_TRUE(f && *f);
  ASSERT_EQ((**f).referenced_by.size(), 1u);
  EXPECT_EQ((**f).referenced_by[0].ref, "#303");
  auto now = store->referenced_by(rec.id, **c);
  ASSERT_TRUE(now);
  ASSERT_EQ(now->size(), 1u);
  EXPECT_EQ((*now)[0].ref, "#303");
}

// The later passes of one run re-analyse changes from what the tree thread
// kept of them (in a temporary file, not in memory): each change gets back
// its own switches and context, the same facts a run that moves the tree to
// it again computes, batch after batch.
TEST(Analyze, FactsKeptForLaterPassesAreEachChangesOwn) {
  TempDir dir;
  GitRepo repo(dir / "work");
  // Change n declares switches SGLANG_STEP_101..n and a helper step_n.
  commit_chain(repo, [](int n) {
    std::string body = "import os\n\n";
    for (int k = 101; k <= n; ++k)
      body += fmt::format("STEP_{0} = os.environ.get(\"SGLANG_STEP_{0}\", \"{0}\")\n", k);
    body += fmt::format("\ndef step_{0}(x):\n    return x + {0}\n\n", n);
    return body + fmt::format("def step():\n    return step_{0}(STEP_{0})\n", n);
  });
  auto [store, rec] = ingested(dir / "db.sqlite", repo);
  ASSERT_TRUE(store);
  auto facts_of = [&] {
    std::vector<std::string> out;
    for (int n = 101; n <= 106; ++n) {
      auto c = store->get_change_by_number(rec.id, n);
      EXPECT_TRUE(c && *c);
      if (!c || !*c) return out;
      auto f = store->get_facts((**c).id);
      EXPECT_TRUE(f && *f) << "#" << n << " has no facts";
      if (!f || !*f) return out;
      EXPECT_TRUE((**f).switches_known) << "#" << n;
      EXPECT_FALSE((**f).switches.empty()) << "#" << n;
      out.push_back(facts_to_json(**f).dump());
    }
    return out;
  };
  AnalyzeOptions one;
  one.batch_size = 1;  // a batch per change: freed and trimmed between them
  auto first = analyze(*store, rec, one, nullptr);
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_GT(first->analyzed, 7u) << "the follow-ups sent changes back to a later pass";
  const auto kept = facts_of();
  one.force = true;
  auto forced = analyze(*store, rec, one, nullptr);
  ASSERT_TRUE(forced) << forced.error().message;
  const auto fresh = facts_of();
  ASSERT_EQ(kept.size(), 6u);
  ASSERT_EQ(fresh.size(), 6u);
  for (size_t i = 0; i < kept.size(); ++i) EXPECT_EQ(kept[i], fresh[i]) << "#" << 101 + i;
  for (size_t i = 1; i < kept.size(); ++i) EXPECT_NE(kept[i], kept[i - 1]) << "#" << 101 + i;
}

// Reach is measured on the import graph at each change's own merge commit,
// whether the graph got there change by change or was read whole.
TEST(Analyze, ReachFollowsTheImportGraphAtEachCommit) {
  TempDir dir;
  GitRepo repo(dir / "work");
  repo.write("src/pkg/__init__.py", "");
  repo.write("src/pkg/util.py", "def helper():\n    return 1\n");
  for (const char* m : {"a", "b", "c"})
    repo.write(fmt::format("src/pkg/{}.py", m), "from pkg.util import helper\n");
  repo.write("tests/test_util.py", "from pkg.util import helper\n");
  repo.commit("Initial import", "2026-09-01T08:00:00Z");
  repo.write("src/pkg/util.py", "def helper():\n    return 2\n");
  repo.commit("Tune the helper (#1)", "2026-09-02T08:00:00Z");
  repo.write("src/pkg/d.py", "import pkg.util\n");
  repo.commit("Add d (#2)", "2026-09-03T08:00:00Z");
  repo.write("src/pkg/util.py", "def helper():\n    return 3\n");
  repo.commit("Tune the helper again (#3)", "2026-09-04T08:00:00Z");

  auto [store, rec] = ingested(dir / "db.sqlite", repo);
  ASSERT_TRUE(store);
  auto reach_of = [&](int n) {
    auto c = store->get_change_by_number(rec.id, n);
    EXPECT_TRUE(c && *c);
    auto f = store->get_facts((**c).id);
    EXPECT_TRUE(f && *f);
    return (**f).reach;
  };
  auto report = analyze(*store, rec, AnalyzeOptions{}, nullptr);
  ASSERT_TRUE(report) << report.error().message;
  // The history starts at a root commit: the empty tree before it, then
  // change by change; the graph is never read whole.
  EXPECT_EQ(report->graph_rebuilds, 0u);
  const Reach one = reach_of(1), three = reach_of(3);
  EXPECT_TRUE(one.known);
  EXPECT_EQ(one.direct, 3);  // a, b, c; not the test
  EXPECT_EQ(one.hub, "src/pkg/util.py");
  EXPECT_EQ(three.direct, 4);  // d imports it by then

  // Only #3 missing: the graph is read whole at its commit, with the same answer.
  auto c3 = store->get_change_by_number(rec.id, 3);
  ASSERT_TRUE(c3 && *c3);
  Facts stale;
  stale.version = kAnalyzerVersion - 1;
  ASSERT_TRUE(store->put_facts(std::vector<std::pair<std::int64_t, Facts>>{{(**c3).id, stale}}));
  auto again = analyze(*store, rec, AnalyzeOptions{}, nullptr);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->analyzed, 1u);
  EXPECT_EQ(reach_of(3).direct, three.direct);
  EXPECT_EQ(reach_of(3).importers, three.importers);
}

}  // namespace
}  // namespace mergelens
