#include <gtest/gtest.h>

#include "github_fixture_server.h"
#include "mergelens/source/github_client.h"
#include "mergelens/source/github_json.h"

namespace mergelens::github {
namespace {

using testing::FakeClock;
using testing::fixture;
using testing::FixtureResponse;
using testing::FixtureServer;

constexpr const char* kList = "/repos/acme/widget/pulls?state=closed";

class GithubClientTest : public ::testing::Test {
 protected:
  Client client(std::int64_t max_wait = 60) {
    return Client(ClientOptions{.api_url = server_.url(),
                                .token = "ghp_SECRET_TOKEN",
                                .max_wait_seconds = max_wait,
                                .clock = &clock_,
                                .jitter_seed = 7});
  }
  static FixtureResponse with(int status, std::string body,
                              std::vector<std::pair<std::string, std::string>> headers) {
    auto h = FixtureServer::github_headers();
    for (auto& x : headers) {
      std::erase_if(h, [&](const auto& y) { return y.first == x.first; });
      h.push_back(x);
    }
    return {status, std::move(body), std::move(h)};
  }
  FixtureServer server_;
  FakeClock clock_;
};

TEST_F(GithubClientTest, FollowsTheLinkHeaderAndSendsTheToken) {
  server_.add_json(
      kList, "pulls_closed_page1.json",
      {{"Link",
        "<{base}/repositories/42/pulls?state=closed&sort=updated&per_page=100&page=2>; "
        "rel=\"next\", <{base}/repositories/42/pulls?state=closed&page=2>; rel=\"last\""}});
  server_.add_json("/repositories/42/pulls?state=closed&page=2", "pulls_closed_page2.json",
                   {{"Link", "<{base}/repositories/42/pulls?state=closed&page=1>; rel=\"prev\""}});
  auto c = client();
  auto p1 = c.get("/repos/acme/widget/pulls?state=closed&sort=updated&direction=desc");
  ASSERT_TRUE(p1) << p1.error().message;
  EXPECT_EQ(server_.last_authorization(), "Bearer ghp_SECRET_TOKEN");
  ASSERT_FALSE(p1->next_url.empty());
  auto first = decode_pulls(p1->body, "GET /repos/acme/widget/pulls");
  ASSERT_TRUE(first) << first.error().message;
  ASSERT_EQ(first->size(), 2u);
  EXPECT_EQ((*first)[0].number, 103);
  EXPECT_EQ((*first)[1].merged_at, 0);  // closed without merging
  auto p2 = c.get(p1->next_url);
  ASSERT_TRUE(p2) << p2.error().message;
  EXPECT_TRUE(p2->next_url.empty());
  auto second = decode_pulls(p2->body, "GET /repositories/42/pulls");
  ASSERT_TRUE(second);
  ASSERT_EQ(second->size(), 1u);
  EXPECT_EQ((*second)[0].number, 101);
  EXPECT_EQ(c.stats().requests, 2);
}

// Issue 22: a Link header naming another origin must not receive the token.
TEST_F(GithubClientTest, RefusesANextPageOnAnotherOrigin) {
  FixtureServer foreign;
  foreign.add_json(kList, "pulls_closed_page2.json");
  auto c = client();
  for (const std::string& url :
       {foreign.url() + kList,
        "http://localhost:" + server_.url().substr(server_.url().rfind(':') + 1) + kList,
        "https://" + server_.url().substr(7) + kList}) {
    auto p = c.get(url);
    ASSERT_FALSE(p) << url;
    EXPECT_EQ(p.error().kind, ErrorKind::kInvalidInput);
    EXPECT_NE(p.error().message.find("another host"), std::string::npos) << p.error().message;
    EXPECT_EQ(p.error().message.find("SECRET"), std::string::npos);
  }
  EXPECT_EQ(foreign.requests(), 0);
  EXPECT_EQ(server_.requests(), 0);
  // The configured origin itself, spelled with its default port or not, is followed.
  server_.add_json(kList, "pulls_closed_page2.json");
  auto same = c.get(server_.url() + kList);
  ASSERT_TRUE(same) << same.error().message;
  EXPECT_EQ(server_.last_authorization(), "Bearer ghp_SECRET_TOKEN");
}

TEST_F(GithubClientTest, ConditionalRequestGets304) {
  server_.add_json(kList, "pulls_open.json", {{"ETag", "W/\"5f2c\""}});
  auto c = client();
  auto first = c.get("/repos/acme/widget/pulls?state=closed");
  ASSERT_TRUE(first);
  EXPECT_EQ(first->etag, "W/\"5f2c\"");
  EXPECT_FALSE(first->not_modified);
  auto again = c.get("/repos/acme/widget/pulls?state=closed", first->etag);
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_TRUE(again->not_modified);
  EXPECT_TRUE(again->body.empty());
  EXPECT_EQ(c.stats().not_modified, 1);
  EXPECT_EQ(server_.not_modified(), 1);
}

TEST_F(GithubClientTest, SecondaryRateLimitWaitsRetryAfterThenRetries) {
  server_.add(
      "/repos/acme/widget/pulls/101",
      with(
          403,
          R"({"message":"You have exceeded a secondary rate limit. Please wait a few minutes before you try again.","documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api"})",
          {{"Retry-After", "30"}}));
  server_.add_json("/repos/acme/widget/pulls/101", "pull_101.json");
  auto c = client();
  auto p = c.get("/repos/acme/widget/pulls/101");
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(clock_.sleeps, std::vector<std::int64_t>{30000});
  EXPECT_EQ(c.stats().retries, 1);
  EXPECT_EQ(server_.requests(), 2);
}

TEST_F(GithubClientTest, Secondary429WithoutRetryAfterBacksOffAMinute) {
  server_.add("/repos/acme/widget/pulls/101", with(429, R"({"message":"Too many requests"})", {}));
  server_.add_json("/repos/acme/widget/pulls/101", "pull_101.json");
  auto c = client(/*max_wait=*/600);
  ASSERT_TRUE(c.get("/repos/acme/widget/pulls/101"));
  ASSERT_EQ(clock_.sleeps.size(), 1u);
  EXPECT_GE(clock_.sleeps[0], 60000);  // never hammered
}

TEST_F(GithubClientTest, BadGatewayThenSuccessIsRetriedWithBackoff) {
  server_.add("/repos/acme/widget/pulls/101", with(502, "<html>502 Bad Gateway</html>", {}));
  server_.add_json("/repos/acme/widget/pulls/101", "pull_101.json");
  auto c = client();
  auto p = c.get("/repos/acme/widget/pulls/101");
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(c.stats().retries, 1);
  ASSERT_EQ(clock_.sleeps.size(), 1u);
  EXPECT_GE(clock_.sleeps[0], 500);  // 1 s ± 50% jitter
  EXPECT_LE(clock_.sleeps[0], 1500);
}

TEST_F(GithubClientTest, PersistentServerErrorGivesUpNamingTheEndpoint) {
  server_.add("/repos/acme/widget/pulls/101", with(503, "unavailable", {}));
  auto c = client();
  auto p = c.get("/repos/acme/widget/pulls/101?per_page=100");
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().kind, ErrorKind::kIo);
  EXPECT_NE(p.error().message.find("GET /repos/acme/widget/pulls/101: HTTP 503"), std::string::npos)
      << p.error().message;
  EXPECT_EQ(server_.requests(), 5);  // 1 + max_retries
  for (size_t i = 1; i < clock_.sleeps.size(); ++i)
    EXPECT_GT(clock_.sleeps[i], clock_.sleeps[i - 1] / 2);  // backing off, not hammering
}

TEST_F(GithubClientTest, PrimaryLimitExhaustedStopsWithAClearMessage) {
  const auto reset = std::to_string(clock_.now() + 3600);
  server_.add(
      "/repos/acme/widget/pulls/101",
      with(
          403,
          R"({"message":"API rate limit exceeded for user ID 1001.","documentation_url":"https://docs.github.com/rest/overview/resources-in-the-rest-api#rate-limiting"})",
          {{"X-RateLimit-Remaining", "0"}, {"X-RateLimit-Reset", reset}}));
  auto c = client(/*max_wait=*/60);
  auto p = c.get("/repos/acme/widget/pulls/101");
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().kind, ErrorKind::kIo);
  const std::string& m = p.error().message;
  EXPECT_NE(m.find("GET /repos/acme/widget/pulls/101"), std::string::npos) << m;
  EXPECT_NE(m.find("rate limit exhausted"), std::string::npos) << m;
  EXPECT_NE(m.find("(in 61 min)"), std::string::npos) << m;
  EXPECT_EQ(m.find("SECRET"), std::string::npos) << m;
  // Nothing more is sent until the reset.
  EXPECT_FALSE(c.get("/repos/acme/widget/pulls/102"));
  EXPECT_EQ(server_.requests(), 1);
  EXPECT_TRUE(clock_.sleeps.empty());
}

TEST_F(GithubClientTest, PrimaryLimitWithinMaxWaitWaitsForTheReset) {
  const auto reset = std::to_string(clock_.now() + 20);
  server_.add_json("/repos/acme/widget/pulls/101", "pull_101.json",
                   {{"X-RateLimit-Remaining", "0"}, {"X-RateLimit-Reset", reset}});
  auto c = client(/*max_wait=*/60);
  ASSERT_TRUE(c.get("/repos/acme/widget/pulls/101"));
  EXPECT_TRUE(clock_.sleeps.empty());
  ASSERT_TRUE(c.get("/repos/acme/widget/pulls/101"));
  EXPECT_EQ(clock_.sleeps, std::vector<std::int64_t>{21000});
  EXPECT_EQ(server_.requests(), 2);
}

TEST_F(GithubClientTest, NotFoundAndBadCredentials) {
  auto c = client();
  auto missing = c.get("/repos/acme/nothing/pulls?state=closed");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().kind, ErrorKind::kNotFound);
  EXPECT_NE(missing.error().message.find("GET /repos/acme/nothing/pulls"), std::string::npos);
  server_.add("/repos/acme/widget/pulls/1", with(401, R"({"message":"Bad credentials"})", {}));
  auto denied = c.get("/repos/acme/widget/pulls/1");
  ASSERT_FALSE(denied);
  EXPECT_EQ(denied.error().kind, ErrorKind::kInvalidInput);
  EXPECT_EQ(denied.error().message.find("SECRET"), std::string::npos);
}

TEST(GithubClientName, EndpointNameDropsHostAndQuery) {
  EXPECT_EQ(Client::endpoint_name("https://ghe.example/api/v3/repos/o/r/pulls?page=2&t=x"),
            "GET /repos/o/r/pulls");
  EXPECT_EQ(Client::endpoint_name("/repos/o/r/pulls/7/files?per_page=100"),
            "GET /repos/o/r/pulls/7/files");
}

TEST(GithubJson, PullCarriesBodyLabelsLoginsAndState) {
  std::int64_t changed = 0;
  auto c = decode_pull(fixture("pull_101.json"), "GET /repos/acme/widget/pulls/101", &changed);
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->number, 101);
  EXPECT_EQ(c->title, "Fuse RMSNorm into one kernel");
  EXPECT_NE(c->body.find("| 32    | 10400          | 13100         | 1.26x   |"),
            std::string::npos);
  EXPECT_EQ(c->labels, (std::vector<std::string>{"performance", "kernel"}));
  EXPECT_EQ(c->author.login, "alice");
  EXPECT_EQ(c->merged_by, "bob");
  EXPECT_EQ(c->sha, "a101a101a101a101a101a101a101a101a101a101");
  EXPECT_EQ(c->head_sha, "b101b101b101b101b101b101b101b101b101b101");
  EXPECT_EQ(c->base_ref, "main");
  EXPECT_EQ(format_utc(c->merged_at), "2026-09-02T11:59:00Z");
  EXPECT_FALSE(c->open);
  EXPECT_EQ(c->url, "https://github.com/acme/widget/pull/101");
  EXPECT_EQ(changed, 2);

  auto open = decode_pull(fixture("pull_104.json"), "GET /repos/acme/widget/pulls/104");
  ASSERT_TRUE(open);
  EXPECT_TRUE(open->open);
  EXPECT_EQ(open->merged_at, 0);
  EXPECT_EQ(open->sha, open->head_sha);  // no merge commit yet

  auto long_body = decode_pull(fixture("pull_103.json"), "GET /repos/acme/widget/pulls/103");
  ASSERT_TRUE(long_body);
  EXPECT_GT(long_body->body.size(), 4000u);
  EXPECT_NE(long_body->body.find("| p99 TTFT (ms) | 2300 | 640 |"), std::string::npos);
}

TEST(GithubJson, FilesParsePatchesAndFlagMissingOnes) {
  auto files =
      decode_files(fixture("pull_103_files.json"), "GET /repos/acme/widget/pulls/103/files");
  ASSERT_TRUE(files) << files.error().message;
  ASSERT_EQ(files->size(), 2u);
  EXPECT_EQ((*files)[0].path, "python/widget/scheduler.py");
  ASSERT_EQ((*files)[0].hunks.size(), 1u);
  EXPECT_EQ((*files)[0].hunks[0].new_start, 40);
  EXPECT_FALSE((*files)[0].truncated);
  EXPECT_EQ((*files)[1].status, FileStatus::kAdded);
  EXPECT_TRUE((*files)[1].truncated);  // 5206 changed lines and no patch
  EXPECT_TRUE((*files)[1].hunks.empty());
}

TEST(GithubJson, ReviewThreadsOnLines) {
  auto rc = decode_review_comments(fixture("pull_101_comments.json"),
                                   "GET /repos/acme/widget/pulls/101/comments");
  ASSERT_TRUE(rc) << rc.error().message;
  ASSERT_EQ(rc->size(), 3u);
  EXPECT_EQ((*rc)[0].author, "airMeng");
  EXPECT_EQ((*rc)[0].path, "python/widget/layers/norm.py");
  EXPECT_EQ((*rc)[0].line, 10);
  EXPECT_EQ((*rc)[1].in_reply_to, (*rc)[0].id);
  EXPECT_EQ((*rc)[2].line, 0);  // outdated: only original_line
  EXPECT_EQ((*rc)[2].original_line, 9);
  EXPECT_NE((*rc)[0].diff_hunk.find("@@ -8,9 +8,15 @@"), std::string::npos);

  auto reviews = decode_reviews(fixture("pull_101_reviews.json"), "GET .../reviews");
  ASSERT_TRUE(reviews);
  ASSERT_EQ(reviews->size(), 3u);  // the PENDING one is not submitted
  EXPECT_EQ((*reviews)[0].state, "CHANGES_REQUESTED");
  auto comments = decode_issue_comments(fixture("issue_101_comments.json"), "GET .../comments");
  ASSERT_TRUE(comments);
  EXPECT_EQ((*comments)[1].author, "carol");
  auto commits = decode_commits(fixture("pull_101_commits.json"), "GET .../commits");
  ASSERT_TRUE(commits);
  EXPECT_EQ((*commits)[1].author.login, "alice");
  EXPECT_EQ((*commits)[1].message, "Address review: keep the fp32 fallback");
}

TEST(GithubJson, MalformedJsonNamesTheEndpoint) {
  const std::string endpoint = "GET /repos/acme/widget/pulls/101/files";
  auto bad = decode_files(R"([{"filename": "a.py", "patch": )", endpoint);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().kind, ErrorKind::kCorrupt);
  EXPECT_NE(bad.error().message.find(endpoint), std::string::npos) << bad.error().message;
  EXPECT_NE(bad.error().message.find("malformed JSON"), std::string::npos);

  auto not_array = decode_pulls(R"({"message":"oops"})", "GET /repos/acme/widget/pulls");
  ASSERT_FALSE(not_array);
  EXPECT_NE(not_array.error().message.find("GET /repos/acme/widget/pulls: unexpected JSON"),
            std::string::npos)
      << not_array.error().message;
  auto wrong_type = decode_pull(R"({"number":"7","head":{},"base":{}})", "GET /x");
  ASSERT_FALSE(wrong_type);
  EXPECT_NE(wrong_type.error().message.find("\"number\""), std::string::npos);
}

}  // namespace
}  // namespace mergelens::github
