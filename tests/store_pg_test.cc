// What only the PostgreSQL store does: errors that name the server, the
// database checks on opening, the data version across connections, and one
// snapshot per read. Skipped unless MERGELENS_TEST_PG names a server (the
// pg_unit test, which scripts/test.sh runs against a throwaway cluster).
#include <gtest/gtest.h>

#include <algorithm>

#include "mergelens/store/pg_util.h"
#include "mergelens/util/utf8.h"
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

TEST(PgText, EveryByteStringRoundTripsThroughValidUtf8) {
  std::vector<std::string> inputs = {"",
                                     "plain ascii",
                                     "中文 and English",
                                     "caf\xe9 \xff\xfe",
                                     std::string("nul\0inside", 11),
                                     "\xed\xa0\x80 surrogate",
                                     "\xf4\x8f\xb9\x81 reserved U+10FE41",
                                     "\xf4\x8f\xb9",
                                     "emoji \xf0\x9f\x98\x80 \xf4\x8f\xbf\xbf U+10FFFF"};
  for (int b = 0; b < 256; ++b) inputs.emplace_back(1, static_cast<char>(b));
  std::uint32_t seed = 22;
  for (int n = 0; n < 2000; ++n) {
    std::string r;
    for (int k = n % 13; k > 0; --k) {
      seed = seed * 1664525u + 1013904223u;
      r += static_cast<char>(seed >> 24);
    }
    inputs.push_back(r);
  }
  for (const auto& in : inputs) {
    const std::string db = pg::to_db(in);
    EXPECT_EQ(pg::from_db(db), in);
    EXPECT_EQ(db.find('\0'), std::string::npos);
    for (size_t i = 0; i < db.size(); i += decode_utf8(db, i).len)
      ASSERT_NE(decode_utf8(db, i).cp, Utf8Char::kInvalid) << "invalid UTF-8 sent for " << in;
  }
  // Valid text is sent as it is: the server sees the characters.
  EXPECT_EQ(pg::to_db("中文 and English"), "中文 and English");
  EXPECT_EQ(pg::to_db("\xff"), "\xf4\x8f\xbb\xbf");  // U+10FEFF
}

TEST(PgStore, RefusesOtherEncodingsForeignAndNewerDatabases) {
  REQUIRE_PG();
  const std::string url = test_pg_url();
  const std::string db = fmt::format("mlt_{}_checks", getpid());
  ASSERT_EQ(pg_admin(url, "CREATE DATABASE " + db +
                              "_latin1 ENCODING 'LATIN1' LC_COLLATE 'C' LC_CTYPE 'C' "
                              "TEMPLATE template0"),
            "");
  auto latin1 = open_store_at(pg_url_with_db(url, db + "_latin1"));
  ASSERT_FALSE(latin1);
  EXPECT_EQ(latin1.error().kind, ErrorKind::kUnsupported);
  EXPECT_NE(latin1.error().message.find("LATIN1 encoding"), std::string::npos)
      << latin1.error().message;
  EXPECT_NE(latin1.error().message.find("ENCODING 'UTF8'"), std::string::npos);
  EXPECT_NE(latin1.error().message.find("migrate-store"), std::string::npos);
  (void)pg_admin(url, "DROP DATABASE " + db + "_latin1");

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

// Commit text of every kind kept byte for byte, in the test cluster's UTF8
// database and in a SQL_ASCII one (stores made before the escape).
void expect_text_kept(Store& s) {
  auto repo = s.upsert_repo({0, "o/中文", "", "", "", ""});
  ASSERT_TRUE(repo) << repo.error().message;
  Change c;
  c.sha = std::string(40, 'c');
  c.number = 7;
  c.title = "caf\xe9 \xff\xfe 缓存 \xed\xa0\x80 \xf4\x8f\xb9\x81";
  static constexpr char kBody[] = "nul\0inside \x80 bytes\n第二行";
  c.body = std::string(kBody, sizeof kBody - 1);
  c.author = {"J\xf6rg 张", "j\xf6rg@example.org", ""};
  c.merged_at = 5;
  FileChange f;
  f.path = "src/\xe9t\xe9/文件.py";
  f.old_path = "old/\xff.py";
  f.additions = 1;
  f.hunks.push_back({1, 0, 1, 1, "def f\xe9():", {{'+', 0, 1, "x = '\xfe 值'"}}});
  c.files.push_back(f);
  c.labels = {"\xe9t\xe9", "缓存"};
  std::vector<Change> in{c};
  ASSERT_TRUE(s.put_changes(repo->id, in, std::nullopt));
  auto out = s.get_change_by_sha(repo->id, c.sha);
  ASSERT_TRUE(out && *out);
  const Change& o = **out;
  EXPECT_EQ(o.title, c.title);
  EXPECT_EQ(o.body, c.body);
  EXPECT_EQ(o.author.name, c.author.name);
  EXPECT_EQ(o.author.email, c.author.email);
  ASSERT_EQ(o.files.size(), 1u);
  EXPECT_EQ(o.files[0].path, f.path);
  EXPECT_EQ(o.files[0].old_path, f.old_path);
  ASSERT_EQ(o.files[0].hunks.size(), 1u);
  EXPECT_EQ(o.files[0].hunks[0].section, f.hunks[0].section);
  EXPECT_EQ(o.files[0].hunks[0].lines.at(0).text, f.hunks[0].lines[0].text);
  EXPECT_EQ(o.labels, (std::vector<std::string>{"缓存", "\xe9t\xe9"}));  // by byte, as in SQLite
  auto named = s.find_repo("o/中文");
  ASSERT_TRUE(named && *named);
  // A title with bytes that are not UTF-8 is still found by its words.
  std::vector<SearchTerm> terms(2);
  terms[0].text = "缓存";
  terms[1].text = "caf";
  terms[1].prefix = true;
  ASSERT_TRUE(s.refresh_search_index());
  auto hits = s.search(repo->id, terms, "zh", 10);
  ASSERT_TRUE(hits) << hits.error().message;
  ASSERT_EQ(hits->size(), 1u);
  EXPECT_EQ(hits->front().change.title, c.title);
}

TEST(PgStore, KeepsEveryByteOfCommitTextInUtf8) {
  REQUIRE_PG();
  TempDir dir;
  TestStore s(dir);
  expect_text_kept(*s);
  // The server holds the text as characters: valid UTF-8 as it is, so other
  // tools and the server's own functions read it.
  EXPECT_EQ(pg_admin(s.location.str(),
                     "DO $$ BEGIN IF (SELECT count(*) FROM changes WHERE body LIKE '%第二行' AND "
                     "position('缓存' in title) > 0 AND length(title) = 19) != 1 THEN RAISE "
                     "EXCEPTION 'not stored as text'; END IF; END $$"),
            "");
}

TEST(PgStore, KeepsEveryByteOfCommitTextInSqlAscii) {
  REQUIRE_PG();
  const std::string url = test_pg_url();
  const std::string db = fmt::format("mlt_{}_ascii", getpid());
  ASSERT_EQ(pg_admin(url, "CREATE DATABASE " + db +
                              " ENCODING 'SQL_ASCII' LC_COLLATE 'C' LC_CTYPE 'C' "
                              "TEMPLATE template0"),
            "");
  {
    auto s = open_store_at(pg_url_with_db(url, db));
    ASSERT_TRUE(s) << s.error().message;
    // SQL_ASCII holds no NUL: the legacy scheme keeps every other byte.
    auto repo = (*s)->upsert_repo({0, "o/r", "", "", "", ""});
    Change c;
    c.sha = std::string(40, 'a');
    c.title = "caf\xe9 \xff\xfe 缓存";
    c.merged_at = 5;
    std::vector<Change> in{c};
    ASSERT_TRUE((*s)->put_changes(repo->id, in, std::nullopt));
    auto out = (*s)->get_change_by_sha(repo->id, c.sha);
    ASSERT_TRUE(out && *out);
    EXPECT_EQ((*out)->title, c.title);
  }
  (void)pg_admin(url, "DROP DATABASE " + db + " WITH (FORCE)");
}

// Text sorts by code point (as in SQLite) whatever the database's collation.
TEST(PgStore, SortsChineseAndEnglishByCodePoint) {
  REQUIRE_PG();
  TempDir dir;
  TestStore s(dir);
  const std::vector<std::string> names = {"B/x", "a/x", "中/x", "世/x", "Z/x", "é/x"};
  for (const auto& n : names) ASSERT_TRUE(s->upsert_repo({0, n, "", "", "", ""}));
  auto repos = s->list_repos();
  ASSERT_TRUE(repos);
  std::vector<std::string> got;
  for (const auto& r : *repos) got.push_back(r.name);
  std::vector<std::string> want = names;
  std::sort(want.begin(), want.end());  // bytewise = code point order for UTF-8
  EXPECT_EQ(got, want);
}

}  // namespace
}  // namespace mergelens
