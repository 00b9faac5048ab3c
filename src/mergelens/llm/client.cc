#include "mergelens/llm/client.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <ctime>
#include <exception>
#include <random>
#include <thread>

#include "mergelens/util/http.h"

namespace mergelens::llm {
namespace {

using nlohmann::json;

constexpr std::size_t kMaxMessageChars = 300;

class RealSleeper : public Sleeper {
 public:
  void sleep_for(double seconds) override {
    if (seconds > 0) std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  }
};

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// At most `n` bytes of `s`, not cutting a UTF-8 sequence, with "..." when clipped.
std::string clip(std::string_view s, std::size_t n) {
  if (s.size() <= n) return std::string(s);
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return std::string(s.substr(0, n)) + "...";
}

bool key_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '*' ||
         c == '.';
}

// Replaces what looks like a credential: any run of `text` of 8+ characters (or the whole key
// when it is shorter) that occurs in `key`, "sk-..." tokens and "Bearer ..." values.
std::string redact_secrets(std::string_view text, const std::string& key) {
  std::string out;
  const std::size_t min_run = std::min<std::size_t>(8, key.size());
  std::size_t i = 0;
  while (i < text.size()) {
    std::size_t run = 0;
    if (min_run >= 4) {
      for (std::size_t len = min_run; i + len <= text.size(); ++len) {
        if (key.find(text.substr(i, len)) == std::string::npos) break;
        run = len;
      }
    }
    if (run > 0) {
      out += "[redacted]";
      i += run;
      continue;
    }
    bool boundary = i == 0 || !key_char(text[i - 1]);
    for (std::string_view prefix : {"sk-", "Bearer "}) {
      if (boundary && text.substr(i, prefix.size()) == prefix) {
        std::size_t end = i + prefix.size();
        while (end < text.size() && key_char(text[end])) ++end;
        if (end - i - prefix.size() >= 4) {
          out += std::string(prefix) + "[redacted]";
          i = end;
          run = 1;
          break;
        }
      }
    }
    if (run == 0) out += text[i++];
  }
  return out;
}

// The server's explanation in an error body: error.message, error (a string), message or
// detail; else the body itself. Redacted and clipped.
std::string server_message(std::string_view body, const std::string& key) {
  std::string msg;
  json doc = json::parse(body, nullptr, false);
  if (!doc.is_discarded() && doc.is_object()) {
    auto pick = [&](const json& v) {
      if (v.is_string()) msg = v.get<std::string>();
    };
    if (auto e = doc.find("error"); e != doc.end()) {
      if (e->is_object() && e->contains("message")) pick((*e)["message"]);
      pick(*e);
    }
    if (msg.empty() && doc.contains("message")) pick(doc["message"]);
    if (msg.empty() && doc.contains("detail")) {
      const json& d = doc["detail"];
      msg = d.is_string() ? d.get<std::string>()
                          : d.dump(-1, ' ', false, json::error_handler_t::replace);
    }
  } else {
    msg = std::string(body.substr(0, 4096));
  }
  for (char& c : msg) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  return clip(redact_secrets(std::string_view(msg).substr(0, 4096), key), kMaxMessageChars);
}

bool retryable_status(long status) {
  if (status == 408 || status == 409 || status == 429) return true;
  return status >= 500 && status <= 599 && status != 501 && status != 505;
}

bool rejects_response_format(std::string_view body) {
  std::string b = lower(body);
  for (const char* word : {"response_format", "json_schema", "json_object", "structured output",
                           "guided_json", "response format"}) {
    if (b.find(word) != std::string::npos) return true;
  }
  return false;
}

const char* format_name(int level) {
  return level == 0 ? "json_schema" : level == 1 ? "json_object" : "none";
}

std::string build_body(const ChatRequest& request, const std::string& model, int level,
                       bool max_completion_tokens) {
  json messages = json::array();
  for (const auto& m : request.messages) {
    messages.push_back({{"role", m.role}, {"content", m.content}});
  }
  json body = {{"model", model}, {"messages", messages}, {"temperature", request.temperature}};
  body[max_completion_tokens ? "max_completion_tokens" : "max_tokens"] = request.max_tokens;
  if (request.json_schema && level == 0) {
    json schema = *request.json_schema;
    if (!schema.is_object() || !schema.contains("schema")) schema = {{"schema", schema}};
    if (!schema.contains("name")) schema["name"] = "answer";
    body["response_format"] = {{"type", "json_schema"}, {"json_schema", schema}};
  } else if (request.json_schema && level == 1) {
    body["response_format"] = {{"type", "json_object"}};
  }
  // Prompts quote diffs, which may hold invalid UTF-8: replace it rather than throw.
  return body.dump(-1, ' ', false, json::error_handler_t::replace);
}

long as_count(const json& obj, const char* name) {
  auto it = obj.find(name);
  if (it == obj.end() || !it->is_number()) return 0;
  return std::max<long>(0, it->get<long>());
}

// A chat-completion body -> content, finish reason and usage; std::nullopt when it is not one.
std::optional<ChatResult> parse_completion(std::string_view body) {
  json doc = json::parse(body, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) return std::nullopt;
  auto choices = doc.find("choices");
  if (choices == doc.end() || !choices->is_array() || choices->empty()) return std::nullopt;
  const json& first = (*choices)[0];
  if (!first.is_object()) return std::nullopt;
  auto message = first.find("message");
  if (message == first.end() || !message->is_object()) return std::nullopt;
  ChatResult out;
  auto content = message->find("content");
  if (content != message->end() && content->is_string()) {
    out.content = content->get<std::string>();
  } else if (content != message->end() && !content->is_null()) {
    return std::nullopt;
  }
  if (auto fr = first.find("finish_reason"); fr != first.end() && fr->is_string()) {
    out.finish_reason = fr->get<std::string>();
  }
  if (auto usage = doc.find("usage"); usage != doc.end() && usage->is_object()) {
    out.usage.prompt_tokens = as_count(*usage, "prompt_tokens");
    out.usage.completion_tokens = as_count(*usage, "completion_tokens");
  }
  return out;
}

std::string join_events(const std::vector<std::string>& events) {
  if (events.empty()) return "";
  std::string out = "; events: ";
  for (std::size_t i = 0; i < events.size(); ++i) {
    if (i) out += "; ";
    out += events[i];
  }
  return out;
}

}  // namespace

double Sleeper::jitter_fraction() {
  thread_local std::mt19937_64 gen{std::random_device{}()};
  return std::uniform_real_distribution<double>(0.0, 1.0)(gen);
}

// Holds one of the Client's `concurrency` places for the lifetime of a chat() call.
class Client::Slot {
 public:
  explicit Slot(Client& c) : c_(c) {
    std::unique_lock lock(c_.slots_mutex_);
    int limit = std::max(1, c_.settings_.concurrency);
    c_.slots_cv_.wait(lock, [&] { return c_.in_flight_ < limit; });
    ++c_.in_flight_;
  }
  ~Slot() {
    {
      std::lock_guard lock(c_.slots_mutex_);
      --c_.in_flight_;
    }
    c_.slots_cv_.notify_one();
  }
  Slot(const Slot&) = delete;
  Slot& operator=(const Slot&) = delete;

 private:
  Client& c_;
};

Client::Client(Settings settings, Sleeper* sleeper)
    : settings_(std::move(settings)),
      endpoint_(endpoint_url(settings_.base_url)),
      sleeper_(sleeper),
      format_level_(settings_.use_json_schema ? 0 : 1) {
  if (!sleeper_) {
    static RealSleeper real;
    sleeper_ = &real;
  }
}

LedgerTotals Client::totals() const {
  std::lock_guard lock(ledger_mutex_);
  return ledger_;
}

Result<ChatResult> Client::chat(const ChatRequest& request) {
  Slot slot(*this);
  try {
    return run(request);
  } catch (const std::exception& e) {
    return finish(fail(ErrorKind::kInternal, "LLM request to {} failed: {}",
                       http::redact_url(endpoint_), redact_secrets(e.what(), settings_.api_key)));
  }
}

Result<ChatResult> Client::finish(Result<ChatResult> result) {
  if (result && gate_) gate_->record(result->usage);
  std::lock_guard lock(ledger_mutex_);
  ++ledger_.calls;
  if (!result) {
    ++ledger_.failures;
    return result;
  }
  ledger_.prompt_tokens += result->usage.prompt_tokens;
  ledger_.completion_tokens += result->usage.completion_tokens;
  ledger_.usd += result->usage.prompt_tokens * settings_.usd_per_mtok_prompt / 1e6 +
                 result->usage.completion_tokens * settings_.usd_per_mtok_completion / 1e6;
  return result;
}

Result<ChatResult> Client::run(const ChatRequest& request) {
  const std::string url = http::redact_url(endpoint_);
  ChatResult out;
  int retries = 0;
  std::string last;  // the last retryable failure, for the final message
  auto count_request = [&] {
    std::lock_guard lock(ledger_mutex_);
    ++ledger_.requests;
    if (out.attempts > 1) ++ledger_.retries;
  };
  for (;;) {
    const int level = format_level_.load();
    const bool mct = use_max_completion_tokens_.load();
    http::Request req;
    req.method = "POST";
    req.url = endpoint_;
    req.headers = {{"Content-Type", "application/json"}, {"Accept", "application/json"}};
    if (!settings_.api_key.empty()) {
      req.headers.emplace_back("Authorization", "Bearer " + settings_.api_key);
    }
    req.body = build_body(request, settings_.model, level, mct);
    req.timeout_ms = std::max(1L, settings_.timeout_ms);
    req.connect_timeout_ms = std::min(10000L, req.timeout_ms);
    if (gate_)
      if (auto g = gate_->acquire(); !g) return finish(std::unexpected(g.error()));
    http::Failure failure = http::Failure::kNone;
    auto resp = http::perform(req, &failure);
    ++out.attempts;
    count_request();

    double wait = -1;  // >= 0: the server said how long to wait
    std::string label;
    if (!resp) {
      std::string detail = redact_secrets(resp.error().message, settings_.api_key);
      if (failure == http::Failure::kTooLarge) {
        return finish(fail(ErrorKind::kIo, "LLM request to {} failed: {}", url, detail));
      }
      label = failure == http::Failure::kTimeout
                  ? fmt::format("timed out after {} ms", settings_.timeout_ms)
              : failure == http::Failure::kConnect ? std::string("could not connect")
                                                   : std::string("transport failure");
      last = fmt::format("{} ({})", label, detail);
    } else {
      const long status = resp->status;
      if (status >= 200 && status < 300) {
        auto parsed = parse_completion(resp->body);
        if (!parsed) {
          return finish(fail(ErrorKind::kCorrupt,
                             "LLM endpoint {} answered HTTP {} with a body that is not a chat "
                             "completion: {}",
                             url, status, server_message(resp->body, settings_.api_key)));
        }
        parsed->attempts = out.attempts;
        parsed->events = std::move(out.events);
        return finish(std::move(*parsed));
      }
      if ((status == 400 || status == 422) && request.json_schema && level < 2 &&
          rejects_response_format(resp->body)) {
        int expected = level;
        format_level_.compare_exchange_strong(expected, level + 1);
        out.events.push_back(fmt::format("response_format {} rejected, retrying with {}",
                                         format_name(level), format_name(level + 1)));
        continue;
      }
      if (status == 400 && !mct &&
          lower(resp->body).find("max_completion_tokens") != std::string::npos) {
        use_max_completion_tokens_ = true;
        out.events.push_back("max_tokens rejected, retrying with max_completion_tokens");
        continue;
      }
      std::string message = server_message(resp->body, settings_.api_key);
      // OpenAI answers 429 insufficient_quota when billing, not load, is the problem: waiting
      // does not help.
      const bool no_quota =
          status == 429 && lower(resp->body).find("insufficient_quota") != std::string::npos;
      if (!retryable_status(status) || no_quota) {
        return finish(fail(ErrorKind::kInvalidInput, "LLM endpoint {} answered HTTP {}: {}", url,
                           status, message.empty() ? "(no message)" : message));
      }
      label = std::to_string(status);
      last = message.empty() ? fmt::format("HTTP {}", status)
                             : fmt::format("HTTP {}: {}", status, message);
      const std::string* retry_after = resp->header("retry-after");
      if ((status == 429 || status == 503) && retry_after) {
        long secs = http::retry_after_seconds(*retry_after, std::time(nullptr));
        if (secs >= 0 && secs > settings_.max_backoff_s) {
          return finish(fail(ErrorKind::kIo,
                             "LLM endpoint {} answered HTTP {} and asked to wait {} s "
                             "(Retry-After), longer than the {} s allowed (max_backoff_s); "
                             "giving up after {} attempts{}",
                             url, status, secs, settings_.max_backoff_s, out.attempts,
                             join_events(out.events)));
        }
        if (secs >= 0) wait = static_cast<double>(secs);
      }
    }
    if (retries >= settings_.max_retries) {
      return finish(fail(ErrorKind::kIo, "LLM request to {} failed after {} attempts; last: {}{}",
                         url, out.attempts, last, join_events(out.events)));
    }
    if (wait >= 0) {
      out.events.push_back(fmt::format("{}, Retry-After {} s, waited {:.1f} s", label, wait, wait));
    } else {
      double ceiling = std::min(settings_.max_backoff_s, std::ldexp(1.0, std::min(retries, 30)));
      wait = ceiling * std::clamp(sleeper_->jitter_fraction(), 0.0, 1.0);
      out.events.push_back(
          fmt::format("{}, retry in {:.1f} s (ceiling {:.1f} s)", label, wait, ceiling));
    }
    sleeper_->sleep_for(wait);
    ++retries;
  }
}

}  // namespace mergelens::llm
