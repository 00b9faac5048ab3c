// Stores for the tests, on either backend. By default a SQLite file in a
// temporary folder; when MERGELENS_TEST_PG names a PostgreSQL server
// (postgresql://user@host:port/db, as scripts/test.sh starts one), a fresh
// database on it, dropped at the end. The same tests so run on both
// backends: ctest runs the store and web suites a second time with the
// variable set (pg_unit in tests/CMakeLists.txt).
#pragma once

#include <libpq-fe.h>

#include <atomic>
#include <cstdlib>
#include <memory>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "mergelens/store/store.h"
#include "test_helpers.h"

namespace mergelens::testing {

// The server URL, or "" for SQLite.
inline std::string test_pg_url() {
  const char* v = std::getenv("MERGELENS_TEST_PG");
  return v ? v : "";
}

// Runs one statement on the server's maintenance database; "" when it worked.
inline std::string pg_admin(const std::string& url, const std::string& sql) {
  PGconn* c = PQconnectdb(url.c_str());
  std::string err;
  if (PQstatus(c) != CONNECTION_OK) {
    err = PQerrorMessage(c);
  } else {
    PGresult* r = PQexec(c, sql.c_str());
    if (PQresultStatus(r) != PGRES_COMMAND_OK && PQresultStatus(r) != PGRES_TUPLES_OK)
      err = PQresultErrorMessage(r);
    PQclear(r);
  }
  PQfinish(c);
  return err;
}

// `url` with its database replaced by `db`.
inline std::string pg_url_with_db(const std::string& url, const std::string& db) {
  const size_t slash = url.find('/', url.find("//") + 2);
  const size_t query = url.find('?', slash);
  return url.substr(0, slash) + "/" + db + (query == std::string::npos ? "" : url.substr(query));
}

// A location (file path or URL) with a fresh, empty store behind it.
class TestLocation {
 public:
  // `sqlite_only`: a file even when MERGELENS_TEST_PG names a server (a test
  // of what only SQLite does).
  explicit TestLocation(const TempDir& dir, const std::string& file = "db.sqlite",
                        bool sqlite_only = false) {
    if (!sqlite_only) server_ = test_pg_url();
    if (server_.empty()) {
      location_ = dir / file;
      return;
    }
    static std::atomic<int> counter{0};
    db_ = fmt::format("mlt_{}_{}", getpid(), counter++);
    const std::string err = pg_admin(server_, fmt::format("CREATE DATABASE {}", db_));
    EXPECT_EQ(err, "") << "creating a test database on " << server_;
    location_ = pg_url_with_db(server_, db_);
  }
  ~TestLocation() {
    if (!db_.empty()) (void)pg_admin(server_, fmt::format("DROP DATABASE {} WITH (FORCE)", db_));
  }
  TestLocation(const TestLocation&) = delete;
  TestLocation& operator=(const TestLocation&) = delete;
  const std::string& str() const { return location_; }
  bool pg() const { return !db_.empty(); }

 private:
  std::string server_, db_, location_;
};

// A fresh store in `dir` (or on the test server) and its location.
struct TestStore {
  explicit TestStore(const TempDir& dir) : location(dir) {
    auto s = open_store_at(location.str());
    EXPECT_TRUE(s) << s.error().message;
    if (s) store = std::move(*s);
  }
  Store* operator->() const { return store.get(); }
  Store& operator*() const { return *store; }
  // Another connection to the same store.
  std::unique_ptr<Store> reopen() const {
    auto s = open_store_at(location.str(), StoreOptions{.create = false});
    EXPECT_TRUE(s) << s.error().message;
    return s ? std::move(*s) : nullptr;
  }
  TestLocation location;
  std::unique_ptr<Store> store;
};

}  // namespace mergelens::testing
