// The prepared-statement cache of a store connection: statements are
// reused, bounded, and come back reset with no bindings.
#include <gtest/gtest.h>

#include <string>

#include "mergelens/store/sqlite_util.h"

namespace mergelens::sql {
namespace {

Db memory_db() {
  sqlite3* raw = nullptr;
  EXPECT_EQ(sqlite3_open(":memory:", &raw), SQLITE_OK);
  return Db(raw);
}

// Statements the connection holds, and how many of them are mid-step.
std::pair<int, int> statements(const Db& db) {
  int n = 0, busy = 0;
  for (sqlite3_stmt* s = sqlite3_next_stmt(db.get(), nullptr); s;
       s = sqlite3_next_stmt(db.get(), s)) {
    ++n;
    busy += sqlite3_stmt_busy(s) ? 1 : 0;
  }
  return {n, busy};
}

TEST(StmtCache, ReusesAStatementAndBoundsHowManyItKeeps) {
  Db db = memory_db();
  {
    StmtCache cache(4);
    for (int i = 0; i < 100; ++i) {
      auto st = Stmt::prepare(db, "SELECT 1", &cache);
      ASSERT_TRUE(st);
      ASSERT_TRUE(st->step().value());
    }
    EXPECT_EQ(statements(db).first, 1);
    for (int i = 0; i < 10; ++i)
      ASSERT_TRUE(Stmt::prepare(db, "SELECT " + std::to_string(i), &cache));
    EXPECT_EQ(statements(db).first, 4);
    // Two in use at once are two statements.
    auto a = Stmt::prepare(db, "SELECT 42", &cache);
    auto b = Stmt::prepare(db, "SELECT 42", &cache);
    ASSERT_TRUE(a && b);
    ASSERT_TRUE(a->step().value());
    ASSERT_TRUE(b->step().value());
    EXPECT_EQ(a->i64(0), 42);
    EXPECT_EQ(b->i64(0), 42);
  }
  EXPECT_EQ(statements(db).first, 0);  // the cache finalized what it kept
}

TEST(StmtCache, AStatementComesBackResetAndUnbound) {
  Db db = memory_db();
  ASSERT_TRUE(db.exec("CREATE TABLE t(x); INSERT INTO t VALUES (1), (2), (3)"));
  StmtCache cache;
  {
    auto st = Stmt::prepare(db, "SELECT x FROM t WHERE x >= ?1 ORDER BY x", &cache);
    ASSERT_TRUE(st);
    st->bind(1, std::int64_t{2});
    ASSERT_TRUE(st->step().value());  // left mid-iteration
    EXPECT_EQ(statements(db).second, 1);
  }
  EXPECT_EQ(statements(db), std::make_pair(1, 0));  // kept, and not holding a read open
  auto again = Stmt::prepare(db, "SELECT x FROM t WHERE x >= ?1 ORDER BY x", &cache);
  ASSERT_TRUE(again);
  // Unbound, ?1 is NULL and nothing is >= NULL.
  EXPECT_FALSE(again->step().value());
}

TEST(StmtCache, KeysStatementsByTheTextCallersWriteAndPreparesTheSqliteFormOnce) {
  Db db = memory_db();
  ASSERT_TRUE(db.exec("CREATE TABLE t(x); INSERT INTO t VALUES (1), (2), (3)"));
  StmtCache cache(8);
  const std::string sql = "SELECT count(*) FROM t WHERE x >= $1";
  for (std::int64_t from = 1; from <= 3; ++from) {
    auto st = Stmt::prepare(db, sql, &cache);
    ASSERT_TRUE(st);
    st->bind(1, from);
    ASSERT_TRUE(st->step().value());
    EXPECT_EQ(st->i64(0), 4 - from);  // $1 was read as ?1
  }
  EXPECT_EQ(statements(db).first, 1);
  EXPECT_EQ(cache.idle(), 1u);
  // A text that fails to prepare leaves nothing behind, and the cache goes on.
  EXPECT_FALSE(Stmt::prepare(db, "SELECT nothing FROM nowhere", &cache));
  EXPECT_EQ(cache.idle(), 1u);
  auto again = Stmt::prepare(db, sql, &cache);
  ASSERT_TRUE(again);
  EXPECT_EQ(cache.idle(), 0u);  // the kept one, taken
}

}  // namespace
}  // namespace mergelens::sql
