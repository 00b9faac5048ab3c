// Thread links on crafted histories: series, revert and re-land, a revert of
// a revert, follow-ups, work on files another change added; and the same
// links however the analysis was batched.
#include <gtest/gtest.h>

#include <algorithm>

#include <fmt/format.h>

#include "mergelens/analysis/text/text_facts.h"
#include "mergelens/analysis/text/threads.h"
#include "mergelens/pipeline/analyze.h"
#include "mergelens/pipeline/ingest.h"
#include "test_helpers.h"

namespace mergelens {
namespace {

constexpr UnixSeconds kT0 = 1'780'000'000;  // 2026-05-28
constexpr UnixSeconds kDay = 86400;

struct History {
  ThreadIndex index;
  std::vector<Change> changes;

  Change& add(std::int64_t number, std::string title, UnixSeconds at, std::string author = "ann",
              std::vector<std::pair<std::string, FileStatus>> files = {}) {
    Change c;
    c.number = number;
    // Distinct leading hex with letters and digits, as real shas have.
    c.sha =
        fmt::format("{:08x}{:032x}", 0xabc00000u + static_cast<unsigned>(number) * 7919u, number);
    c.title = std::move(title);
    c.author.login = std::move(author);
    c.merged_at = at;
    c.kind = ChangeKind::kSquash;
    for (auto& [path, status] : files) {
      FileChange f;
      f.path = path;
      f.status = status;
      c.files.push_back(f);
      if (status == FileStatus::kAdded) index.add_added_path(c.sha, path);
    }
    index.add({c.sha, number, c.title, c.author.login, at});
    changes.push_back(c);
    return changes.back();
  }
  const Change& by(std::int64_t number) const {
    for (const auto& c : changes)
      if (c.number == number) return c;
    throw std::runtime_error("no such change");
  }
  std::vector<ThreadLink> links(std::int64_t number, std::vector<Reference> refs = {}) const {
    const Change& c = by(number);
    std::map<std::string, FileRole> roles;
    for (const auto& f : c.files) roles[f.path] = FileRole::kCore;
    return find_thread_links(c, refs, roles, index);
  }
};

std::string show(const std::vector<ThreadLink>& links) {
  std::string s;
  for (const auto& l : links) s += fmt::format("{} #{} ({}); ", l.relation, l.number, l.detail);
  return s;
}

const ThreadLink* find(const std::vector<ThreadLink>& links, std::string_view relation,
                       std::int64_t number) {
  for (const auto& l : links)
    if (l.relation == relation && l.number == number) return &l;
  return nullptr;
}

TEST(SeriesMarker, ReadsTheCommonForms) {
  struct Case {
    const char* title;
    int part, total;
  } cases[] = {
      {"[Refactor][DSA][3/N] modularize the indexer", 3, 0},
      {"Support chunked prefill for MLA [2/5]", 2, 5},
      {"(1/3) Move the scheduler queue", 1, 3},
      {"2/4: split the allocator", 2, 4},
      {"Optimize the MoE router (II)", 2, 0},
      {"Rewrite the sampler, part 4", 4, 0},
      {"Part 2 of 3: the kernel side", 2, 3},
      {"[Part III] faster top-k", 3, 0},
  };
  for (const auto& c : cases) {
    auto m = series_marker(c.title);
    ASSERT_TRUE(m) << c.title;
    EXPECT_EQ(m->part, c.part) << c.title;
    EXPECT_EQ(m->total, c.total) << c.title;
    EXPECT_EQ(m->stem.find('/'), std::string::npos) << c.title << " → " << m->stem;
  }
  for (const char* title : {"Fix 1/2 precision in the softmax", "Make the router part of the core",
                            "Support Qwen3 (I/O bound path)", "Add v2 API", "[5/3] impossible"})
    EXPECT_FALSE(series_marker(title)) << title;
}

TEST(TitleAct, RevertsAndRelands) {
  auto a = title_act("Revert \"[Bugfix] Fix the eplb path (#120)\"");
  ASSERT_TRUE(a);
  EXPECT_TRUE(a->revert);
  EXPECT_EQ(a->number, 120);
  EXPECT_EQ(a->title, "[bugfix] fix the eplb path");
  auto b = title_act("[Revert] Revert \"[CI] Drop the e2e test\" (#12217)");
  ASSERT_TRUE(b);
  EXPECT_TRUE(b->revert);
  EXPECT_EQ(b->number, 12217);
  auto c = title_act("[Revert] \"[Bugfix] Fix main2main eplb\"");
  ASSERT_TRUE(c);
  EXPECT_TRUE(c->revert);
  EXPECT_EQ(c->title, "[bugfix] fix main2main eplb");
  auto d = title_act("Reland: faster decode");
  ASSERT_TRUE(d);
  EXPECT_FALSE(d->revert);
  EXPECT_EQ(d->title, "faster decode");
  auto e = title_act("Revert \"Revert \"Faster decode\"\"");
  ASSERT_TRUE(e);
  EXPECT_TRUE(e->revert);
  auto inner = title_act(e->title);
  ASSERT_TRUE(inner) << e->title;
  EXPECT_TRUE(inner->revert);
  EXPECT_EQ(inner->title, "faster decode");
  auto f = title_act("Revert #77");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->number, 77);
  auto g = title_act("Restore the default block size");
  ASSERT_TRUE(g);
  EXPECT_FALSE(g->strong);
  EXPECT_FALSE(title_act("Reverse the loop order in the sampler"));
}

TEST(Threads, SeriesPartsLinkToTheEarlierOnes) {
  History h;
  h.add(10, "[Refactor][Scheduler][1/3] move the waiting queue", kT0);
  h.add(11, "Unrelated: bump the tokenizer", kT0 + kDay);
  h.add(12, "[Refactor][Scheduler][2/3] split the policy", kT0 + 2 * kDay);
  h.add(13, "[1/2] Speed up the sampler", kT0 + 3 * kDay, "bob");
  h.add(14, "[Refactor][Scheduler][3/3] drop the old path", kT0 + 4 * kDay, "cat");
  h.add(15, "Optimize the MoE router (II)", kT0 + 5 * kDay, "dan");
  h.add(16, "Optimize the MoE router (III)", kT0 + 6 * kDay, "dan");
  h.index.finish();
  auto third = h.links(14);
  EXPECT_TRUE(find(third, "series", 12)) << show(third);
  EXPECT_TRUE(find(third, "series", 10)) << show(third);
  EXPECT_FALSE(find(third, "series", 13)) << show(third);
  EXPECT_EQ(find(third, "series", 12)->detail, "3/3");
  auto second = h.links(12);
  EXPECT_TRUE(find(second, "series", 10)) << show(second);
  EXPECT_EQ(second.size(), 1u) << show(second);
  EXPECT_TRUE(h.links(10).empty());  // the first part links to nothing earlier
  auto roman = h.links(16);
  ASSERT_TRUE(find(roman, "series", 15)) << show(roman);
  EXPECT_EQ(find(roman, "series", 15)->detail, "III");
}

TEST(Threads, RevertAndRelandAndARevertOfARevert) {
  History h;
  h.add(20, "Speed up decode with a fused kernel", kT0);
  h.add(21, "Revert \"Speed up decode with a fused kernel (#20)\"", kT0 + 3600);
  h.add(22, "Reland: Speed up decode with a fused kernel", kT0 + kDay);
  h.add(23, "Revert \"Reland: Speed up decode with a fused kernel\"", kT0 + 2 * kDay);
  h.add(24, "Revert \"Revert \"Reland: Speed up decode with a fused kernel\"\"", kT0 + 3 * kDay);
  h.add(25, "Speed up decode with a fused kernel", kT0 + 4 * kDay);  // the same title again
  h.add(26, "Tune the decode kernel", kT0 + 5 * kDay);
  h.index.finish();
  auto revert = h.links(21);
  ASSERT_EQ(revert.size(), 1u) << show(revert);
  EXPECT_EQ(revert[0].relation, "reverts");
  EXPECT_EQ(revert[0].number, 20);
  EXPECT_EQ(revert[0].detail, "number");
  auto reland = h.links(22);
  ASSERT_TRUE(find(reland, "relands", 20)) << show(reland);
  auto second_revert = h.links(23);
  ASSERT_TRUE(find(second_revert, "reverts", 22)) << show(second_revert);
  // Reverting the revert takes #23 back and brings #22 back.
  auto rr = h.links(24);
  ASSERT_EQ(rr.size(), 2u) << show(rr);
  EXPECT_EQ(rr[0].relation, "reverts");
  EXPECT_EQ(rr[0].number, 23);
  EXPECT_EQ(rr[1].relation, "relands");
  EXPECT_EQ(rr[1].number, 22);
  // The same title as a change a revert took back is a re-land of it.
  auto again = h.links(25);
  ASSERT_TRUE(find(again, "relands", 20)) << show(again);
  EXPECT_TRUE(h.links(26).empty()) << show(h.links(26));
  // A revert named by the sha it reverts (the body's "This reverts commit ...").
  History s;
  s.add(30, "Use the new allocator", kT0);
  s.add(31, "Back out the allocator change", kT0 + kDay);
  s.index.finish();
  auto refs =
      extract_references("This reverts commit " + s.by(30).sha.substr(0, 12) + ".", "body", "o/r");
  auto by_sha = s.links(31, refs);
  ASSERT_EQ(by_sha.size(), 1u) << show(by_sha);
  EXPECT_EQ(by_sha[0].relation, "reverts");
  EXPECT_EQ(by_sha[0].number, 30);
  EXPECT_EQ(by_sha[0].detail, "sha");
  // GitHub cuts a long title short in the revert's quote.
  History cut;
  cut.add(40, "security: enable Jinja2 autoescape to prevent XSS in HTML reprs", kT0);
  cut.add(41, "Revert \"security: enable Jinja2 autoescape to prevent XSS in HTML rep…",
          kT0 + kDay);
  cut.index.finish();
  auto by_prefix = cut.links(41);
  ASSERT_EQ(by_prefix.size(), 1u) << show(by_prefix);
  EXPECT_EQ(by_prefix[0].relation, "reverts");
  EXPECT_EQ(by_prefix[0].number, 40);
}

TEST(Threads, FollowUpsAndWorkOnAddedFiles) {
  History h;
  h.add(40, "Add the paged KV cache", kT0, "ann",
        {{"pkg/kv/paged.py", FileStatus::kAdded}, {"tests/test_paged.py", FileStatus::kAdded}});
  h.add(41, "Fix the paged cache eviction", kT0 + 2 * kDay, "bob",
        {{"pkg/kv/paged.py", FileStatus::kModified}});
  h.add(42, "Tidy the cache", kT0 + 45 * kDay, "cat", {{"pkg/kv/paged.py", FileStatus::kModified}});
  h.add(43, "Handle empty batches", kT0 + 3 * kDay, "dan");
  h.index.finish();
  auto fix = h.links(41);
  ASSERT_EQ(fix.size(), 1u) << show(fix);
  EXPECT_EQ(fix[0].relation, "builds_on");
  EXPECT_EQ(fix[0].number, 40);
  EXPECT_EQ(fix[0].detail, "pkg/kv/paged.py");
  EXPECT_TRUE(h.links(42).empty()) << "45 days later is not recent: " << show(h.links(42));
  auto refs =
      extract_references("Follow-up to #40: the empty batch case it missed.", "body", "o/r");
  auto follow = h.links(43, refs);
  ASSERT_EQ(follow.size(), 1u) << show(follow);
  EXPECT_EQ(follow[0].relation, "follow_up");
  EXPECT_EQ(follow[0].number, 40);
  // A reference to a later change, or to itself, links nothing.
  auto none = h.links(40, extract_references("Follow-up to #43 and #40.", "body", "o/r"));
  EXPECT_TRUE(none.empty()) << show(none);
  // An import of a whole tree is not work a later edit builds on.
  History imp;
  std::vector<std::pair<std::string, FileStatus>> tree;
  for (int i = 0; i < 60; ++i) tree.emplace_back(fmt::format("pkg/m{}.py", i), FileStatus::kAdded);
  imp.add(50, "Import the package", kT0, "ann", tree);
  imp.add(51, "Fix m3", kT0 + kDay, "bob", {{"pkg/m3.py", FileStatus::kModified}});
  imp.index.finish();
  EXPECT_TRUE(imp.links(51).empty()) << show(imp.links(51));
}

// The store holds the same links whether the history was analysed at once or
// in batches of one, and after a re-analysis.
TEST(Threads, TheSameLinksHoweverTheAnalysisWasBatched) {
  using testing::GitRepo;
  using testing::TempDir;
  TempDir dir;
  GitRepo repo(dir / "work");
  repo.write("pkg/core.py", "def step():\n    return 0\n");
  repo.commit("Initial import", "2026-09-01T08:00:00Z");
  repo.write("pkg/fused.py", "def fused():\n    return 1\n");
  repo.commit("[Decode][1/2] Add the fused decode kernel (#101)", "2026-09-02T08:00:00Z");
  repo.write("pkg/fused.py", "def fused():\n    return 2\n");
  repo.commit("[Decode][2/2] Use the fused kernel by default (#102)", "2026-09-02T09:00:00Z");
  repo.write("pkg/fused.py", "def fused():\n    return 1\n");
  repo.commit("Revert \"[Decode][2/2] Use the fused kernel by default (#102)\" (#103)",
              "2026-09-02T10:00:00Z");
  repo.write("pkg/fused.py", "def fused():\n    return 3\n");
  repo.commit("Reland \"[Decode][2/2] Use the fused kernel by default\" (#104)\n\nFixes #103.",
              "2026-09-03T10:00:00Z");
  repo.write("pkg/core.py", "def step():\n    return 5\n");
  repo.commit("Tune step (#105)\n\nFollow-up of #101.", "2026-09-04T10:00:00Z");

  auto edges_of = [&](const std::string& name, size_t batch) {
    auto store = open_sqlite_store(dir / name);
    EXPECT_TRUE(store);
    IngestOptions io;
    io.repo_path = repo.path();
    EXPECT_TRUE(ingest(**store, io, nullptr));
    auto rec = resolve_repo(**store, "");
    AnalyzeOptions ao;
    ao.batch_size = batch;
    ao.threads = batch == 1 ? 1 : 2;
    auto r = analyze(**store, *rec, ao, nullptr);
    EXPECT_TRUE(r) << r.error().message;
    if (batch == 1) {  // and once more, forced
      ao.force = true;
      EXPECT_TRUE(analyze(**store, *rec, ao, nullptr));
    }
    auto rows = (*store)->list_changes(rec->id, {});
    std::vector<std::int64_t> ids;
    for (const auto& c : *rows) ids.push_back(c.id);
    auto edges = (*store)->thread_edges(ids);
    EXPECT_TRUE(edges);
    std::vector<std::string> out;
    for (const auto& e : *edges)
      out.push_back(fmt::format("#{} {} #{} {}", e.from.number.value_or(0), e.relation,
                                e.to.number.value_or(0), e.detail));
    return out;
  };
  const auto once = edges_of("once.db", 100);
  const auto batched = edges_of("batched.db", 1);
  EXPECT_EQ(once, batched);
  const std::vector<std::string> want = {
      "#102 series #101 2/2", "#103 reverts #102 number", "#104 relands #102 title",
      "#104 fixes #103 ",     "#105 follow_up #101 ",
  };
  for (const auto& w : want)
    EXPECT_NE(std::ranges::find(once, w), once.end()) << w << " missing from:\n"
                                                      << fmt::format("{}", fmt::join(once, "\n"));
}

}  // namespace
}  // namespace mergelens
