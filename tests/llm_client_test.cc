// Tests for llm/client: a local HTTP server in this process speaks the OpenAI
// chat-completions protocol (cpp-httplib); a fake sleeper records the waits.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <ctime>
#include <functional>
#include <mutex>
#include <thread>

#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include "fake_openai.h"
#include "mergelens/llm/client.h"

namespace mergelens::llm {
namespace {

using nlohmann::json;

Settings settings_for(const FakeServer& server) {
  Settings s;
  s.base_url = server.base_url();
  s.api_key = "sk-test-0123456789abcdefghij";
  s.model = "test-model";
  s.timeout_ms = 5000;
  return s;
}

ChatRequest simple_request() {
  ChatRequest r;
  r.messages = {{"system", "You answer in JSON."}, {"user", "Summarise PR #1."}};
  r.json_schema = json{{"name", "guide"},
                       {"schema",
                        {{"type", "object"},
                         {"properties", {{"summary", {{"type", "string"}}}}},
                         {"required", {"summary"}}}}};
  return r;
}

std::string endpoint(const FakeServer& server) {
  return server.base_url() + "/v1/chat/completions";
}

TEST(LlmClient, SendsTheRequestAndReadsTheAnswer) {
  FakeServer server([](int, const json&, httplib::Response& res) {
    answer(res, R"({"summary": "adds a flag"})", 123, 45);
  });
  FakeSleeper sleeper;
  Settings s = settings_for(server);
  s.base_url += "/v1/";  // a base that already names the API version
  Client client(s, &sleeper);
  auto r = client.chat(simple_request());
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->content, R"({"summary": "adds a flag"})");
  EXPECT_EQ(r->finish_reason, "stop");
  EXPECT_EQ(r->usage.prompt_tokens, 123);
  EXPECT_EQ(r->usage.completion_tokens, 45);
  EXPECT_EQ(r->attempts, 1);
  EXPECT_TRUE(r->events.empty());

  ASSERT_EQ(server.requests(), 1);
  Seen seen = server.seen(0);
  EXPECT_EQ(seen.authorization, "Bearer sk-test-0123456789abcdefghij");
  EXPECT_EQ(seen.body["model"], "test-model");
  ASSERT_EQ(seen.body["messages"].size(), 2u);
  EXPECT_EQ(seen.body["messages"][0]["role"], "system");
  EXPECT_EQ(seen.body["messages"][1]["content"], "Summarise PR #1.");
  EXPECT_EQ(seen.body["max_tokens"], 4096);
  EXPECT_DOUBLE_EQ(seen.body["temperature"].get<double>(), 0.2);
  EXPECT_EQ(seen.body["response_format"]["type"], "json_schema");
  EXPECT_EQ(seen.body["response_format"]["json_schema"]["name"], "guide");
  EXPECT_EQ(seen.body["response_format"]["json_schema"]["schema"]["type"], "object");
  EXPECT_TRUE(sleeper.waits().empty());
}

TEST(LlmClient, NoKeyNoSchemaSendsNeither) {
  FakeServer server([](int, const json&, httplib::Response& res) { answer(res, "hello"); });
  Settings s = settings_for(server);
  s.api_key.clear();
  Client client(s);
  ChatRequest req = simple_request();
  req.json_schema.reset();
  auto r = client.chat(req);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(server.seen(0).authorization, "");
  EXPECT_FALSE(server.seen(0).body.contains("response_format"));
}

TEST(LlmClient, InvalidUtf8InThePromptIsSentReplaced) {
  FakeServer server([](int, const json&, httplib::Response& res) { answer(res, "{}"); });
  Client client(settings_for(server));
  ChatRequest req = simple_request();
  req.messages[1].content = "diff: \xff\xfe bytes";
  auto r = client.chat(req);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(server.seen(0).body["messages"][1]["content"], "diff: \xEF\xBF\xBD\xEF\xBF\xBD bytes");
}

TEST(LlmClient, HonoursRetryAfterSecondsOn429) {
  FakeServer server([](int n, const json&, httplib::Response& res) {
    if (n == 0) {
      error(res, 429, "Rate limit reached", "requests");
      res.set_header("Retry-After", "2");
    } else {
      answer(res, "{}");
    }
  });
  FakeSleeper sleeper;
  Client client(settings_for(server), &sleeper);
  auto r = client.chat(simple_request());
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->attempts, 2);
  EXPECT_EQ(sleeper.waits(), std::vector<double>{2.0});
  ASSERT_EQ(r->events.size(), 1u);
  EXPECT_EQ(r->events[0], "429, Retry-After 2 s, waited 2.0 s");
}

TEST(LlmClient, HonoursRetryAfterHttpDateOn503) {
  FakeServer server([](int n, const json&, httplib::Response& res) {
    if (n == 0) {
      error(res, 503, "overloaded");
      std::time_t later = std::time(nullptr) + 5;
      std::tm tm{};
      gmtime_r(&later, &tm);
      char date[64];
      std::strftime(date, sizeof date, "%a, %d %b %Y %H:%M:%S GMT", &tm);
      res.set_header("Retry-After", date);
    } else {
      answer(res, "{}");
    }
  });
  FakeSleeper sleeper;
  Client client(settings_for(server), &sleeper);
  auto r = client.chat(simple_request());
  ASSERT_TRUE(r) << r.error().message;
  auto waits = sleeper.waits();
  ASSERT_EQ(waits.size(), 1u);
  EXPECT_GE(waits[0], 3.0);  // 5 s from the server's clock, less the time to get here
  EXPECT_LE(waits[0], 5.0);
  EXPECT_TRUE(r->events[0].starts_with("503, Retry-After ")) << r->events[0];
}

TEST(LlmClient, RetryAfterLongerThanTheCapGivesUp) {
  FakeServer server([](int, const json&, httplib::Response& res) {
    error(res, 429, "slow down");
    res.set_header("Retry-After", "3600");
  });
  FakeSleeper sleeper;
  Client client(settings_for(server), &sleeper);
  auto r = client.chat(simple_request());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::kIo);
  EXPECT_NE(r.error().message.find("3600 s"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("max_backoff_s"), std::string::npos) << r.error().message;
  EXPECT_EQ(server.requests(), 1);
  EXPECT_TRUE(sleeper.waits().empty());
}

TEST(LlmClient, BackoffGrowsIsJitteredAndCapped) {
  for (double jitter : {1.0, 0.5}) {
    FakeServer server([](int n, const json&, httplib::Response& res) {
      if (n < 3) {
        error(res, 500, "internal");
      } else {
        answer(res, "{}");
      }
    });
    FakeSleeper sleeper(jitter);
    Settings s = settings_for(server);
    s.max_backoff_s = 3;
    Client client(s, &sleeper);
    auto r = client.chat(simple_request());
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r->attempts, 4);
    // Ceilings 1, 2, min(4, 3) s, each scaled by the jitter fraction.
    std::vector<double> want = {1 * jitter, 2 * jitter, 3 * jitter};
    EXPECT_EQ(sleeper.waits(), want) << "jitter " << jitter;
    ASSERT_EQ(r->events.size(), 3u);
    EXPECT_EQ(r->events[2], fmt::format("500, retry in {:.1f} s (ceiling 3.0 s)", 3 * jitter));
  }
}

TEST(LlmClient, DefaultJitterStaysUnderTheCeiling) {
  struct RecordOnly : Sleeper {
    std::vector<double> waits;
    void sleep_for(double s) override { waits.push_back(s); }
  } sleeper;
  FakeServer server([](int, const json&, httplib::Response& res) { error(res, 502, "bad gw"); });
  Settings s = settings_for(server);
  s.max_retries = 6;
  s.max_backoff_s = 8;
  Client client(s, &sleeper);
  ASSERT_FALSE(client.chat(simple_request()));
  ASSERT_EQ(sleeper.waits.size(), 6u);
  const double ceilings[] = {1, 2, 4, 8, 8, 8};
  for (std::size_t i = 0; i < 6; ++i) {
    EXPECT_GE(sleeper.waits[i], 0.0);
    EXPECT_LE(sleeper.waits[i], ceilings[i]);
  }
}

TEST(LlmClient, GivesUpAfterMaxRetriesWithAClearError) {
  FakeServer server([](int, const json&, httplib::Response& res) {
    error(res, 500, "The server had an error while processing your request.");
  });
  FakeSleeper sleeper;
  Settings s = settings_for(server);
  s.max_retries = 3;
  Client client(s, &sleeper);
  auto r = client.chat(simple_request());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::kIo);
  EXPECT_EQ(server.requests(), 4);
  EXPECT_EQ(sleeper.waits().size(), 3u);
  const std::string& m = r.error().message;
  EXPECT_NE(m.find(endpoint(server)), std::string::npos) << m;
  EXPECT_NE(m.find("after 4 attempts"), std::string::npos) << m;
  EXPECT_NE(m.find("HTTP 500: The server had an error"), std::string::npos) << m;
  EXPECT_NE(m.find("500, retry in 1.0 s"), std::string::npos) << m;
  EXPECT_NE(m.find("500, retry in 4.0 s"), std::string::npos) << m;
  LedgerTotals t = client.totals();
  EXPECT_EQ(t.requests, 4);
  EXPECT_EQ(t.retries, 3);
  EXPECT_EQ(t.failures, 1);
  EXPECT_EQ(t.calls, 1);
}

TEST(LlmClient, RetriesAfterATimeout) {
  FakeServer server([](int n, const json&, httplib::Response& res) {
    if (n == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1200));
    answer(res, "{\"late\": false}");
  });
  FakeSleeper sleeper;
  Settings s = settings_for(server);
  s.timeout_ms = 300;
  Client client(s, &sleeper);
  auto r = client.chat(simple_request());
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->attempts, 2);
  ASSERT_EQ(r->events.size(), 1u);
  EXPECT_TRUE(r->events[0].starts_with("timed out after 300 ms, retry in")) << r->events[0];
}

TEST(LlmClient, ConnectionRefusedIsABoundedIoError) {
  // A port that was free a moment ago and has nothing listening.
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  socklen_t len = sizeof addr;
  ASSERT_EQ(getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  close(fd);
  Settings s;
  s.base_url = "http://127.0.0.1:" + std::to_string(ntohs(addr.sin_port));
  s.model = "m";
  s.max_retries = 2;
  FakeSleeper sleeper;
  Client client(s, &sleeper);
  auto r = client.chat(simple_request());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::kIo);
  EXPECT_NE(r.error().message.find("could not connect"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("after 3 attempts"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find(s.base_url + "/v1/chat/completions"), std::string::npos);
  EXPECT_EQ(sleeper.waits().size(), 2u);
  EXPECT_EQ(client.totals().requests, 3);
}

TEST(LlmClient, StepsDownResponseFormatAndRemembers) {
  FakeServer server([](int, const json& body, httplib::Response& res) {
    std::string type = body.contains("response_format") ? body["response_format"]["type"] : "";
    if (type == "json_schema") {
      error(res, 400, "Invalid parameter: 'response_format' of type 'json_schema' is not supported",
            "invalid_request_error");
    } else {
      answer(res, "{}");
    }
  });
  FakeSleeper sleeper;
  Client client(settings_for(server), &sleeper);
  auto r = client.chat(simple_request());
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->attempts, 2);
  ASSERT_EQ(r->events.size(), 1u);
  EXPECT_EQ(r->events[0], "response_format json_schema rejected, retrying with json_object");
  EXPECT_EQ(server.seen(1).body["response_format"]["type"], "json_object");
  EXPECT_TRUE(sleeper.waits().empty());
  // The next call starts with what worked.
  auto again = client.chat(simple_request());
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(again->attempts, 1);
  EXPECT_EQ(server.seen(2).body["response_format"]["type"], "json_object");
}

TEST(LlmClient, StepsDownToNoResponseFormat) {
  FakeServer server([](int, const json& body, httplib::Response& res) {
    if (body.contains("response_format")) {
      error(res, 400, "response_format is not supported by this server", "BadRequestError");
    } else {
      answer(res, "{}");
    }
  });
  Client client(settings_for(server));
  auto r = client.chat(simple_request());
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->attempts, 3);
  EXPECT_FALSE(server.seen(2).body.contains("response_format"));
  ASSERT_EQ(r->events.size(), 2u);
  EXPECT_EQ(r->events[1], "response_format json_object rejected, retrying with none");
}

TEST(LlmClient, AnUnrelated400FailsAtOnce) {
  FakeServer server([](int, const json&, httplib::Response& res) {
    error(res, 400, "This model's maximum context length is 8192 tokens.", "invalid_request_error");
  });
  FakeSleeper sleeper;
  Client client(settings_for(server), &sleeper);
  auto r = client.chat(simple_request());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::kInvalidInput);
  EXPECT_NE(r.error().message.find("HTTP 400: This model's maximum context length"),
            std::string::npos)
      << r.error().message;
  EXPECT_EQ(server.requests(), 1);
}

TEST(LlmClient, AnErrorNeverShowsTheKey) {
  const std::string key = "sk-proj-Zq81xVb7TTe4pLm0Kd9sWn3RfYh2";
  FakeServer server([&](int, const json&, httplib::Response& res) {
    error(res, 401,
          "Incorrect API key provided: " + key + ". Also seen as " + key.substr(0, 14) + "****" +
              key.substr(key.size() - 4) + " and Bearer " + key,
          "invalid_request_error");
  });
  FakeSleeper sleeper;
  Settings s = settings_for(server);
  s.api_key = key;
  Client client(s, &sleeper);
  auto r = client.chat(simple_request());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::kInvalidInput);
  const std::string& m = r.error().message;
  EXPECT_NE(m.find("HTTP 401"), std::string::npos) << m;
  EXPECT_NE(m.find("Incorrect API key provided"), std::string::npos) << m;
  EXPECT_EQ(m.find(key), std::string::npos) << m;
  EXPECT_EQ(m.find(key.substr(8, 10)), std::string::npos) << m;
  EXPECT_EQ(m.find(key.substr(0, 14)), std::string::npos) << m;
  EXPECT_EQ(server.requests(), 1);
}

TEST(LlmClient, ServerMessagesAreClipped) {
  FakeServer server([](int, const json&, httplib::Response& res) {
    error(res, 404, "The model `x` does not exist. " + std::string(2000, 'z'));
  });
  Client client(settings_for(server));
  auto r = client.chat(simple_request());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::kInvalidInput);
  EXPECT_NE(r.error().message.find("does not exist"), std::string::npos);
  EXPECT_LT(r.error().message.size(), 500u);
  EXPECT_EQ(server.requests(), 1);  // a 404 is not retried
}

TEST(LlmClient, AQuotaErrorIsNotRetried) {
  FakeServer server([](int, const json&, httplib::Response& res) {
    res.status = 429;
    json e = {{"error",
               {{"message", "You exceeded your current quota, please check your plan."},
                {"type", "insufficient_quota"},
                {"code", "insufficient_quota"}}}};
    res.set_content(e.dump(), "application/json");
  });
  FakeSleeper sleeper;
  Client client(settings_for(server), &sleeper);
  auto r = client.chat(simple_request());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::kInvalidInput);
  EXPECT_NE(r.error().message.find("exceeded your current quota"), std::string::npos);
  EXPECT_EQ(server.requests(), 1);
  EXPECT_TRUE(sleeper.waits().empty());
}

TEST(LlmClient, A200ThatIsNotACompletionIsCorrupt) {
  FakeServer server([](int, const json&, httplib::Response& res) {
    res.status = 200;
    res.set_content("<html><body>Bad gateway page</body></html>", "text/html");
  });
  FakeSleeper sleeper;
  Client client(settings_for(server), &sleeper);
  auto r = client.chat(simple_request());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::kCorrupt);
  EXPECT_NE(r.error().message.find(endpoint(server)), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("not a chat completion"), std::string::npos);
  EXPECT_EQ(client.totals().failures, 1);
}

TEST(LlmClient, MissingUsageCountsZero) {
  FakeServer server([](int, const json&, httplib::Response& res) {
    json c = completion("{}");
    c.erase("usage");
    c["choices"][0]["finish_reason"] = "length";
    res.set_content(c.dump(), "application/json");
  });
  Client client(settings_for(server));
  auto r = client.chat(simple_request());
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->usage.prompt_tokens, 0);
  EXPECT_EQ(r->usage.completion_tokens, 0);
  EXPECT_EQ(r->finish_reason, "length");
}

TEST(LlmClient, LedgerSumsUsageAndCost) {
  FakeServer server([](int n, const json&, httplib::Response& res) {
    if (n == 0) {
      error(res, 502, "bad gateway");
    } else {
      answer(res, "{}", 1000, 200);
    }
  });
  FakeSleeper sleeper;
  Settings s = settings_for(server);
  s.usd_per_mtok_prompt = 2.5;
  s.usd_per_mtok_completion = 10;
  Client client(s, &sleeper);
  ASSERT_TRUE(client.chat(simple_request()));
  ASSERT_TRUE(client.chat(simple_request()));
  LedgerTotals t = client.totals();
  EXPECT_EQ(t.calls, 2);
  EXPECT_EQ(t.requests, 3);
  EXPECT_EQ(t.retries, 1);
  EXPECT_EQ(t.failures, 0);
  EXPECT_EQ(t.prompt_tokens, 2000);
  EXPECT_EQ(t.completion_tokens, 400);
  EXPECT_NEAR(t.usd, 2 * (1000 * 2.5 + 200 * 10) / 1e6, 1e-12);
}

TEST(LlmClient, KeepsAtMostConcurrencyRequestsInFlight) {
  FakeServer server([](int, const json&, httplib::Response& res) {
    std::this_thread::sleep_for(std::chrono::milliseconds(80));
    answer(res, "{}");
  });
  Settings s = settings_for(server);
  s.concurrency = 2;
  Client client(s);
  std::atomic<int> ok{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 6; ++i) {
    threads.emplace_back([&] {
      if (client.chat(simple_request())) ++ok;
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok, 6);
  EXPECT_EQ(server.requests(), 6);
  EXPECT_LE(server.max_in_flight(), 2);
  EXPECT_GE(server.max_in_flight(), 1);
  EXPECT_EQ(client.totals().calls, 6);
}

}  // namespace
}  // namespace mergelens::llm
