// The server in-process on port 0: routes, status codes, security headers,
// conditional requests, compression, traversal attempts, malformed searches
// and a write landing while it runs.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <zlib.h>

#include <thread>

#include <gtest/gtest.h>

#include "mergelens/util/http.h"
#include "mergelens/web/server.h"
#include "web_fixture.h"
#include "web_serving.h"

namespace mergelens {
namespace {

using testing::WebStore;

class WebServer : public ::testing::Test {
 protected:
  void SetUp() override {
    web::ServerOptions o;
    o.workers = 4;
    serving.start(w.db, o);
    port = serving.port;
  }
  void TearDown() override { serving.stop(); }

  http::Response get(const std::string& target, http::Headers headers = {}) {
    return serving.get(target, std::move(headers));
  }

  WebStore w;
  testing::Serving serving;
  int port = 0;
};

// A raw HTTP/1.1 exchange (libcurl always negotiates and decodes compression).
// Returns the headers (lowercased names) and the body as sent.
std::pair<std::string, std::string> raw_get(int port, const std::string& target,
                                            const std::string& extra_headers) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  const std::string req = fmt::format("GET {} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n{}\r\n",
                                      target, extra_headers);
  EXPECT_EQ(write(fd, req.data(), req.size()), static_cast<ssize_t>(req.size()));
  std::string resp;
  char buf[8192];
  for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;) resp.append(buf, static_cast<size_t>(n));
  close(fd);
  const size_t split = resp.find("\r\n\r\n");
  std::string head = resp.substr(0, split);
  for (char& c : head) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return {head, split == std::string::npos ? "" : resp.substr(split + 4)};
}

std::string gunzip(const std::string& in) {
  z_stream zs{};
  EXPECT_EQ(inflateInit2(&zs, 16 + MAX_WBITS), Z_OK);
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  std::string out;
  char buf[16384];
  int rc = Z_OK;
  while (rc == Z_OK) {
    zs.next_out = reinterpret_cast<Bytef*>(buf);
    zs.avail_out = sizeof buf;
    rc = inflate(&zs, Z_NO_FLUSH);
    out.append(buf, sizeof buf - zs.avail_out);
  }
  inflateEnd(&zs);
  EXPECT_EQ(rc, Z_STREAM_END);
  return out;
}

TEST_F(WebServer, ServesEveryPageFamilyWithSecurityHeaders) {
  for (const char* target :
       {"/", "/day/2026-09-16", "/pr/1001", "/tags", "/tags?sort=name", "/tags/moe",
        "/tags/moe,quantization?from=2026-09-01&to=2026-09-30&verdict=selective_read&min=5",
        "/search?q=fix", "/search", "/feed.xml", "/feed/close.xml", "/feed/tags/moe.xml",
        "/static/style.css", "/api/day/2026-09-16", "/api/pr/1001", "/api/tags", "/api/tags/moe",
        "/api/search?q=fix", "/day/2026-09-16?lang=en"}) {
    auto r = get(target);
    EXPECT_EQ(r.status, 200) << target;
    ASSERT_NE(r.header("content-security-policy"), nullptr) << target;
    EXPECT_EQ(*r.header("content-security-policy"), web::kContentSecurityPolicy);
    ASSERT_NE(r.header("x-content-type-options"), nullptr);
    EXPECT_EQ(*r.header("x-content-type-options"), "nosniff");
    EXPECT_NE(r.header("etag"), nullptr) << target;
  }
}

// Behind a proxy that publishes the server under a path (--base-url
// https://host/ml): pages link under the path, whether the proxy passes the
// path on or takes it off, and feeds stay absolute without doubling it.
TEST(WebServerUnderAPath, PagesLinkUnderTheBaseUrlsPath) {
  WebStore w;
  web::ServerOptions o;
  o.base_url = "https://lens.example.org/ml/";
  testing::Serving s;
  s.start(w.db, o);
  for (const char* target : {"/ml/day/2026-09-16", "/day/2026-09-16"}) {
    auto r = s.get(target);
    ASSERT_EQ(r.status, 200) << target;
    EXPECT_NE(r.body.find("href=\"/ml/day/2026-09-14\""), std::string::npos) << target;
    EXPECT_NE(r.body.find("href=\"/ml/pr/1005\""), std::string::npos) << target;
    EXPECT_NE(r.body.find("/ml/static/style.css"), std::string::npos) << target;
    EXPECT_NE(r.body.find("href=\"/ml/day/2026-09-16?lang=en\""), std::string::npos) << target;
    EXPECT_EQ(r.body.find("href=\"/day/"), std::string::npos) << target;
    EXPECT_EQ(r.body.find("href=\"/pr/"), std::string::npos) << target;
  }
  EXPECT_EQ(s.get("/ml").status, 200);
  EXPECT_EQ(s.get("/ml/static/style.css").status, 200);
  EXPECT_EQ(s.get("/ml/pr/1005?lang=en").status, 200);
  EXPECT_EQ(s.get("/mlx/pr/1005").status, 404);  // not under "/ml"
  const auto [moved, unused] = raw_get(s.port, "/ml/day/2026-09-16/", "");
  EXPECT_NE(moved.find(" 301 "), std::string::npos) << moved;
  EXPECT_NE(moved.find("\r\nlocation: /ml/day/2026-09-16\r\n"), std::string::npos) << moved;
  auto feed = s.get("/ml/feed.xml");
  ASSERT_EQ(feed.status, 200);
  EXPECT_NE(feed.body.find("https://lens.example.org/ml/pr/1005"), std::string::npos);
  EXPECT_EQ(feed.body.find("/ml/ml/"), std::string::npos);
  auto api = s.get("/ml/api/v1/pr/1005");
  ASSERT_EQ(api.status, 200);
  EXPECT_NE(api.body.find("https://lens.example.org/ml/pr/1005"), std::string::npos);
  EXPECT_EQ(api.body.find("/ml/ml/"), std::string::npos);
}

TEST_F(WebServer, DayPageOrdersByVerdictAndLinksNeighbourDays) {
  auto r = get("/day/2026-09-16");
  const auto& b = r.body;
  EXPECT_NE(b.find("合并 3 个，其中 1 个值得精读"), std::string::npos);
  // close_read (1005) before selective_read (1004) before skim (1003).
  const auto p5 = b.find("/pr/1005"), p4 = b.find("/pr/1004"), p3 = b.find("/pr/1003");
  ASSERT_NE(p5, std::string::npos);
  EXPECT_LT(p5, p4);
  EXPECT_LT(p4, p3);
  // No PRs on 2026-09-15: previous skips to 2026-09-14.
  EXPECT_NE(b.find("href=\"/day/2026-09-14\""), std::string::npos);
  auto en = get("/day/2026-09-16?lang=en");
  EXPECT_NE(en.body.find("3 merged, 1 worth a close read"), std::string::npos);
  EXPECT_NE(en.body.find("href=\"/pr/1005?lang=en\""), std::string::npos);
  auto empty = get("/day/2026-09-15");
  EXPECT_EQ(empty.status, 200);
  EXPECT_NE(empty.body.find("href=\"/day/2026-09-16\""), std::string::npos);
}

TEST_F(WebServer, BadInputIsA400AndMissingPagesA404NeverA500) {
  for (const char* t :
       {"/day/2026-02-30", "/day/yesterday", "/tags/moe?from=2026-99-01", "/tags/moe?verdict=maybe",
        "/tags/moe?min=11", "/tags?sort=size", "/search?q=%22unclosed", "/search?q=a*b",
        "/search?q=-only", "/api/search?q=%22x", "/api/day/2026-1-1"})
    EXPECT_EQ(get(t).status, 400) << t;
  auto s = get("/search?q=%22unclosed");
  EXPECT_NE(s.body.find("无法理解这个搜索"), std::string::npos);
  auto j = get("/api/search?q=%22x");
  EXPECT_NE(j.body.find("\"error\""), std::string::npos);
  for (const char* t :
       {"/pr/999999", "/pr/deadbeefdeadbeef", "/nothing", "/api/pr/5", "/static/x.css"})
    EXPECT_EQ(get(t).status, 404) << t;
}

TEST_F(WebServer, RefusesPathTraversalInEveryEncoding) {
  for (const char* t :
       {"/static/../../etc/passwd", "/static/%2e%2e/%2e%2e/etc/passwd",
        "/static/%2e%2e%2f%2e%2e%2fetc%2fpasswd", "/static/..%2f..%2fetc%2fpasswd",
        "/static/%252e%252e%252fetc%252fpasswd", "/static/..%5c..%5cetc%5cpasswd",
        "/static/%2E%2E/etc/passwd", "/day/..%2f..%2fetc%2fpasswd", "/static/style.css%00.png"}) {
    auto r = get(t);
    EXPECT_TRUE(r.status == 400 || r.status == 404) << t << " -> " << r.status;
    EXPECT_EQ(r.body.find("root:"), std::string::npos) << t;
  }
  EXPECT_EQ(get("/static/%2e%2e/%2e%2e/etc/passwd").status, 400);
}

TEST_F(WebServer, AnswersConditionalRequestsWith304) {
  auto first = get("/pr/1001");
  ASSERT_NE(first.header("etag"), nullptr);
  ASSERT_NE(first.header("last-modified"), nullptr);
  auto again = get("/pr/1001", {{"If-None-Match", *first.header("etag")}});
  EXPECT_EQ(again.status, 304);
  EXPECT_TRUE(again.body.empty());
  auto since = get("/pr/1001", {{"If-Modified-Since", *first.header("last-modified")}});
  EXPECT_EQ(since.status, 304);
  EXPECT_EQ(get("/pr/1001", {{"If-None-Match", "W/\"other\""}}).status, 200);
  auto css = get("/static/style.css");
  EXPECT_EQ(get("/static/style.css", {{"If-None-Match", *css.header("etag")}}).status, 304);
}

TEST_F(WebServer, CompressesWhenTheClientAcceptsGzip) {
  auto [plain_head, plain] = raw_get(port, "/tags", "");
  EXPECT_EQ(plain_head.find("content-encoding"), std::string::npos);
  auto [gz_head, gz] = raw_get(port, "/tags", "Accept-Encoding: gzip\r\n");
  EXPECT_NE(gz_head.find("content-encoding: gzip"), std::string::npos) << gz_head;
  EXPECT_LT(gz.size(), plain.size());
  EXPECT_EQ(gunzip(gz), plain);
  // What browsers send: gzip is chosen (never brotli, which costs ~40 ms of
  // CPU per page at its default level), and the bytes are compressed once.
  auto [br_head, br] = raw_get(port, "/tags", "Accept-Encoding: gzip, deflate, br\r\n");
  EXPECT_NE(br_head.find("content-encoding: gzip"), std::string::npos) << br_head;
  EXPECT_EQ(br, gz);
  auto [api_head, api] = raw_get(port, "/api/tags", "Accept-Encoding: br;q=1.0, gzip;q=0.8\r\n");
  EXPECT_NE(api_head.find("content-encoding: gzip"), std::string::npos) << api_head;
  EXPECT_NE(gunzip(api).find("\"items\""), std::string::npos);
  for (const char* refused : {"Accept-Encoding: gzip;q=0\r\n", "Accept-Encoding: br\r\n",
                              "Accept-Encoding: identity\r\n"}) {
    auto [head, body] = raw_get(port, "/tags", refused);
    EXPECT_EQ(head.find("content-encoding"), std::string::npos) << refused << head;
    EXPECT_EQ(body, plain) << refused;
  }
}

TEST_F(WebServer, IsReadOnly) {
  http::Request r;
  r.method = "POST";
  r.url = fmt::format("http://127.0.0.1:{}/day/2026-09-16", port);
  r.body = "x=1";
  auto resp = http::perform(r);
  ASSERT_TRUE(resp);
  EXPECT_EQ(resp->status, 405);
}

TEST_F(WebServer, AWriteWhileServingIsVisibleWithoutARestart) {
  auto before = get("/search?q=%E8%B0%83%E5%BA%A6");  // 调度
  EXPECT_NE(before.body.find("id=\"result-count\">0<"), std::string::npos);
  // Another connection (as `write` would) stores a guide.
  auto other = open_store_at(w.db);
  ASSERT_TRUE(other);
  testing::put_test_guide(**other, w.repo, 1002, "zh", "调度器重写", "调度器统一");
  std::this_thread::sleep_for(std::chrono::milliseconds(250));
  auto after = get("/search?q=%E8%B0%83%E5%BA%A6");
  EXPECT_NE(after.body.find("id=\"result-count\">1<"), std::string::npos);
  // The glossary also searches 调度器 (and scheduler): the longest form is marked.
  EXPECT_NE(after.body.find("<mark>调度器</mark>"), std::string::npos);
  auto pr = get("/pr/1002");
  EXPECT_NE(pr.body.find("调度器重写"), std::string::npos);
}

}  // namespace
}  // namespace mergelens
