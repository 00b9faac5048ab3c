#include <gtest/gtest.h>

#include "mergelens/pipeline/ingest.h"
#include "test_helpers.h"

namespace mergelens {
namespace {

using testing::GitRepo;
using testing::TempDir;

class IngestTest : public ::testing::Test {
 protected:
  void SetUp() override {
    repo_ = std::make_unique<GitRepo>(dir_ / "work");
    repo_->run("remote add origin git@github.com:lumen-ai/lumen.git");
    for (int i = 1; i <= 12; ++i) add_pr(i);
    auto s = open_sqlite_store(dir_ / "db.sqlite");
    ASSERT_TRUE(s);
    store_ = std::move(*s);
  }

  void add_pr(int i) {
    repo_->write("src/f" + std::to_string(i % 4) + ".py", "x = " + std::to_string(i) + "\n");
    repo_->commit(fmt::format("Change {} (#{})", i, 100 + i),
                  fmt::format("2026-09-{:02}T10:00:00Z", i));
  }

  IngestOptions options() {
    IngestOptions o;
    o.repo_path = repo_->path();
    o.batch_size = 5;
    o.threads = 2;
    return o;
  }

  size_t count() {
    auto repo = resolve_repo(*store_, "");
    return repo ? *store_->count_changes(repo->id) : 0;
  }

  TempDir dir_;
  std::unique_ptr<GitRepo> repo_;
  std::unique_ptr<Store> store_;
};

TEST_F(IngestTest, StoresEveryChangeWithLinksFromTheRemote) {
  auto r = ingest(*store_, options(), nullptr);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->stored, 12u);
  EXPECT_EQ(r->repo.name, "lumen-ai/lumen");
  auto repo = resolve_repo(*store_, "");
  auto c = find_change(*store_, *repo, "#105");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->url, "https://github.com/lumen-ai/lumen/pull/105");
  EXPECT_EQ(c->title, "Change 5");
  EXPECT_EQ(format_utc(c->merged_at), "2026-09-05T10:00:00Z");
}

TEST_F(IngestTest, SecondRunAddsNothingAndWalksNothing) {
  ASSERT_TRUE(ingest(*store_, options(), nullptr));
  auto again = ingest(*store_, options(), nullptr);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->stored, 0u);
  EXPECT_EQ(again->walked, 0u);  // stopped at the stored base, the tip

  add_pr(13);
  auto third = ingest(*store_, options(), nullptr);
  ASSERT_TRUE(third);
  EXPECT_EQ(third->stored, 1u);
  EXPECT_EQ(third->walked, 1u);
  EXPECT_EQ(count(), 13u);
}

TEST_F(IngestTest, LimitTakesTheNewestThenAFullRunFillsTheRest) {
  auto o = options();
  o.limit = 4;
  auto first = ingest(*store_, o, nullptr);
  ASSERT_TRUE(first);
  EXPECT_EQ(first->stored, 4u);
  EXPECT_FALSE(first->anchored);
  auto repo = resolve_repo(*store_, "");
  EXPECT_TRUE(find_change(*store_, *repo, "#112"));
  EXPECT_FALSE(find_change(*store_, *repo, "#108"));

  auto full = ingest(*store_, options(), nullptr);
  ASSERT_TRUE(full);
  EXPECT_EQ(full->stored, 8u);
  EXPECT_EQ(count(), 12u);
  auto last = ingest(*store_, options(), nullptr);
  EXPECT_EQ(last->walked, 0u);
}

TEST_F(IngestTest, SinceAndUntilSelectByMergeTime) {
  auto o = options();
  o.since = *parse_instant("2026-09-05");
  o.until = *parse_instant("2026-09-08");
  auto r = ingest(*store_, o, nullptr);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->stored, 3u);  // days 5, 6, 7
}

TEST_F(IngestTest, UnknownBranchAndMissingRepositoryAreNamed) {
  auto o = options();
  o.branch = "release-9";
  auto r = ingest(*store_, o, nullptr);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::kNotFound);
  EXPECT_NE(r.error().message.find("release-9"), std::string::npos);
  o = options();
  o.repo_path = dir_ / "nowhere";
  auto missing = ingest(*store_, o, nullptr);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().kind, ErrorKind::kInvalidInput);
  EXPECT_EQ(count(), 0u);
}

TEST_F(IngestTest, SeveralRepositoriesShareOneStore) {
  ASSERT_TRUE(ingest(*store_, options(), nullptr));
  GitRepo other(dir_ / "other");
  other.write("a.go", "package a\n");
  other.commit("Add a (#5)", "2026-09-01T00:00:00Z");
  IngestOptions o;
  o.repo_path = other.path();
  auto r = ingest(*store_, o, nullptr);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->repo.name, "other");
  auto repos = store_->list_repos();
  ASSERT_TRUE(repos);
  EXPECT_EQ(repos->size(), 2u);
  auto one = store_->find_repo("other");
  auto c = find_change(*store_, **one, "#5");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->url, "");  // no remote, no link
  EXPECT_FALSE(find_change(*store_, **one, "#105"));
}

// Shallow clones: the boundary is stored marked, without files; a deepened
// clone fills in the history below it, oldest first, and the boundary last.
class ShallowIngestTest : public IngestTest {
 protected:
  std::string clone_ = dir_ / "shallow";
  void clone(int depth) {
    testing::sh(fmt::format("{} clone -q --depth {} 'file://{}' '{}'", GitRepo::git(), depth,
                            repo_->path(), clone_));
  }
  void deepen(const std::string& how) {
    testing::sh(fmt::format("cd '{}' && {} fetch -q {}", clone_, GitRepo::git(), how));
  }
  IngestOptions shallow_options() {
    auto o = options();
    o.repo_path = clone_;
    o.repo_name = "lumen-ai/lumen";
    return o;
  }
  Change get(int number) {
    auto repo = resolve_repo(*store_, "");
    auto c = find_change(*store_, *repo, fmt::format("#{}", number));
    EXPECT_TRUE(c) << number;
    return c.value_or(Change{});
  }
};

TEST_F(ShallowIngestTest, DepthOneStoresTheTipAsABoundary) {
  clone(1);
  auto r = ingest(*store_, shallow_options(), nullptr);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->stored, 1u);
  EXPECT_TRUE(r->anchored);
  EXPECT_FALSE(r->shallow_boundary.empty());
  EXPECT_EQ(shallow_notes(*r).size(), 1u);
  Change tip = get(112);
  EXPECT_TRUE(tip.shallow);
  EXPECT_TRUE(tip.files.empty());
  auto repo = resolve_repo(*store_, "");
  EXPECT_EQ(repo->base_sha, tip.sha);
  auto boundaries = store_->shallow_boundaries(repo->id);
  ASSERT_TRUE(boundaries);
  EXPECT_EQ(*boundaries, std::vector<std::string>{tip.sha});

  auto again = ingest(*store_, shallow_options(), nullptr);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->stored, 0u);
  EXPECT_TRUE(shallow_notes(*again).empty());  // said once, when it was stored
}

TEST_F(ShallowIngestTest, DeepenAndUnshallowFillInTheHistoryAndTheBoundary) {
  clone(4);
  ASSERT_TRUE(ingest(*store_, shallow_options(), nullptr));
  EXPECT_EQ(count(), 4u);
  const std::string base = resolve_repo(*store_, "")->base_sha;
  EXPECT_TRUE(get(109).shallow);
  // Facts of the boundary exist; filling it in must drop them.
  auto boundary_id = get(109).id;
  Facts f;
  ASSERT_TRUE(store_->put_facts(std::vector<std::pair<std::int64_t, Facts>>{{boundary_id, f}}));

  deepen("--deepen=3");
  auto r = ingest(*store_, shallow_options(), nullptr);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->deepened, 3u);
  EXPECT_EQ(r->filled, 1u);
  EXPECT_EQ(r->stored, 3u);
  EXPECT_EQ(count(), 7u);
  Change filled = get(109);
  EXPECT_FALSE(filled.shallow);
  EXPECT_EQ(filled.id, boundary_id);  // same row
  ASSERT_EQ(filled.files.size(), 1u);
  EXPECT_EQ(filled.files[0].additions, 1);
  auto facts = store_->get_facts(boundary_id);
  ASSERT_TRUE(facts);
  EXPECT_FALSE(*facts) << "the boundary kept the facts of its empty read";
  EXPECT_TRUE(get(106).shallow);
  EXPECT_EQ(resolve_repo(*store_, "")->base_sha, base);  // the base does not move

  deepen("--unshallow");
  auto u = ingest(*store_, shallow_options(), nullptr);
  ASSERT_TRUE(u);
  EXPECT_EQ(u->deepened, 5u);
  EXPECT_TRUE(u->shallow_boundary.empty());
  EXPECT_EQ(count(), 12u);
  auto repo = resolve_repo(*store_, "");
  EXPECT_TRUE(store_->shallow_boundaries(repo->id)->empty());
  for (int i = 101; i <= 112; ++i) EXPECT_FALSE(get(i).files.empty()) << i;
}

TEST_F(ShallowIngestTest, ADeepeningCutShortKeepsTheBoundaryMarkedForTheNextRun) {
  clone(3);
  ASSERT_TRUE(ingest(*store_, shallow_options(), nullptr));
  deepen("--unshallow");
  auto o = shallow_options();
  o.limit = 2;  // as if the run were killed after two older changes
  auto cut = ingest(*store_, o, nullptr);
  ASSERT_TRUE(cut);
  EXPECT_EQ(cut->deepened, 2u);
  EXPECT_EQ(cut->filled, 0u);
  EXPECT_TRUE(get(110).shallow);  // still marked: the history below is not complete
  auto rest = ingest(*store_, shallow_options(), nullptr);
  ASSERT_TRUE(rest);
  EXPECT_EQ(rest->filled, 1u);
  EXPECT_EQ(count(), 12u);
  EXPECT_FALSE(get(110).shallow);
}

}  // namespace
}  // namespace mergelens
