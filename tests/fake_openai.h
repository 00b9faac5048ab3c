// A fake OpenAI-compatible chat-completions server (cpp-httplib, in this
// process) and a sleeper that records waits, shared by the LLM tests.
#pragma once

#include <atomic>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "mergelens/llm/client.h"

namespace mergelens::llm {

using nlohmann::json;

// What the fake server saw of one request.
struct Seen {
  json body;
  std::string authorization;
};

// A chat-completions server on 127.0.0.1. `respond(n, body, res)` answers the n-th request
// (0-based).
class FakeServer {
 public:
  using Handler = std::function<void(int n, const json& body, httplib::Response& res)>;

  explicit FakeServer(Handler respond) : respond_(std::move(respond)) {
    server_.Post("/v1/chat/completions",
                 [this](const httplib::Request& req, httplib::Response& res) {
                   int now = ++in_flight_;
                   int seen_max = max_in_flight_.load();
                   while (now > seen_max && !max_in_flight_.compare_exchange_weak(seen_max, now)) {
                   }
                   json body = json::parse(req.body, nullptr, false);
                   int n;
                   {
                     std::lock_guard lock(mutex_);
                     n = static_cast<int>(seen_.size());
                     seen_.push_back({body, req.get_header_value("Authorization")});
                   }
                   respond_(n, body, res);
                   --in_flight_;
                 });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
  }
  ~FakeServer() {
    server_.stop();
    thread_.join();
  }

  std::string base_url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  int requests() {
    std::lock_guard lock(mutex_);
    return static_cast<int>(seen_.size());
  }
  Seen seen(int n) {
    std::lock_guard lock(mutex_);
    return seen_.at(n);
  }
  int max_in_flight() const { return max_in_flight_; }

 private:
  Handler respond_;
  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::mutex mutex_;
  std::vector<Seen> seen_;
  std::atomic<int> in_flight_{0}, max_in_flight_{0};
};

inline json completion(const std::string& content, long prompt = 10, long completion_tokens = 5) {
  return {{"id", "chatcmpl-123"},
          {"object", "chat.completion"},
          {"created", 1700000000},
          {"model", "test-model"},
          {"choices",
           {{{"index", 0},
             {"message", {{"role", "assistant"}, {"content", content}}},
             {"finish_reason", "stop"}}}},
          {"usage",
           {{"prompt_tokens", prompt},
            {"completion_tokens", completion_tokens},
            {"total_tokens", prompt + completion_tokens}}}};
}

inline void answer(httplib::Response& res, const std::string& content, long prompt = 10,
                   long completion_tokens = 5) {
  res.status = 200;
  res.set_content(completion(content, prompt, completion_tokens).dump(), "application/json");
}

inline void error(httplib::Response& res, int status, const std::string& message,
                  const std::string& type = "server_error") {
  res.status = status;
  json e = {{"error", {{"message", message}, {"type", type}, {"code", nullptr}}}};
  res.set_content(e.dump(), "application/json");
}

class FakeSleeper : public Sleeper {
 public:
  explicit FakeSleeper(double jitter = 1.0) : jitter_(jitter) {}
  void sleep_for(double seconds) override {
    std::lock_guard lock(mutex_);
    waits_.push_back(seconds);
  }
  double jitter_fraction() override { return jitter_; }
  std::vector<double> waits() {
    std::lock_guard lock(mutex_);
    return waits_;
  }

 private:
  double jitter_;
  std::mutex mutex_;
  std::vector<double> waits_;
};

}  // namespace mergelens::llm
