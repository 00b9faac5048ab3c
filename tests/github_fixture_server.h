// An in-process HTTP server speaking enough of the GitHub REST API for the
// tests: responses are queued per route and served in order (the last one
// repeats), ETags are honoured with 304s, and every request is counted.
//
// A route is the request path plus, when present, its `state` and `page`
// query parameters ("/repos/o/r/pulls?state=closed&page=2"; page 1 is left
// out). "{base}" in a header value is replaced by the server's address, so
// fixtures can carry real Link headers.
#pragma once

#include <httplib.h>

#include <chrono>
#include <deque>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "mergelens/source/github_client.h"

namespace mergelens::testing {

struct FixtureResponse {
  int status = 200;
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
};

// Contents of tests/fixtures/github/NAME.
inline std::string fixture(const std::string& name) {
  std::ifstream in(std::string(MERGELENS_FIXTURES_DIR) + "/github/" + name, std::ios::binary);
  if (!in) throw std::runtime_error("missing fixture " + name);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

class FixtureServer {
 public:
  FixtureServer() {
    server_.Get(".*",
                [this](const httplib::Request& req, httplib::Response& res) { serve(req, res); });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~FixtureServer() {
    server_.stop();
    thread_.join();
  }
  FixtureServer(const FixtureServer&) = delete;
  FixtureServer& operator=(const FixtureServer&) = delete;

  std::string url() const { return fmt::format("http://127.0.0.1:{}", port_); }

  // Queues a response for `route`.
  void add(const std::string& route, FixtureResponse r) {
    std::lock_guard lock(mu_);
    routes_[route].push_back(std::move(r));
  }
  // Queues a 200 with a fixture file's body and GitHub's usual headers
  // (`extra` adds headers or replaces those of the same name).
  void add_json(const std::string& route, const std::string& file,
                std::vector<std::pair<std::string, std::string>> extra = {}) {
    FixtureResponse r{200, fixture(file), github_headers()};
    for (auto& h : extra) {
      std::erase_if(r.headers, [&](const auto& x) { return x.first == h.first; });
      r.headers.push_back(std::move(h));
    }
    add(route, std::move(r));
  }
  // Replaces whatever is queued for `route`.
  void reset(const std::string& route) {
    std::lock_guard lock(mu_);
    routes_.erase(route);
  }

  static std::vector<std::pair<std::string, std::string>> github_headers() {
    return {{"Content-Type", "application/json; charset=utf-8"},
            {"X-RateLimit-Limit", "5000"},
            {"X-RateLimit-Remaining", "4990"},
            {"X-RateLimit-Reset", "1788000000"},
            {"X-RateLimit-Used", "10"},
            {"X-RateLimit-Resource", "core"},
            {"X-GitHub-Api-Version-Selected", "2022-11-28"}};
  }

  int requests() const {
    std::lock_guard lock(mu_);
    return total_;
  }
  int not_modified() const {
    std::lock_guard lock(mu_);
    return not_modified_;
  }
  int requests_to(const std::string& route) const {
    std::lock_guard lock(mu_);
    auto it = per_route_.find(route);
    return it == per_route_.end() ? 0 : it->second;
  }
  // The Authorization header of the last request ("" when none).
  std::string last_authorization() const {
    std::lock_guard lock(mu_);
    return last_auth_;
  }

 private:
  static std::string route_of(const httplib::Request& req) {
    std::string route = req.path;
    std::string sep = "?";
    if (req.has_param("state")) {
      route += sep + "state=" + req.get_param_value("state");
      sep = "&";
    }
    if (req.has_param("page") && req.get_param_value("page") != "1")
      route += sep + "page=" + req.get_param_value("page");
    return route;
  }

  void serve(const httplib::Request& req, httplib::Response& res) {
    std::lock_guard lock(mu_);
    const std::string route = route_of(req);
    ++total_;
    ++per_route_[route];
    last_auth_ = req.get_header_value("Authorization");
    auto it = routes_.find(route);
    if (it == routes_.end() || it->second.empty()) {
      res.status = 404;
      res.set_content(
          R"({"message":"Not Found","documentation_url":"https://docs.github.com/rest"})",
          "application/json");
      return;
    }
    FixtureResponse r = it->second.front();
    if (it->second.size() > 1) it->second.pop_front();
    std::string etag;
    for (auto& [k, v] : r.headers) {
      size_t at;
      while ((at = v.find("{base}")) != std::string::npos) v.replace(at, 6, url());
      if (k == "ETag") etag = v;
    }
    const std::string inm = req.get_header_value("If-None-Match");
    if (!etag.empty() && inm == etag && r.status == 200) {
      ++not_modified_;
      res.status = 304;
      res.set_header("ETag", etag);
      return;
    }
    res.status = r.status;
    for (const auto& [k, v] : r.headers)
      if (k != "Content-Type") res.set_header(k, v);
    res.set_content(r.body, "application/json; charset=utf-8");
  }

  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  mutable std::mutex mu_;
  std::map<std::string, std::deque<FixtureResponse>> routes_;
  std::map<std::string, int> per_route_;
  int total_ = 0, not_modified_ = 0;
  std::string last_auth_;
};

// A clock that never sleeps: it records the waits and moves time forward.
class FakeClock : public github::Clock {
 public:
  explicit FakeClock(UnixSeconds start = 1788000000 - 3600) : now_(start) {}
  UnixSeconds now() override { return now_; }
  void sleep_ms(std::int64_t ms) override {
    sleeps.push_back(ms);
    now_ += (ms + 999) / 1000;
  }
  std::vector<std::int64_t> sleeps;

 private:
  UnixSeconds now_;
};

}  // namespace mergelens::testing
