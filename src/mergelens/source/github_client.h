// GitHub REST v3 client: GET requests against api.github.com (or a GitHub
// Enterprise base URL) with pagination, conditional requests and rate limits.
//
// - Pagination follows the `Link: <...>; rel="next"` header, on the API's own
//   origin only: the token is sent to the scheme, host and port of `api_url`
//   and nowhere else (an absolute URL on another origin is refused).
// - Conditional requests: pass the ETag of an earlier response; a 304 answer
//   comes back as `not_modified` and does not count against the rate limit.
// - Primary rate limit (`X-RateLimit-Remaining: 0` until `X-RateLimit-Reset`):
//   waits for the reset when it is within `max_wait_seconds`, otherwise fails
//   with a message saying when to retry. Once the client has seen the budget
//   exhausted it sends nothing more until the reset.
// - Secondary rate limit (403/429 with `Retry-After`, or a 403 naming it):
//   waits as told (or backs off), then retries; never retries at once.
// - 5xx answers and dropped connections are retried with exponential backoff
//   and jitter, at most `max_retries` times.
// Errors name the endpoint as "GET /repos/o/r/pulls" (no query string, no
// host credentials); the token is sent only in the Authorization header and
// never appears in messages.
#pragma once

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <unordered_set>

#include "mergelens/util/error.h"
#include "mergelens/util/time.h"

namespace mergelens::github {

// Time source and sleeper, injectable so tests never really wait.
class Clock {
 public:
  virtual ~Clock() = default;
  virtual UnixSeconds now() = 0;
  virtual void sleep_ms(std::int64_t ms) = 0;
};

// The system clock and std::this_thread::sleep_for. The returned object is
// a process-wide singleton; callers do not own it.
Clock& system_clock();

// Items per page asked of every list endpoint (GitHub's documented maximum).
inline constexpr size_t kPerPage = 100;
// Pages followed per list by default: 300,000 items, more than any repository's
// pull requests; an endless or looping `Link` chain ends here.
inline constexpr size_t kDefaultMaxPages = 3000;

struct ClientOptions {
  std::string api_url = "https://api.github.com";  // no trailing slash needed
  std::string token;                               // empty: anonymous (60 requests/hour)
  std::int64_t max_wait_seconds = 60;              // longest wait for a rate-limit reset
  int max_retries = 4;                             // for 5xx, transport failures, 429/403
  Clock* clock = nullptr;                          // null: system_clock(); not owned
  std::uint32_t jitter_seed = 0;                   // 0: random
  long timeout_ms = 60000;
};

struct Stats {
  std::int64_t requests = 0;      // HTTP requests sent (retries included)
  std::int64_t not_modified = 0;  // 304 answers
  std::int64_t retries = 0;       // requests repeated after 5xx, rate limits or transport errors
  std::int64_t waited_seconds = 0;
};

struct Page {
  bool not_modified = false;  // 304: `body` is empty, the caller's copy is current
  std::string body;           // JSON text
  std::string etag;           // ETag header, empty when absent
  std::string next_url;       // absolute URL of the next page, empty on the last
};

class Client {
 public:
  explicit Client(ClientOptions options);

  // GETs `path_or_url`: a path under the API base ("/repos/o/r/pulls?state=closed")
  // or an absolute URL (a Link header's next page). `etag` non-empty sends
  // If-None-Match. Success: the page (2xx or 304). Failure: kNotFound (404),
  // kInvalidInput (401, 403/422 that is no rate limit, or an absolute URL on
  // another origin than `api_url`: nothing is sent), kIo (rate limit
  // that would need a longer wait than allowed, 5xx or transport errors after
  // the retries), each naming the endpoint.
  Result<Page> get(std::string_view path_or_url, std::string_view etag = {});

  // "GET /repos/o/r/pulls" for messages: method and path without query or host.
  static std::string endpoint_name(std::string_view path_or_url);

  const Stats& stats() const { return stats_; }

 private:
  std::int64_t backoff_ms(int attempt);
  // Before sending: honours a budget seen exhausted. Fails when the reset is too far.
  Result<void> respect_primary_limit(const std::string& endpoint);

  ClientOptions opt_;
  Clock* clock_;
  std::mt19937 rng_;
  Stats stats_;
  bool exhausted_ = false;  // last answer said X-RateLimit-Remaining: 0
  UnixSeconds reset_at_ = 0;
};

// The bound on one list's pagination. Call next(url) before fetching each
// page, the first one included. Success: true (fetch it), false when `url` is
// empty (the list has ended). Failure: kCorrupt naming the list when `url` was
// already fetched (a loop) or `max_pages` pages were fetched already (0: no
// bound). The walk owns copies of the URLs it has seen.
class PageWalk {
 public:
  PageWalk(std::string list_name, size_t max_pages);
  Result<bool> next(const std::string& url);
  size_t pages() const { return pages_; }

 private:
  std::string name_;
  size_t max_pages_;
  size_t pages_ = 0;
  std::unordered_set<std::string> seen_;
};

}  // namespace mergelens::github
