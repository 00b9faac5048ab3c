// SqlStore: the Store written once for both databases, private to store/.
//
// Each query and each row-to-struct reader is written here once, over
// db::Query (statement.h), with PostgreSQL's $N placeholders. The two
// backends derive from SqlStore and supply only what really differs: the
// connection (q), the transaction (SQLite: BEGIN IMMEDIATE; PostgreSQL:
// READ COMMITTED, re-run on deadlock, moving data_version), and, where the
// SQL itself differs (full-text search, the job claim, schema types), a
// per-dialect string chosen with pick() or a branch on dialect() beside the
// shared code, never a second copy of the method.
//
// The methods are split by family over sql_*.cc files; see ARCHITECTURE.md,
// "How to add a query".
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "mergelens/store/rows.h"
#include "mergelens/store/statement.h"
#include "mergelens/store/store.h"

namespace mergelens {

class SqlStore : public Store {
 public:
  // Deliveries (sql_deliveries.cc).
  Result<std::vector<DeliveryPart>> plan_delivery(std::int64_t repo_id,
                                                  std::span<const DeliveryPart> parts) override;
  Result<void> record_delivery_attempt(std::int64_t repo_id, std::string_view target,
                                       std::string_view day, int part, UnixSeconds at,
                                       std::string_view error) override;
  Result<std::vector<DeliveryPart>> deliveries(std::int64_t repo_id, std::string_view target,
                                               std::string_view day) override;
  Result<size_t> forget_delivery(std::int64_t repo_id, std::string_view target,
                                 std::string_view day) override;

  // Pages (sql_pages.cc).
  Result<std::optional<UnixSeconds>> adjacent_merge(std::int64_t repo_id, UnixSeconds t,
                                                    bool before) override;
  Result<std::map<std::int64_t, std::vector<std::string>>> tags_of(
      std::span<const std::int64_t> ids) override;
  Result<std::map<std::int64_t, std::vector<GuideLine>>> guide_lines(
      std::span<const std::int64_t> ids) override;
  Result<std::vector<TagStat>> tag_stats(std::int64_t repo_id, size_t weeks) override;
  Result<Aggregate> aggregate(std::int64_t repo_id, const AggregateQuery& query) override;
  // SQLite: PRAGMA data_version; PostgreSQL: the mergelens_version row.
  Result<std::int64_t> data_version() override;
  // SQLite: a read transaction; PostgreSQL: REPEATABLE READ READ ONLY, so
  // every query of `body` sees one snapshot.
  Result<void> read_snapshot(const std::function<void()>& body) override;

  // Search (sql_search.cc).
  Result<size_t> refresh_search_index() override;
  Result<std::vector<SearchHit>> search(std::int64_t repo_id, std::span<const SearchTerm> terms,
                                        std::string_view lang, size_t limit) override;

 protected:
  // A statement for `sql`, written with $1, $2, ... placeholders.
  virtual db::Query q(std::string_view sql) = 0;
  virtual db::Dialect dialect() const = 0;
  // Runs `body` in one write transaction and commits when it succeeds;
  // rolls back and returns its error otherwise. PostgreSQL may run `body`
  // more than once (deadlock, serialization failure), so it must not keep
  // state across attempts; unless `bump_version` is false it also moves the
  // data version pages are cached by.
  virtual Result<void> transaction(const std::function<Result<void>()>& body,
                                   bool bump_version) = 0;

  // `body`'s value, computed in one transaction (see transaction()).
  template <class T>
  Result<T> tx(const std::function<Result<T>()>& body, bool bump_version = true) {
    if constexpr (std::is_void_v<T>) {
      return transaction(body, bump_version);
    } else {
      std::optional<T> out;
      auto r = transaction(
          [&]() -> Result<void> {
            out.reset();
            auto v = body();
            if (!v) return std::unexpected(v.error());
            out.emplace(std::move(*v));
            return {};
          },
          bump_version);
      if (!r) return std::unexpected(r.error());
      return std::move(*out);
    }
  }
  // `sqlite` or `pg`, by this store's dialect: for the few statements
  // whose SQL differs between the two.
  std::string_view pick(std::string_view sqlite, std::string_view pg) const {
    return dialect() == db::Dialect::kSqlite ? sqlite : pg;
  }
  bool is_pg() const { return dialect() == db::Dialect::kPostgres; }
  // The database for messages: "database <path>" or "PostgreSQL at host:port/db".
  virtual std::string db_name() const = 0;
  // Decompresses and parses a stored zstd JSON document; kCorrupt naming
  // the database and `what` (e.g. "facts of change 12") when it cannot be read.
  Result<nlohmann::json> read_json_doc(std::string_view blob, std::string_view what) const;

  // Pages (sql_pages.cc).
  // ` COLLATE "C"` on PostgreSQL, "" on SQLite: appended to a text column
  // to order and compare it by code point (SQLite's default) whatever the
  // PostgreSQL database's collation.
  std::string_view collate_c() const { return pick("", " COLLATE \"C\""); }

  // Search (sql_search.cc).
  // (Re)writes the search documents of these changes; call it inside the
  // write transaction that changed them.
  Result<void> index_changes(std::span<const std::int64_t> ids);

 private:
  // Search (sql_search.cc).
  // "FROM changes c WHERE" no search document is stored for c.
  std::string unindexed_changes() const;
  // Indexes the changes that have no search document; returns how many.
  Result<size_t> index_missing();

 private:
  // The delivery parts of (target, day); day empty: the newest day.
  Result<std::vector<DeliveryPart>> read_parts(std::int64_t repo_id, std::string_view target,
                                               std::string_view day);
};

}  // namespace mergelens
