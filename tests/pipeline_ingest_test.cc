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

}  // namespace
}  // namespace mergelens
