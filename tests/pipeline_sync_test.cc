#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "github_fixture_server.h"
#include "mergelens/model/json.h"
#include "mergelens/pipeline/ingest.h"
#include "mergelens/pipeline/sync.h"
#include "test_helpers.h"

namespace mergelens {
namespace {

using testing::FakeClock;
using testing::fixture;
using testing::FixtureResponse;
using testing::FixtureServer;
using testing::TempDir;

constexpr const char* kRepo = "/repos/acme/widget";

std::string route(const std::string& rest) {
  return kRepo + rest;
}

// Serves acme/widget: closed list on two pages (#103, #102 unmerged | #101),
// open list (#104), and every endpoint of each PR.
void serve_widget(FixtureServer& s) {
  s.add_json(route("/pulls?state=closed"), "pulls_closed_page1.json",
             {{"ETag", "\"closed-v1\""},
              {"Link",
               "<{base}/repositories/42/pulls?state=closed&sort=updated&direction=desc&per_page="
               "100&page=2>; rel=\"next\", <{base}/repositories/42/pulls?state=closed&page=2>; "
               "rel=\"last\""}});
  s.add_json("/repositories/42/pulls?state=closed&page=2", "pulls_closed_page2.json",
             {{"Link", "<{base}/repositories/42/pulls?state=closed&page=1>; rel=\"first\""}});
  s.add_json(route("/pulls?state=open"), "pulls_open.json", {{"ETag", "\"open-v1\""}});
  for (int n : {101, 103, 104}) {
    const std::string p = fmt::format("/pulls/{}", n);
    s.add_json(route(p), fmt::format("pull_{}.json", n));
    s.add_json(route(p + "/files"), fmt::format("pull_{}_files.json", n));
    s.add_json(route(p + "/commits"), fmt::format("pull_{}_commits.json", n));
    s.add_json(route(p + "/reviews"), n == 103   ? "pull_103_reviews.json"
                                      : n == 101 ? "pull_101_reviews.json"
                                                 : "pull_104_reviews.json");
    s.add_json(route(p + "/comments"), n == 101 ? "pull_101_comments.json" : "empty.json");
    s.add_json(route(fmt::format("/issues/{}/comments", n)),
               n == 103 ? "empty.json" : fmt::format("issue_{}_comments.json", n));
  }
}

class SyncTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = open_sqlite_store(dir_ / "db.sqlite");
    ASSERT_TRUE(s) << s.error().message;
    store_ = std::move(*s);
  }
  SyncOptions options() {
    SyncOptions o;
    o.repo = "acme/widget";
    o.api_url = server_.url();
    o.token = "ghp_SECRET";
    o.clock = &clock_;
    return o;
  }
  Change change(const std::string& ref) {
    auto repo = resolve_repo(*store_, "acme/widget");
    EXPECT_TRUE(repo) << repo.error().message;
    auto c = find_change(*store_, *repo, ref);
    EXPECT_TRUE(c) << ref << ": " << c.error().message;
    return c ? *c : Change{};
  }
  std::vector<PullRow> rows(std::int64_t number) {
    auto repo = resolve_repo(*store_, "acme/widget");
    return *store_->pull_rows(repo->id, number);
  }

  TempDir dir_;
  FixtureServer server_;
  FakeClock clock_;
  std::unique_ptr<Store> store_;
};

TEST_F(SyncTest, FirstSyncStoresMergedAndOpenPrsWithTheirConversation) {
  serve_widget(server_);
  auto r = sync_github(*store_, options(), nullptr);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->merged, 2u);
  EXPECT_EQ(r->open, 1u);
  EXPECT_EQ(r->skipped_unmerged, 1u);
  EXPECT_EQ(server_.requests_to(route("/pulls/102")), 0);  // closed unmerged: not fetched

  Change c = change("#101");
  EXPECT_EQ(c.sha, "a101a101a101a101a101a101a101a101a101a101");
  EXPECT_NE(c.body.find("| 128   | 21050          | 22900         | 1.09x   |"), std::string::npos);
  EXPECT_EQ(c.labels, (std::vector<std::string>{"kernel", "performance"}));
  EXPECT_EQ(c.author.login, "alice");
  EXPECT_EQ(c.author.email, "1001+alice@users.noreply.github.com");
  EXPECT_EQ(c.merged_by, "bob");
  EXPECT_FALSE(c.open);
  ASSERT_EQ(c.files.size(), 2u);
  EXPECT_EQ(c.files[0].hunks.at(0).new_start, 8);
  EXPECT_EQ(c.commits.size(), 2u);
  EXPECT_EQ(c.reviews.size(), 3u);
  ASSERT_EQ(c.review_comments.size(), 3u);
  EXPECT_EQ(c.review_comments[1].in_reply_to, 90001);
  EXPECT_EQ(c.review_comments[0].line, 10);
  EXPECT_EQ(c.comments.size(), 2u);

  Change big = change("#103");
  ASSERT_EQ(big.files.size(), 2u);
  EXPECT_TRUE(big.files[1].truncated);
  EXPECT_GT(big.body.size(), 4000u);

  Change open = change("#104");
  EXPECT_TRUE(open.open);
  EXPECT_EQ(open.merged_at, 0);
  EXPECT_EQ(open.sha, "e104e104e104e104e104e104e104e104e104e104");
  EXPECT_EQ(open.reviews.at(0).state, "CHANGES_REQUESTED");
  const auto j = to_json(open);
  EXPECT_EQ(j["state"], "open");
  EXPECT_TRUE(j["merged_at"].is_null());

  // Request count: 2 closed-list pages + 1 open-list page + 6 per PR (pull,
  // files, commits, reviews, review comments, issue comments) × 3 PRs.
  EXPECT_EQ(r->stats.requests, 3 + 6 * 3);
  EXPECT_EQ(server_.requests(), 21);
}

TEST_F(SyncTest, RepeatedSyncOfAnUnchangedRepositoryCostsTwoConditionalRequests) {
  serve_widget(server_);
  ASSERT_TRUE(sync_github(*store_, options(), nullptr));
  const int before = server_.requests();
  auto r = sync_github(*store_, options(), nullptr);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(server_.requests() - before, 2);
  EXPECT_EQ(r->stats.requests, 2);
  EXPECT_EQ(r->stats.not_modified, 2);
  EXPECT_EQ(r->merged + r->open, 0u);
}

TEST_F(SyncTest, OpenPrThatMergesBecomesTheSameChangeMerged) {
  serve_widget(server_);
  ASSERT_TRUE(sync_github(*store_, options(), nullptr));
  const Change open = change("#104");
  ASSERT_TRUE(open.open);

  // It merges: the closed list now starts with it, the open list is empty.
  server_.reset(route("/pulls?state=closed"));
  server_.add_json(route("/pulls?state=closed"), "pulls_closed_after_merge.json",
                   {{"ETag", "\"closed-v2\""}});
  server_.reset(route("/pulls?state=open"));
  server_.add_json(route("/pulls?state=open"), "pulls_open_empty.json", {{"ETag", "\"open-v2\""}});
  server_.reset(route("/pulls/104"));
  server_.add_json(route("/pulls/104"), "pull_104_merged.json");
  server_.reset(route("/pulls/104/files"));
  server_.add_json(route("/pulls/104/files"), "pull_104_merged_files.json");
  const int pulls_103 = server_.requests_to(route("/pulls/103"));

  auto r = sync_github(*store_, options(), nullptr);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->turned_merged, 1u);
  EXPECT_EQ(server_.requests_to(route("/pulls/103")), pulls_103);  // unchanged: not refetched
  const Change merged = change("#104");
  EXPECT_EQ(merged.id, open.id);
  EXPECT_FALSE(merged.open);
  EXPECT_EQ(merged.sha, "9104910491049104910491049104910491049104");
  EXPECT_EQ(merged.merged_by, "bob");
  EXPECT_EQ(format_utc(merged.merged_at), "2026-09-06T09:58:00Z");
  ASSERT_EQ(merged.files.size(), 1u);
  EXPECT_EQ(merged.files[0].additions, 6);
  EXPECT_EQ(rows(104).size(), 1u);
}

TEST_F(SyncTest, OpenPrIsRefreshedWhenItsHeadMoves) {
  serve_widget(server_);
  ASSERT_TRUE(sync_github(*store_, options(), nullptr));
  const Change before = change("#104");
  server_.reset(route("/pulls?state=open"));
  server_.add_json(route("/pulls?state=open"), "pulls_open_pushed.json", {{"ETag", "\"open-v2\""}});
  server_.reset(route("/pulls/104"));
  server_.add_json(route("/pulls/104"), "pull_104_pushed.json");
  const int files_before = server_.requests_to(route("/pulls/104/files"));
  auto r = sync_github(*store_, options(), nullptr);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->open, 1u);
  EXPECT_EQ(server_.requests_to(route("/pulls/104/files")), files_before + 1);
  const Change after = change("#104");
  EXPECT_EQ(after.id, before.id);
  EXPECT_TRUE(after.open);
  EXPECT_EQ(after.head_sha, "f104f104f104f104f104f104f104f104f104f104");
}

TEST_F(SyncTest, PrimaryLimitStopsTheSyncWithNothingHalfStored) {
  serve_widget(server_);
  server_.reset(route("/pulls/103/comments"));
  auto headers = FixtureServer::github_headers();
  std::erase_if(headers, [](const auto& h) { return h.first.starts_with("X-RateLimit-R"); });
  headers.emplace_back("X-RateLimit-Remaining", "0");
  headers.emplace_back("X-RateLimit-Reset", std::to_string(clock_.now() + 1800));
  server_.add(
      route("/pulls/103/comments"),
      FixtureResponse{403, R"({"message":"API rate limit exceeded for user ID 1001."})", headers});
  auto r = sync_github(*store_, options(), nullptr);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::kIo);
  EXPECT_NE(r.error().message.find("GET /repos/acme/widget/pulls/103/comments"), std::string::npos)
      << r.error().message;
  EXPECT_NE(r.error().message.find("rate limit exhausted"), std::string::npos);
  EXPECT_NE(r.error().message.find("run sync again"), std::string::npos);
  EXPECT_EQ(rows(101).size(), 1u);  // oldest first: stored whole before the stop
  EXPECT_EQ(change("#101").review_comments.size(), 3u);
  EXPECT_TRUE(rows(103).empty());  // its reviews were fetched, but nothing of it is stored
  EXPECT_TRUE(rows(104).empty());

  // After the reset the next sync continues: #101 is not fetched again.
  server_.reset(route("/pulls/103/comments"));
  server_.add_json(route("/pulls/103/comments"), "empty.json");
  FakeClock later(clock_.now() + 3600);
  auto o = options();
  o.clock = &later;
  const int pulls_101 = server_.requests_to(route("/pulls/101"));
  auto again = sync_github(*store_, o, nullptr);
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(server_.requests_to(route("/pulls/101")), pulls_101);
  EXPECT_EQ(again->merged, 1u);
  EXPECT_EQ(rows(103).size(), 1u);
}

TEST_F(SyncTest, MalformedJsonFailsNamingTheEndpoint) {
  serve_widget(server_);
  server_.reset(route("/pulls/101/reviews"));
  server_.add(route("/pulls/101/reviews"),
              FixtureResponse{200, R"([{"id": 1, "user": {"login": "x"}, "state": )",
                              FixtureServer::github_headers()});
  auto r = sync_github(*store_, options(), nullptr);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::kCorrupt);
  EXPECT_NE(r.error().message.find("GET /repos/acme/widget/pulls/101/reviews"), std::string::npos)
      << r.error().message;
  EXPECT_TRUE(rows(101).empty());
}

TEST_F(SyncTest, FilesListCutAtTheApiLimitIsFlagged) {
  nlohmann::json pull = nlohmann::json::parse(fixture("pull_103.json"));
  pull["number"] = 105;
  pull["changed_files"] = 3500;
  pull["merge_commit_sha"] = std::string(40, '5');
  nlohmann::json list = nlohmann::json::array({pull});
  server_.add(route("/pulls?state=closed"),
              FixtureResponse{200, list.dump(), FixtureServer::github_headers()});
  server_.add_json(route("/pulls?state=open"), "pulls_open_empty.json");
  server_.add(route("/pulls/105"),
              FixtureResponse{200, pull.dump(), FixtureServer::github_headers()});
  for (int page = 1; page <= 35; ++page) {
    nlohmann::json files = nlohmann::json::array();
    for (int i = 0; i < 100; ++i)
      files.push_back({{"sha", "ab"},
                       {"filename", fmt::format("gen/p{}/f{}.py", page, i)},
                       {"status", "added"},
                       {"additions", 1},
                       {"deletions", 0},
                       {"changes", 1},
                       {"patch", "@@ -0,0 +1 @@\n+x = 1"}});
    auto headers = FixtureServer::github_headers();
    headers.emplace_back("Link", fmt::format("<{{base}}{}/pulls/105/files?per_page=100&page={}>; "
                                             "rel=\"next\"",
                                             kRepo, page + 1));
    server_.add(route("/pulls/105/files") + (page == 1 ? "" : fmt::format("?page={}", page)),
                FixtureResponse{200, files.dump(), headers});
  }
  for (const char* rest :
       {"/pulls/105/commits", "/pulls/105/reviews", "/pulls/105/comments", "/issues/105/comments"})
    server_.add_json(route(rest), "empty.json");
  auto r = sync_github(*store_, options(), nullptr);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(server_.requests_to(route("/pulls/105/files?page=30")), 1);
  EXPECT_EQ(server_.requests_to(route("/pulls/105/files?page=31")), 0);  // the API stops at 3000
  Change c = change("#105");
  EXPECT_EQ(c.files.size(), 3000u);
  EXPECT_TRUE(c.files_truncated);
}

TEST_F(SyncTest, JoinsWithTheCloneKeepingTheGitDiff) {
  testing::GitRepo git(dir_ / "clone");
  git.run("remote add origin https://github.com/acme/widget.git");
  git.write("python/widget/layers/norm.py", "class RMSNorm:\n    pass\n");
  git.commit("Initial", "2026-08-30T10:00:00Z");
  git.write("python/widget/layers/norm.py", "class RMSNorm:\n    fused = True\n");
  git.commit("Fuse RMSNorm into one kernel (#101)", "2026-09-02T11:59:00Z");
  IngestOptions io;
  io.repo_path = git.path();
  ASSERT_TRUE(ingest(*store_, io, nullptr));
  const Change from_git = change("#101");
  ASSERT_EQ(from_git.files.size(), 1u);
  ASSERT_TRUE(from_git.body.empty());

  nlohmann::json pull = nlohmann::json::parse(fixture("pull_101.json"));
  pull["merge_commit_sha"] = from_git.sha;
  nlohmann::json list = nlohmann::json::array({pull});
  serve_widget(server_);
  server_.reset(route("/pulls?state=closed"));
  server_.add(route("/pulls?state=closed"),
              FixtureResponse{200, list.dump(), FixtureServer::github_headers()});
  server_.reset(route("/pulls/101"));
  server_.add(route("/pulls/101"),
              FixtureResponse{200, pull.dump(), FixtureServer::github_headers()});
  auto o = options();
  o.open = false;
  auto r = sync_github(*store_, o, nullptr);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->joined, 1u);
  // 1 list page + 4 per joined PR (pull, reviews, review comments, issue comments).
  EXPECT_EQ(r->stats.requests, 5);
  EXPECT_EQ(server_.requests_to(route("/pulls/101/files")), 0);
  EXPECT_EQ(server_.requests_to(route("/pulls/101/commits")), 0);

  const Change joined = change("#101");
  EXPECT_EQ(joined.id, from_git.id);
  EXPECT_EQ(joined.sha, from_git.sha);
  ASSERT_EQ(joined.files.size(), 1u);  // the git diff, not the fixture's two files
  EXPECT_EQ(joined.files[0].path, "python/widget/layers/norm.py");
  EXPECT_EQ(joined.author.email, from_git.author.email);
  EXPECT_EQ(joined.author.login, "alice");
  EXPECT_NE(joined.body.find("## Benchmark"), std::string::npos);
  EXPECT_EQ(joined.labels.size(), 2u);
  EXPECT_EQ(joined.review_comments.size(), 3u);
  EXPECT_EQ(rows(101).size(), 1u);
}

// Issue 22: a next link that comes back to a page already read is a loop; the
// sync stops with what was stored before it.
TEST_F(SyncTest, ALoopingNextLinkStopsTheSyncKeepingWhatWasStored) {
  serve_widget(server_);
  const std::string comments = route("/issues/103/comments");
  server_.reset(comments);
  server_.add_json(comments, "empty.json",
                   {{"Link", "<{base}" + comments + "?per_page=100&page=2>; rel=\"next\""}});
  server_.add_json(comments + "?page=2", "empty.json",
                   {{"Link", "<{base}" + comments + "?per_page=100&page=2>; rel=\"next\""}});
  auto r = sync_github(*store_, options(), nullptr);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::kCorrupt);
  EXPECT_NE(r.error().message.find("GET /repos/acme/widget/issues/103/comments"), std::string::npos)
      << r.error().message;
  EXPECT_NE(r.error().message.find("loop"), std::string::npos) << r.error().message;
  EXPECT_EQ(server_.requests_to(comments + "?page=2"), 1);
  EXPECT_EQ(rows(101).size(), 1u);  // stored before the loop, kept
  EXPECT_TRUE(rows(103).empty());
}

// Issue 22: an endless chain of fresh next links ends at max_pages.
TEST_F(SyncTest, EndlessPaginationStopsAtTheBound) {
  serve_widget(server_);
  const std::string closed = route("/pulls?state=closed");
  server_.reset(closed);
  auto link_to = [&](int page) {
    return std::vector<std::pair<std::string, std::string>>{
        {"Link", fmt::format("<{{base}}{}/pulls?state=closed&per_page=100&page={}>; rel=\"next\"",
                             kRepo, page)}};
  };
  server_.add_json(closed, "pulls_closed_page1.json", link_to(2));
  for (int page = 2; page <= 40; ++page)
    server_.add_json(fmt::format("{}&page={}", closed, page), "pulls_closed_page1.json",
                     link_to(page + 1));
  auto o = options();
  o.max_pages = 25;
  auto r = sync_github(*store_, o, nullptr);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::kCorrupt);
  EXPECT_NE(r.error().message.find("GET /repos/acme/widget/pulls"), std::string::npos)
      << r.error().message;
  EXPECT_NE(r.error().message.find("more than 25 pages"), std::string::npos) << r.error().message;
  EXPECT_EQ(server_.requests(), 25);
}

// Issue 22: the token never follows a next link to another host.
TEST_F(SyncTest, ANextLinkToAnotherHostIsRefused) {
  FixtureServer foreign;
  foreign.add_json("/repositories/42/pulls?state=closed&page=2", "pulls_closed_page2.json");
  serve_widget(server_);
  const std::string closed = route("/pulls?state=closed");
  server_.reset(closed);
  server_.add_json(closed, "pulls_closed_page1.json",
                   {{"Link", "<" + foreign.url() +
                                 "/repositories/42/pulls?state=closed&page=2>; rel=\"next\""}});
  auto r = sync_github(*store_, options(), nullptr);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::kInvalidInput);
  EXPECT_NE(r.error().message.find("another host"), std::string::npos) << r.error().message;
  EXPECT_EQ(r.error().message.find("ghp_SECRET"), std::string::npos);
  EXPECT_EQ(foreign.requests(), 0);
}

TEST_F(SyncTest, RejectsAMalformedRepositoryName) {
  auto o = options();
  o.repo = "acme/widget/extra";
  auto r = sync_github(*store_, o, nullptr);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::kInvalidInput);
  EXPECT_EQ(server_.requests(), 0);
}

}  // namespace
}  // namespace mergelens
