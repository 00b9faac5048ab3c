#include "mergelens/store/pg_util.h"

#include <charconv>
#include <cstdlib>

#include "mergelens/store/statement.h"
#include "mergelens/util/deadline.h"
#include "mergelens/util/utf8.h"

namespace mergelens::pg {
namespace {

// Type oids (pg_type.h; stable across PostgreSQL versions).
constexpr Oid kInt8 = 20, kText = 25, kFloat8 = 701, kBytea = 17;

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\r')) s.pop_back();
  return s;
}

// SQLSTATE classes 08 (connection), 57P (shutdown), 53 (resources) are I/O
// failures a caller may retry; 22/23 are bad data; the rest internal.
ErrorKind kind_of(std::string_view state) {
  if (state.empty() || state.starts_with("08") || state.starts_with("57P") ||
      state.starts_with("53") || state == kSerializationFailure || state == kDeadlock)
    return ErrorKind::kIo;
  if (state.starts_with("22") || state.starts_with("23")) return ErrorKind::kInvalidInput;
  return ErrorKind::kInternal;
}

bool reserved(char32_t cp) {
  return cp == 0 || (cp >= kByteEscapeBase && cp <= kByteEscapeBase + 0xFF);
}

void escape_byte(std::string& out, unsigned char b) {
  // U+10FE00 + b in UTF-8: F4 8F (B8 + b / 64) (80 + b % 64).
  out += '\xF4';
  out += '\x8F';
  out += static_cast<char>(0xB8 + (b >> 6));
  out += static_cast<char>(0x80 + (b & 0x3F));
}

}  // namespace

std::string to_db(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const Utf8Char c = decode_utf8(s, i);
    if (c.cp == Utf8Char::kInvalid || reserved(c.cp)) {
      for (size_t k = 0; k < c.len; ++k) escape_byte(out, static_cast<unsigned char>(s[i + k]));
    } else {
      out.append(s.substr(i, c.len));
    }
    i += c.len;
  }
  return out;
}

std::string from_db(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    const auto b = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
    if (b(0) == 0xF4 && i + 3 < s.size() && b(1) == 0x8F && b(2) >= 0xB8 && b(2) <= 0xBB &&
        (b(3) & 0xC0) == 0x80) {
      out += static_cast<char>(((b(2) - 0xB8) << 6) | (b(3) & 0x3F));
      i += 3;
    } else {
      out += s[i];
    }
  }
  return out;
}

Result<Conn> Conn::connect(const std::string& url) {
  Conn c;
  c.c_ = PQconnectdb(url.c_str());
  if (!c.c_) return fail(ErrorKind::kIo, "cannot allocate a PostgreSQL connection");
  const char* host = PQhost(c.c_);
  const char* port = PQport(c.c_);
  const char* db = PQdb(c.c_);
  c.where_ = fmt::format("PostgreSQL at {}:{}/{}", host && *host ? host : "localhost",
                         port && *port ? port : "5432", db ? db : "");
  if (PQstatus(c.c_) != CONNECTION_OK)
    return fail(ErrorKind::kIo, "cannot connect to {}: {}", c.where_, trim(PQerrorMessage(c.c_)));
  // Notices (NOTICE: relation exists, ...) are not ours to print.
  PQsetNoticeProcessor(
      c.c_, [](void*, const char*) {}, nullptr);
  if (auto r = c.exec("SET client_min_messages = warning"); !r) return std::unexpected(r.error());
  return c;
}

bool Conn::ensure() {
  if (!c_) return false;
  if (PQstatus(c_) == CONNECTION_OK) return true;
  PQreset(c_);
  forget_prepared();  // a new session: nothing is prepared there
  return PQstatus(c_) == CONNECTION_OK;
}

Error Conn::error_of(const PGresult* res, std::string_view what) {
  const char* st = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : nullptr;
  state_ = st ? st : "";
  std::string msg =
      trim(res && *PQresultErrorMessage(res) ? PQresultErrorMessage(res) : PQerrorMessage(c_));
  if (PQstatus(c_) != CONNECTION_OK) state_ = "08006";
  return Error{kind_of(state_),
               fmt::format("{}: {}{}{}", where_, msg, what.empty() ? "" : " in ", what),
               /*internal=*/true};
}

Result<void> Conn::exec(std::string_view sql) {
  state_.clear();
  if (!ensure()) return std::unexpected(error_of(nullptr, ""));
  const std::string s(sql);
  ResultPtr res(PQexec(c_, s.c_str()));
  const auto st = res ? PQresultStatus(res.get()) : PGRES_FATAL_ERROR;
  if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK)
    return std::unexpected(error_of(res.get(), ""));
  return {};
}

Stmt::Param& Stmt::slot(int i) {
  if (static_cast<int>(params_.size()) < i) params_.resize(static_cast<size_t>(i));
  return params_[static_cast<size_t>(i - 1)];
}

Stmt& Stmt::bind(int i, std::int64_t v) {
  slot(i) = Param{std::to_string(v), kInt8, false, false};
  return *this;
}
Stmt& Stmt::bind(int i, std::string_view v) {
  slot(i) = Param{conn_->scheme_ == TextScheme::kEscaped ? to_db(v) : std::string(v), kText, false,
                  false};
  return *this;
}
Stmt& Stmt::bind_blob(int i, std::string_view v) {
  slot(i) = Param{std::string(v), kBytea, false, true};
  return *this;
}
Stmt& Stmt::bind(int i, const std::optional<std::int64_t>& v) {
  if (v) return bind(i, *v);
  slot(i) = Param{{}, kInt8, true, false};
  return *this;
}
Stmt& Stmt::bind_null(int i) {
  Param& p = slot(i);
  p.null = true;
  p.value.clear();
  return *this;
}
Stmt& Stmt::bind_double(int i, double v) {
  slot(i) = Param{fmt::format("{}", v), kFloat8, false, false};
  return *this;
}

Result<void> Stmt::execute() {
  conn_->state_.clear();
  // No statement starts once the work's deadline has passed (util/deadline.h),
  // but BEGIN, COMMIT and ROLLBACK.
  if (deadline_passed() && !db::is_transaction_control(sql_))
    return internal_error(Error{ErrorKind::kTimeout,
                                conn_->where_ + ": interrupted: the work ran past its deadline"});
  // Outside a transaction a lost connection is re-established first (the
  // server restarted); inside one the transaction is gone and the caller
  // sees the error.
  if (PQtransactionStatus(conn_->c_) != PQTRANS_INTRANS && !conn_->ensure())
    return std::unexpected(conn_->error_of(nullptr, ""));
  std::vector<Oid> types;
  std::vector<const char*> values;
  std::vector<int> lengths, formats;
  for (const Param& p : params_) {
    types.push_back(p.type);
    values.push_back(p.null ? nullptr : p.value.data());
    lengths.push_back(static_cast<int>(p.value.size()));
    formats.push_back(p.binary ? 1 : 0);
  }
  res_.reset(send(types, values, lengths, formats));
  const auto st = res_ ? PQresultStatus(res_.get()) : PGRES_FATAL_ERROR;
  if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
    Error e = conn_->error_of(res_.get(), "");
    res_.reset();
    // A prepared statement the server no longer has (26000), or whose plan
    // cannot serve a changed table (0A000): prepared again next time.
    if (conn_->state_ == "26000" || conn_->state_ == "0A000")
      if (auto it = conn_->prepared_.find(sql_); it != conn_->prepared_.end()) {
        conn_->named_ -= it->second.name.empty() ? 0 : 1;
        conn_->prepared_.erase(it);
      }
    return std::unexpected(std::move(e));
  }
  row_ = -1;
  return {};
}

PGresult* Stmt::send(const std::vector<Oid>& types, const std::vector<const char*>& values,
                     const std::vector<int>& lengths, const std::vector<int>& formats) {
  PGconn* c = conn_->c_;
  const int n = static_cast<int>(types.size());
  auto& known = conn_->prepared_;
  auto it = known.find(sql_);
  if (it == known.end()) {
    if (known.size() >= kMaxRemembered)
      std::erase_if(known, [](const auto& kv) { return kv.second.name.empty(); });
    known.emplace(sql_, Conn::Prepared{1, {}, {}});
    return PQexecParams(c, sql_.c_str(), n, types.data(), values.data(), lengths.data(),
                        formats.data(), 0);
  }
  Conn::Prepared& p = it->second;
  if (p.name.empty()) {
    if (conn_->named_ >= kMaxPrepared) {
      // Rare (hundreds of distinct statements on one connection): start over.
      ResultPtr d(PQexec(c, "DEALLOCATE ALL"));
      conn_->forget_prepared();
      known.emplace(sql_, Conn::Prepared{1, {}, {}});
      return PQexecParams(c, sql_.c_str(), n, types.data(), values.data(), lengths.data(),
                          formats.data(), 0);
    }
    std::string name = fmt::format("mergelens_{}", ++conn_->serial_);
    ResultPtr prep(PQprepare(c, name.c_str(), sql_.c_str(), n, types.data()));
    if (!prep || PQresultStatus(prep.get()) != PGRES_COMMAND_OK) return prep.release();
    p.name = std::move(name);
    p.types = types;
    ++conn_->named_;
  } else if (p.types != types) {
    // The same text bound with other types (a NULL bound as text, say): sent as it is.
    return PQexecParams(c, sql_.c_str(), n, types.data(), values.data(), lengths.data(),
                        formats.data(), 0);
  }
  ++p.uses;
  return PQexecPrepared(c, p.name.c_str(), n, values.data(), lengths.data(), formats.data(), 0);
}

Result<bool> Stmt::step() {
  if (!res_)
    if (auto r = execute(); !r) return std::unexpected(r.error());
  ++row_;
  return row_ < PQntuples(res_.get());
}

Result<std::int64_t> Stmt::run() {
  auto r = execute();
  if (!r) return std::unexpected(r.error());
  const char* n = PQcmdTuples(res_.get());
  std::int64_t out = n && *n ? std::strtoll(n, nullptr, 10) : 0;
  reset();
  return out;
}

std::int64_t Stmt::i64(int col) const {
  const char* v = PQgetvalue(res_.get(), row_, col);
  const int len = PQgetlength(res_.get(), row_, col);
  if (len == 1 && (*v == 't' || *v == 'f')) return *v == 't';  // a boolean column
  std::int64_t out = 0;
  auto [p, ec] = std::from_chars(v, v + len, out);
  if (ec != std::errc() || p != v + len) return static_cast<std::int64_t>(std::strtod(v, nullptr));
  return out;
}

double Stmt::f64(int col) const {
  const char* v = PQgetvalue(res_.get(), row_, col);
  return v && *v ? std::strtod(v, nullptr) : 0.0;
}

std::string Stmt::text(int col) const {
  const std::string_view v(PQgetvalue(res_.get(), row_, col),
                           static_cast<size_t>(PQgetlength(res_.get(), row_, col)));
  return conn_->scheme_ == TextScheme::kEscaped ? from_db(v) : std::string(v);
}

std::string Stmt::blob(int col) const {
  // bytea in text form is "\x" followed by hex digits (bytea_output = hex).
  const char* v = PQgetvalue(res_.get(), row_, col);
  const auto len = static_cast<size_t>(PQgetlength(res_.get(), row_, col));
  if (len < 2 || v[0] != '\\' || v[1] != 'x') return std::string(v, len);
  auto nib = [](char c) { return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10; };
  std::string out((len - 2) / 2, '\0');
  for (size_t i = 0; i < out.size(); ++i)
    out[i] = static_cast<char>((nib(v[2 + 2 * i]) << 4) | nib(v[3 + 2 * i]));
  return out;
}

db::Query query(Conn& conn, std::string sql) {
  return db::Query(std::make_unique<db::StatementOf<Stmt>>(Stmt(conn, std::move(sql))));
}

}  // namespace mergelens::pg
