// The server's page cache: fresh and stale entries, one build per page at a
// time, stale copies while the server is busy, and its memory bound.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <thread>

#include "mergelens/web/page_cache.h"

namespace mergelens::web {
namespace {

using namespace std::chrono_literals;

PageCache::Ptr page(std::string body, std::string modified = "") {
  Reply r;
  r.body = std::move(body);
  r.modified = std::move(modified);
  return std::make_shared<const Reply>(std::move(r));
}

// Four requests building other pages, blocked until release(): the server
// counts as busy and every build slot is taken.
class BusyBuilds {
 public:
  explicit BusyBuilds(PageCache& cache) {
    std::shared_future<void> go = release_.get_future().share();
    for (int i = 0; i < 4; ++i)
      busy_.push_back(std::async(std::launch::async, [&cache, go, i] {
        return cache.get("busy" + std::to_string(i), [go](std::string) {
          go.wait();
          return page("x");
        });
      }));
    std::this_thread::sleep_for(100ms);
  }
  void release() {
    if (!released_) release_.set_value();
    released_ = true;
  }
  ~BusyBuilds() {
    release();
    for (auto& b : busy_) b.get();
  }

 private:
  std::promise<void> release_;
  bool released_ = false;
  std::vector<std::future<PageCache::Ptr>> busy_;
};

TEST(PageCache, AStalePageIsRebuiltByTheNextRequestWhenTheServerIsIdle) {
  PageCache cache(1 << 20, 1000, 30s, 2);
  cache.set_modified("t0");
  auto first = cache.get("k", [](std::string m) { return page("v1", m); });
  EXPECT_EQ(first->body, "v1");
  EXPECT_EQ(first->modified, "t0");
  EXPECT_EQ(cache.fresh("k"), first);
  cache.invalidate("t1");
  EXPECT_EQ(cache.fresh("k"), nullptr);
  auto second = cache.get("k", [](std::string m) { return page("v2", m); });
  EXPECT_EQ(second->body, "v2");
  EXPECT_EQ(second->modified, "t1");
  EXPECT_EQ(cache.fresh("k"), second);
}

TEST(PageCache, APageIsBuiltOnceHoweverManyAskAtOnce) {
  PageCache cache(1 << 20, 1000, 30s, 2);
  std::atomic<int> builds{0};
  std::promise<void> release;
  std::shared_future<void> go = release.get_future().share();
  auto slow = [&](std::string) {
    ++builds;
    go.wait();
    return page("built");
  };
  std::vector<std::future<PageCache::Ptr>> askers;
  for (int i = 0; i < 8; ++i)
    askers.push_back(std::async(std::launch::async, [&] { return cache.get("k", slow); }));
  std::this_thread::sleep_for(100ms);
  release.set_value();
  for (auto& a : askers) EXPECT_EQ(a.get()->body, "built");
  EXPECT_EQ(builds.load(), 1);
}

TEST(PageCache, WhenBusyAStaleCopyIsServedAndRebuiltInTheBackground) {
  PageCache cache(1 << 20, 1000, 30s, 2);
  cache.get("hot", [](std::string) { return page("old"); });
  cache.invalidate("t1");
  BusyBuilds busy(cache);
  std::atomic<bool> rebuilt{false};
  auto served = cache.get("hot", [&](std::string) {
    rebuilt = true;
    return page("new");
  });
  EXPECT_EQ(served->body, "old");
  for (int i = 0; i < 100 && !cache.fresh("hot"); ++i) std::this_thread::sleep_for(10ms);
  ASSERT_NE(cache.fresh("hot"), nullptr);
  EXPECT_EQ(cache.fresh("hot")->body, "new");
  EXPECT_TRUE(rebuilt.load());
}

TEST(PageCache, AStaleCopyOlderThanTheLimitIsNeverServed) {
  PageCache cache(1 << 20, 1000, 0s, 2);
  cache.get("k", [](std::string) { return page("old"); });
  cache.invalidate("t1");
  BusyBuilds busy(cache);
  // Every build slot is taken: this request waits for one, then builds.
  std::thread releaser([&] {
    std::this_thread::sleep_for(200ms);
    busy.release();
  });
  EXPECT_EQ(cache.get("k", [](std::string) { return page("new"); })->body, "new");
  releaser.join();
}

TEST(PageCache, MemoryStaysUnderItsBoundAndErrorsAreNotKept) {
  PageCache cache(64 * 1024, 1000, 30s, 0);
  for (int i = 0; i < 100; ++i)
    cache.get("k" + std::to_string(i), [](std::string) { return page(std::string(4000, 'x')); });
  int kept = 0;
  for (int i = 0; i < 100; ++i) kept += cache.fresh("k" + std::to_string(i)) != nullptr;
  EXPECT_GT(kept, 0);
  EXPECT_LE(kept, 16);                     // 64 KiB of ~4 KiB pages
  EXPECT_NE(cache.fresh("k99"), nullptr);  // the newest is always kept
  cache.get("err", [](std::string) {
    Reply r;
    r.status = 500;
    return std::make_shared<const Reply>(r);
  });
  EXPECT_EQ(cache.fresh("err"), nullptr);
}

// Issue 34: small pages under long unique keys grew the cache without bound,
// since only bodies were counted.
TEST(PageCache, KeysCountAgainstTheBoundAndEntriesAreCapped) {
  PageCache by_bytes(256 * 1024, 100000, 30s, 0);
  const std::string long_key(16 * 1024, 'q');
  for (int i = 0; i < 200; ++i)
    by_bytes.get(long_key + std::to_string(i), [](std::string) { return page("tiny"); });
  int kept = 0;
  for (int i = 0; i < 200; ++i) kept += by_bytes.fresh(long_key + std::to_string(i)) != nullptr;
  EXPECT_LE(kept, 8);  // 256 KiB of keys counted twice: 32 KiB each
  EXPECT_GT(kept, 0);

  PageCache by_count(1 << 30, 50, 30s, 0);
  for (int i = 0; i < 500; ++i)
    by_count.get("k" + std::to_string(i), [](std::string) { return page("tiny"); });
  kept = 0;
  for (int i = 0; i < 500; ++i) kept += by_count.fresh("k" + std::to_string(i)) != nullptr;
  EXPECT_LE(kept, 50);
  EXPECT_NE(by_count.fresh("k499"), nullptr);
  // Answers of 400 and above are not kept: unknown pages cannot fill it.
  by_count.get("missing", [](std::string) {
    Reply r;
    r.status = 404;
    return std::make_shared<const Reply>(r);
  });
  EXPECT_EQ(by_count.fresh("missing"), nullptr);
}

}  // namespace
}  // namespace mergelens::web
