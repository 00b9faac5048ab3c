#include "mergelens/web/page_cache.h"

#include <algorithm>

#include "mergelens/util/compress.h"

namespace mergelens::web {
namespace {

// Queued rebuilds beyond this are not queued: the stale copy is served and a
// later request queues the page again.
constexpr size_t kMaxQueued = 1024;
// Requests building pages themselves at once beyond which the server counts
// as busy (two per core of a small machine): then stale copies are served.
constexpr int kBusyBuilds = 4;
// Builds running at once (see PageCache::slots_mu_).
constexpr int kBuildSlots = 4;

// An entry's bytes: its key (held twice: the map's and a rebuild's copy may
// coexist), its reply, and the gzip copy counted as a third of the body
// (made later, on demand), with the allocations' overhead.
size_t size_of(const std::string& key, const Reply& r) {
  return 2 * key.size() + r.body.size() + r.body.size() / 3 + r.type.size() + r.etag.size() +
         r.modified.size() + 256;
}

}  // namespace

bool gzip_ready(const Reply& r) {
  return r.gzip->ready.load(std::memory_order_acquire);
}

const std::string& gzip_of(const Reply& r) {
  std::call_once(r.gzip->once, [&r] {
    if (r.body.size() >= 1024)
      if (auto gz = gzip_compress(r.body); gz && gz->size() < r.body.size())
        r.gzip->bytes = std::move(*gz);
    r.gzip->ready.store(true, std::memory_order_release);
  });
  return r.gzip->bytes;
}

PageCache::PageCache(size_t max_bytes, size_t max_entries, std::chrono::milliseconds max_stale,
                     size_t workers)
    : max_bytes_(max_bytes), max_entries_(std::max<size_t>(max_entries, 1)), max_stale_(max_stale) {
  for (size_t i = 0; i < workers; ++i) workers_.emplace_back([this] { work(); });
}

PageCache::~PageCache() {
  std::deque<Job> dropped;
  {
    std::lock_guard lock(queue_mu_);
    stopping_ = true;
    dropped.swap(queue_);
  }
  queue_cv_.notify_all();
  for (auto& t : workers_) t.join();
  for (auto& job : dropped) job.done.set_value(nullptr);
}

PageCache::Ptr PageCache::fresh(const std::string& key) {
  std::shared_lock lock(mu_);
  auto it = entries_.find(key);
  return it != entries_.end() && it->second.generation == generation_ ? it->second.reply : nullptr;
}

PageCache::Ptr PageCache::get(const std::string& key, Builder build) {
  std::promise<Ptr> promise;
  std::shared_future<Ptr> pending;
  std::uint64_t generation = 0;
  std::string modified;
  {
    std::unique_lock lock(mu_);
    generation = generation_;
    modified = modified_;
    Ptr stale;
    bool young = false;
    if (auto it = entries_.find(key); it != entries_.end()) {
      if (it->second.generation == generation) return it->second.reply;
      stale = it->second.reply;
      young = std::chrono::steady_clock::now() - it->second.built < max_stale_;
    }
    if (auto it = building_.find(key); it != building_.end()) {
      if (stale) return stale;
      pending = it->second;
    } else if (stale && young && !workers_.empty() && building_now_ >= kBusyBuilds) {
      std::lock_guard qlock(queue_mu_);
      if (queue_.size() < kMaxQueued) {
        Job job{key, std::move(build), generation, std::move(modified), {}};
        building_.emplace(key, job.done.get_future().share());
        queue_.push_back(std::move(job));
        queue_cv_.notify_one();
      }
      return stale;
    } else {
      building_.emplace(key, promise.get_future().share());
    }
  }
  if (pending.valid()) return pending.get();
  ++building_now_;
  {
    std::unique_lock lock(slots_mu_);
    const std::uint64_t ticket = next_ticket_++;
    slots_cv_.wait(lock, [&] { return ticket == serving_ && in_use_ < kBuildSlots; });
    ++serving_;
    ++in_use_;
  }
  slots_cv_.notify_all();  // the next ticket may take a free slot too
  Ptr reply = build(std::move(modified));
  {
    std::lock_guard lock(slots_mu_);
    --in_use_;
  }
  slots_cv_.notify_all();
  --building_now_;
  finish(key, reply, generation);
  promise.set_value(reply);
  return reply;
}

void PageCache::finish(const std::string& key, const Ptr& reply, std::uint64_t generation) {
  std::unique_lock lock(mu_);
  building_.erase(key);
  if (!reply->cacheable || reply->status >= 400 || generation != generation_) return;
  if (auto it = entries_.find(key); it != entries_.end()) {
    bytes_ -= size_of(it->first, *it->second.reply);
    entries_.erase(it);
  }
  const size_t size = size_of(key, *reply);
  if (size > max_bytes_ / 2) return;  // one page may not take the whole cache
  if (bytes_ + size > max_bytes_ || entries_.size() + 1 > max_entries_) {
    for (auto it = entries_.begin();
         it != entries_.end() &&
         (bytes_ + size > max_bytes_ / 10 * 9 || entries_.size() + 1 > max_entries_ / 10 * 9);) {
      bytes_ -= size_of(it->first, *it->second.reply);
      it = entries_.erase(it);
    }
  }
  entries_.emplace(key, Entry{reply, generation, std::chrono::steady_clock::now()});
  bytes_ += size;
}

void PageCache::invalidate(std::string modified) {
  std::unique_lock lock(mu_);
  ++generation_;
  modified_ = std::move(modified);
}

void PageCache::set_modified(std::string modified) {
  std::unique_lock lock(mu_);
  modified_ = std::move(modified);
}

void PageCache::work() {
  for (;;) {
    Job job;
    {
      std::unique_lock lock(queue_mu_);
      queue_cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, and every queued rebuild done
      job = std::move(queue_.front());
      queue_.pop_front();
    }
    Ptr reply = job.build(std::move(job.modified));
    finish(job.key, reply, job.generation);
    job.done.set_value(std::move(reply));
  }
}

}  // namespace mergelens::web
