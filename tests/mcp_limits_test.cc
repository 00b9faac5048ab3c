// The MCP server within limits (issue 34): batches by protocol version and
// size, a cap on a result's size, one client's concurrent requests, the Host
// and Origin checks against DNS rebinding, and strict Accept and
// Content-Type parsing. The end-to-end side is tests/e2e/test_request_limits.py.
#include <gtest/gtest.h>

#include "mergelens/mcp/paging.h"
#include "mergelens/mcp/protocol.h"
#include "mergelens/mcp/transport.h"
#include "web_fixture.h"

namespace mergelens {
namespace {

using nlohmann::json;

json call(int id, const char* tool, json args = json::object()) {
  return {{"jsonrpc", "2.0"},
          {"id", id},
          {"method", "tools/call"},
          {"params", {{"name", tool}, {"arguments", std::move(args)}}}};
}

struct McpStore {
  testing::WebStore w;
  web::TimeZone tz = *web::TimeZone::named("UTC");
  mcp::ToolContext context{*w.store, tz, web::Lang::kEn, w.repo.id, "http://127.0.0.1:8080"};
};

TEST(McpLimits, BatchesOnlyIn20250326AndAtMostEight) {
  McpStore m;
  json batch = json::array({call(1, "repos"), call(2, "tags")});
  for (const char* v : {"2025-06-18", "2025-11-25", "2024-11-05"}) {
    auto r = mcp::handle_message(batch, m.context, v);
    ASSERT_TRUE(r && r->is_object()) << v;
    EXPECT_EQ((*r)["error"]["code"], -32600) << v;
    EXPECT_NE((*r)["error"]["message"].get<std::string>().find("no JSON-RPC batches"),
              std::string::npos);
  }
  auto ok = mcp::handle_message(batch, m.context, "2025-03-26");
  ASSERT_TRUE(ok && ok->is_array());
  EXPECT_EQ(ok->size(), 2u);
  // A client that has not said is taken to speak 2025-03-26.
  EXPECT_TRUE(mcp::handle_message(batch, m.context, "")->is_array());
  json big = json::array();
  for (int i = 0; i < 480; ++i) big.push_back(call(i, "release_notes", {{"since", "2026-01-01"}}));
  auto refused = mcp::handle_message(big, m.context, "2025-03-26");
  ASSERT_TRUE(refused && refused->is_object());
  EXPECT_NE((*refused)["error"]["message"].get<std::string>().find("at most 8"), std::string::npos);
}

TEST(McpLimits, AResultOverTheCapIsAToolErrorAskingForLess) {
  McpStore m;
  m.context.max_result_bytes = 300;
  auto r = mcp::handle_message(call(1, "day", {{"date", "2026-09-16"}}), m.context, "2025-06-18");
  ASSERT_TRUE(r);
  EXPECT_TRUE((*r)["result"]["isError"].get<bool>());
  const std::string text = (*r)["result"]["content"][0]["text"];
  EXPECT_NE(text.find("more than the 300"), std::string::npos) << text;
  EXPECT_NE(text.find("Ask for less"), std::string::npos) << text;
  // In a batch, the results share four results' worth: four fit, the fifth not.
  m.context.max_result_bytes = 1 << 20;
  auto small = mcp::handle_message(call(1, "repos"), m.context, "");
  // A result's size: its structuredContent and its text block.
  const size_t one = (*small)["result"]["structuredContent"].dump().size() +
                     (*small)["result"]["content"][0]["text"].get<std::string>().size();
  m.context.max_result_bytes = one + 1;
  json five = json::array();
  for (int i = 0; i < 5; ++i) five.push_back(call(i, "repos"));
  auto all = mcp::handle_message(five, m.context, "2025-03-26");
  ASSERT_TRUE(all && all->is_array());
  for (int i = 0; i < 4; ++i) EXPECT_FALSE((*all)[i]["result"]["isError"].get<bool>()) << i;
  EXPECT_TRUE((*all)[4]["result"]["isError"].get<bool>());
}

// The paging arguments (limit, cursor, fields) are bounded like any other:
// a cursor is the caller's text, so what it pins is checked again.
TEST(McpLimits, PagingArgumentsAreBoundedToo) {
  McpStore m;
  auto error_of = [&](json args) {
    auto r = mcp::handle_message(call(1, "day", std::move(args)), m.context, "2025-06-18");
    EXPECT_TRUE(r && (*r)["result"]["isError"].get<bool>()) << (r ? r->dump() : "");
    return r ? (*r)["result"]["content"][0]["text"].get<std::string>() : "";
  };
  EXPECT_NE(error_of({{"date", "2026-09-16"}, {"limit", 100000}}).find("at most"),
            std::string::npos);
  EXPECT_NE(error_of({{"cursor", std::string(5000, 'A')}}).find("longer than"), std::string::npos);
  EXPECT_NE(
      error_of({{"date", "2026-09-16"}, {"fields", std::string(500, 'f')}}).find("longer than"),
      std::string::npos);
  // A forged cursor pinning an argument past its bound, or one the tool does
  // not take, is refused as the argument itself would be.
  EXPECT_NE(error_of({{"cursor", mcp::make_cursor("day", 0, {{"paths", std::string(2000, 'p')}})}})
                .find("longer than"),
            std::string::npos);
  EXPECT_NE(
      error_of({{"cursor", mcp::make_cursor("day", 0, {{"bogus", "x"}})}}).find("unknown argument"),
      std::string::npos);
  // An offset past the end is an empty page, not an error or a long walk.
  auto far = mcp::handle_message(
      call(1, "day",
           {{"cursor", mcp::make_cursor("day", size_t{1} << 60, {{"date", "2026-09-16"}})}}),
      m.context, "2025-06-18");
  ASSERT_TRUE(far);
  EXPECT_FALSE((*far)["result"]["isError"].get<bool>()) << far->dump();
  EXPECT_EQ((*far)["result"]["structuredContent"]["page"]["returned"], 0);
}

TEST(McpLimits, StrictAcceptAndContentType) {
  using mcp::accepts;
  EXPECT_TRUE(accepts("application/json, text/event-stream", "application/json"));
  EXPECT_TRUE(accepts("text/event-stream;q=0.5, application/json", "text/event-stream"));
  EXPECT_TRUE(accepts("*/*", "text/event-stream"));
  EXPECT_TRUE(accepts("application/*", "application/json"));
  EXPECT_FALSE(accepts("application/jsonx, text/event-streamy", "application/json"));
  EXPECT_FALSE(accepts("x-application/json", "application/json"));
  EXPECT_FALSE(accepts("application/json;q=0", "application/json"));
  EXPECT_FALSE(accepts("application/json;q=0.000", "application/json"));
  EXPECT_FALSE(accepts("", "application/json"));
  using mcp::is_json_content_type;
  EXPECT_TRUE(is_json_content_type("application/json"));
  EXPECT_TRUE(is_json_content_type("Application/JSON; charset=UTF-8"));
  EXPECT_TRUE(is_json_content_type("application/json;charset=\"utf-8\""));
  EXPECT_FALSE(is_json_content_type("application/json-seq"));
  EXPECT_FALSE(is_json_content_type("application/jsonp"));
  EXPECT_FALSE(is_json_content_type("application/json; charset=latin1"));
  EXPECT_FALSE(is_json_content_type("text/plain; x=application/json"));
}

TEST(McpLimits, HostsThatDnsRebindingCannotForge) {
  using mcp::trusted_host;
  for (const char* h : {"localhost", "localhost:8080", "127.0.0.1:9", "[::1]:8080", "10.1.2.3",
                        "[2001:db8::1]", "LOCALHOST"})
    EXPECT_TRUE(trusted_host(h, "")) << h;
  for (const char* h : {"evil.example", "evil.example:8080", "", "127.0.0.1.evil.example",
                        "localhost.evil.example:80", "[::1"})
    EXPECT_FALSE(trusted_host(h, "")) << h;
  EXPECT_TRUE(trusted_host("Lens.Example.org:443", "lens.example.org"));
  EXPECT_FALSE(trusted_host("evil.example", "lens.example.org"));
  EXPECT_EQ(mcp::url_host("https://Lens.Example.org:8443/digest"), "lens.example.org");
  EXPECT_EQ(mcp::url_host("http://[::1]:8080"), "[::1]");
  EXPECT_EQ(mcp::url_host(""), "");
}

web::HttpRequest post(std::string host, std::string origin = "") {
  web::HttpRequest req;
  req.method = "POST";
  req.path = "/mcp";
  req.peer = "192.0.2.7";
  req.headers = {{"host", std::move(host)},
                 {"accept", "application/json, text/event-stream"},
                 {"content-type", "application/json"}};
  if (!origin.empty()) req.headers.emplace_back("origin", std::move(origin));
  req.body = R"({"jsonrpc":"2.0","id":1,"method":"ping"})";
  return req;
}

TEST(McpLimits, TheEndpointRefusesForeignHostsAndBusyClients) {
  McpStore m;
  mcp::HttpPolicy policy;
  mcp::ClientGate gate;
  // The rebinding attack: the attacker's name in Host and Origin alike.
  EXPECT_EQ(mcp::serve_http(post("evil.example:8080", "http://evil.example:8080"), m.context,
                            policy, gate)
                .status,
            403);
  EXPECT_EQ(mcp::serve_http(post("evil.example:8080"), m.context, policy, gate).status, 403);
  EXPECT_EQ(mcp::serve_http(post("127.0.0.1:8080", "http://evil.example"), m.context, policy, gate)
                .status,
            403);
  EXPECT_EQ(mcp::serve_http(post("127.0.0.1:8080"), m.context, policy, gate).status, 200);
  EXPECT_EQ(
      mcp::serve_http(post("127.0.0.1:8080", "http://localhost:3000"), m.context, policy, gate)
          .status,
      200);
  policy.public_host = "lens.example.org";
  EXPECT_EQ(
      mcp::serve_http(post("lens.example.org", "https://lens.example.org"), m.context, policy, gate)
          .status,
      200);
  // Four requests of this client in progress: the fifth waits its turn.
  for (int i = 0; i < policy.max_concurrent_per_client; ++i)
    ASSERT_TRUE(gate.enter("192.0.2.7", policy.max_concurrent_per_client));
  auto busy = mcp::serve_http(post("127.0.0.1"), m.context, policy, gate);
  EXPECT_EQ(busy.status, 429);
  web::HttpRequest other = post("127.0.0.1");
  other.peer = "192.0.2.8";
  EXPECT_EQ(mcp::serve_http(other, m.context, policy, gate).status, 200);
  gate.leave("192.0.2.7");
  EXPECT_EQ(mcp::serve_http(post("127.0.0.1"), m.context, policy, gate).status, 200);
}

}  // namespace
}  // namespace mergelens
