// Conditional requests (RFC 9110 section 13) and CORS helpers (web/conditional.h).
#include "mergelens/web/conditional.h"

#include <gtest/gtest.h>

namespace mergelens::web {
namespace {

HttpRequest get(HeaderList headers, std::string method = "GET") {
  HttpRequest r;
  r.method = std::move(method);
  r.path = r.target = "/api/v1/day";
  r.headers = std::move(headers);
  return r;
}

constexpr const char* kTag = "W/\"c8-0123abcd\"";
constexpr const char* kModified = "Wed, 02 Dec 2026 01:00:00 GMT";

TEST(WebConditional, IfNoneMatchListsCompareWeakly) {
  EXPECT_TRUE(etag_list_matches(kTag, kTag));
  EXPECT_TRUE(etag_list_matches("\"c8-0123abcd\"", kTag));  // strong form, weak comparison
  EXPECT_TRUE(etag_list_matches("\"a\", W/\"b\" ,W/\"c8-0123abcd\"", kTag));
  EXPECT_TRUE(etag_list_matches(" * ", kTag));
  EXPECT_TRUE(etag_list_matches("\"with,comma\", \"c8-0123abcd\"", kTag));
  EXPECT_FALSE(etag_list_matches("\"a\", W/\"b\"", kTag));
  EXPECT_FALSE(etag_list_matches("c8-0123abcd", kTag));  // unquoted: malformed
  EXPECT_FALSE(etag_list_matches("", kTag));
}

TEST(WebConditional, IfNoneMatchTakesPrecedenceOverIfModifiedSince) {
  EXPECT_TRUE(not_modified(get({{"if-none-match", kTag}}), kTag, kModified));
  EXPECT_FALSE(not_modified(get({{"if-none-match", "\"x\""}, {"if-modified-since", kModified}}),
                            kTag, kModified));
  // Two If-None-Match fields are one list.
  EXPECT_TRUE(
      not_modified(get({{"if-none-match", "\"x\""}, {"if-none-match", kTag}}), kTag, kModified));
  EXPECT_FALSE(not_modified(get({{"if-none-match", kTag}}, "POST"), kTag, kModified));
}

TEST(WebConditional, IfModifiedSinceComparesDates) {
  EXPECT_TRUE(not_modified(get({{"if-modified-since", kModified}}), kTag, kModified));
  EXPECT_TRUE(
      not_modified(get({{"if-modified-since", "Thu, 03 Dec 2026 00:00:00 GMT"}}), kTag, kModified));
  EXPECT_FALSE(
      not_modified(get({{"if-modified-since", "Tue, 01 Dec 2026 23:59:59 GMT"}}), kTag, kModified));
  EXPECT_FALSE(not_modified(get({{"if-modified-since", "yesterday"}}), kTag, kModified));
  EXPECT_FALSE(not_modified(get({}), kTag, kModified));
}

std::string header(const HttpResponse& r, std::string_view name) {
  for (const auto& [k, v] : r.headers)
    if (k == name) return v;
  return "";
}

TEST(WebConditional, HttpDatesInTheirThreeForms) {
  const std::time_t now = 1'790'000'000;  // 2026-09-21
  const std::time_t t = 784111777;        // Sun, 06 Nov 1994 08:49:37 GMT
  EXPECT_EQ(parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT", now), t);
  EXPECT_EQ(parse_http_date("Sunday, 06-Nov-94 08:49:37 GMT", now), t);
  EXPECT_EQ(parse_http_date("Sun Nov  6 08:49:37 1994", now), t);
  // RFC 850's two-digit year: not more than 50 years ahead of now.
  EXPECT_EQ(parse_http_date("Monday, 01-Jan-46 00:00:00 GMT", now), 2398377600);
  EXPECT_EQ(parse_http_date("Friday, 01-Jan-77 00:00:00 GMT", now), 220924800);
  for (const char* bad : {"yesterday", "Sun, 06 Nov 1994 08:49:37", "1994-11-06T08:49:37Z", ""})
    EXPECT_FALSE(parse_http_date(bad, now)) << bad;
}

TEST(WebConditional, CorsAnyListOrNone) {
  HttpResponse any;
  add_cors(any, get({{"origin", "https://x.example"}}), CorsOptions{});
  EXPECT_EQ(header(any, "Access-Control-Allow-Origin"), "*");
  const CorsOptions list{"https://a.example, https://b.example"};
  HttpResponse listed, other, none;
  add_cors(listed, get({{"origin", "https://b.example"}}), list);
  EXPECT_EQ(header(listed, "Access-Control-Allow-Origin"), "https://b.example");
  add_cors(other, get({{"origin", "https://c.example"}}), list);
  EXPECT_EQ(header(other, "Access-Control-Allow-Origin"), "");
  EXPECT_EQ(header(other, "Vary"), "Origin");
  add_cors(none, get({{"origin", "https://a.example"}}), CorsOptions{""});
  EXPECT_TRUE(none.headers.empty());
}

TEST(WebConditional, Preflight) {
  const HttpResponse ok = api_options(get({{"origin", "https://x.example"},
                                           {"access-control-request-method", "GET"},
                                           {"access-control-request-headers", "if-none-match"}},
                                          "OPTIONS"),
                                      CorsOptions{});
  EXPECT_EQ(ok.status, 204);
  EXPECT_EQ(header(ok, "Access-Control-Allow-Origin"), "*");
  EXPECT_EQ(header(ok, "Access-Control-Allow-Headers"), "if-none-match");
  const HttpResponse post = api_options(
      get({{"origin", "https://x.example"}, {"access-control-request-method", "POST"}}, "OPTIONS"),
      CorsOptions{});
  EXPECT_EQ(header(post, "Access-Control-Allow-Origin"), "");
}

}  // namespace
}  // namespace mergelens::web
