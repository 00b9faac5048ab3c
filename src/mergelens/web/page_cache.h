// The server's cache of rendered pages (internal to web/).
//
// Pages are cached until another connection commits to the store; then every
// entry is stale (its `generation` is older). A stale page is still whole (it
// was built in one read transaction), so:
//   - a stale page is rebuilt by the request that asks for it, so a reader
//     sees a commit on the next request;
//   - but when the server is busy (several requests building pages at once,
//     as when a job commits continuously under heavy traffic), a stale page
//     younger than `max_stale` is served at once and rebuilt by a background
//     worker, so readers are not queued behind the builds;
//   - a page is never built twice at once: others wait for the first build
//     or take the stale copy.
// Memory is bounded: past `max_bytes` (each entry's key, reply and a third of
// its body for the gzip copy) or `max_entries`, arbitrary entries are dropped
// until the cache is under 90 % of both. Only answers below 400 are kept, so
// requests for pages that do not exist cannot fill it; the server makes keys
// of the parameters a page reads alone (server.cc, page_request).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace mergelens::web {

struct Reply {
  int status = 200;
  std::string type;
  std::string body;
  std::string etag;
  bool cacheable = true;  // kept in the page cache
  std::string modified;   // Last-Modified: when the data it was built from changed
  // The body gzip-compressed, made by the first request that accepts gzip
  // (see gzip_of); shared by the copies of this reply.
  struct Gzip {
    std::once_flag once;
    std::string bytes;  // empty when compression does not pay
    std::atomic<bool> ready{false};
  };
  std::shared_ptr<Gzip> gzip = std::make_shared<Gzip>();
};

// The gzip form of `r`'s body, compressed on first use; empty when the body
// is under 1 KB or does not shrink.
const std::string& gzip_of(const Reply& r);
// True once gzip_of(r) has been computed (it then returns at once).
bool gzip_ready(const Reply& r);

class PageCache {
 public:
  using Ptr = std::shared_ptr<const Reply>;
  // Builds a page; `modified` is the Last-Modified to stamp it with. Must
  // not throw.
  // (The pointer a getter receives is never null, but for a request that
  // waited for a background rebuild dropped when the cache was destroyed.)
  using Builder = std::function<Ptr(std::string modified)>;

  // Starts `workers` background threads for rebuilding stale pages.
  PageCache(size_t max_bytes, size_t max_entries, std::chrono::milliseconds max_stale,
            size_t workers);
  // Drops the queued rebuilds (a request waiting for one gets null), lets the
  // running ones end and joins the workers.
  ~PageCache();
  PageCache(const PageCache&) = delete;
  PageCache& operator=(const PageCache&) = delete;

  // The entry for `key` when it is fresh, else null. Cheap (shared lock).
  Ptr fresh(const std::string& key);
  // The page for `key`: fresh, stale (rebuilt in the background), built
  // now with `build`, or the result of a build already running.
  Ptr get(const std::string& key, Builder build);
  // Another connection committed: every entry is stale from now on.
  // `modified` is the Last-Modified of pages built from now on.
  void invalidate(std::string modified);
  // Sets the Last-Modified of pages built before any invalidation.
  void set_modified(std::string modified);

 private:
  struct Entry {
    Ptr reply;
    std::uint64_t generation = 0;
    std::chrono::steady_clock::time_point built;
  };
  struct Job {
    std::string key;
    Builder build;
    std::uint64_t generation = 0;
    std::string modified;
    std::promise<Ptr> done;
  };
  // Stores what a build produced (when no commit came meanwhile) and ends
  // the in-flight mark. Takes the lock.
  void finish(const std::string& key, const Ptr& reply, std::uint64_t generation);
  void work();

  const size_t max_bytes_;
  const size_t max_entries_;
  const std::chrono::milliseconds max_stale_;
  std::shared_mutex mu_;
  std::unordered_map<std::string, Entry> entries_;
  std::unordered_map<std::string, std::shared_future<Ptr>> building_;
  size_t bytes_ = 0;
  std::atomic<int> building_now_{0};  // requests building a page themselves (or waiting to)
  // Builds run at most kBuildSlots at once, in the order requests came (a
  // ticket lock): more builds than cores only add contention, and a FIFO
  // queue keeps the slowest reader's wait near the average one's.
  std::mutex slots_mu_;
  std::condition_variable slots_cv_;
  std::uint64_t next_ticket_ = 0, serving_ = 0;
  int in_use_ = 0;
  std::uint64_t generation_ = 0;
  std::string modified_;
  // Background rebuilds.
  std::mutex queue_mu_;
  std::condition_variable queue_cv_;
  std::deque<Job> queue_;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace mergelens::web
