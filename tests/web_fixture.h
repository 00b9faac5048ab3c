// A small store for the web tests: changes, facts and guides built in
// memory (no git), including hostile text in every field a page shows.
#pragma once

#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "mergelens/store/store.h"
#include "mergelens/web/pages.h"
#include "mergelens/web/render.h"
#include "test_helpers.h"
#include "test_store.h"

namespace mergelens::testing {

inline constexpr const char* kHostile =
    "<script>window.__pwned=1</script>\"><img src=x onerror=alert(1)>";

struct WebStore {
  TempDir dir;
  TestLocation location;
  std::string db = location.str();  // a file, or a PostgreSQL URL (tests/test_store.h)
  std::unique_ptr<Store> store;
  RepoRecord repo;

  // Changes on 2026-09-14 (two), 2026-09-16 (three, one at 23:30 UTC which is
  // 2026-09-17 in Asia/Shanghai); none on 2026-09-15. `sqlite_only`: a SQLite
  // file whatever MERGELENS_TEST_PG says.
  explicit WebStore(bool sqlite_only = false) : location(dir, "web.db", sqlite_only) {
    auto s = open_store_at(db);
    EXPECT_TRUE(s) << s.error().message;
    store = std::move(*s);
    auto r = store->upsert_repo(RepoRecord{0, "o/r", "/x", "https://github.com/o/r", "main", ""});
    EXPECT_TRUE(r);
    repo = *r;
    add(1001, "2026-09-14T08:00:00Z", "Fix KV cache eviction", Verdict::kCloseRead, 7, 6,
        {"kv-cache", "bugfix"});
    add(1002, "2026-09-14T09:00:00Z", "Docs: typo", Verdict::kSkip, 1, 1, {"docs"});
    add(1003, "2026-09-16T10:00:00Z", std::string("Hostile ") + kHostile, Verdict::kSkim, 3, 2,
        {"docs", "<script>tag</script>"});
    add(1004, "2026-09-16T11:00:00Z", "Quantization: MXFP4 padding", Verdict::kSelectiveRead, 6, 5,
        {"quantization", "moe"});
    add(1005, "2026-09-16T23:30:00Z", "Late night MoE fix", Verdict::kCloseRead, 8, 7, {"moe"});
  }

  std::int64_t add(std::int64_t number, const std::string& when, const std::string& title,
                   Verdict verdict, int importance, int insight,
                   const std::vector<std::string>& tags) {
    Change c;
    c.kind = ChangeKind::kSquash;
    c.number = number;
    c.sha = fmt::format("{:040x}", number * 7919);
    c.title = title;
    c.body =
        std::string("Body with [x](javascript:alert(1)) and <b onmouseover=alert(1)>raw</b> ") +
        kHostile;
    c.author = Person{"<b>Evil</b> Name", "e@example.com", number == 1003 ? "" : "alice"};
    c.merged_at = *parse_instant(when);
    c.url = number == 1003 ? "javascript:alert(1)"
                           : fmt::format("https://github.com/o/r/pull/{}", number);
    FileChange f;
    f.path = "python/kv_cache.py";
    f.additions = 3;
    Hunk h;
    h.new_start = 10;
    h.new_lines = 3;
    h.old_start = 10;
    h.old_lines = 1;
    h.lines = {DiffLine{' ', 10, 10, "def evict(self):"},
               DiffLine{'-', 11, 0, "    old()  # <script>"},
               DiffLine{'+', 0, 11, "    if self.full: <img onerror=x>"},
               DiffLine{'+', 0, 12, "        self.drop()"}};
    f.hunks.push_back(h);
    c.files.push_back(f);
    EXPECT_TRUE(store->put_changes(repo.id, std::span<const Change>(&c, 1), std::nullopt));
    auto stored = store->get_change_by_number(repo.id, number);
    EXPECT_TRUE(stored && *stored);
    const std::int64_t id = (*stored)->id;
    Facts facts;
    facts.verdict = verdict;
    facts.importance.value = importance;
    facts.insight.value = insight;
    for (const auto& t : tags) facts.tags.push_back(Tag{t, "keyword", t});
    facts.focus.push_back(FocusRegion{"python/kv_cache.py", 10, 12, "evict", 5, {"guard"}, 3});
    std::vector<std::pair<std::int64_t, Facts>> fs{{id, facts}};
    EXPECT_TRUE(store->put_facts(fs));
    return id;
  }

  void add_guide(std::int64_t number, const std::string& lang, const std::string& headline,
                 const std::string& text);
};

inline void put_test_guide(Store& store, const RepoRecord& repo, std::int64_t number,
                           const std::string& lang, const std::string& headline,
                           const std::string& text) {
  auto c = store.get_change_by_number(repo.id, number);
  ASSERT_TRUE(c && *c);
  Guide g;
  g.lang = lang;
  g.headline = headline;
  g.summary = text;
  g.verdict = "close_read";
  g.verdict_text = "值得精读，但只需读 `evict` 的 3 行 " + std::string(kHostile);
  g.why = text;
  g.focus.push_back(GuideFocus{"python/kv_cache.py", 10, 12, "evict",
                               "is the `full` guard placed before the drop?", "guard"});
  g.questions.push_back(std::string("what if <script>alert(2)</script>?"));
  g.advice.push_back(GuideAdvice{"reviewer", "ask for a test"});
  g.importance = GuideScore{7, "core path"};
  g.insight = GuideScore{6, "pattern"};
  g.tags = {"kv-cache", "<img src=x onerror=alert(3)>"};
  g.writer.kind = "offline";
  std::vector<std::pair<std::int64_t, Guide>> gs{{(*c)->id, g}};
  ASSERT_TRUE(store.put_guides(gs));
}

inline void WebStore::add_guide(std::int64_t number, const std::string& lang,
                                const std::string& headline, const std::string& text) {
  put_test_guide(*store, repo, number, lang, headline, text);
}

// The fixture's store with a site per language and a page renderer.
struct WebPages {
  WebStore w;
  web::TimeZone tz = *web::TimeZone::named("UTC");
  web::Site site(web::Lang lang = web::Lang::kZh) {
    return web::Site{*w.store, w.repo, tz, lang, web::Links::server(lang), {}, {}};
  }
  std::string html(const web::Site& s, Result<web::Page> p) {
    EXPECT_TRUE(p) << p.error().message;
    if (!p) return "";
    auto h = web::render_page(s, *p, "/x");
    EXPECT_TRUE(h) << h.error().message;
    return h ? *h : "";
  }
};

}  // namespace mergelens::testing
