// The workers' "deliver a day" job (pipeline/worker.h, cli/deliver_jobs.h)
// against a local stand-in of WeCom (deliver_fake_services.h), on SQLite
// and (pg_unit: the suite is JobQueue*) on PostgreSQL: the closed day is
// enqueued once, waits while a guide of the day is still queued, is then
// sent once, and enqueueing or running it again sends nothing more.
#include <algorithm>

#include <gtest/gtest.h>

#include "deliver_fake_services.h"
#include "mergelens/cli/deliver_jobs.h"
#include "mergelens/pipeline/job_handlers.h"
#include "mergelens/pipeline/worker.h"
#include "web_fixture.h"

namespace mergelens {
namespace {

using testing::FakeService;

struct JobQueueDeliver : ::testing::Test {
  testing::WebStore w;
  FakeService fake{deliver::Kind::kWeCom, ""};
  WorkerOptions opt;
  std::vector<std::string> deliver_only{std::string(kJobDeliver)};

  void SetUp() override {
    deliver::Target t;
    t.name = "team-wecom";
    t.kind = deliver::Kind::kWeCom;
    t.url = fake.url();
    t.timeout_ms = 400;
    t.max_retries = 0;
    t.site_url = "https://lens.example.org";
    opt.id = "test-worker";
    opt.deliver =
        cli::deliver_hooks({t}, "mergelens.toml", std::make_shared<testing::RecordingTransport>());
    opt.deliver_poll_seconds = 60;
    const std::string db = w.db;
    opt.open_store = [db] { return open_store_at(db, StoreOptions{.create = false}); };
  }

  std::vector<Job> deliver_jobs(JobState state) {
    JobQuery q;
    q.kind = std::string(kJobDeliver);
    q.state = state;
    auto jobs = w.store->list_jobs(q);
    EXPECT_TRUE(jobs) << jobs.error().message;
    return jobs ? *jobs : std::vector<Job>{};
  }
};

TEST_F(JobQueueDeliver, TheClosedDayWaitsForItsGuidesThenGoesOutOnce) {
  const JobContext ctx{opt};
  // The fixture's newest day, long closed: one job, whatever the number of scans.
  auto n = enqueue_deliveries(*w.store, w.repo, ctx);
  ASSERT_TRUE(n) << n.error().message;
  EXPECT_EQ(*n, 1u);
  n = enqueue_deliveries(*w.store, w.repo, ctx);
  ASSERT_TRUE(n);
  EXPECT_EQ(*n, 0u);
  auto queued = deliver_jobs(JobState::kQueued);
  ASSERT_EQ(queued.size(), 1u);
  EXPECT_NE(queued[0].spec.payload.find("\"day\":\"2026-09-16\""), std::string::npos)
      << queued[0].spec.payload;

  // A guide of that day still to write: the job is given back, nothing sent.
  auto late = w.store->get_change_by_number(w.repo.id, 1004);
  ASSERT_TRUE(late && *late);
  JobSpec write;
  write.kind = std::string(kJobWrite);
  write.repo_id = w.repo.id;
  write.change_id = (*late)->id;
  write.lang = "zh";
  write.key = "write:test";
  ASSERT_TRUE(w.store->enqueue_jobs(std::span<const JobSpec>(&write, 1), now_seconds()));
  auto job = w.store->claim_job(opt.id, deliver_only, now_seconds(), 60);
  ASSERT_TRUE(job && *job);
  auto waited = run_job(*w.store, **job, ctx);
  ASSERT_TRUE(waited) << waited.error().message;
  EXPECT_GT(waited->release_until, 0);
  EXPECT_NE(waited->note.find("still to write"), std::string::npos) << waited->note;
  EXPECT_EQ(fake.requests(), 0);
  ASSERT_TRUE(w.store->release_job((*job)->id, opt.id, now_seconds()));

  // The write done: a worker sends the day.
  std::vector<std::string> writes{std::string(kJobWrite)};
  auto wj = w.store->claim_job("writer", writes, now_seconds(), 60);
  ASSERT_TRUE(wj && *wj);
  ASSERT_TRUE(w.store->complete_job((*wj)->id, "writer", now_seconds()));
  opt.kinds = deliver_only;
  opt.exit_when_idle = true;
  opt.poll_seconds = 0;
  auto report = run_worker(*w.store, opt);
  ASSERT_TRUE(report) << report.error().message;
  EXPECT_EQ(report->done, 1u);
  EXPECT_EQ(report->dead + report->failed, 0u);
  ASSERT_EQ(fake.accepted().size(), 1u);
  EXPECT_EQ(deliver_jobs(JobState::kDone).size(), 1u);
  auto sent = w.store->deliveries(w.repo.id, "team-wecom", "2026-09-16");
  ASSERT_TRUE(sent && !sent->empty());

  // Sent: later scans enqueue nothing, and the same job run again (a
  // retry after a crash) sends nothing more.
  n = enqueue_deliveries(*w.store, w.repo, ctx);
  ASSERT_TRUE(n);
  EXPECT_EQ(*n, 0u);
  ASSERT_TRUE(w.store->enqueue_jobs(std::span<const JobSpec>(&queued[0].spec, 1), now_seconds()));
  report = run_worker(*w.store, opt);
  ASSERT_TRUE(report) << report.error().message;
  EXPECT_EQ(report->done, 1u);
  EXPECT_EQ(fake.accepted().size(), 1u);
  EXPECT_EQ(fake.requests(), 1);
}

TEST_F(JobQueueDeliver, AWorkerWithoutTargetsTakesNoDeliverJobAndEnqueuesNone) {
  WorkerOptions bare;
  const JobContext ctx{bare};
  auto n = enqueue_deliveries(*w.store, w.repo, ctx);
  ASSERT_TRUE(n);
  EXPECT_EQ(*n, 0u);
  const auto kinds = default_kinds(bare);
  EXPECT_EQ(std::count(kinds.begin(), kinds.end(), std::string(kJobDeliver)), 0);
  EXPECT_FALSE(kinds.empty());
  // With hooks, every kind (an empty list).
  EXPECT_TRUE(default_kinds(opt).empty());
}

}  // namespace
}  // namespace mergelens
