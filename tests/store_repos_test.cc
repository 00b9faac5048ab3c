// The page queries over every repository (kAllRepos: the cross-repository
// day page, search, feeds and tags) and the job list's repository and serial
// filters, on SQLite and (pg_unit) on PostgreSQL. Two repositories share a
// day; each query is checked in its one-repository form too, so the filter
// still holds there.
#include <gtest/gtest.h>

#include <set>

#include "mergelens/util/time.h"
#include "test_store.h"

namespace mergelens {
namespace {

using testing::TempDir;
using testing::TestStore;

class StoreAllRepos : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(store.store);
    auto a =
        store->upsert_repo({0, "team/alpha", "/a", "https://github.com/team/alpha", "main", ""});
    auto b = store->upsert_repo({0, "beta", "/b", "", "main", ""});
    ASSERT_TRUE(a && b);
    alpha = *a;
    beta = *b;
    // 2026-09-16: alpha #1 and #2, beta #1 (the same number in another
    // repository); 2026-09-17: beta #2 only.
    add(alpha, 1, "2026-09-16T08:00:00Z", "Alpha kvcache fix", Verdict::kCloseRead, {"kv-cache"});
    add(alpha, 2, "2026-09-16T09:00:00Z", "Alpha docs", Verdict::kSkip, {"docs"});
    add(beta, 1, "2026-09-16T10:00:00Z", "Beta kvcache eviction", Verdict::kSelectiveRead,
        {"kv-cache", "moe"});
    add(beta, 2, "2026-09-17T10:00:00Z", "Beta scheduler", Verdict::kCloseRead, {"moe"});
  }

  void add(const RepoRecord& repo, std::int64_t number, const char* when, const char* title,
           Verdict verdict, std::vector<std::string> tags) {
    Change c;
    c.kind = ChangeKind::kSquash;
    c.number = number;
    c.sha = fmt::format("{:040x}", repo.id * 1000 + number);
    c.title = title;
    c.merged_at = *parse_instant(when);
    ASSERT_TRUE(store->put_changes(repo.id, std::span<const Change>(&c, 1), std::nullopt));
    auto stored = store->get_change_by_number(repo.id, number);
    ASSERT_TRUE(stored && *stored);
    Facts f;
    f.verdict = verdict;
    f.importance.value = 5;
    f.insight.value = 4;
    for (const auto& t : tags) f.tags.push_back(Tag{t, "keyword", t});
    std::vector<std::pair<std::int64_t, Facts>> fs{{(*stored)->id, f}};
    ASSERT_TRUE(store->put_facts(fs));
  }

  // "alpha#1" for each change, sorted.
  std::set<std::string> names(const std::vector<ChangeSummary>& rows) const {
    std::set<std::string> out;
    for (const auto& r : rows)
      out.insert(fmt::format("{}#{}", r.repo_id == alpha.id ? "alpha" : "beta", *r.number));
    return out;
  }

  TempDir dir;
  TestStore store{dir};
  RepoRecord alpha, beta;
  const UnixSeconds day16 = *parse_instant("2026-09-16T00:00:00Z");
  const UnixSeconds day17 = *parse_instant("2026-09-17T00:00:00Z");
};

TEST_F(StoreAllRepos, ListsTheChangesOfEveryRepositoryWithTheirRepository) {
  ListQuery q;
  q.since = day16;
  q.until = day17;
  auto all = store->list_changes(kAllRepos, q);
  ASSERT_TRUE(all) << all.error().message;
  EXPECT_EQ(names(*all), (std::set<std::string>{"alpha#1", "alpha#2", "beta#1"}));
  // Newest first across repositories.
  ASSERT_EQ(all->size(), 3u);
  EXPECT_EQ((*all)[0].repo_id, beta.id);
  EXPECT_EQ((*all)[0].verdict, "selective_read");
  auto one = store->list_changes(alpha.id, q);
  ASSERT_TRUE(one);
  EXPECT_EQ(names(*one), (std::set<std::string>{"alpha#1", "alpha#2"}));
  for (const auto& r : *one) EXPECT_EQ(r.repo_id, alpha.id);
}

TEST_F(StoreAllRepos, AdjacentDaysSpanEveryRepository) {
  auto next = store->adjacent_merge(kAllRepos, day17, /*before=*/false);
  ASSERT_TRUE(next && *next);
  EXPECT_EQ(format_utc(**next), "2026-09-17T10:00:00Z");
  auto alpha_next = store->adjacent_merge(alpha.id, day17, /*before=*/false);
  ASSERT_TRUE(alpha_next);
  EXPECT_FALSE(*alpha_next);
  auto newest = store->adjacent_merge(kAllRepos, INT64_MAX, /*before=*/true);
  ASSERT_TRUE(newest && *newest);
  EXPECT_EQ(format_utc(**newest), "2026-09-17T10:00:00Z");
}

TEST_F(StoreAllRepos, TagsAndAggregatesCountEveryRepository) {
  auto all = store->tag_stats(kAllRepos, 2);
  ASSERT_TRUE(all) << all.error().message;
  std::map<std::string, std::int64_t> counts;
  for (const auto& t : *all) counts[t.name] = t.count;
  EXPECT_EQ(counts,
            (std::map<std::string, std::int64_t>{{"docs", 1}, {"kv-cache", 2}, {"moe", 2}}));
  auto only_beta = store->tag_stats(beta.id, 2);
  ASSERT_TRUE(only_beta);
  EXPECT_EQ(only_beta->size(), 2u);  // kv-cache, moe

  AggregateQuery q;
  q.verdict = "close_read";
  auto agg = store->aggregate(kAllRepos, q);
  ASSERT_TRUE(agg) << agg.error().message;
  EXPECT_EQ(agg->count, 2);
  EXPECT_EQ(names(agg->changes), (std::set<std::string>{"alpha#1", "beta#2"}));
  q.verdict = "";
  q.tags = {"kv-cache"};
  agg = store->aggregate(kAllRepos, q);
  ASSERT_TRUE(agg);
  EXPECT_EQ(names(agg->changes), (std::set<std::string>{"alpha#1", "beta#1"}));
  agg = store->aggregate(alpha.id, q);
  ASSERT_TRUE(agg);
  EXPECT_EQ(names(agg->changes), (std::set<std::string>{"alpha#1"}));
}

TEST_F(StoreAllRepos, SearchFindsEveryRepositoryOrOne) {
  const std::vector<SearchTerm> terms{SearchTerm{"kvcache", false, false, {}}};
  auto all = store->search(kAllRepos, terms, "zh", 10);
  ASSERT_TRUE(all) << all.error().message;
  std::vector<ChangeSummary> rows;
  for (const auto& h : *all) rows.push_back(h.change);
  EXPECT_EQ(names(rows), (std::set<std::string>{"alpha#1", "beta#1"}));
  auto one = store->search(beta.id, terms, "zh", 10);
  ASSERT_TRUE(one);
  ASSERT_EQ(one->size(), 1u);
  EXPECT_EQ((*one)[0].change.repo_id, beta.id);
  EXPECT_EQ((*one)[0].change.title, "Beta kvcache eviction");
}

TEST(JobQueueFilters, ListsJobsOfOneRepositoryOrSerial) {
  TempDir dir;
  TestStore s(dir);
  ASSERT_TRUE(s.store);
  std::vector<JobSpec> jobs;
  for (int i = 0; i < 4; ++i) {
    JobSpec j;
    j.kind = i < 3 ? "write" : "deliver";
    j.repo_id = i % 2 ? 7 : 8;
    j.change_id = 100 + i;
    j.key = fmt::format("k{}", i);
    j.serial = i == 3 ? "deliver:team" : j.key;
    jobs.push_back(j);
  }
  ASSERT_TRUE(s->enqueue_jobs(jobs, 1000));
  JobQuery q;
  q.repo_id = 7;
  auto seven = s->list_jobs(q);
  ASSERT_TRUE(seven) << seven.error().message;
  std::set<std::int64_t> changes;
  for (const auto& j : *seven) changes.insert(j.spec.change_id);
  EXPECT_EQ(changes, (std::set<std::int64_t>{101, 103}));
  q.kind = "write";
  seven = s->list_jobs(q);
  ASSERT_TRUE(seven);
  ASSERT_EQ(seven->size(), 1u);
  EXPECT_EQ((*seven)[0].spec.change_id, 101);
  JobQuery by_serial;
  by_serial.serial = "deliver:team";
  auto d = s->list_jobs(by_serial);
  ASSERT_TRUE(d);
  ASSERT_EQ(d->size(), 1u);
  EXPECT_EQ((*d)[0].spec.kind, "deliver");
  auto every = s->list_jobs(JobQuery{});
  ASSERT_TRUE(every);
  EXPECT_EQ(every->size(), 4u);
}

}  // namespace
}  // namespace mergelens
