#include "mergelens/source/github_client.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include "mergelens/util/http.h"

namespace mergelens::github {
namespace {

// Backoff: base × 2^attempt, capped, with ±50% jitter so parallel clients spread out.
constexpr std::int64_t kBackoffBaseMs = 1000;
constexpr std::int64_t kBackoffCapMs = 60000;
// GitHub asks to wait at least a minute after a secondary limit that names no wait.
constexpr std::int64_t kSecondaryDefaultSeconds = 60;

class SystemClock final : public Clock {
 public:
  UnixSeconds now() override {
    return std::chrono::duration_cast<std::chrono::seconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
  void sleep_ms(std::int64_t ms) override {
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  }
};

std::int64_t header_int(const http::Response& r, std::string_view name, std::int64_t fallback) {
  const std::string* v = r.header(name);
  if (!v || v->empty()) return fallback;
  try {
    return std::stoll(*v);
  } catch (...) {
    return fallback;
  }
}

bool mentions_secondary_limit(const std::string& body) {
  return body.find("secondary rate limit") != std::string::npos ||
         body.find("abuse detection") != std::string::npos;
}

}  // namespace

Clock& system_clock() {
  static SystemClock clock;
  return clock;
}

Client::Client(ClientOptions options)
    : opt_(std::move(options)),
      clock_(opt_.clock ? opt_.clock : &system_clock()),
      rng_(opt_.jitter_seed ? opt_.jitter_seed : std::random_device{}()) {
  while (!opt_.api_url.empty() && opt_.api_url.back() == '/') opt_.api_url.pop_back();
}

std::string Client::endpoint_name(std::string_view path_or_url) {
  std::string path = http::redact_url(path_or_url);
  if (auto scheme = path.find("://"); scheme != std::string::npos) {
    auto slash = path.find('/', scheme + 3);
    path = slash == std::string::npos ? "/" : path.substr(slash);
  }
  // A GitHub Enterprise base ("https://ghe/api/v3") keeps its prefix out of the name.
  if (auto at = path.find("/repos/"); at != std::string::npos && at > 0) path = path.substr(at);
  return "GET " + path;
}

std::int64_t Client::backoff_ms(int attempt) {
  const std::int64_t base = std::min(kBackoffCapMs, kBackoffBaseMs << std::min(attempt, 16));
  std::uniform_int_distribution<std::int64_t> jitter(base / 2, base + base / 2);
  return jitter(rng_);
}

Result<void> Client::respect_primary_limit(const std::string& endpoint) {
  if (!exhausted_) return {};
  const UnixSeconds now = clock_->now();
  if (now >= reset_at_) {
    exhausted_ = false;
    return {};
  }
  const std::int64_t wait = reset_at_ - now + 1;
  if (wait > opt_.max_wait_seconds)
    return fail(ErrorKind::kIo,
                "{}: GitHub API rate limit exhausted; it resets at {} (in {} min); run sync "
                "again then (or set GITHUB_TOKEN for a higher limit)",
                endpoint, format_utc(reset_at_), (wait + 59) / 60);
  clock_->sleep_ms(wait * 1000);
  stats_.waited_seconds += wait;
  exhausted_ = false;
  return {};
}

Result<Page> Client::get(std::string_view path_or_url, std::string_view etag) {
  const std::string endpoint = endpoint_name(path_or_url);
  http::Request req;
  const bool absolute = path_or_url.find("://") != std::string_view::npos;
  req.url = absolute ? std::string(path_or_url) : opt_.api_url + std::string(path_or_url);
  // The token goes to the configured API origin only: a Link header naming
  // another host (or scheme, or port) is refused, not followed.
  if (absolute && http::origin(req.url) != http::origin(opt_.api_url))
    return fail(ErrorKind::kInvalidInput,
                "{}: a page link names another host ({}) than the GitHub API ({}); refusing to "
                "send the token there",
                endpoint,
                http::origin(req.url).empty() ? "not an http(s) URL" : http::origin(req.url),
                http::origin(opt_.api_url));
  req.timeout_ms = opt_.timeout_ms;
  req.headers = {{"Accept", "application/vnd.github+json"}, {"X-GitHub-Api-Version", "2022-11-28"}};
  if (!opt_.token.empty()) req.headers.emplace_back("Authorization", "Bearer " + opt_.token);
  if (!etag.empty()) req.headers.emplace_back("If-None-Match", std::string(etag));

  for (int attempt = 0;; ++attempt) {
    if (auto r = respect_primary_limit(endpoint); !r) return std::unexpected(r.error());
    if (attempt > 0) ++stats_.retries;
    ++stats_.requests;
    http::Failure failure = http::Failure::kNone;
    auto resp = http::perform(req, &failure);
    const bool can_retry = attempt < opt_.max_retries;
    if (!resp) {
      const bool transient = failure == http::Failure::kConnect ||
                             failure == http::Failure::kTimeout || failure == http::Failure::kOther;
      if (transient && can_retry) {
        clock_->sleep_ms(backoff_ms(attempt));
        continue;
      }
      return fail(ErrorKind::kIo, "{}: {}", endpoint, resp.error().message);
    }
    const long status = resp->status;
    const std::int64_t remaining = header_int(*resp, "x-ratelimit-remaining", -1);
    if (remaining == 0) {
      exhausted_ = true;
      reset_at_ = header_int(*resp, "x-ratelimit-reset", clock_->now() + 60);
    }
    if (status == 304) {
      ++stats_.not_modified;
      Page p;
      p.not_modified = true;
      if (const auto* e = resp->header("etag")) p.etag = *e;
      return p;
    }
    if (status >= 200 && status < 300) {
      Page p;
      p.body = std::move(resp->body);
      if (const auto* e = resp->header("etag")) p.etag = *e;
      if (const auto* l = resp->header("link")) p.next_url = http::link_url(*l, "next");
      return p;
    }
    if (status == 403 || status == 429) {
      const std::string* ra = resp->header("retry-after");
      const long after = ra ? http::retry_after_seconds(*ra, clock_->now()) : -1;
      if (after >= 0 || (status == 403 && mentions_secondary_limit(resp->body)) ||
          (status == 429 && remaining != 0)) {
        // Secondary limit: wait as told, or a minute, growing with each attempt.
        const std::int64_t wait =
            after >= 0 ? after : kSecondaryDefaultSeconds + backoff_ms(attempt) / 1000;
        if (!can_retry || wait > opt_.max_wait_seconds)
          return fail(ErrorKind::kIo,
                      "{}: GitHub secondary rate limit (HTTP {}); asked to wait {} s; run sync "
                      "again later",
                      endpoint, status, wait);
        clock_->sleep_ms(wait * 1000);
        stats_.waited_seconds += wait;
        continue;
      }
      if (remaining == 0) {  // primary limit: respect_primary_limit waits or stops
        if (!can_retry)
          return fail(ErrorKind::kIo,
                      "{}: GitHub API rate limit exhausted; run sync again after {}", endpoint,
                      format_utc(reset_at_));
        continue;
      }
      return fail(ErrorKind::kInvalidInput,
                  "{}: HTTP 403 forbidden (check GITHUB_TOKEN's access to the repository)",
                  endpoint);
    }
    if (status >= 500) {
      if (can_retry) {
        clock_->sleep_ms(backoff_ms(attempt));
        continue;
      }
      return fail(ErrorKind::kIo, "{}: HTTP {} from GitHub after {} attempts", endpoint, status,
                  attempt + 1);
    }
    if (status == 404)
      return fail(ErrorKind::kNotFound,
                  "{}: HTTP 404 (no such repository or pull request, or no access)", endpoint);
    if (status == 401)
      return fail(ErrorKind::kInvalidInput, "{}: HTTP 401 bad credentials (check GITHUB_TOKEN)",
                  endpoint);
    return fail(ErrorKind::kInvalidInput, "{}: unexpected HTTP {}", endpoint, status);
  }
}

PageWalk::PageWalk(std::string list_name, size_t max_pages)
    : name_(std::move(list_name)), max_pages_(max_pages) {}

Result<bool> PageWalk::next(const std::string& url) {
  if (url.empty()) return false;
  if (!seen_.insert(url).second)
    return fail(ErrorKind::kCorrupt,
                "{}: the next page link repeats an earlier page after {} pages (a loop); stopped",
                name_, pages_);
  if (max_pages_ && pages_ >= max_pages_)
    return fail(ErrorKind::kCorrupt,
                "{}: more than {} pages of {} (the --max-pages bound); stopped", name_, max_pages_,
                kPerPage);
  ++pages_;
  return true;
}

}  // namespace mergelens::github
