// The digest page's day list and the PR page's main load, through raw sqlite3
// (statements prepared once and reset, as mergelens's StmtCache does) and
// through SOCI 4.0.3's sqlite3 backend (rowset<row> per call; and statements
// prepared once with into()/use() and re-executed).
#include <soci/soci.h>
#include <soci/sqlite3/soci-sqlite3.h>

#include <cstdlib>
#include <stdexcept>

#include "common.h"

namespace {

// soci-sqlite3.h includes <sqlite3.h> inside namespace sqlite_api (its include
// guard then hides the global one), so the raw path names it from there.
using namespace sqlite_api;

const std::string kListSql =
    "SELECT " + kSummaryColumns +
    " FROM changes c LEFT JOIN judged f ON f.change_id = c.id WHERE c.repo_id = ?1"
    " AND (?2 IS NULL OR c.merged_at >= ?2) AND "
    "(?3 IS NULL OR c.merged_at < ?3) ORDER BY c.merged_at DESC, c.id DESC LIMIT ?4";
const std::string kChangeSql =
    "SELECT c.id, c.kind, c.number, c.sha, c.parent_sha, c.title, c.body, c.author_name, "
    "c.author_email, c.author_login, c.merged_at, c.url, c.files_truncated, r.name, c.shallow "
    "FROM changes c JOIN repos r ON r.id = c.repo_id WHERE (?1 = 0 OR c.repo_id = ?1) AND "
    "c.number = ?2 ORDER BY c.merged_at DESC, c.id DESC LIMIT 1";
const std::string kFilesSql =
    "SELECT path, old_path, status, binary, truncated, additions, deletions, patch, "
    "unavailable FROM change_files WHERE change_id = ?1 ORDER BY idx";
const std::string kLabelsSql = "SELECT name FROM change_labels WHERE change_id = ?1 ORDER BY name";

// ---- raw sqlite3 -----------------------------------------------------------
struct Raw {
  sqlite3* db = nullptr;
  sqlite3_stmt *list = nullptr, *change = nullptr, *files = nullptr, *labels = nullptr;
  sqlite3_stmt* prep(const std::string& sql) {
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr) != SQLITE_OK)
      throw std::runtime_error(sqlite3_errmsg(db));
    return s;
  }
  explicit Raw(const char* path) {
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK)
      throw std::runtime_error("open");
    list = prep(kListSql);
    change = prep(kChangeSql);
    files = prep(kFilesSql);
    labels = prep(kLabelsSql);
  }
  static void reset(sqlite3_stmt* s) {
    sqlite3_reset(s);
    sqlite3_clear_bindings(s);
  }
  static std::string text(sqlite3_stmt* s, int i) {
    auto p = reinterpret_cast<const char*>(sqlite3_column_text(s, i));
    return p ? std::string(p, sqlite3_column_bytes(s, i)) : std::string();
  }
  static std::string blob(sqlite3_stmt* s, int i) {
    auto p = static_cast<const char*>(sqlite3_column_blob(s, i));
    return p ? std::string(p, sqlite3_column_bytes(s, i)) : std::string();
  }
  static std::int64_t i64(sqlite3_stmt* s, int i) { return sqlite3_column_int64(s, i); }
  static bool null(sqlite3_stmt* s, int i) { return sqlite3_column_type(s, i) == SQLITE_NULL; }

  std::vector<Summary> list_changes(std::int64_t repo, std::int64_t since, std::int64_t until) {
    reset(list);
    sqlite3_bind_int64(list, 1, repo);
    sqlite3_bind_int64(list, 2, since);
    sqlite3_bind_int64(list, 3, until);
    sqlite3_bind_int64(list, 4, -1);
    std::vector<Summary> out;
    while (sqlite3_step(list) == SQLITE_ROW) {
      Summary s;
      s.id = i64(list, 0);
      s.kind = text(list, 1);
      if (!null(list, 2)) s.number = i64(list, 2);
      s.sha = text(list, 3);
      s.title = text(list, 4);
      s.author_name = text(list, 5);
      s.author_email = text(list, 6);
      s.author_login = text(list, 7);
      s.merged_at = i64(list, 8);
      s.url = text(list, 9);
      s.file_count = i64(list, 10);
      s.additions = i64(list, 11);
      s.deletions = i64(list, 12);
      s.verdict = text(list, 13);
      s.importance = i64(list, 14);
      s.insight = i64(list, 15);
      s.open = i64(list, 16);
      s.repo_id = i64(list, 17);
      out.push_back(std::move(s));
    }
    return out;
  }
  std::optional<ChangeRow> get_change(std::int64_t repo, std::int64_t number) {
    reset(change);
    sqlite3_bind_int64(change, 1, repo);
    sqlite3_bind_int64(change, 2, number);
    if (sqlite3_step(change) != SQLITE_ROW) return std::nullopt;
    ChangeRow c;
    auto* st = change;
    c.id = i64(st, 0);
    c.kind = text(st, 1);
    if (!null(st, 2)) c.number = i64(st, 2);
    c.sha = text(st, 3);
    c.parent_sha = text(st, 4);
    c.title = text(st, 5);
    c.body = text(st, 6);
    c.author_name = text(st, 7);
    c.author_email = text(st, 8);
    c.author_login = text(st, 9);
    c.merged_at = i64(st, 10);
    c.url = text(st, 11);
    c.files_truncated = i64(st, 12);
    c.repo = text(st, 13);
    c.shallow = i64(st, 14);
    reset(files);
    sqlite3_bind_int64(files, 1, c.id);
    while (sqlite3_step(files) == SQLITE_ROW) {
      FileRow f;
      f.path = text(files, 0);
      f.old_path = text(files, 1);
      f.status = text(files, 2);
      f.binary = i64(files, 3);
      f.truncated = i64(files, 4);
      f.additions = i64(files, 5);
      f.deletions = i64(files, 6);
      if (!null(files, 7)) f.patch = blob(files, 7);
      if (!null(files, 8)) f.unavailable = text(files, 8);
      c.files.push_back(std::move(f));
    }
    reset(labels);
    sqlite3_bind_int64(labels, 1, c.id);
    while (sqlite3_step(labels) == SQLITE_ROW) c.labels.push_back(text(labels, 0));
    return c;
  }
};

// ---- SOCI, rowset<row> per call ---------------------------------------------
// A row's integer column, whatever type SOCI's backend decided it has.
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
    long long r = repo, s = since, u = until, lim = -1;
    soci::rowset<soci::row> rs =
        (sql.prepare << kListSql, soci::use(r), soci::use(s), soci::use(u), soci::use(lim));
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
      if (f.get_indicator(7) != soci::i_null) x.patch = f.get<std::string>(7);
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
  // bound variables
  long long repo = 0, since = 0, until = 0, limit = -1, number = 0, cid = 0;
  // list row
  long long id, merged_at, file_count, additions, deletions, importance, insight, open, repo_id,
      num;
  soci::indicator num_ind;
  std::string kind, sha, title, an, ae, al, url, verdict;
  // change row
  long long c_id, c_num, c_merged, c_trunc, c_shallow;
  soci::indicator c_num_ind;
  std::string c_kind, c_sha, c_parent, c_title, c_body, c_an, c_ae, c_al, c_url, c_repo;
  // file row
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
              soci::use(since), soci::use(until), soci::use(limit))),
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
    repo = r, since = s, until = u, limit = -1;
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
        if (f_patch_ind != soci::i_null) f.patch = f_patch;
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
  const char* path = argc > 1 ? argv[1] : "va.db";
  const int n = argc > 2 ? std::atoi(argv[2]) : 2000;
  const std::int64_t repo = 1, since = argc > 3 ? std::atoll(argv[3]) : 1787356800,
                     until = since + 86400;
  std::vector<std::int64_t> prs;
  for (int i = 4; i < argc; ++i) prs.push_back(std::atoll(argv[i]));
  if (prs.empty()) prs = {14760, 14131};

  Raw raw(path);
  soci::session sql(soci::sqlite3, std::string("db=") + path + " readonly=1");
  SociRowset rowset{sql};
  SociStmt stmt(sql);

  // Same results through each path.
  auto d0 = digest(raw.list_changes(repo, since, until));
  std::printf("day list: %zu rows\n", raw.list_changes(repo, since, until).size());
  if (digest(rowset.list_changes(repo, since, until)) != d0 ||
      digest(stmt.list_changes(repo, since, until)) != d0) {
    std::printf("MISMATCH in list_changes\n");
    return 1;
  }
  for (auto pr : prs) {
    auto c = raw.get_change(repo, pr);
    std::printf("PR %lld: %zu files, %zu labels\n", static_cast<long long>(pr), c->files.size(),
                c->labels.size());
    if (digest(*rowset.get_change(repo, pr)) != digest(*c) ||
        digest(*stmt.get_change(repo, pr)) != digest(*c)) {
      std::printf("MISMATCH in get_change %lld\n", static_cast<long long>(pr));
      return 1;
    }
  }

  std::vector<Timer> ts;
  ts.push_back({"day list: raw sqlite3", {}});
  ts.push_back({"day list: SOCI rowset<row>", {}});
  ts.push_back({"day list: SOCI prepared into()", {}});
  for (auto pr : prs) {
    ts.push_back({"PR " + std::to_string(pr) + ": raw sqlite3", {}});
    ts.push_back({"PR " + std::to_string(pr) + ": SOCI rowset<row>", {}});
    ts.push_back({"PR " + std::to_string(pr) + ": SOCI prepared into()", {}});
  }
  // Interleaved, and the order of the three paths rotated each round, so no
  // path always runs on caches its predecessor warmed or cooled.
  volatile std::size_t sink = 0;
  for (int i = 0; i < n; ++i) {
    auto t = [&](size_t k, auto&& f) {
      double a = now_us();
      sink = sink + f();
      ts[k].us.push_back(now_us() - a);
    };
    for (int j = 0; j < 3; ++j) {
      const int p = (i + j) % 3;
      if (p == 0) t(0, [&] { return raw.list_changes(repo, since, until).size(); });
      if (p == 1) t(1, [&] { return rowset.list_changes(repo, since, until).size(); });
      if (p == 2) t(2, [&] { return stmt.list_changes(repo, since, until).size(); });
    }
    for (size_t q = 0; q < prs.size(); ++q) {
      const auto pr = prs[q];
      const size_t b = 3 + 3 * q;
      for (int j = 0; j < 3; ++j) {
        const int p = (i + j) % 3;
        if (p == 0) t(b, [&] { return raw.get_change(repo, pr)->files.size(); });
        if (p == 1) t(b + 1, [&] { return rowset.get_change(repo, pr)->files.size(); });
        if (p == 2) t(b + 2, [&] { return stmt.get_change(repo, pr)->files.size(); });
      }
    }
  }
  report(ts, [](size_t i) { return i - i % 3; });
}
