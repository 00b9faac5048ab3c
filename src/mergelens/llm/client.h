// A client for OpenAI-compatible chat-completion servers (OpenAI, vLLM, SGLang,
// llama.cpp, Ollama, ...): one request at a time per call, retries with
// backoff, a bounded number of requests in flight, and a usage/cost ledger.
#pragma once

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mergelens/llm/settings.h"
#include "mergelens/util/error.h"

namespace mergelens::llm {

struct Message {
  std::string role;  // "system" | "user" | "assistant"
  std::string content;
};

struct ChatRequest {
  std::vector<Message> messages;
  // {"name": ..., "schema": {...}} (optionally "strict") sent as response_format json_schema;
  // std::nullopt sends no response_format.
  std::optional<nlohmann::json> json_schema;
  double temperature = 0.2;
  int max_tokens = 4096;
};

struct Usage {
  long prompt_tokens = 0, completion_tokens = 0;
};

struct ChatResult {
  std::string content;        // choices[0].message.content ("" when null)
  std::string finish_reason;  // "stop", "length", ... ("" when absent)
  Usage usage;                // from the response's "usage"; zeros when absent
  int attempts = 0;           // HTTP requests made for this call
  // Human-readable record of what happened before the answer, one line per event:
  // "429, Retry-After 2 s, waited 2.0 s", "500, retry in 1.3 s (ceiling 2.0 s)",
  // "response_format json_schema rejected, retrying with json_object".
  std::vector<std::string> events;
};

// requests: HTTP requests sent; failures: chat() calls that returned an error; retries: requests
// beyond the first of a call (format fallbacks included); calls: chat() calls finished.
struct LedgerTotals {
  long requests = 0, failures = 0, retries = 0, prompt_tokens = 0, completion_tokens = 0;
  double usd = 0;  // from the per-million-token prices in Settings; 0 when they are unknown
  long calls = 0;
};

// Waits between attempts; injectable for tests. Implementations must be thread-safe.
class Sleeper {
 public:
  virtual ~Sleeper() = default;
  virtual void sleep_for(double seconds) = 0;
  // A uniform random number in [0, 1) for the backoff's full jitter. The default draws from a
  // per-thread generator; tests override it to make the waits predictable.
  virtual double jitter_fraction();
};

// Shares a rate limit and a token budget with other clients, in this process
// or others (pipeline/model_gate.h keeps them in the store): acquire() is
// asked before every HTTP request and blocks until the request may go, or
// fails (the budget is spent), failing the chat() call with its error;
// record() is told each answer's usage. Implementations must be thread-safe.
class Gate {
 public:
  virtual ~Gate() = default;
  virtual Result<void> acquire() = 0;
  virtual void record(const Usage& usage) = 0;
};

class Client {
 public:
  // `sleeper` nullptr = real sleeping. The Client does not own the sleeper, which must outlive
  // it. Settings are used as given (see resolve_settings for validation); concurrency < 1
  // counts as 1.
  explicit Client(Settings settings, Sleeper* sleeper = nullptr);
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // Sends one chat completion to endpoint_url(settings.base_url) and returns the first choice.
  // Retries (at most settings.max_retries times) on 408/409/429/5xx other than 501/505,
  // timeouts and transport failures, waiting with exponential backoff and full jitter
  // (ceiling 1 s * 2^retry, capped by max_backoff_s) or, on 429/503, the Retry-After the server
  // sends (seconds or HTTP-date; longer than max_backoff_s => fail at once). A 400/422 that
  // rejects response_format steps down to json_object, then to none, without counting as a
  // retry. Blocks while settings.concurrency requests of this Client are in flight.
  // Failure: kIo (transport failure, 5xx or 429 after the retries, a too long Retry-After;
  // names the endpoint URL without query, the attempts, the last status and the events);
  // kInvalidInput (another 4xx, e.g. 401/404, or a 429 insufficient_quota, with the server's
  // error.message clipped to 300 characters); kCorrupt (a 200 whose body is not a chat completion,
  // naming the endpoint). No message contains the API key or anything that looks like it.
  // Thread-safe; never throws.
  Result<ChatResult> chat(const ChatRequest& request);

  LedgerTotals totals() const;  // this Client's ledger so far (thread-safe)
  const Settings& settings() const { return settings_; }
  // Every request first passes `gate` (not owned; nullptr: none). Set it
  // before the first chat() call.
  void set_gate(Gate* gate) { gate_ = gate; }

 private:
  class Slot;
  Result<ChatResult> run(const ChatRequest& request);
  Result<ChatResult> finish(Result<ChatResult> result);
  Settings settings_;
  std::string endpoint_;
  Sleeper* sleeper_;
  Gate* gate_ = nullptr;
  // 0 = json_schema, 1 = json_object, 2 = no response_format; only ever increases.
  std::atomic<int> format_level_;
  // Set once a server asked for max_completion_tokens instead of max_tokens.
  std::atomic<bool> use_max_completion_tokens_{false};
  std::mutex slots_mutex_;
  std::condition_variable slots_cv_;
  int in_flight_ = 0;
  mutable std::mutex ledger_mutex_;
  LedgerTotals ledger_;
};

}  // namespace mergelens::llm
