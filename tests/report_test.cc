// report/: the reader's filter (parsing from a query and a TOML table,
// matching), "N more PRs not listed", ISO weeks, the week and the
// release-notes draft built over the web tests' store.
#include <gtest/gtest.h>

#include "mergelens/report/filter.h"
#include "mergelens/report/notes.h"
#include "mergelens/report/week.h"
#include "mergelens/util/toml_file.h"
#include "web_fixture.h"

namespace mergelens {
namespace {

using testing::WebStore;

report::Entry entry(std::string verdict, int importance, std::vector<std::string> tags,
                    std::string login = "alice") {
  report::Entry e;
  e.change.verdict = std::move(verdict);
  e.change.importance = importance;
  e.tags = std::move(tags);
  e.change.author.login = std::move(login);
  return e;
}

TEST(ReportFilter, ParsesAQueryAndWritesItBack) {
  auto f = report::parse_filter_query(
      "tags=Quantization,moe&min=selective_read&paths=python%2Fsrt%2F**&authors=Alice&page=2");
  ASSERT_TRUE(f) << f.error().message;
  EXPECT_EQ(f->tags, (std::vector<std::string>{"quantization", "moe"}));
  EXPECT_EQ(f->min_verdict, "selective_read");
  EXPECT_EQ(f->paths, (std::vector<std::string>{"python/srt/**"}));
  EXPECT_FALSE(f->empty());
  EXPECT_TRUE(f->needs_change());
  // Unknown keys (a page's own) are ignored; the canonical form is readable.
  EXPECT_EQ(f->query(),
            "tags=quantization,moe&paths=python/srt/**&authors=Alice&min=selective_read");
  auto again = report::parse_filter_query(f->query());
  ASSERT_TRUE(again);
  EXPECT_EQ(again->query(), f->query());
  auto n = report::parse_filter_query("min=7");
  ASSERT_TRUE(n);
  EXPECT_EQ(n->min_importance, 7);
  EXPECT_TRUE(report::parse_filter_query("lang=en")->empty());
}

TEST(ReportFilter, RefusesBadValuesNamingTheKey) {
  for (const char* q : {"min=most", "min=11", "min=0", "lang=fr", "paths=a/[b"}) {
    auto f = report::parse_filter_query(q);
    ASSERT_FALSE(f) << q;
    EXPECT_EQ(f.error().kind, ErrorKind::kInvalidInput);
    EXPECT_NE(f.error().message.find(std::string(q).substr(0, std::string(q).find('='))),
              std::string::npos)
        << f.error().message;
  }
}

TEST(ReportFilter, ReadsATomlTable) {
  auto t = parse_toml(
      "[subscriptions.sched]\ntags = [\"scheduler\", \"moe\"]\nmin = 6\nlabels = \"ready\"\n",
      "mergelens.toml");
  ASSERT_TRUE(t);
  auto f = report::filter_from_toml(*(*t)["subscriptions"]["sched"].as_table(), "sched");
  ASSERT_TRUE(f) << f.error().message;
  EXPECT_EQ(f->tags, (std::vector<std::string>{"scheduler", "moe"}));
  EXPECT_EQ(f->min_importance, 6);
  EXPECT_EQ(f->labels, (std::vector<std::string>{"ready"}));
  auto bad = parse_toml("x = { tag = [\"a\"] }\ny = { tags = [1] }\n", "m");
  ASSERT_TRUE(bad);
  auto e1 = report::filter_from_toml(*(*bad)["x"].as_table(), "x");
  ASSERT_FALSE(e1);
  EXPECT_NE(e1.error().message.find("tag is not a filter key"), std::string::npos);
  EXPECT_FALSE(report::filter_from_toml(*(*bad)["y"].as_table(), "y"));
}

// Issue 34: brace globs as actions/labeler writes them, in a URL and in TOML.
TEST(ReportFilter, BraceGlobsKeepTheirCommas) {
  auto f = report::parse_filter_query("paths=**/*.{py,md},docs/**,a\\,b.txt&tags=x,y");
  ASSERT_TRUE(f) << f.error().message;
  EXPECT_EQ(f->paths, (std::vector<std::string>{"**/*.{py,md}", "docs/**", "a\\,b.txt"}));
  EXPECT_EQ(f->tags, (std::vector<std::string>{"x", "y"}));
  ASSERT_EQ(f->globs.size(), 3u);
  EXPECT_TRUE(f->globs[0].matches("src/a.md"));
  EXPECT_TRUE(f->globs[2].matches("a,b.txt"));
  auto again = report::parse_filter_query(f->query());
  ASSERT_TRUE(again) << f->query();
  EXPECT_EQ(again->paths, f->paths) << f->query();
  auto t = parse_toml("[s]\npaths = [\"**/*.{py,md}\", \"a,b.txt\"]\n", "m");
  ASSERT_TRUE(t);
  auto g = report::filter_from_toml(*(*t)["s"].as_table(), "s");
  ASSERT_TRUE(g) << g.error().message;
  EXPECT_EQ(g->paths, (std::vector<std::string>{"**/*.{py,md}", "a,b.txt"}));
  // Written as a query and read back, a TOML glob's own comma stays one glob.
  auto back = report::parse_filter_query(g->query());
  ASSERT_TRUE(back) << g->query();
  ASSERT_EQ(back->globs.size(), 2u) << g->query();
  EXPECT_TRUE(back->globs[1].matches("a,b.txt"));
  auto tags = parse_toml("[s]\ntags = [\"a,b\"]\n", "m");
  EXPECT_FALSE(report::filter_from_toml(*(*tags)["s"].as_table(), "s"));
  EXPECT_FALSE(report::parse_filter_query("paths=**/*.{py,md"));
}

TEST(ReportFilter, GlobsTooComplexTogetherAreRefused) {
  std::string q = "paths=";
  for (int i = 0; i < 32; ++i) q += (i ? "," : "") + std::string(600, '?') + std::to_string(i);
  auto f = report::parse_filter_query(q);
  ASSERT_FALSE(f);
  EXPECT_NE(f.error().message.find("too complex together"), std::string::npos) << f.error().message;
}

TEST(ReportFilter, MatchesEveryCriterionGivenAnyValueOfAList) {
  auto f = *report::parse_filter_query("tags=moe,quantization&min=selective_read");
  const report::ChangeFacets none;
  EXPECT_TRUE(report::matches(f, entry("close_read", 8, {"moe"}), none));
  EXPECT_TRUE(report::matches(f, entry("selective_read", 5, {"docs", "quantization"}), none));
  EXPECT_FALSE(report::matches(f, entry("skim", 9, {"moe"}), none));         // verdict too low
  EXPECT_FALSE(report::matches(f, entry("close_read", 9, {"docs"}), none));  // no tag
  EXPECT_FALSE(report::matches(f, entry("", 0, {"moe"}), none));             // not analysed
  auto imp = *report::parse_filter_query("min=7&authors=ALICE");
  EXPECT_TRUE(report::matches(imp, entry("skim", 7, {}), none));
  EXPECT_FALSE(report::matches(imp, entry("close_read", 6, {}), none));
  EXPECT_FALSE(report::matches(imp, entry("skim", 8, {}, "bob"), none));
  auto paths = *report::parse_filter_query("paths=python/sglang/srt/managers/**&labels=Ready");
  report::ChangeFacets facets{{"ready"}, {"docs/a.md", "python/sglang/srt/managers/scheduler.py"}};
  EXPECT_TRUE(report::matches(paths, entry("skim", 3, {}), facets));
  facets.paths = {"python/sglang/srt/layers/a.py"};
  EXPECT_FALSE(report::matches(paths, entry("skim", 3, {}), facets));
  facets.paths = {"python/sglang/srt/managers/x.py"};
  facets.labels = {"wip"};
  EXPECT_FALSE(report::matches(paths, entry("skim", 3, {}), facets));
}

TEST(ReportFilter, SaysWhatItLeftOutPluralAware) {
  EXPECT_EQ(report::not_listed("zh", 41), "另有 41 个 PR 未列出");
  EXPECT_EQ(report::not_listed("en", 41), "41 more PRs not listed");
  EXPECT_EQ(report::not_listed("en", 1), "1 more PR not listed");
  EXPECT_EQ(report::not_listed("en", 0), "");
}

TEST(ReportWeek, IsoWeeks) {
  EXPECT_EQ(*report::iso_week_start("2026-W38"), *parse_instant("2026-09-14"));
  EXPECT_EQ(report::iso_week_of(*parse_instant("2026-09-20T23:59:59Z")), "2026-W38");
  EXPECT_EQ(report::iso_week_of(*parse_instant("2021-01-03")), "2020-W53");  // ISO year 2020
  EXPECT_EQ(report::iso_week_of(*parse_instant("2024-12-30")), "2025-W01");
  EXPECT_EQ(*report::iso_week_start("2020-W53"), *parse_instant("2020-12-28"));
  for (const char* bad : {"2026-W54", "2026-W00", "2025-W53", "2026-38", "2026W38x", ""})
    EXPECT_FALSE(report::iso_week_start(bad)) << bad;
}

TEST(ReportWeek, ClosesReadsByTagMovementAndFilter) {
  WebStore w;
  auto week = report::load_week(*w.store, w.repo.id, "2026-W38", "zh");
  ASSERT_TRUE(week) << week.error().message;
  EXPECT_EQ(week->week, "2026-W38");
  ASSERT_EQ(week->entries.size(), 5u);
  EXPECT_EQ(week->close_reads, 2u);
  // Most worth reading first: the importance-8 close read before the 7.
  EXPECT_EQ(week->entries[0].change.number, 1005);
  EXPECT_EQ(week->entries[1].change.number, 1001);
  EXPECT_EQ(week->entries.back().change.verdict, "skip");
  ASSERT_EQ(week->close_by_tag.size(), 2u);
  EXPECT_EQ(week->close_by_tag[0].tag, "moe");
  // Every tag of the week is new against four empty weeks.
  ASSERT_FALSE(week->moves.empty());
  EXPECT_EQ(week->moves[0].trend, "new");
  EXPECT_FALSE(week->prev);
  EXPECT_FALSE(week->next);
  auto j = report::week_json(*week);
  EXPECT_EQ(j["entries"].size(), 5u);
  EXPECT_EQ(j["close_by_tag"][0]["refs"][0], "#1005");
  // A summary's cap keeps the first themes by rank and says how many there are.
  const size_t themes = week->themes.themes.size();
  ASSERT_GE(themes, 2u);
  EXPECT_EQ(j["themes"].size(), themes);
  EXPECT_FALSE(j.contains("themes_total"));
  auto capped = report::week_json(*week, 1);
  ASSERT_EQ(capped["themes"].size(), 1u);
  EXPECT_EQ(capped["themes"][0], j["themes"][0]);
  EXPECT_EQ(capped["themes_total"], themes);
  // The newest week by default; a filter keeps what passes and counts the rest.
  auto f = *report::parse_filter_query("tags=moe");
  auto filtered = report::load_week(*w.store, w.repo.id, "", "zh", &f);
  ASSERT_TRUE(filtered);
  EXPECT_EQ(filtered->week, "2026-W38");
  EXPECT_EQ(filtered->entries.size(), 2u);
  EXPECT_EQ(filtered->left_out, 3u);
  auto empty = report::load_week(*w.store, w.repo.id, "2026-W40", "zh");
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty->entries.empty());
  EXPECT_EQ(empty->prev, "2026-W38");
  EXPECT_FALSE(report::load_week(*w.store, w.repo.id, "2026-40", "zh"));
}

TEST(ReportNotes, HighlightsSectionsContributorsAndLinks) {
  WebStore w;
  report::NotesRange range;
  range.since = *parse_instant("2026-09-14");
  range.until = *parse_instant("2026-09-17");
  range.from_label = "2026-09-14";
  range.to_label = "2026-09-17";
  report::NotesOptions o;
  o.lang = "en";
  auto n = report::draft_notes(*w.store, w.repo, range, o);
  ASSERT_TRUE(n) << n.error().message;
  // 1005 merged 23:30 on the 16th: inside; every change of the range is there.
  EXPECT_EQ(n->entries.size(), 5u);
  EXPECT_EQ(n->themes.source, "analysis");
  ASSERT_EQ(n->highlights.size(), 3u) << "the close and selective reads";
  auto first = [&](size_t h) {
    return n->entries[n->themes.themes[n->highlights[h]].entries[0]].change.number;
  };
  EXPECT_EQ(first(0), 1005);
  EXPECT_EQ(first(1), 1001);
  EXPECT_EQ(first(2), 1004);
  EXPECT_TRUE(n->sections.empty());
  EXPECT_EQ(n->unlisted, 2u);
  EXPECT_EQ(n->unlisted_skips, 1u);
  // The store does not hold the history before the range: no new contributors.
  EXPECT_FALSE(n->contributors_known);
  EXPECT_TRUE(n->new_contributors.empty());
  const std::string md = report::notes_markdown(*n);
  EXPECT_NE(md.find("## Highlights"), std::string::npos) << md;
  EXPECT_NE(md.find("- **Late night MoE fix** ([#1005](https://github.com/o/r/pull/1005))"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("2 more changes not listed"), std::string::npos) << md;
  EXPECT_NE(md.find("New contributors are not listed"), std::string::npos) << md;
  // A javascript: URL never becomes a link: the repository's PR URL is used instead.
  EXPECT_EQ(md.find("javascript:"), std::string::npos) << md;
  auto j = report::notes_json(*n);
  EXPECT_EQ(j["merged"], 5);
  EXPECT_EQ(j["highlights"][0]["refs"][0], "#1005");
  EXPECT_TRUE(j["new_contributors"].is_null());
  // With the whole history stored (the repository's base reached): alice is
  // new (nothing before the range), and so is the author without a login.
  RepoRecord whole = w.repo;
  whole.base_sha = "0123456789abcdef0123456789abcdef01234567";
  auto known = report::draft_notes(*w.store, whole, range, o);
  ASSERT_TRUE(known);
  EXPECT_TRUE(known->contributors_known);
  ASSERT_EQ(known->new_contributors.size(), 2u);
  EXPECT_EQ(known->new_contributors[0].name, "alice");
  EXPECT_NE(report::notes_markdown(*known).find("## New contributors"), std::string::npos);
  // --all lists every change: the skim and the skip get lines too.
  report::NotesOptions all = o;
  all.list_all = true;
  auto everything = report::draft_notes(*w.store, w.repo, range, all);
  ASSERT_TRUE(everything);
  EXPECT_EQ(everything->unlisted, 0u);
  EXPECT_NE(report::notes_markdown(*everything).find("## Build, CI, docs and tests"),
            std::string::npos);
  // A later range: alice is no longer new.
  w.add(1006, "2026-09-21T10:00:00Z", "Scheduler: chunked prefill", Verdict::kSelectiveRead, 6, 5,
        {"scheduler"});
  report::NotesRange later;
  later.since = *parse_instant("2026-09-20");
  auto n2 = report::draft_notes(*w.store, whole, later, o);
  ASSERT_TRUE(n2);
  EXPECT_EQ(n2->entries.size(), 1u);
  EXPECT_TRUE(n2->new_contributors.empty());
  // By merge shas (a revision range walked in git).
  report::NotesRange by_sha;
  by_sha.shas = std::vector<std::string>{n->entries[0].change.sha};
  auto n3 = report::draft_notes(*w.store, w.repo, by_sha, o);
  ASSERT_TRUE(n3);
  EXPECT_EQ(n3->entries.size(), 1u);
  EXPECT_FALSE(report::draft_notes(*w.store, w.repo, report::NotesRange{}, o));
}

}  // namespace
}  // namespace mergelens
