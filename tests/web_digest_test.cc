// The digest in the reference examples' form: each entry's paragraph (built
// from the guide when its writer gave none), tags by their Chinese names,
// the original-PR line, skip-verdict PRs last one line each, the day's
// figures linking its close reads; the same paragraph in the Atom feed and
// `digest --format md`; headlines with code spans as <code>; the tag list by
// recent activity; charts with axes, labels and values on hover; search
// across the two languages.
#include <gtest/gtest.h>

#include "mergelens/web/charts.h"
#include "mergelens/web/digest.h"
#include "mergelens/web/export.h"
#include "mergelens/web/render.h"
#include "mergelens/web/search.h"
#include "web_fixture.h"

namespace mergelens {
namespace {

using testing::WebStore;

Guide zh_guide() {
  Guide g;
  g.lang = "zh";
  g.verdict = "close_read";
  g.verdict_text = "值得精读，但只需读一处的 9 行代码";
  g.why = "它展示了 grid-wide barrier 对 block 驻留数的硬约束。";
  g.focus.push_back(GuideFocus{"python/mori/dispatch.py", 40, 48, "clamp_grid", "", ""});
  g.focus.push_back(GuideFocus{"python/mori/config.py", 7, 7, "", "", ""});
  return g;
}

TEST(WebDigest, ParagraphIsBuiltFromVerdictWhyAndFocusPlaces) {
  Guide g = zh_guide();
  EXPECT_EQ(web::digest_paragraph(g),
            "值得精读，但只需读一处的 9 行代码。它展示了 grid-wide barrier 对 block "
            "驻留数的硬约束。精读时先看：(1) `dispatch.py` 的 `clamp_grid`（第 40–48 行）；(2) "
            "`config.py`（第 7 行）。");
  // A place the verdict already names is not repeated.
  g.verdict_text = "值得精读，重点看 `clamp_grid`";
  EXPECT_EQ(web::digest_paragraph(g).find("(2)"), std::string::npos) << web::digest_paragraph(g);
  // English.
  g.lang = "en";
  g.verdict_text = "Worth a close read, but only 9 lines in one place";
  g.why = "Shows the hard constraint a grid-wide barrier puts on resident blocks";
  EXPECT_EQ(web::digest_paragraph(g),
            "Worth a close read, but only 9 lines in one place. Shows the hard constraint a "
            "grid-wide barrier puts on resident blocks. Start with (1) `clamp_grid` in "
            "`dispatch.py` (lines 40–48); (2) `config.py` (line 7).");
  // Skims and skips name no places; the writer's own paragraph wins.
  g.verdict = "skim";
  EXPECT_EQ(web::digest_paragraph(g).find("Start with"), std::string::npos);
  g.digest = "  The writer's paragraph.  ";
  EXPECT_EQ(web::digest_paragraph(g), "The writer's paragraph.");
}

struct Pages : testing::WebPages {
  void guide(std::int64_t number, Guide g, const std::string& headline,
             std::vector<std::string> tags = {}) {
    auto c = w.store->get_change_by_number(w.repo.id, number);
    ASSERT_TRUE(c && *c);
    g.headline = headline;
    g.tags = std::move(tags);
    g.importance = GuideScore{7, "核心路径"};
    g.insight = GuideScore{6, "可复用的守卫模式"};
    g.writer.kind = "offline";
    std::vector<std::pair<std::int64_t, Guide>> gs{{(*c)->id, g}};
    ASSERT_TRUE(w.store->put_guides(gs));
  }
};

TEST(WebDigest, DayPageReadsLikeTheExamples) {
  Pages p;
  p.guide(1005, zh_guide(), "MORI grid 按 `cu_count` 收敛");
  Guide skip = zh_guide();
  skip.verdict = "skim";
  skip.verdict_text = "浏览即可：代码改动 5 行";
  p.guide(1004, skip, "MXFP4 padding");
  auto s = p.site();
  auto page = web::day_page(s, "2026-09-16");
  ASSERT_TRUE(page);
  const auto& m = page->model;
  // Most worth reading first; the hostile skim-verdict change is an entry too.
  ASSERT_EQ(m["items"].size(), 3u);
  EXPECT_EQ(m["items"][0]["ref"], "#1005");
  EXPECT_EQ(m["close_links"].size(), 1u);
  const std::string h = p.html(s, std::move(page));
  for (const char* want :
       {"MORI grid 按 <code>cu_count</code> 收敛", "class=\"paragraph\"",
        "值得精读，但只需读一处的 9 行代码。", "<code>clamp_grid</code>",
        "原始 PR #1005</a> · 作者 <span class=\"author\">alice</span> · 合并时间 <span "
        "class=\"time\">2026-09-16 23:30</span>",
        "合并 3 个，其中 1 个值得精读；浏览即可 2", "值得精读： <a href=\"#pr-1005\">#1005</a>",
        "id=\"pr-1005\"", ">混合专家<"})
    EXPECT_NE(h.find(want), std::string::npos) << want;
  EXPECT_EQ(h.find("`"), std::string::npos) << "raw backticks on the day page";

  // A skip-verdict PR goes to the bottom, one line.
  auto older = web::day_page(s, "2026-09-14");
  ASSERT_TRUE(older);
  EXPECT_EQ(older->model["items"].size(), 1u);
  ASSERT_EQ(older->model["skipped"].size(), 1u);
  EXPECT_EQ(older->model["skipped"][0]["ref"], "#1002");
  const std::string oh = p.html(s, std::move(older));
  EXPECT_LT(oh.find("#1001"), oh.find("id=\"skipped\""));
  EXPECT_GT(oh.find("#1002"), oh.find("id=\"skipped\""));

  // English: the same entry, English labels, tags as stored.
  auto en = p.site(web::Lang::kEn);
  const std::string eh = p.html(en, web::day_page(en, "2026-09-16"));
  EXPECT_NE(eh.find("Original PR #1005</a> · author"), std::string::npos);
  EXPECT_NE(eh.find(">moe<"), std::string::npos);
}

TEST(WebDigest, FeedAndMarkdownCarryTheSameParagraph) {
  Pages p;
  p.guide(1005, zh_guide(), "MORI grid 按 `cu_count` 收敛", {"moe"});
  auto s = p.site();
  auto feed = web::atom_feed(s, web::FeedKind::kAll, "", "/feed.xml");
  ASSERT_TRUE(feed);
  const std::string para = "值得精读，但只需读一处的 9 行代码。它展示了 grid-wide barrier";
  EXPECT_NE(feed->find("<summary>值得精读 · " + para), std::string::npos) << *feed;
  EXPECT_NE(feed->find("&lt;code&gt;clamp_grid&lt;/code&gt;"), std::string::npos);
  EXPECT_NE(feed->find("label=\"混合专家\""), std::string::npos);
  EXPECT_EQ(feed->find("<script"), std::string::npos);
  auto md = web::digest(*p.w.store, p.w.repo, "UTC", "zh", "2026-09-16", "md");
  ASSERT_TRUE(md);
  EXPECT_NE(md->find(para), std::string::npos) << *md;
  EXPECT_NE(md->find("## 1. MORI grid 按 `cu_count` 收敛"), std::string::npos) << *md;
  EXPECT_NE(md->find("标签：混合专家"), std::string::npos) << *md;
  EXPECT_NE(md->find("值得精读： #1005"), std::string::npos) << *md;
}

TEST(WebDigest, PrPageRendersHeadlineCodeSpans) {
  Pages p;
  p.guide(1005, zh_guide(), "Clear full-to-SWA mapping with `index_fill_`");
  auto s = p.site();
  auto page = web::pr_page(s, "1005");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->title.find('`'), std::string::npos) << page->title;
  const std::string h = p.html(s, std::move(page));
  EXPECT_NE(
      h.find("<h1 id=\"headline\">Clear full-to-SWA mapping with <code>index_fill_</code></h1>"),
      std::string::npos);
}

TEST(WebDigest, TagListOrdersByRecentActivityAndShowsChineseNames) {
  Pages p;
  // moe: 2 changes in the newest week; docs: 2 changes, one of them two weeks older.
  auto s = p.site();
  auto by_recent = web::tags_page(s, "recent");
  ASSERT_TRUE(by_recent) << by_recent.error().message;
  const auto& items = by_recent->model["items"];
  ASSERT_GE(items.size(), 4u);
  std::vector<std::int64_t> recent;
  for (const auto& it : items) recent.push_back(it["recent"].get<std::int64_t>());
  EXPECT_TRUE(std::is_sorted(recent.rbegin(), recent.rend())) << items.dump();
  const std::string h = p.html(s, std::move(by_recent));
  for (const char* want : {"id=\"sort-recent\"", "class=\"current\"", ">混合专家</a>",
                           "<span class=\"tag-key\">moe</span>", "近 4 周",
                           "<title>2026-09-14 这一周：", "class=\"scale\""})
    EXPECT_NE(h.find(want), std::string::npos) << want;
  EXPECT_FALSE(web::tags_page(s, "bogus"));
}

TEST(WebDigest, AggregationChartHasAxesLabelsAndValuesOnHover) {
  Pages p;
  p.guide(1005, zh_guide(), "MORI grid 按 `cu_count` 收敛", {"moe"});
  auto s = p.site();
  const std::string h = p.html(s, web::tag_page(s, {"moe", "", "", "", ""}));
  for (const char* want :
       {"<line class=\"axis\"", "class=\"grid\"", "<text class=\"tick\"", "每周 PR 数",
        "平均分（0–10）", "周（UTC，周一起）", "<title>2026-09-14 这一周：2 个 PR", "平均重要度",
        "<circle class=\"dot imp\"", "class=\"legend\"",
        // Entries carry the paragraph and the scores with their reasons.
        "class=\"paragraph\"", "值得精读，但只需读一处的 9 行代码。", "重要度 <strong>7</strong>",
        "（核心路径）", "（可复用的守卫模式）"})
    EXPECT_NE(h.find(want), std::string::npos) << want;
  // Gaps between weeks are drawn as empty weeks: 2026-09-14 and the week
  // before it make two bars, not one.
  std::vector<WeekStat> weeks{{*parse_instant("2026-08-31T00:00:00Z"), 2, 5, 4},
                              {*parse_instant("2026-09-14T00:00:00Z"), 3, 6, 5}};
  auto chart = web::weekly_chart(web::Lang::kEn, weeks);
  EXPECT_EQ(chart["bars"].size(), 3u);
  EXPECT_EQ(chart["importance_points"].size(), 2u);
  EXPECT_EQ(chart["left_ticks"].back()["label"], "5");
  EXPECT_EQ(web::nice_ceiling(1), 1);
  EXPECT_EQ(web::nice_ceiling(3), 5);
  EXPECT_EQ(web::nice_ceiling(11), 20);
  EXPECT_EQ(web::nice_ceiling(51), 100);
}

TEST(WebDigest, SearchFindsAcrossTheTwoLanguages) {
  Pages p;
  p.guide(1004, zh_guide(), "MXFP4 对齐修复");  // Chinese guide, English title "Quantization: ..."
  auto s = p.site();
  auto zh = web::search_page(s, "量化");
  ASSERT_TRUE(zh) << zh.error().message;
  auto en = web::search_page(s, "quantization");
  ASSERT_TRUE(en);
  EXPECT_GE(zh->model["count"].get<int>(), 1);
  EXPECT_EQ(zh->model["count"], en->model["count"]);
  // The query stays exact where the glossary has nothing: an identifier.
  auto terms = web::expand_terms(*web::parse_query("量化 _pad_size \"kv cache\""));
  ASSERT_EQ(terms.size(), 3u);
  EXPECT_FALSE(terms[0].alternatives.empty());
  EXPECT_TRUE(terms[1].alternatives.empty());
  bool has_zh = false;
  for (const auto& a : terms[2].alternatives) has_zh |= a.text == "kv缓存";
  EXPECT_TRUE(has_zh);
  // Words typed apart that name one entry are one term.
  auto spec = web::expand_terms(*web::parse_query("speculative decoding -eagle"));
  ASSERT_EQ(spec.size(), 2u);
  EXPECT_EQ(spec[0].text, "speculative decoding");
  EXPECT_FALSE(spec[0].alternatives.empty());
  EXPECT_TRUE(spec[1].exclude);
  // A prefix term is not expanded.
  EXPECT_TRUE(web::expand_terms(*web::parse_query("quant*"))[0].alternatives.empty());
}

}  // namespace
}  // namespace mergelens
