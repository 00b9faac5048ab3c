// The digest page's day list and the PR page's main load against PostgreSQL:
// raw libpq PQexecParams per call (text parameters with types, text results,
// as mergelens's pg_util.cc does), and SOCI 4.0.3's postgresql backend
// (rowset<row> per call; statements prepared once with into()/use()).
// Neither path runs pg_util's to_db()/from_db() byte escape; mergelens needs
// it on every text bind and column either way.
#include <libpq-fe.h>
#include <soci/postgresql/soci-postgresql.h>
#include <soci/soci.h>

#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "common.h"

namespace {

const std::string kListSql =
    "SELECT " + kSummaryColumns +
    " FROM changes c LEFT JOIN judged f ON f.change_id = c.id WHERE c.repo_id = $1"
    " AND ($2::bigint IS NULL OR c.merged_at >= $2) AND "
    "($3::bigint IS NULL OR c.merged_at < $3) ORDER BY c.merged_at DESC, c.id DESC LIMIT $4";
const std::string kChangeSql =
    "SELECT c.id, c.kind, c.number, c.sha, c.parent_sha, c.title, c.body, c.author_name, "
    "c.author_email, c.author_login, c.merged_at, c.url, c.files_truncated, r.name, c.shallow "
    "FROM changes c JOIN repos r ON r.id = c.repo_id WHERE ($1 = 0 OR c.repo_id = $1) AND "
    "c.number = $2 ORDER BY c.merged_at DESC, c.id DESC LIMIT 1";
const std::string kFilesSql =
    "SELECT path, old_path, status, \"binary\", truncated, additions, deletions, patch, "
    "unavailable FROM change_files WHERE change_id = $1 ORDER BY idx";
const std::string kLabelsSql =
    "SELECT name FROM change_labels WHERE change_id = $1 ORDER BY name COLLATE \"C\"";

std::string unbytea(const char* s) {
  size_t n = 0;
  unsigned char* p = PQunescapeBytea(reinterpret_cast<const unsigned char*>(s), &n);
  std::string out(reinterpret_cast<char*>(p), n);
  PQfreemem(p);
  return out;
}

// ---- raw libpq: PQexecParams per call --------------------------------------
struct Raw {
  PGconn* c;
  bool prepared = false;
  std::vector<std::string> names;  // SQL text of the statements prepared so far
  explicit Raw(const char* url, bool prep = false) : c(PQconnectdb(url)), prepared(prep) {
    if (PQstatus(c) != CONNECTION_OK) throw std::runtime_error(PQerrorMessage(c));
  }
  struct Res {
    PGresult* r;
    explicit Res(PGresult* p) : r(p) {}
    Res(Res&& o) noexcept : r(o.r) { o.r = nullptr; }
    Res(const Res&) = delete;
    ~Res() {
      if (r) PQclear(r);
    }
    std::int64_t i64(int row, int col) const {
      return std::strtoll(PQgetvalue(r, row, col), nullptr, 10);
    }
    std::string text(int row, int col) const {
      return std::string(PQgetvalue(r, row, col), PQgetlength(r, row, col));
    }
    bool null(int row, int col) const { return PQgetisnull(r, row, col); }
    int rows() const { return PQntuples(r); }
  };
  // Parameters: int8 values, nullopt = NULL.
  Res exec(const std::string& sql, std::initializer_list<std::optional<std::int64_t>> ps) {
    std::vector<std::string> vals;
    std::vector<const char*> ptrs;
    std::vector<Oid> types;
    vals.reserve(ps.size());
    for (auto& p : ps) {
      vals.push_back(p ? std::to_string(*p) : std::string());
      types.push_back(20);
    }
    size_t i = 0;
    for (auto& p : ps) ptrs.push_back(p ? vals[i++].c_str() : (i++, nullptr));
    if (!prepared) {
      Res r{PQexecParams(c, sql.c_str(), static_cast<int>(ptrs.size()), types.data(), ptrs.data(),
                         nullptr, nullptr, 0)};
      if (PQresultStatus(r.r) != PGRES_TUPLES_OK) throw std::runtime_error(PQerrorMessage(c));
      return r;
    }
    size_t k = 0;
    while (k < names.size() && names[k] != sql) ++k;
    const std::string name = "p" + std::to_string(k);
    if (k == names.size()) {
      PGresult* pr =
          PQprepare(c, name.c_str(), sql.c_str(), static_cast<int>(types.size()), types.data());
      if (PQresultStatus(pr) != PGRES_COMMAND_OK) throw std::runtime_error(PQerrorMessage(c));
      PQclear(pr);
      names.push_back(sql);
    }
    Res r{PQexecPrepared(c, name.c_str(), static_cast<int>(ptrs.size()), ptrs.data(), nullptr,
                         nullptr, 0)};
    if (PQresultStatus(r.r) != PGRES_TUPLES_OK) throw std::runtime_error(PQerrorMessage(c));
    return r;
  }
  std::vector<Summary> list_changes(std::int64_t repo, std::int64_t since, std::int64_t until) {
    auto r = exec(kListSql, {repo, since, until, std::nullopt});
    std::vector<Summary> out;
    for (int i = 0; i < r.rows(); ++i) {
      Summary s;
      s.id = r.i64(i, 0);
      s.kind = r.text(i, 1);
      if (!r.null(i, 2)) s.number = r.i64(i, 2);
      s.sha = r.text(i, 3);
      s.title = r.text(i, 4);
      s.author_name = r.text(i, 5);
      s.author_email = r.text(i, 6);
      s.author_login = r.text(i, 7);
      s.merged_at = r.i64(i, 8);
      s.url = r.text(i, 9);
      s.file_count = r.i64(i, 10);
      s.additions = r.i64(i, 11);
      s.deletions = r.i64(i, 12);
      s.verdict = r.text(i, 13);
      s.importance = r.i64(i, 14);
      s.insight = r.i64(i, 15);
      s.open = r.i64(i, 16);
      s.repo_id = r.i64(i, 17);
      out.push_back(std::move(s));
    }
    return out;
  }
  std::optional<ChangeRow> get_change(std::int64_t repo, std::int64_t number) {
    auto r = exec(kChangeSql, {repo, number});
    if (r.rows() == 0) return std::nullopt;
    ChangeRow c;
    c.id = r.i64(0, 0);
    c.kind = r.text(0, 1);
    if (!r.null(0, 2)) c.number = r.i64(0, 2);
    c.sha = r.text(0, 3);
    c.parent_sha = r.text(0, 4);
    c.title = r.text(0, 5);
    c.body = r.text(0, 6);
    c.author_name = r.text(0, 7);
    c.author_email = r.text(0, 8);
    c.author_login = r.text(0, 9);
    c.merged_at = r.i64(0, 10);
    c.url = r.text(0, 11);
    c.files_truncated = r.i64(0, 12);
    c.repo = r.text(0, 13);
    c.shallow = r.i64(0, 14);
    auto f = exec(kFilesSql, {c.id});
    for (int i = 0; i < f.rows(); ++i) {
      FileRow x;
      x.path = f.text(i, 0);
      x.old_path = f.text(i, 1);
      x.status = f.text(i, 2);
      x.binary = f.i64(i, 3);
      x.truncated = f.i64(i, 4);
      x.additions = f.i64(i, 5);
      x.deletions = f.i64(i, 6);
      if (!f.null(i, 7)) x.patch = unbytea(PQgetvalue(f.r, i, 7));
      if (!f.null(i, 8)) x.unavailable = f.text(i, 8);
      c.files.push_back(std::move(x));
    }
    auto l = exec(kLabelsSql, {c.id});
    for (int i = 0; i < l.rows(); ++i) c.labels.push_back(l.text(i, 0));
    return c;
  }
};

// ---- SOCI, rowset<row> per call ---------------------------------------------
std::int64_t i64(const soci::row& r, std::size_t i) {
  switch (r.get_properties(i).get_data_type()) {
    case soci::dt_integer:
      return r.get<int>(i);
    case soci::dt_long_long:
      return r.get<long long>(i);
    case soci::dt_unsigned_long_long:
      return static_cast<std::int64_t>(r.get<unsigned long long>(i));
    case soci::dt_double:
      return static_cast<std::int64_t>(r.get<double>(i));
    case soci::dt_string:
      return std::stoll(r.get<std::string>(i));
    default:
      throw std::runtime_error("column type");
  }
}
std::optional<std::int64_t> opt_i64(const soci::row& r, std::size_t i) {
  if (r.get_indicator(i) == soci::i_null) return std::nullopt;
  return i64(r, i);
}
std::string text(const soci::row& r, std::size_t i) {
  if (r.get_indicator(i) == soci::i_null) return {};
  return r.get<std::string>(i);
}

struct SociRowset {
  soci::session& sql;
  std::vector<Summary> list_changes(std::int64_t repo, std::int64_t since, std::int64_t until) {
    long long r = repo, s = since, u = until, lim = 0;
    soci::indicator lim_ind = soci::i_null;
    soci::rowset<soci::row> rs = (sql.prepare << kListSql, soci::use(r), soci::use(s), soci::use(u),
                                  soci::use(lim, lim_ind));
    std::vector<Summary> out;
    for (const soci::row& row : rs) {
      Summary x;
      x.id = i64(row, 0);
      x.kind = text(row, 1);
      x.number = opt_i64(row, 2);
      x.sha = text(row, 3);
      x.title = text(row, 4);
      x.author_name = text(row, 5);
      x.author_email = text(row, 6);
      x.author_login = text(row, 7);
      x.merged_at = i64(row, 8);
      x.url = text(row, 9);
      x.file_count = i64(row, 10);
      x.additions = i64(row, 11);
      x.deletions = i64(row, 12);
      x.verdict = text(row, 13);
      x.importance = i64(row, 14);
      x.insight = i64(row, 15);
      x.open = i64(row, 16);
      x.repo_id = i64(row, 17);
      out.push_back(std::move(x));
    }
    return out;
  }
  std::optional<ChangeRow> get_change(std::int64_t repo, std::int64_t number) {
    long long r = repo, n = number;
    soci::rowset<soci::row> rs = (sql.prepare << kChangeSql, soci::use(r), soci::use(n));
    auto it = rs.begin();
    if (it == rs.end()) return std::nullopt;
    const soci::row& row = *it;
    ChangeRow c;
    c.id = i64(row, 0);
    c.kind = text(row, 1);
    c.number = opt_i64(row, 2);
    c.sha = text(row, 3);
    c.parent_sha = text(row, 4);
    c.title = text(row, 5);
    c.body = text(row, 6);
    c.author_name = text(row, 7);
    c.author_email = text(row, 8);
    c.author_login = text(row, 9);
    c.merged_at = i64(row, 10);
    c.url = text(row, 11);
    c.files_truncated = i64(row, 12);
    c.repo = text(row, 13);
    c.shallow = i64(row, 14);
    long long id = c.id;
    soci::rowset<soci::row> fs = (sql.prepare << kFilesSql, soci::use(id));
    for (const soci::row& f : fs) {
      FileRow x;
      x.path = text(f, 0);
      x.old_path = text(f, 1);
      x.status = text(f, 2);
      x.binary = i64(f, 3);
      x.truncated = i64(f, 4);
      x.additions = i64(f, 5);
      x.deletions = i64(f, 6);
      // bytea arrives as its text form ("\x..."): soci::blob is a large object.
      if (f.get_indicator(7) != soci::i_null) x.patch = unbytea(f.get<std::string>(7).c_str());
      if (f.get_indicator(8) != soci::i_null) x.unavailable = f.get<std::string>(8);
      c.files.push_back(std::move(x));
    }
    soci::rowset<soci::row> ls = (sql.prepare << kLabelsSql, soci::use(id));
    for (const soci::row& l : ls) c.labels.push_back(text(l, 0));
    return c;
  }
};

// ---- SOCI, statements prepared once (into/use by reference) ------------------
struct SociStmt {
  long long repo = 0, since = 0, until = 0, limit = 0, number = 0, cid = 0;
  soci::indicator limit_ind = soci::i_null;
  long long id, merged_at, file_count, additions, deletions, importance, insight, open, repo_id,
      num;
  soci::indicator num_ind;
  std::string kind, sha, title, an, ae, al, url, verdict;
  long long c_id, c_num, c_merged, c_trunc, c_shallow;
  soci::indicator c_num_ind;
  std::string c_kind, c_sha, c_parent, c_title, c_body, c_an, c_ae, c_al, c_url, c_repo;
  std::string f_path, f_old, f_status, f_patch, f_unav;
  long long f_bin, f_trunc, f_add, f_del;
  soci::indicator f_patch_ind, f_unav_ind;
  std::string label;
  soci::statement list, change, files, labels;

  explicit SociStmt(soci::session& sql)
      : list((sql.prepare << kListSql, soci::into(id), soci::into(kind), soci::into(num, num_ind),
              soci::into(sha), soci::into(title), soci::into(an), soci::into(ae), soci::into(al),
              soci::into(merged_at), soci::into(url), soci::into(file_count), soci::into(additions),
              soci::into(deletions), soci::into(verdict), soci::into(importance),
              soci::into(insight), soci::into(open), soci::into(repo_id), soci::use(repo),
              soci::use(since), soci::use(until), soci::use(limit, limit_ind))),
        change((sql.prepare << kChangeSql, soci::into(c_id), soci::into(c_kind),
                soci::into(c_num, c_num_ind), soci::into(c_sha), soci::into(c_parent),
                soci::into(c_title), soci::into(c_body), soci::into(c_an), soci::into(c_ae),
                soci::into(c_al), soci::into(c_merged), soci::into(c_url), soci::into(c_trunc),
                soci::into(c_repo), soci::into(c_shallow), soci::use(repo), soci::use(number))),
        files((sql.prepare << kFilesSql, soci::into(f_path), soci::into(f_old),
               soci::into(f_status), soci::into(f_bin), soci::into(f_trunc), soci::into(f_add),
               soci::into(f_del), soci::into(f_patch, f_patch_ind), soci::into(f_unav, f_unav_ind),
               soci::use(cid))),
        labels((sql.prepare << kLabelsSql, soci::into(label), soci::use(cid))) {}

  std::vector<Summary> list_changes(std::int64_t r, std::int64_t s, std::int64_t u) {
    repo = r, since = s, until = u, limit_ind = soci::i_null;
    std::vector<Summary> out;
    if (list.execute(true)) do {
        Summary x{id,        kind,    std::nullopt, sha,     title,      an,
                  ae,        al,      merged_at,    url,     file_count, additions,
                  deletions, verdict, importance,   insight, open,       repo_id};
        if (num_ind != soci::i_null) x.number = num;
        out.push_back(std::move(x));
      } while (list.fetch());
    return out;
  }
  std::optional<ChangeRow> get_change(std::int64_t r, std::int64_t n) {
    repo = r, number = n;
    if (!change.execute(true)) return std::nullopt;
    ChangeRow c;
    c.id = c_id;
    c.kind = c_kind;
    if (c_num_ind != soci::i_null) c.number = c_num;
    c.sha = c_sha;
    c.parent_sha = c_parent;
    c.title = c_title;
    c.body = c_body;
    c.author_name = c_an;
    c.author_email = c_ae;
    c.author_login = c_al;
    c.merged_at = c_merged;
    c.url = c_url;
    c.files_truncated = c_trunc;
    c.repo = c_repo;
    c.shallow = c_shallow;
    cid = c.id;
    if (files.execute(true)) do {
        FileRow f{f_path, f_old, f_status,     f_bin,       f_trunc,
                  f_add,  f_del, std::nullopt, std::nullopt};
        if (f_patch_ind != soci::i_null) f.patch = unbytea(f_patch.c_str());
        if (f_unav_ind != soci::i_null) f.unavailable = f_unav;
        c.files.push_back(std::move(f));
      } while (files.fetch());
    if (labels.execute(true)) do
        c.labels.push_back(label);
      while (labels.fetch());
    return c;
  }
};

}  // namespace

int main(int argc, char** argv) {
  const char* url = argc > 1 ? argv[1] : "postgresql://mergelens@127.0.0.1:55499/soci";
  const int n = argc > 2 ? std::atoi(argv[2]) : 2000;
  const std::int64_t repo = 1, since = argc > 3 ? std::atoll(argv[3]) : 1787356800,
                     until = since + 86400;
  std::vector<std::int64_t> prs;
  for (int i = 4; i < argc; ++i) prs.push_back(std::atoll(argv[i]));
  if (prs.empty()) prs = {14760, 14131};

  Raw raw(url);
  Raw rawp(url, true);
  // SOCI 4.0.3 mangles a postgresql:// URL (it asked for database "soci="):
  // it takes the keyword=value form only.
  const char* kw = std::getenv("SOCI_CONN");
  soci::session sql(soci::postgresql,
                    kw ? kw : "host=127.0.0.1 port=55499 user=mergelens dbname=soci");
  SociRowset rowset{sql};
  SociStmt stmt(sql);

  auto d0 = digest(raw.list_changes(repo, since, until));
  std::printf("day list: %zu rows\n", raw.list_changes(repo, since, until).size());
  if (digest(rowset.list_changes(repo, since, until)) != d0 ||
      digest(rawp.list_changes(repo, since, until)) != d0 ||
      digest(stmt.list_changes(repo, since, until)) != d0) {
    std::printf("MISMATCH in list_changes\n");
    return 1;
  }
  for (auto pr : prs) {
    auto c = raw.get_change(repo, pr);
    std::printf("PR %lld: %zu files, %zu labels\n", static_cast<long long>(pr), c->files.size(),
                c->labels.size());
    if (digest(*rowset.get_change(repo, pr)) != digest(*c) ||
        digest(*rawp.get_change(repo, pr)) != digest(*c) ||
        digest(*stmt.get_change(repo, pr)) != digest(*c)) {
      std::printf("MISMATCH in get_change %lld\n", static_cast<long long>(pr));
      return 1;
    }
  }

  std::vector<Timer> ts;
  ts.push_back({"day list: raw libpq PQexecParams", {}});
  ts.push_back({"day list: SOCI rowset<row>", {}});
  ts.push_back({"day list: SOCI prepared into()", {}});
  ts.push_back({"day list: raw libpq PQexecPrepared", {}});
  for (auto pr : prs) {
    ts.push_back({"PR " + std::to_string(pr) + ": raw libpq", {}});
    ts.push_back({"PR " + std::to_string(pr) + ": SOCI rowset<row>", {}});
    ts.push_back({"PR " + std::to_string(pr) + ": SOCI prepared into()", {}});
    ts.push_back({"PR " + std::to_string(pr) + ": raw libpq PQexecPrepared", {}});
  }
  volatile std::size_t sink = 0;
  for (int i = 0; i < n; ++i) {
    auto t = [&](size_t k, auto&& f) {
      double a = now_us();
      sink = sink + f();
      ts[k].us.push_back(now_us() - a);
    };
    for (int j = 0; j < 4; ++j) {
      const int p = (i + j) % 4;
      if (p == 3) t(3, [&] { return rawp.list_changes(repo, since, until).size(); });
      if (p == 0) t(0, [&] { return raw.list_changes(repo, since, until).size(); });
      if (p == 1) t(1, [&] { return rowset.list_changes(repo, since, until).size(); });
      if (p == 2) t(2, [&] { return stmt.list_changes(repo, since, until).size(); });
    }
    for (size_t q = 0; q < prs.size(); ++q) {
      const auto pr = prs[q];
      const size_t b = 4 + 4 * q;
      for (int j = 0; j < 4; ++j) {
        const int p = (i + j) % 4;
        if (p == 3) t(b + 3, [&] { return rawp.get_change(repo, pr)->files.size(); });
        if (p == 0) t(b, [&] { return raw.get_change(repo, pr)->files.size(); });
        if (p == 1) t(b + 1, [&] { return rowset.get_change(repo, pr)->files.size(); });
        if (p == 2) t(b + 2, [&] { return stmt.get_change(repo, pr)->files.size(); });
      }
    }
  }
  report(ts, [](size_t i) { return i - i % 4; });
}
