// A store of two repositories on the server and in the export (pg_unit runs
// these on PostgreSQL too): the repository switcher, the cross-repository
// day page (every repository's entries, each labelled, the most worth
// reading first), each repository's own pages under /r/NAME/, and a store
// of one repository unchanged (no switcher, no labels).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <vector>

#include <gtest/gtest.h>

#include "mergelens/web/export.h"
#include "web_fixture.h"
#include "web_serving.h"

namespace mergelens {
namespace {

// The web fixture's o/r plus team/beta, which merged on 2026-09-16 a close
// read more important than any of o/r's and a PR numbered like one of o/r's.
struct TwoRepos {
  testing::WebStore w;
  RepoRecord beta;
  TwoRepos() {
    auto b = w.store->upsert_repo(RepoRecord{0, "team/beta", "/b", "", "main", ""});
    EXPECT_TRUE(b);
    beta = *b;
    // WebStore::add writes to w.repo: point it at beta for these two.
    std::swap(w.repo, beta);
    w.add(1004, "2026-09-16T12:00:00Z", "Beta scheduler rewrite", Verdict::kCloseRead, 9, 8,
          {"scheduler"});
    w.add(77, "2026-09-16T13:00:00Z", "Beta typo", Verdict::kSkip, 1, 1, {"docs"});
    std::swap(w.repo, beta);
  }
};

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class WebRepos : public ::testing::Test {
 protected:
  void start(std::string root_repo) {
    web::ServerOptions o;
    o.workers = 2;
    o.repo = std::move(root_repo);
    serving.start(t.w.db, o);
  }
  void TearDown() override { serving.stop(); }
  http::Response get(const std::string& target) { return serving.get(target); }

  TwoRepos t;
  testing::Serving serving;
};

TEST_F(WebRepos, TheDayOfEveryRepositoryLabelsEachEntryMostWorthReadingFirst) {
  start("");  // several repositories, none named: every one together at "/"
  auto r = get("/day/2026-09-16");
  ASSERT_EQ(r.status, 200);
  const std::string& b = r.body;
  EXPECT_NE(b.find("id=\"repo-switch\""), std::string::npos);
  EXPECT_NE(b.find("合并 5 个，其中 2 个值得精读"), std::string::npos) << b;
  // beta's close read (importance 9) first, then o/r's, then o/r's selective
  // read; each entry links its repository's own PR page.
  const auto beta_1004 = b.find("href=\"/r/team/beta/pr/1004\"");
  const auto or_1005 = b.find("href=\"/r/o/r/pr/1005\"");
  const auto or_1004 = b.find("href=\"/r/o/r/pr/1004\"");
  ASSERT_NE(beta_1004, std::string::npos) << b;
  ASSERT_NE(or_1005, std::string::npos);
  ASSERT_NE(or_1004, std::string::npos);
  EXPECT_LT(beta_1004, or_1005);
  EXPECT_LT(or_1005, or_1004);
  EXPECT_NE(b.find("class=\"repo-label\" href=\"/r/team/beta/\">team/beta</a>"), std::string::npos);
  // The same number in two repositories: two anchors.
  EXPECT_NE(b.find("id=\"pr-r" + std::to_string(t.beta.id) + "-1004\""), std::string::npos);
  EXPECT_NE(b.find("id=\"pr-r" + std::to_string(t.w.repo.id) + "-1004\""), std::string::npos);
  // The switcher goes to the same day in each repository.
  EXPECT_NE(b.find("href=\"/r/o/r/day/2026-09-16\""), std::string::npos);

  // One repository's day: its entries only, unlabelled, its links in its scope.
  auto one = get("/r/team/beta/day/2026-09-16");
  ASSERT_EQ(one.status, 200);
  EXPECT_NE(one.body.find("合并 2 个，其中 1 个值得精读"), std::string::npos);
  EXPECT_EQ(one.body.find("/pr/1005"), std::string::npos);
  EXPECT_EQ(one.body.find("class=\"repo-label\""), std::string::npos);
  EXPECT_NE(one.body.find("aria-current=\"page\">team/beta</a>"), std::string::npos);
  EXPECT_EQ(get("/r/team/beta/pr/1004").status, 200);
  EXPECT_EQ(get("/r/o/r/pr/1004").status, 200);
  EXPECT_EQ(get("/pr/1004").status, 404);  // a PR page belongs to one repository
  EXPECT_EQ(get("/r/nobody/day/2026-09-16").status, 404);
  auto found = get("/search?q=scheduler");
  EXPECT_EQ(found.status, 200);
  EXPECT_NE(found.body.find("/r/team/beta/pr/1004"), std::string::npos);
  EXPECT_EQ(get("/r/o/r/search?q=scheduler").body.find("/pr/1004\""), std::string::npos);
  EXPECT_EQ(get("/feed.xml").status, 200);
  EXPECT_EQ(get("/all/tags/docs").status, 200);
}

TEST_F(WebRepos, ANamedRepositoryKeepsTheRootAndTheOthersMoveUnderR) {
  start("o/r");
  auto root = get("/day/2026-09-16");
  ASSERT_EQ(root.status, 200);
  EXPECT_NE(root.body.find("href=\"/pr/1005\""), std::string::npos);
  EXPECT_EQ(root.body.find("Beta scheduler"), std::string::npos);
  EXPECT_NE(root.body.find("href=\"/all/day/2026-09-16\""), std::string::npos);
  auto all = get("/all/day/2026-09-16");
  ASSERT_EQ(all.status, 200);
  // The root's entries keep their root links from the page of every repository.
  EXPECT_NE(all.body.find("href=\"/pr/1005\""), std::string::npos);
  EXPECT_NE(all.body.find("href=\"/r/team/beta/pr/1004\""), std::string::npos);
}

// The <id> of every entry of an Atom feed, in order.
std::vector<std::string> entry_ids(const std::string& feed) {
  std::vector<std::string> ids;
  for (size_t at = feed.find("<entry>"); at != std::string::npos;
       at = feed.find("<entry>", at + 1)) {
    const size_t open = feed.find("<id>", at) + 4;
    ids.push_back(feed.substr(open, feed.find("</id>", open) - open));
  }
  return ids;
}

TEST_F(WebRepos, AnEntryKeepsItsIdInItsRepositorysFeedAndTheFeedOfEveryRepository) {
  // A reader subscribed to both sees one change once per language; the zh
  // and en entries, which say different things, never share an id.
  start("");
  std::map<std::string, std::vector<std::string>> ids;
  for (const char* path : {"/feed.xml", "/feed.xml?lang=en", "/r/team/beta/feed.xml",
                           "/r/team/beta/feed.xml?lang=en", "/r/o/r/feed.xml"}) {
    auto r = get(path);
    ASSERT_EQ(r.status, 200) << path;
    ids[path] = entry_ids(r.body);
    EXPECT_FALSE(ids[path].empty()) << path;
    EXPECT_EQ(std::set<std::string>(ids[path].begin(), ids[path].end()).size(), ids[path].size())
        << path;
  }
  const auto in = [](const std::vector<std::string>& v, const std::string& id) {
    return std::find(v.begin(), v.end(), id) != v.end();
  };
  for (const auto& [one, all] : {std::pair{"/r/team/beta/feed.xml", "/feed.xml"},
                                 std::pair{"/r/team/beta/feed.xml?lang=en", "/feed.xml?lang=en"},
                                 std::pair{"/r/o/r/feed.xml", "/feed.xml"}})
    for (const auto& id : ids[one]) EXPECT_TRUE(in(ids[all], id)) << one << " " << id;
  for (const auto& id : ids["/feed.xml"]) EXPECT_FALSE(in(ids["/feed.xml?lang=en"], id)) << id;
  // The same number in two repositories is two changes.
  EXPECT_EQ(ids["/feed.xml"].size(),
            ids["/r/team/beta/feed.xml"].size() + ids["/r/o/r/feed.xml"].size());
  EXPECT_EQ(entry_ids(get("/feed.xml").body),
            ids["/feed.xml"]);  // stable from one fetch to the next
}

TEST(WebReposExport, WritesEveryRepositoryAndTheirDayTogether) {
  TwoRepos t;
  testing::TempDir out;
  web::ExportOptions o;
  o.out = out.path();
  o.repo = "o/r";
  auto stats = web::export_site(*t.w.store, o);
  ASSERT_TRUE(stats) << stats.error().message;
  namespace fs = std::filesystem;
  for (const char* f :
       {"index.html", "pr/1005.html", "r/team/beta/index.html", "r/team/beta/pr/1004.html",
        "r/team/beta/day/2026-09-16.html", "all/day/2026-09-16.html", "all/feed.xml",
        "en/all/day/2026-09-16.html", "en/r/team/beta/pr/1004.html"})
    EXPECT_TRUE(fs::exists(out / f)) << f;
  EXPECT_FALSE(fs::exists(out / "all/pr"));
  const std::string all = read_file(out / "all/day/2026-09-16.html");
  EXPECT_NE(all.find("href=\"../../pr/1005.html\""), std::string::npos) << all;
  EXPECT_NE(all.find("href=\"../../r/team/beta/pr/1004.html\""), std::string::npos);
  EXPECT_NE(all.find("href=\"../../static/style.css\""), std::string::npos);
  EXPECT_NE(all.find("href=\"../../en/all/day/2026-09-16.html\""), std::string::npos);
  EXPECT_EQ(all.find("href=\"/"), std::string::npos);
  const std::string beta = read_file(out / "r/team/beta/day/2026-09-16.html");
  EXPECT_NE(beta.find("href=\"../pr/1004.html\""), std::string::npos);
  EXPECT_NE(beta.find("href=\"../../../../static/style.css\""), std::string::npos);
  EXPECT_NE(beta.find("href=\"../../../../all/day/2026-09-16.html\""), std::string::npos);
  // Every relative link of the pages checked resolves to a written file.
  for (const auto& [page, html] : {std::pair{fs::path("all/day/2026-09-16.html"), all},
                                   std::pair{fs::path("r/team/beta/day/2026-09-16.html"), beta}}) {
    for (size_t at = html.find("href=\""); at != std::string::npos;
         at = html.find("href=\"", at + 1)) {
      const size_t end = html.find('"', at + 6);
      std::string link = html.substr(at + 6, end - at - 6);
      if (link.starts_with("http") || link.starts_with("#")) continue;
      link = link.substr(0, link.find('#'));
      EXPECT_TRUE(fs::exists((fs::path(out.path()) / page).parent_path() / link))
          << page << " → " << link;
    }
  }
}

TEST(WebReposExport, OneRepositoryHasNoSwitcherAndNoScopes) {
  testing::WebStore w;
  testing::TempDir out;
  web::ExportOptions o;
  o.out = out.path();
  ASSERT_TRUE(web::export_site(*w.store, o));
  EXPECT_FALSE(std::filesystem::exists(out / "all"));
  EXPECT_FALSE(std::filesystem::exists(out / "r"));
  const std::string day = read_file(out / "day/2026-09-16.html");
  EXPECT_EQ(day.find("repo-switch"), std::string::npos);
  EXPECT_EQ(day.find("repo-label"), std::string::npos);
}

}  // namespace
}  // namespace mergelens
