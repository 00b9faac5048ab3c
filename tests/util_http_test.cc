#include <gtest/gtest.h>

#include "mergelens/util/http.h"

namespace mergelens::http {
namespace {

TEST(HttpLink, FindsEachRelationOfAGithubLinkHeader) {
  const std::string h =
      "<https://api.github.com/repositories/1/pulls?state=closed&page=2>; rel=\"next\", "
      "<https://api.github.com/repositories/1/pulls?state=closed&page=9>; rel=\"last\"";
  EXPECT_EQ(link_url(h, "next"), "https://api.github.com/repositories/1/pulls?state=closed&page=2");
  EXPECT_EQ(link_url(h, "last"), "https://api.github.com/repositories/1/pulls?state=closed&page=9");
  EXPECT_EQ(link_url(h, "prev"), "");
}

TEST(HttpOrigin, SchemeHostAndPortWithDefaultsAndNoUserinfo) {
  EXPECT_EQ(origin("https://API.github.com/repos/a/b?page=2"), "https://api.github.com:443");
  EXPECT_EQ(origin("https://api.github.com:443/x"), origin("https://api.github.com/y"));
  EXPECT_EQ(origin("http://127.0.0.1:8080"), "http://127.0.0.1:8080");
  EXPECT_EQ(origin("http://[::1]:9/x"), "http://[::1]:9");
  // The host after the last '@' is where the request goes.
  EXPECT_EQ(origin("https://api.github.com@evil.example/x"), "https://evil.example:443");
  EXPECT_NE(origin("http://api.github.com/x"), origin("https://api.github.com/x"));
  EXPECT_NE(origin("https://api.github.com:8443/x"), origin("https://api.github.com/x"));
  EXPECT_EQ(origin("/repos/a/b"), "");
  EXPECT_EQ(origin("ftp://h/x"), "");
  EXPECT_EQ(origin("https:///x"), "");
  EXPECT_EQ(origin("http://h:8x/"), "");
}

// Issue 22: show printed a javascript: link taken from GitHub's html_url.
TEST(HttpSafeUrl, OnlyAbsoluteHttpUrlsPass) {
  EXPECT_EQ(safe_url("https://github.com/o/r/pull/1"), "https://github.com/o/r/pull/1");
  EXPECT_EQ(safe_url("HTTP://h:8080/x?a=1#f"), "HTTP://h:8080/x?a=1#f");
  for (const char* bad : {"javascript:alert(1)", "JavaScript://h/%0aalert(1)", "data:text/html,x",
                          "/pr/1", "//evil.example/x", "https:///x", "https://h/a b",
                          "https://h/\x1b]0;t\x07", "https://h/\"onmouseover=x", "ftp://h/x"})
    EXPECT_EQ(safe_url(bad), "") << bad;
}

TEST(HttpLink, LastPageHasNoNext) {
  const std::string h =
      "<https://api.github.com/x?page=1>; rel=\"prev\", <https://api.github.com/x?page=1>; "
      "rel=\"first\"";
  EXPECT_EQ(link_url(h, "next"), "");
  EXPECT_EQ(link_url("", "next"), "");
  EXPECT_EQ(link_url("garbage without brackets", "next"), "");
}

TEST(HttpLink, UnquotedCaseInsensitiveAndMultipleRelations) {
  EXPECT_EQ(link_url("<http://h/a>; REL=Next", "next"), "http://h/a");
  EXPECT_EQ(link_url("<http://h/a>; rel=\"prev next\"", "next"), "http://h/a");
  // "nextpage" is not "next"; a title mentioning rel is not the rel parameter.
  EXPECT_EQ(link_url("<http://h/a>; rel=nextpage", "next"), "");
  EXPECT_EQ(link_url("<http://h/a>; title=\"rel=next\"; rel=last", "next"), "");
  EXPECT_EQ(link_url("<http://h/a>; rel=last, <http://h/b>; rel=next", "next"), "http://h/b");
}

TEST(HttpRetryAfter, SecondsAndDates) {
  EXPECT_EQ(retry_after_seconds("120", 0), 120);
  EXPECT_EQ(retry_after_seconds(" 7 ", 0), 7);
  EXPECT_EQ(retry_after_seconds("0", 0), 0);
  // Wed, 21 Oct 2015 07:28:00 GMT = 1445412480
  EXPECT_EQ(retry_after_seconds("Wed, 21 Oct 2015 07:28:00 GMT", 1445412480 - 30), 30);
  EXPECT_EQ(retry_after_seconds("Wed, 21 Oct 2015 07:28:00 GMT", 1445412480 + 30), 0);
  EXPECT_EQ(retry_after_seconds("", 0), -1);
  EXPECT_EQ(retry_after_seconds("soon", 0), -1);
  EXPECT_EQ(retry_after_seconds("99999999999999999999", 0), -1);
}

TEST(HttpRedact, DropsQueryFragmentAndCredentials) {
  EXPECT_EQ(redact_url("https://api.github.com/repos/o/r/pulls?access_token=SECRET&page=2"),
            "https://api.github.com/repos/o/r/pulls");
  EXPECT_EQ(redact_url("https://user:SECRET@ghe.example/api/v3/x#frag"),
            "https://ghe.example/api/v3/x");
  EXPECT_EQ(redact_url("https://SECRET@host"), "https://host");
  EXPECT_EQ(redact_url("http://host/a@b/c"), "http://host/a@b/c");
  EXPECT_EQ(redact_url("/repos/o/r?x=1"), "/repos/o/r");
}

TEST(HttpPerform, RefusedConnectionIsAnIoErrorWithoutTheQuery) {
  Request req;
  req.url = "http://127.0.0.1:1/x?token=SECRET";
  req.connect_timeout_ms = 2000;
  Failure failure = Failure::kNone;
  auto r = perform(req, &failure);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::kIo);
  EXPECT_EQ(failure, Failure::kConnect);
  EXPECT_EQ(r.error().message.find("SECRET"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("http://127.0.0.1:1/x"), std::string::npos);
}

}  // namespace
}  // namespace mergelens::http
