// The h2o transport on its own, with handlers of the test's making: fast
// and deferred answers, HEAD, pipelining, clients leaving while a deferred
// answer is built, large bodies held by their owner, concurrency, stop.
#include <gtest/gtest.h>
#include <httplib.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "mergelens/web/http_server.h"

namespace mergelens::web {
namespace {

using namespace std::chrono_literals;

// Sends `raw` on a fresh connection and reads until the server closes it
// or `want` bytes arrived.
std::string talk(int port, const std::string& raw, size_t want = SIZE_MAX) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  timeval tv{5, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ::close(fd);
    return "";
  }
  (void)!::write(fd, raw.data(), raw.size());
  std::string out;
  char buf[65536];
  while (out.size() < want) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return out;
}

class HttpServerTest : public ::testing::Test {
 protected:
  // /fast/... answered on the loop; everything else deferred to a worker,
  // which echoes the target after `delay`. /throw/... throws in the
  // handler that answers it; /big is 8 MiB owned by `big`.
  void start(HttpOptions o = {}) {
    big = std::make_shared<std::string>(8u << 20, 'x');
    for (size_t i = 0; i < big->size(); i += 4096)
      (*big)[i] = static_cast<char>('a' + i / 4096 % 26);
    o.port = 0;
    auto s = HttpServer::bind(
        o,
        [this](const HttpRequest& req) -> std::optional<HttpResponse> {
          if (req.path.starts_with("/throw/fast")) throw std::runtime_error("boom");
          if (req.path == "/big") {
            HttpResponse r;
            r.headers.emplace_back("Content-Type", "application/octet-stream");
            r.body = *big;
            r.keep = big;
            return r;
          }
          if (!req.path.starts_with("/fast/")) return std::nullopt;
          HttpResponse r;
          r.set_body("fast " + req.path + " q=" + req.param("q"), "text/plain");
          return r;
        },
        [this](const HttpRequest& req) {
          ++slow_calls;
          std::this_thread::sleep_for(delay);
          if (req.path.starts_with("/throw/")) throw std::runtime_error("boom");
          HttpResponse r;
          r.headers.emplace_back("X-Echo", req.header("x-echo"));
          r.set_body("slow " + req.target, "text/plain");
          return r;
        });
    ASSERT_TRUE(s) << s.error().message;
    server = std::move(*s);
    port = server->port();
    thread = std::thread([this] { server->run(); });
  }
  void TearDown() override {
    if (server) server->stop();
    if (thread.joinable()) thread.join();
  }

  std::shared_ptr<std::string> big;
  std::chrono::milliseconds delay{0};
  std::atomic<int> slow_calls{0};
  std::unique_ptr<HttpServer> server;
  std::thread thread;
  int port = 0;
};

TEST_F(HttpServerTest, AnswersFastAndDeferredRequestsWithDecodedPathsAndParams) {
  start();
  // Raw, as httplib's client would encode the '+' itself.
  const std::string out = talk(
      port, "GET /fast/a%20b?q=x%2By+z&q=second HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n");
  EXPECT_NE(out.find("HTTP/1.1 200"), std::string::npos) << out;
  EXPECT_EQ(out.substr(out.find("\r\n\r\n") + 4), "fast /fast/a b q=x+y z");
  httplib::Client c("127.0.0.1", port);
  auto r = c.Get("/page?x=1", {{"X-Echo", "hello"}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, "slow /page?x=1");
  EXPECT_EQ(r->get_header_value("X-Echo"), "hello");
  EXPECT_EQ(r->get_header_value("Server"), "mergelens");
}

TEST_F(HttpServerTest, HeadSendsTheHeadersOfGetAndNoBody) {
  start();
  const std::string out =
      talk(port, "HEAD /fast/x HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n");
  EXPECT_NE(out.find("HTTP/1.1 200"), std::string::npos) << out;
  EXPECT_NE(out.find("Content-Length: 15"), std::string::npos) << out;  // "fast /fast/x q="
  EXPECT_EQ(out.substr(out.find("\r\n\r\n") + 4), "");
}

TEST_F(HttpServerTest, PipelinedRequestsAreAnsweredInOrder) {
  delay = 20ms;
  start();
  std::string raw;
  for (int i = 0; i < 6; ++i)
    raw +=
        (i % 2 ? "GET /fast/" : "GET /slow/") + std::to_string(i) + " HTTP/1.1\r\nHost: t\r\n\r\n";
  raw += "GET /fast/end HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n";
  const std::string out = talk(port, raw);
  size_t at = 0;
  for (int i = 0; i < 6; ++i) {
    const std::string want = (i % 2 ? "fast /fast/" : "slow /slow/") + std::to_string(i);
    const size_t p = out.find(want, at);
    ASSERT_NE(p, std::string::npos) << want << " after " << at << " in\n" << out;
    at = p;
  }
  EXPECT_NE(out.find("fast /fast/end", at), std::string::npos);
}

TEST_F(HttpServerTest, AClientLeavingWhileItsAnswerIsBuiltDoesNotHurtTheServer) {
  delay = 150ms;
  start();
  for (int i = 0; i < 8; ++i) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    const std::string req = "GET /slow/" + std::to_string(i) + " HTTP/1.1\r\nHost: t\r\n\r\n";
    (void)!::write(fd, req.data(), req.size());
    std::this_thread::sleep_for(10ms);
    ::close(fd);
  }
  std::this_thread::sleep_for(400ms);  // the answers come back to no one
  EXPECT_EQ(slow_calls.load(), 8);
  httplib::Client c("127.0.0.1", port);
  auto r = c.Get("/slow/after");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, "slow /slow/after");
}

TEST_F(HttpServerTest, ALargeBodyArrivesWholeWhileItsOwnerIsHeld) {
  start();
  httplib::Client c("127.0.0.1", port);
  auto r = c.Get("/big");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->body.size(), big->size());
  EXPECT_TRUE(r->body == *big);
}

TEST_F(HttpServerTest, AClientLeavingMidBodyDoesNotKillTheServer) {
  start();
  // The client reads a little of an 8 MiB body and resets the connection
  // while the server is still writing (h2o's writev could raise SIGPIPE).
  for (int i = 0; i < 4; ++i) {
    const std::string got = talk(port, "GET /big HTTP/1.1\r\nHost: t\r\n\r\n", 1000);
    ASSERT_FALSE(got.empty());
  }
  std::this_thread::sleep_for(200ms);
  httplib::Client c("127.0.0.1", port);
  auto r = c.Get("/fast/alive");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
}

TEST_F(HttpServerTest, HandlerExceptionsAre500s) {
  start();
  httplib::Client c("127.0.0.1", port);
  for (const char* path : {"/throw/fast", "/throw/slow"}) {
    auto r = c.Get(path);
    ASSERT_TRUE(r) << path;
    EXPECT_EQ(r->status, 500) << path;
  }
  EXPECT_EQ(c.Get("/fast/ok")->status, 200);
}

TEST_F(HttpServerTest, ManyConnectionsGetTheirOwnAnswers) {
  delay = 1ms;
  HttpOptions o;
  o.loops = 2;
  o.workers = 4;
  start(o);
  std::atomic<int> wrong{0}, done{0};
  std::vector<std::thread> clients;
  for (int t = 0; t < 48; ++t)
    clients.emplace_back([&, t] {
      httplib::Client c("127.0.0.1", port);
      c.set_keep_alive(true);
      for (int i = 0; i < 20; ++i) {
        const std::string id = std::to_string(t) + "-" + std::to_string(i);
        const bool fast = (t + i) % 3 == 0;
        auto r = c.Get((fast ? "/fast/" : "/slow/") + id);
        const std::string want = fast ? "fast /fast/" + id + " q=" : "slow /slow/" + id;
        if (!r || r->status != 200 || r->body != want) ++wrong;
        ++done;
      }
    });
  for (auto& c : clients) c.join();
  EXPECT_EQ(done.load(), 48 * 20);
  EXPECT_EQ(wrong.load(), 0);
}

TEST_F(HttpServerTest, StopReturnsWhileAnswersAreStillBeingBuilt) {
  delay = 300ms;
  start();
  std::thread client([this] { talk(port, "GET /slow/x HTTP/1.1\r\nHost: t\r\n\r\n", 1); });
  std::this_thread::sleep_for(50ms);
  const auto t0 = std::chrono::steady_clock::now();
  server->stop();
  thread.join();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 3s);
  client.join();
}

TEST_F(HttpServerTest, OversizedBodiesAreRefused) {
  start();
  httplib::Client c("127.0.0.1", port);
  auto r = c.Post("/fast/x", std::string(200 * 1024, 'a'), "text/plain");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 413);
}

TEST(HttpServerBind, APortInUseIsAClearError) {
  // Bind twice to whatever port the first one got.
  HttpOptions o;
  o.port = 0;
  auto a = HttpServer::bind(
      o, [](const HttpRequest&) { return std::optional<HttpResponse>{}; },
      [](const HttpRequest&) { return HttpResponse{}; });
  ASSERT_TRUE(a);
  o.port = (*a)->port();
  auto b = HttpServer::bind(
      o, [](const HttpRequest&) { return std::optional<HttpResponse>{}; },
      [](const HttpRequest&) { return HttpResponse{}; });
  ASSERT_FALSE(b);
  EXPECT_NE(b.error().message.find("127.0.0.1:" + std::to_string(o.port)), std::string::npos)
      << b.error().message;
  o.host = "not-a-host.invalid";
  o.port = 0;
  EXPECT_FALSE(HttpServer::bind(
      o, [](const HttpRequest&) { return std::optional<HttpResponse>{}; },
      [](const HttpRequest&) { return HttpResponse{}; }));
}

TEST(PercentDecode, DecodesOnceAndKeepsMalformedEscapes) {
  EXPECT_EQ(percent_decode("a%20b%2fc", false), "a b/c");
  EXPECT_EQ(percent_decode("%252e", false), "%2e");
  EXPECT_EQ(percent_decode("a+b", false), "a+b");
  EXPECT_EQ(percent_decode("a+b", true), "a b");
  EXPECT_EQ(percent_decode("%zz%4", false), "%zz%4");
  EXPECT_EQ(percent_decode("%E9%87%8F", true), "\xE9\x87\x8F");
}

}  // namespace
}  // namespace mergelens::web
