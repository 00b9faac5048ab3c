// Thin RAII layer over libpq, private to store/ (the PostgreSQL twin of
// sqlite_util.h, with the same accessor names so SQL code ports line by line).
//
// Parameters go as text (bytea as binary), each with its type, so `$2 IS
// NULL OR x >= $2` needs no casts; results come back as text and are parsed
// on access. A statement is sent with PQexecParams the first time its SQL is
// seen on a connection; the second time it is prepared there (PQprepare,
// under a name of the connection's own) and from then on only executed
// (PQexecPrepared), so the server parses and plans it once per connection
// instead of on every call. One-off SQL (an inline id list) is never
// prepared; at most kMaxPrepared statements stay prepared. Every error message
// names the server ("PostgreSQL at host:port/db"), never the password.
//
// Text in a UTF8 database (TextScheme::kEscaped): git lets commit text hold
// any bytes, and a UTF8 database refuses what is not UTF-8 (and NUL in any
// encoding). Every text parameter is sent through to_db() and every text
// result read through from_db(): valid UTF-8 passes unchanged (so the server
// searches, compares and sorts it as text, and other tools read it as it
// is), and each byte that is not part of valid UTF-8, and NUL, becomes one
// character of a reserved private-use block, U+10FE00 + the byte. A
// character of that block in the input is escaped byte by byte too, so the
// mapping is one-to-one and from_db(to_db(s)) == s for every byte string.
// A SQL_ASCII database (TextScheme::kBytes, stores made before this scheme)
// keeps the bytes as they are.
#pragma once

#include <libpq-fe.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "mergelens/store/statement.h"
#include "mergelens/util/error.h"

namespace mergelens::pg {

// SQLSTATE classes the store reacts to.
inline constexpr std::string_view kSerializationFailure = "40001";
inline constexpr std::string_view kDeadlock = "40P01";
inline constexpr std::string_view kUniqueViolation = "23505";

// The first code point of the block that stands for raw bytes.
inline constexpr char32_t kByteEscapeBase = 0x10FE00;

// `s` as valid UTF-8 without NUL (see above); never fails.
std::string to_db(std::string_view s);
// The bytes to_db() was given, from its output (and any valid UTF-8: text
// without a character of the reserved block comes back unchanged).
std::string from_db(std::string_view s);

// How the database holds text: kEscaped in UTF8, kBytes in SQL_ASCII.
enum class TextScheme { kBytes, kEscaped };

class Conn {
 public:
  Conn() = default;
  Conn(Conn&& o) noexcept
      : c_(o.c_),
        where_(std::move(o.where_)),
        scheme_(o.scheme_),
        prepared_(std::move(o.prepared_)),
        named_(o.named_),
        serial_(o.serial_) {
    o.c_ = nullptr;
  }
  Conn& operator=(Conn&& o) noexcept {
    std::swap(c_, o.c_);
    std::swap(where_, o.where_);
    std::swap(scheme_, o.scheme_);
    std::swap(prepared_, o.prepared_);
    std::swap(named_, o.named_);
    std::swap(serial_, o.serial_);
    return *this;
  }
  ~Conn() {
    if (c_) PQfinish(c_);
  }
  // Connects to `url` (postgresql://user@host:port/db?...). kIo naming the
  // server when it cannot be reached.
  static Result<Conn> connect(const std::string& url);

  PGconn* get() const { return c_; }
  // "PostgreSQL at host:port/db" for messages.
  const std::string& where() const { return where_; }
  // Set once after connecting, from the database's encoding (kBytes until then).
  void set_text_scheme(TextScheme t) { scheme_ = t; }
  TextScheme text_scheme() const { return scheme_; }
  // Reconnects when the connection was lost (the server restarted); true
  // when the connection is usable afterwards.
  bool ensure();
  // Runs one or more statements without parameters or results.
  Result<void> exec(std::string_view sql);
  // The SQLSTATE of the last failed statement ("" when none).
  const std::string& last_state() const { return state_; }
  // Puts back the SQLSTATE of a failure after a ROLLBACK cleared it.
  void restore_state(std::string state) { state_ = std::move(state); }

  // Fills an Error from a failed result (or the connection when null).
  Error error_of(const PGresult* res, std::string_view what);

 private:
  // What the connection knows of one SQL text: how often it was sent, and
  // once prepared, its name and parameter types.
  struct Prepared {
    int uses = 0;
    std::string name;  // "" while not prepared
    std::vector<Oid> types;
  };
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  // Forgets every prepared statement (the server's went with a reset or a DEALLOCATE ALL).
  void forget_prepared() {
    prepared_.clear();
    named_ = 0;
  }

  PGconn* c_ = nullptr;
  std::string where_;
  TextScheme scheme_ = TextScheme::kBytes;
  std::string state_;
  std::unordered_map<std::string, Prepared, Hash, std::equal_to<>> prepared_;
  size_t named_ = 0;          // entries of prepared_ prepared on the server
  std::uint64_t serial_ = 0;  // for statement names
  friend class Stmt;
};

// Statements kept prepared per connection (and SQL texts remembered), at most.
inline constexpr size_t kMaxPrepared = 256;
inline constexpr size_t kMaxRemembered = 2048;

struct ResultDeleter {
  void operator()(PGresult* r) const { PQclear(r); }
};
using ResultPtr = std::unique_ptr<PGresult, ResultDeleter>;

class Stmt {
 public:
  Stmt(Conn& conn, std::string sql) : conn_(&conn), sql_(std::move(sql)) {}

  // Binds by 1-based index ($1, $2, ...). An empty optional binds NULL.
  // Text goes through to_db() in a UTF8 database; bind_blob() binds bytes.
  Stmt& bind(int i, std::int64_t v);
  Stmt& bind(int i, std::string_view v);
  Stmt& bind_blob(int i, std::string_view v);
  Stmt& bind(int i, const std::optional<std::int64_t>& v);
  Stmt& bind_null(int i);
  Stmt& bind_double(int i, double v);

  // Executes on the first call; then true while a row is available.
  Result<bool> step();
  // Executes, for statements without rows; returns the rows affected.
  Result<std::int64_t> run();
  // Forgets the result (keeps the bindings), so step() executes again.
  void reset() {
    res_.reset();
    row_ = -1;
  }

  std::int64_t i64(int col) const;
  double f64(int col) const;
  bool is_null(int col) const { return PQgetisnull(res_.get(), row_, col) != 0; }
  std::optional<std::int64_t> opt_i64(int col) const {
    if (is_null(col)) return std::nullopt;
    return i64(col);
  }
  // A text column, through from_db() in a UTF8 database.
  std::string text(int col) const;
  std::string blob(int col) const;  // a bytea column, decoded

 private:
  struct Param {
    std::string value;
    Oid type = 25;  // text: a placeholder left unbound (a gap in $1..$N) still has a type
    bool null = true;
    bool binary = false;
  };
  Param& slot(int i);
  Result<void> execute();
  // Sends the statement: prepared when its SQL was seen before (see the top).
  PGresult* send(const std::vector<Oid>& types, const std::vector<const char*>& values,
                 const std::vector<int>& lengths, const std::vector<int>& formats);

  Conn* conn_;
  std::string sql_;
  std::vector<Param> params_;
  ResultPtr res_;
  int row_ = -1;
};

// A db::Query for `sql` on `conn` (which must outlive it). Nothing is sent
// before the first step() or run(); errors name the server.
db::Query query(Conn& conn, std::string sql);

}  // namespace mergelens::pg
