// What only the PostgreSQL store does: errors that name the server, the
// database checks on opening, the data version across connections, and one
// snapshot per read. Skipped unless MERGELENS_TEST_PG names a server (the
// pg_unit test, which scripts/test.sh runs against a throwaway cluster).
#include <gtest/gtest.h>

#include "test_store.h"

namespace mergelens {
namespace {

using testing::pg_admin;
using testing::pg_url_with_db;
using testing::TempDir;
using testing::test_pg_url;
using testing::TestStore;

#define REQUIRE_PG() \
  if (test_pg_url().empty()) GTEST_SKIP() << "MERGELENS_TEST_PG is not set"

TEST(PgStore, AnUnreachableServerIsNamed) {
  auto s = open_store_at("postgresql://nobody@127.0.0.1:1/none?connect_timeout=2");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().kind, ErrorKind::kIo);
  EXPECT_NE(s.error().message.find("PostgreSQL at 127.0.0.1:1/none"), std::string::npos)
      << s.error().message;
}

TEST(PgStore, RefusesUtf8ForeignAndNewerDatabases) {
  REQUIRE_PG();
  const std::string url = test_pg_url();
  const std::string db = fmt::format("mlt_{}_checks", getpid());
  ASSERT_EQ(pg_admin(url, "CREATE DATABASE " + db + "_utf8 ENCODING 'UTF8' TEMPLATE template0"),
            "");
  auto utf8 = open_store_at(pg_url_with_db(url, db + "_utf8"));
  ASSERT_FALSE(utf8);
  EXPECT_EQ(utf8.error().kind, ErrorKind::kUnsupported);
  EXPECT_NE(utf8.error().message.find("SQL_ASCII"), std::string::npos);
  (void)pg_admin(url, "DROP DATABASE " + db + "_utf8");

  ASSERT_EQ(pg_admin(url, "CREATE DATABASE " + db + "_other"), "");
  ASSERT_EQ(pg_admin(pg_url_with_db(url, db + "_other"), "CREATE TABLE t(x int)"), "");
  auto other = open_store_at(pg_url_with_db(url, db + "_other"));
  ASSERT_FALSE(other);
  EXPECT_NE(other.error().message.find("another program"), std::string::npos);
  (void)pg_admin(url, "DROP DATABASE " + db + "_other WITH (FORCE)");

  TempDir dir;
  TestStore s(dir);
  s.store.reset();
  ASSERT_EQ(pg_admin(s.location.str(),
                     "UPDATE mergelens_meta SET value = '999' WHERE key = 'schema_version'"),
            "");
  auto newer = open_store_at(s.location.str());
  ASSERT_FALSE(newer);
  EXPECT_EQ(newer.error().kind, ErrorKind::kUnsupported);
}

TEST(PgStore, DataVersionMovesOnAnotherConnectionsCommitOnly) {
  REQUIRE_PG();
  TempDir dir;
  TestStore s(dir);
  auto reader = s.reopen();
  auto v0 = reader->data_version();
  ASSERT_TRUE(v0);
  (void)reader->list_repos();
  EXPECT_EQ(*reader->data_version(), *v0);  // reads do not move it
  ASSERT_TRUE(s->upsert_repo({0, "o/r", "", "", "", ""}));
  EXPECT_NE(*reader->data_version(), *v0);
}

TEST(PgStore, ASnapshotDoesNotSeeACommitMadeDuringIt) {
  REQUIRE_PG();
  TempDir dir;
  TestStore s(dir);
  auto reader = s.reopen();
  size_t before = 99, during = 99;
  auto r = reader->read_snapshot([&] {
    before = reader->list_repos()->size();
    EXPECT_TRUE(s->upsert_repo({0, "o/r", "", "", "", ""}));
    during = reader->list_repos()->size();
  });
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(before, 0u);
  EXPECT_EQ(during, 0u);
  EXPECT_EQ(reader->list_repos()->size(), 1u);
}

TEST(PgStore, KeepsInvalidUtf8Bytes) {
  REQUIRE_PG();
  TempDir dir;
  TestStore s(dir);
  auto repo = s->upsert_repo({0, "o/r", "", "", "", ""});
  Change c;
  c.sha = std::string(40, 'c');
  c.title = "caf\xe9 \xff\xfe";
  c.body = std::string("nul-free \x80 bytes");
  c.merged_at = 5;
  std::vector<Change> in{c};
  ASSERT_TRUE(s->put_changes(repo->id, in, std::nullopt));
  auto out = s->get_change_by_sha(repo->id, c.sha);
  ASSERT_TRUE(out && *out);
  EXPECT_EQ((*out)->title, c.title);
  EXPECT_EQ((*out)->body, c.body);
}

}  // namespace
}  // namespace mergelens
