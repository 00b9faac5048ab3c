// Rendering: hostile titles, bodies, authors, tags and guide text are inert
// on every page; Atom feeds are well-formed with the required elements;
// day boundaries follow the time zone; the static export and the digest.
#include <expat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "mergelens/web/export.h"
#include "mergelens/web/pages.h"
#include "mergelens/web/render.h"
#include "web_fixture.h"

namespace mergelens {
namespace {

using testing::WebStore;

void expect_inert(const std::string& html, const std::string& what) {
  for (const char* bad :
       {"<script", "<img", "<b>", "<b ", "href=\"javascript:", "onerror=alert(1)>"})
    EXPECT_EQ(html.find(bad), std::string::npos) << what << " contains " << bad;
}

using Pages = testing::WebPages;

TEST(WebRender, HostileTextIsInertOnEveryPage) {
  Pages p;
  p.w.add_guide(1003, "zh", std::string("标题 ") + testing::kHostile,
                "正文 <script>alert(9)</script>");
  for (const auto lang : {web::Lang::kZh, web::Lang::kEn}) {
    auto s = p.site(lang);
    expect_inert(p.html(s, web::day_page(s, "2026-09-16")), "day");
    const std::string pr = p.html(s, web::pr_page(s, "1003"));
    expect_inert(pr, "pr");
    EXPECT_NE(pr.find("&lt;script&gt;window.__pwned=1&lt;/script&gt;"), std::string::npos);
    EXPECT_NE(pr.find("&lt;b&gt;Evil&lt;/b&gt; Name"), std::string::npos);  // the author
    expect_inert(p.html(s, web::pr_page(s, "1001")), "pr without guide");
    expect_inert(p.html(s, web::tags_page(s, "")), "tags");
    expect_inert(p.html(s, web::tag_page(s, {"<script>tag</script>", "", "", "", ""})), "tag");
    expect_inert(p.html(s, web::tag_page(s, {"docs,moe", "", "", "", ""})), "tags combined");
    expect_inert(p.html(s, web::search_page(s, "script")), "search");
    expect_inert(p.html(s, web::search_page(s, "<img")), "search for markup");
  }
}

TEST(WebRender, PrPageCarriesEveryGuideElementAndALinkToTheLines) {
  Pages p;
  p.w.add_guide(1001, "zh", "修复 KV 缓存驱逐", "统一驱逐策略。");
  auto s = p.site();
  const std::string h = p.html(s, web::pr_page(s, "1001"));
  for (const char* want :
       {"修复 KV 缓存驱逐", "值得精读", "<code>evict</code>", "精读要点", "python/kv_cache.py",
        "https://github.com/o/r/blob/", "/python/kv_cache.py#L10-L12", "原始 PR #1001",
        "https://github.com/o/r/pull/1001", "alice", "2026-09-14 08:00", "离线撰写", "重要度 7",
        "洞察价值 6", "core path", "问题与风险", "分角色建议", "self.drop()",
        "href=\"/tags/kv-cache\""})
    EXPECT_NE(h.find(want), std::string::npos) << want;
  // A javascript: PR URL is not linked.
  const std::string hostile = p.html(s, web::pr_page(s, "1003"));
  EXPECT_EQ(hostile.find("javascript:alert"), hostile.find("javascript:alert(1)) and"));
}

TEST(WebI18n, EveryUiStringExistsInBothLanguages) {
  const auto& zh = web::ui_strings(web::Lang::kZh);
  const auto& en = web::ui_strings(web::Lang::kEn);
  EXPECT_EQ(zh.size(), en.size());
  for (const auto& [key, value] : zh.items()) {
    EXPECT_FALSE(value.get<std::string>().empty()) << key;
    ASSERT_TRUE(en.contains(key)) << key;
    EXPECT_FALSE(en[key].get<std::string>().empty()) << key;
  }
  // Keys used by the templates.
  for (const auto* name : {"layout", "day", "pr", "tags", "tag", "search", "message", "_item"}) {
    const auto* f = web::embedded_file(std::string(name) + ".mustache");
    ASSERT_NE(f, nullptr) << name;
    const std::string text(f->data);
    for (size_t pos = 0; (pos = text.find("{{ui.", pos)) != std::string::npos; pos += 5) {
      const std::string key = text.substr(pos + 5, text.find("}}", pos) - pos - 5);
      EXPECT_TRUE(zh.contains(key)) << name << ": " << key;
    }
  }
  EXPECT_EQ(web::verdict_label(web::Lang::kEn, "close_read"), "Close read");
  EXPECT_EQ(web::day_counts(web::Lang::kZh, 44, 6, 0), "合并 44 个，其中 6 个值得精读");
  EXPECT_EQ(web::day_counts(web::Lang::kEn, 44, 6, 0), "44 merged, 6 worth a close read");
}

TEST(WebRender, UrlHelpersRefuseDangerousSchemes) {
  EXPECT_EQ(web::safe_url("javascript:alert(1)"), "");
  EXPECT_EQ(web::safe_url("JaVaScRiPt:alert(1)"), "");
  EXPECT_EQ(web::safe_url("data:text/html,x"), "");
  EXPECT_EQ(web::safe_url("https://x/\"onmouseover=1"), "");
  EXPECT_EQ(web::safe_url("https://github.com/o/r/pull/1"), "https://github.com/o/r/pull/1");
  EXPECT_EQ(web::url_encode("a b/<c>", true), "a%20b/%3Cc%3E");
  auto segs = web::rich("use `x<y` here");
  ASSERT_EQ(segs.size(), 3u);
  EXPECT_TRUE(segs[1]["code"].get<bool>());
  EXPECT_EQ(segs[1]["t"], "x<y");
}

// Parses XML with expat; records element paths.
struct Xml {
  std::vector<std::string> stack, paths;
  std::map<std::string, int> count;
  bool ok = false;
  std::string error;
  explicit Xml(const std::string& text) {
    XML_Parser p = XML_ParserCreateNS(nullptr, ' ');
    XML_SetUserData(p, this);
    XML_SetElementHandler(
        p,
        [](void* d, const XML_Char* name, const XML_Char**) {
          auto* x = static_cast<Xml*>(d);
          std::string n = name;
          if (n.starts_with("http://www.w3.org/2005/Atom "))
            n = n.substr(28);
          else
            n = "{other}" + n;
          x->stack.push_back(n);
          std::string path;
          for (const auto& s : x->stack) path += "/" + s;
          x->paths.push_back(path);
          ++x->count[path];
        },
        [](void* d, const XML_Char*) { static_cast<Xml*>(d)->stack.pop_back(); });
    ok = XML_Parse(p, text.data(), static_cast<int>(text.size()), 1) == XML_STATUS_OK;
    if (!ok) error = XML_ErrorString(XML_GetErrorCode(p));
    XML_ParserFree(p);
  }
};

TEST(WebFeed, AtomFeedsAreWellFormedWithRequiredElements) {
  Pages p;
  p.w.add_guide(1005, "zh", std::string("深夜 MoE ") + testing::kHostile + " & \x01 ctrl", "x");
  auto s = p.site();
  for (const auto kind : {web::FeedKind::kAll, web::FeedKind::kCloseReads, web::FeedKind::kTag}) {
    auto feed = web::atom_feed(s, kind, "moe", "/feed.xml");
    ASSERT_TRUE(feed) << feed.error().message;
    Xml x(*feed);
    ASSERT_TRUE(x.ok) << x.error << "\n" << *feed;
    EXPECT_EQ(x.count["/feed"], 1);
    EXPECT_EQ(x.count["/feed/id"], 1);
    EXPECT_EQ(x.count["/feed/title"], 1);
    EXPECT_EQ(x.count["/feed/updated"], 1);
    EXPECT_GE(x.count["/feed/author"], 1);
    const int entries = x.count["/feed/entry"];
    EXPECT_GT(entries, 0);
    EXPECT_EQ(x.count["/feed/entry/id"], entries);
    EXPECT_EQ(x.count["/feed/entry/title"], entries);
    EXPECT_EQ(x.count["/feed/entry/updated"], entries);
    EXPECT_GE(x.count["/feed/entry/link"], entries);
    EXPECT_EQ(x.count.count("{other}"), 0u);
  }
  auto all = web::atom_feed(s, web::FeedKind::kAll, "", "/feed.xml");
  EXPECT_EQ(all->find("<script"), std::string::npos);
  EXPECT_NE(all->find("<updated>2026-09-16T23:30:00Z</updated>"), std::string::npos);
  auto close = web::atom_feed(s, web::FeedKind::kCloseReads, "", "/feed/close.xml");
  EXPECT_EQ(close->find("/pr/1004"), std::string::npos);  // selective read
}

// Issue 22: an encoded surrogate (ED A0 80, invalid UTF-8) or a control in a
// subject made the English feed ill-formed and reached the PR page raw.
TEST(WebFeed, InvalidUtf8AndXmlForbiddenCharactersAreReplacedOrDropped) {
  Pages p;
  const std::string bad = "Fix \xED\xA0\x80 path \xC0\xAF \x0b\x1b[31m \xEF\xBF\xBE end";
  p.w.add(1006, "2026-09-16T20:00:00Z", bad, Verdict::kCloseRead, 8, 7, {"moe"});
  for (const auto lang : {web::Lang::kEn, web::Lang::kZh}) {
    auto s = p.site(lang);
    for (const auto kind : {web::FeedKind::kAll, web::FeedKind::kCloseReads, web::FeedKind::kTag}) {
      auto feed = web::atom_feed(s, kind, "moe", "/feed.xml");
      ASSERT_TRUE(feed) << feed.error().message;
      Xml x(*feed);
      EXPECT_TRUE(x.ok) << x.error;
      EXPECT_EQ(feed->find("\xED\xA0\x80"), std::string::npos);
      EXPECT_EQ(feed->find('\x0b'), std::string::npos);
      EXPECT_EQ(feed->find('\x1b'), std::string::npos);
      EXPECT_NE(feed->find("Fix \xEF\xBF\xBD"), std::string::npos);  // U+FFFD in its place
    }
    const std::string pr = p.html(s, web::pr_page(s, "1006"));
    EXPECT_EQ(pr.find("\xED\xA0\x80"), std::string::npos);
    EXPECT_EQ(pr.find("\xC0\xAF"), std::string::npos);
    EXPECT_NE(pr.find("Fix \xEF\xBF\xBD"), std::string::npos);
  }
  // Whatever a view model holds, a rendered {{value}} is clean.
  auto html = web::render_template("message", {{"heading", bad}, {"detail", bad}});
  ASSERT_TRUE(html) << html.error().message;
  EXPECT_EQ(html->find("\xED\xA0\x80"), std::string::npos);
  EXPECT_EQ(html->find('\x0b'), std::string::npos);
  EXPECT_NE(html->find("Fix \xEF\xBF\xBD"), std::string::npos);
}

TEST(WebTime, DayBoundariesFollowTheTimeZone) {
  auto sh = web::TimeZone::named("Asia/Shanghai");
  ASSERT_TRUE(sh);
  auto b = sh->day_bounds("2026-09-17");
  ASSERT_TRUE(b);
  EXPECT_EQ(format_utc(b->first), "2026-09-16T16:00:00Z");
  EXPECT_EQ(format_utc(b->second), "2026-09-17T16:00:00Z");
  EXPECT_EQ(sh->day(*parse_instant("2026-09-16T23:30:00Z")), "2026-09-17");
  auto ny = web::TimeZone::named("America/New_York");
  ASSERT_TRUE(ny);
  EXPECT_EQ(format_utc(ny->day_bounds("2026-03-08")->second), "2026-03-09T04:00:00Z");  // DST
  EXPECT_FALSE(web::TimeZone::named("Mars/Olympus"));
  EXPECT_FALSE(web::TimeZone::named("../../etc/passwd"));
  EXPECT_FALSE(sh->day_bounds("2026-02-29"));
  EXPECT_TRUE(sh->day_bounds("2028-02-29"));
  // Days before 1970 are days (issue 22); a year-10000 instant is named by its bound.
  auto old_day = sh->day_bounds("1906-08-16");
  ASSERT_TRUE(old_day);
  EXPECT_EQ(sh->day(old_day->first), "1906-08-16");
  EXPECT_EQ(sh->day(old_day->first - 1), "1906-08-15");
  EXPECT_FALSE(sh->day_bounds("0000-12-31"));
  EXPECT_EQ(sh->day(253402300800), "9999-12-31");
  EXPECT_EQ(ny->day(-70000000000), "0001-01-01");

  Pages p;
  web::Site site{*p.w.store, p.w.repo, *sh, web::Lang::kZh, web::Links::server(web::Lang::kZh),
                 {},         {}};
  auto day = web::day_page(site, "2026-09-17");
  ASSERT_TRUE(day);
  ASSERT_EQ(day->model["items"].size(), 1u);
  EXPECT_EQ(day->model["items"][0]["ref"], "#1005");
  EXPECT_EQ(day->model["items"][0]["merged"], "2026-09-17 07:30");
}

TEST(WebRender, OpenPullRequestsAreListedApartOnTheNewestDay) {
  Pages p;
  Change c;
  c.kind = ChangeKind::kSquash;
  c.number = 3001;
  c.sha = std::string(40, 'e');
  c.title = "WIP: open <b>PR</b>";
  c.open = true;
  c.updated_at = *parse_instant("2026-09-16T12:00:00Z");
  c.url = "https://github.com/o/r/pull/3001";
  ASSERT_TRUE(p.w.store->put_pull(p.w.repo.id, c, {}, std::nullopt));
  auto s = p.site();
  auto day = web::day_page(s, "");
  ASSERT_TRUE(day);
  EXPECT_EQ(day->model["date"], "2026-09-16");
  EXPECT_EQ(day->model["items"].size(), 3u);
  ASSERT_EQ(day->model["open_items"].size(), 1u);
  EXPECT_EQ(day->model["open_items"][0]["ref"], "#3001");
  EXPECT_EQ(day->model["counts"], "合并 3 个，其中 1 个值得精读；另有 1 个未合并");
  const std::string html = p.html(s, web::day_page(s, "2026-09-16"));
  EXPECT_NE(html.find("尚未合并的 PR"), std::string::npos);
  expect_inert(html, "day with open PR");
  auto days = web::all_days(s);
  ASSERT_TRUE(days);
  EXPECT_EQ(*days, (std::vector<std::string>{"2026-09-16", "2026-09-14"}));
  auto older = web::day_page(s, "2026-09-14");
  EXPECT_TRUE(older->model["prev"].is_null());
  EXPECT_TRUE(older->model["open_items"].empty());
}

TEST(WebExport, WritesTheSiteWithRelativeLinksAndTheDigest) {
  Pages p;
  p.w.add_guide(1001, "zh", "修复 KV 缓存驱逐", "统一驱逐策略。");
  testing::TempDir out;
  web::ExportOptions o;
  o.out = out.path();
  auto stats = web::export_site(*p.w.store, o);
  ASSERT_TRUE(stats) << stats.error().message;
  EXPECT_GT(stats->pages, 10u);
  namespace fs = std::filesystem;
  for (const char* f : {"index.html", "day/2026-09-16.html", "day/2026-09-14.html", "pr/1001.html",
                        "tags/index.html", "tags/moe.html", "feed.xml", "feed/close.xml",
                        "feed/tags/moe.xml", "static/style.css", "en/index.html", "en/pr/1001.html",
                        "tags/_3cscript_3etag_3c_2fscript_3e.html"})
    EXPECT_TRUE(fs::exists(out / f)) << f;
  auto read = [&](const std::string& f) {
    std::ifstream in(out / f);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  const std::string day = read("day/2026-09-16.html");
  EXPECT_NE(day.find("href=\"../pr/1005.html\""), std::string::npos);
  EXPECT_NE(day.find("href=\"../static/style.css\""), std::string::npos);
  EXPECT_NE(day.find("href=\"../day/2026-09-14.html\""), std::string::npos);
  EXPECT_NE(day.find("href=\"../en/day/2026-09-16.html\""), std::string::npos);
  EXPECT_EQ(day.find("href=\"/"), std::string::npos);
  EXPECT_EQ(day.find("<form"), std::string::npos);
  expect_inert(day, "exported day");
  const std::string en = read("en/pr/1001.html");
  EXPECT_NE(en.find("href=\"../../static/style.css\""), std::string::npos);
  EXPECT_NE(en.find("href=\"../../pr/1001.html\""), std::string::npos);

  auto md = web::digest(*p.w.store, p.w.repo, "UTC", "zh", "2026-09-14", "md");
  ASSERT_TRUE(md) << md.error().message;
  EXPECT_NE(md->find("# o/r · 2026-09-14"), std::string::npos);
  EXPECT_NE(md->find("## 1. 修复 KV 缓存驱逐"), std::string::npos);
  EXPECT_NE(md->find("[原始 PR #1001](<https://github.com/o/r/pull/1001>)"), std::string::npos);
  // Guide prose keeps its code spans; the hostile text around them stays escaped.
  EXPECT_NE(md->find("只需读 `evict` 的"), std::string::npos) << *md;
  EXPECT_EQ(md->find("\\`"), std::string::npos) << *md;
  EXPECT_NE(md->find("window.\\_\\_pwned"), std::string::npos) << *md;
  auto hostile = web::digest(*p.w.store, p.w.repo, "UTC", "en", "2026-09-16", "md");
  ASSERT_TRUE(hostile);
  EXPECT_EQ(hostile->find("<script"), std::string::npos);
  EXPECT_EQ(hostile->find("(javascript:"), std::string::npos);
  auto json = web::digest(*p.w.store, p.w.repo, "UTC", "zh", "2026-09-16", "json");
  ASSERT_TRUE(json);
  EXPECT_EQ(nlohmann::json::parse(*json)["items"].size(), 3u);
  EXPECT_FALSE(web::digest(*p.w.store, p.w.repo, "UTC", "zh", "2026-9-16", "md"));
  EXPECT_FALSE(web::digest(*p.w.store, p.w.repo, "UTC", "zh", "2026-09-16", "html"));
}

}  // namespace
}  // namespace mergelens
