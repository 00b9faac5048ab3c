// The job queue, the shared model limits and the repository settings
// (store/jobs.h), on SQLite and (pg_unit) on PostgreSQL. Times are passed in,
// so nothing here waits.
#include <gtest/gtest.h>

#include <set>
#include <thread>

#include "test_store.h"

namespace mergelens {
namespace {

using testing::TempDir;
using testing::TestStore;

JobSpec job(std::string key, std::string serial = "", int priority = 100) {
  JobSpec j;
  j.kind = "write";
  j.key = std::move(key);
  j.serial = std::move(serial);
  j.priority = priority;
  j.max_attempts = 3;
  return j;
}

std::vector<std::string> none;

// The next job for `worker` (any kind), failing the test on a store error.
std::optional<Job> claim(Store& s, const std::string& worker, UnixSeconds now,
                         std::span<const std::string> kinds = none) {
  auto j = s.claim_job(worker, kinds, now, 60);
  EXPECT_TRUE(j) << j.error().message;
  return j ? *j : std::nullopt;
}

TEST(JobQueue, OneQueuedJobPerKey) {
  TempDir dir;
  TestStore s(dir);
  std::vector<JobSpec> jobs{job("a"), job("a"), job("b")};
  EXPECT_EQ(*s->enqueue_jobs(jobs, 100), 2u);
  EXPECT_EQ(*s->enqueue_jobs(jobs, 100), 0u);
  // Once "a" runs, a new "a" may wait behind it (new work arrived meanwhile).
  auto a = s->claim_job("w1", none, 100, 60);
  ASSERT_TRUE(a && *a);
  EXPECT_EQ((*a)->spec.key, "a");
  std::vector<JobSpec> again{job("a")};
  EXPECT_EQ(*s->enqueue_jobs(again, 101), 1u);
}

TEST(JobQueue, ClaimsByPriorityThenAgeAndSkipsBusySerials) {
  TempDir dir;
  TestStore s(dir);
  std::vector<JobSpec> jobs{job("late", "", 100), job("x1", "repo:x", 10), job("x2", "repo:x", 10),
                            job("soon", "", 50)};
  ASSERT_TRUE(s->enqueue_jobs(jobs, 100));
  std::vector<std::string> keys;
  for (int i = 0; i < 4; ++i) {
    auto j = s->claim_job(fmt::format("w{}", i), none, 100, 60);
    ASSERT_TRUE(j) << j.error().message;
    if (!*j) break;
    keys.push_back((*j)->spec.key);
  }
  // x2 waits while x1 (same serial) runs.
  EXPECT_EQ(keys, (std::vector<std::string>{"x1", "soon", "late"}));
  auto x1 = s->list_jobs(JobQuery{JobState::kRunning, "", 10});
  ASSERT_TRUE(x1);
  std::int64_t x1_id = 0;
  for (const auto& j : *x1)
    if (j.spec.key == "x1") x1_id = j.id;
  ASSERT_TRUE(*s->complete_job(x1_id, "w0", 101));
  auto x2 = s->claim_job("w9", none, 101, 60);
  ASSERT_TRUE(x2 && *x2);
  EXPECT_EQ((*x2)->spec.key, "x2");
}

TEST(JobQueue, KindsFilterAndNotBefore) {
  TempDir dir;
  TestStore s(dir);
  JobSpec later = job("later");
  later.not_before = 500;
  JobSpec ingest = job("ingest");
  ingest.kind = "ingest";
  std::vector<JobSpec> jobs{later, ingest};
  ASSERT_TRUE(s->enqueue_jobs(jobs, 100));
  std::vector<std::string> writes{"write"};
  EXPECT_FALSE(claim(*s, "w", 100, writes));  // not due yet
  auto j = s->claim_job("w", writes, 500, 60);
  ASSERT_TRUE(j && *j);
  EXPECT_EQ((*j)->spec.key, "later");
}

TEST(JobQueue, ExpiredLeaseIsClaimedAgainAndHeartbeatsKeepIt) {
  TempDir dir;
  TestStore s(dir);
  std::vector<JobSpec> jobs{job("a", "a")};
  ASSERT_TRUE(s->enqueue_jobs(jobs, 100));
  auto first = s->claim_job("dead-worker", none, 100, 60);
  ASSERT_TRUE(first && *first);
  EXPECT_FALSE(claim(*s, "w2", 159));                                    // lease runs to 160
  EXPECT_TRUE(*s->heartbeat_job((*first)->id, "dead-worker", 150, 60));  // now to 210
  EXPECT_FALSE(claim(*s, "w2", 200));
  auto second = s->claim_job("w2", none, 211, 60);
  ASSERT_TRUE(second && *second);
  EXPECT_EQ((*second)->id, (*first)->id);
  EXPECT_EQ((*second)->attempts, 2);
  // The first worker lost it: its heartbeat and completion say so.
  EXPECT_FALSE(*s->heartbeat_job((*first)->id, "dead-worker", 212, 60));
  EXPECT_FALSE(*s->complete_job((*first)->id, "dead-worker", 212));
  EXPECT_TRUE(*s->complete_job((*first)->id, "w2", 213));
}

TEST(JobQueue, FailuresRetryWithBackoffThenDeadLetterWithTheReason) {
  TempDir dir;
  TestStore s(dir);
  std::vector<JobSpec> jobs{job("a")};
  ASSERT_TRUE(s->enqueue_jobs(jobs, 100));
  UnixSeconds now = 100;
  for (int attempt = 1; attempt <= 3; ++attempt) {
    auto j = s->claim_job("w", none, now, 60);
    ASSERT_TRUE(j && *j) << attempt;
    EXPECT_EQ((*j)->attempts, attempt);
    ASSERT_TRUE(*s->fail_job((*j)->id, "w", fmt::format("boom {}", attempt), now, 10, false));
    EXPECT_FALSE(claim(*s, "w", now + 9));  // backing off
    now += 10;
  }
  auto dead = s->list_jobs(JobQuery{JobState::kDead, "", 10});
  ASSERT_TRUE(dead);
  ASSERT_EQ(dead->size(), 1u);
  EXPECT_EQ(dead->front().last_error, "boom 3");
  EXPECT_EQ(*s->retry_dead_jobs("", now), 1u);
  auto back = s->claim_job("w", none, now, 60);
  ASSERT_TRUE(back && *back);
  EXPECT_EQ((*back)->attempts, 1);
}

TEST(JobQueue, AJobWhoseWorkerKeepsDyingIsDeadLettered) {
  TempDir dir;
  TestStore s(dir);
  std::vector<JobSpec> jobs{job("poison"), job("fine")};
  jobs[1].priority = 200;
  ASSERT_TRUE(s->enqueue_jobs(jobs, 0));
  UnixSeconds now = 0;
  for (int i = 0; i < 3; ++i, now += 61) ASSERT_EQ(claim(*s, "w", now)->spec.key, "poison");
  auto next = s->claim_job("w", none, now, 60);  // the 4th claim of poison would be one too many
  ASSERT_TRUE(next && *next);
  EXPECT_EQ((*next)->spec.key, "fine");
  auto dead = s->list_jobs(JobQuery{JobState::kDead, "", 10});
  ASSERT_TRUE(dead && dead->size() == 1u);
  EXPECT_NE(dead->front().last_error.find("lease expired"), std::string::npos);
}

TEST(JobQueue, ReleaseGivesTheJobBackWithoutCountingAndYieldsToAQueuedTwin) {
  TempDir dir;
  TestStore s(dir);
  std::vector<JobSpec> jobs{job("a")};
  ASSERT_TRUE(s->enqueue_jobs(jobs, 0));
  auto j = s->claim_job("w", none, 0, 60);
  ASSERT_TRUE(j && *j);
  ASSERT_TRUE(*s->release_job((*j)->id, "w", 50));
  auto again = s->claim_job("w", none, 50, 60);
  ASSERT_TRUE(again && *again);
  EXPECT_EQ((*again)->attempts, 1);
  ASSERT_TRUE(s->enqueue_jobs(jobs, 51));  // a twin queued while it runs
  ASSERT_TRUE(*s->fail_job((*again)->id, "w", "boom", 51, 10, false));
  auto counts = s->job_counts();
  ASSERT_TRUE(counts);
  std::map<std::string, std::int64_t> by;
  for (const auto& c : *counts) by[to_string(c.state)] = c.count;
  EXPECT_EQ(by["queued"], 1);  // the twin; the failed one stepped aside
  EXPECT_EQ(by["done"], 1);
}

TEST(JobQueue, ConcurrentClaimersNeverTakeTheSameJob) {
  TempDir dir;
  TestStore s(dir);
  std::vector<JobSpec> jobs;
  for (int i = 0; i < 60; ++i) jobs.push_back(job(fmt::format("j{}", i), i % 3 ? "" : "one"));
  ASSERT_TRUE(s->enqueue_jobs(jobs, 0));
  std::mutex mu;
  std::multiset<std::int64_t> seen;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      auto mine = s.reopen();
      if (!mine) return;
      const std::string me = fmt::format("w{}", t);
      for (;;) {
        auto j = mine->claim_job(me, none, 0, 60);
        if (!j || !*j) {
          if (!j) ADD_FAILURE() << j.error().message;
          // Jobs of serial "one" wait for each other: finish and look again.
          std::lock_guard lock(mu);
          if (seen.size() == 60) return;
          continue;
        }
        {
          std::lock_guard lock(mu);
          seen.insert((*j)->id);
        }
        EXPECT_TRUE(*mine->complete_job((*j)->id, me, 0));
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(seen.size(), 60u);
  EXPECT_EQ(std::set<std::int64_t>(seen.begin(), seen.end()).size(), 60u);
}

TEST(JobQueue, ModelLimitSpacesRequestsAndTheBudgetStopsThem) {
  TempDir dir;
  TestStore s(dir);
  ModelLimits l;
  l.requests_per_minute = 60;  // one a second
  l.tokens_per_day = 1000;
  const std::int64_t t0 = 1'000'000'000'000;
  EXPECT_TRUE(s->take_model_slot("m", l, t0)->granted);
  auto second = s->take_model_slot("m", l, t0 + 100);
  EXPECT_FALSE(second->granted);
  EXPECT_EQ(second->wait_ms, 900);
  EXPECT_TRUE(s->take_model_slot("m", l, t0 + 1000)->granted);
  // Another process, another connection: the same limit.
  auto other = s.reopen();
  EXPECT_FALSE(other->take_model_slot("m", l, t0 + 1500)->granted);
  EXPECT_TRUE(other->take_model_slot("m", l, t0 + 2000)->granted);
  ASSERT_TRUE(s->add_model_tokens("m", 1200, t0 + 2100));
  auto spent = s->take_model_slot("m", l, t0 + 10'000);
  EXPECT_FALSE(spent->granted);
  EXPECT_TRUE(spent->budget_spent);
  EXPECT_TRUE(s->take_model_slot("m", l, t0 + 86'400'000)->granted);  // a new day
  EXPECT_TRUE(s->take_model_slot("other-model", l, t0 + 10'000)->granted);
}

TEST(JobQueue, RepositorySettingsRoundTrip) {
  TempDir dir;
  TestStore s(dir);
  RepoSettings r;
  r.name = "o/r";
  r.path = "/srv/r.git";
  r.github = "o/r";
  r.schedule_seconds = 900;
  r.langs = {"zh", "en"};
  r.llm = true;
  ASSERT_TRUE(s->put_repo_settings(r));
  r.branch = "main";
  ASSERT_TRUE(s->put_repo_settings(r));
  auto all = s->list_repo_settings();
  ASSERT_TRUE(all);
  ASSERT_EQ(all->size(), 1u);
  EXPECT_EQ(all->front().branch, "main");
  EXPECT_EQ(all->front().langs, (std::vector<std::string>{"zh", "en"}));
  EXPECT_TRUE(all->front().llm);
  EXPECT_EQ(all->front().schedule_seconds, 900);
  EXPECT_TRUE(*s->remove_repo_settings("o/r"));
  EXPECT_FALSE(*s->remove_repo_settings("o/r"));
}

}  // namespace
}  // namespace mergelens
