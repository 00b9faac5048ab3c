// SqliteStore: full-text search over titles, guide headlines and guide text.
//
// FTS5 with the unicode61 tokenizer splits on anything that is not a letter
// or a digit, so a run of Chinese (or Japanese, Korean) characters would be
// one long token and a short query would never match inside it. Before
// indexing, every CJK run c1..cn is rewritten as its overlapping bigrams
// followed by its last character ("缓存命中" -> "缓存 存命 命中 中"); a query
// run is rewritten the same way (without the trailing character when the
// run ends the term, since the document's run may go on). A query of two or
// more characters is then a phrase of adjacent bigrams, which matches exactly
// where the characters occur in a row; a single character is a prefix query
// ("存"*), which matches the bigram it starts or the trailing character.
#include <algorithm>

#include "mergelens/store/rows.h"
#include "mergelens/store/sqlite_store_impl.h"

namespace mergelens {

namespace {

bool is_cjk(char32_t c) {
  return (c >= 0x3040 && c <= 0x30FF) ||  // Hiragana, Katakana
         (c >= 0x3400 && c <= 0x4DBF) ||  // CJK extension A
         (c >= 0x4E00 && c <= 0x9FFF) ||  // CJK unified ideographs
         (c >= 0xAC00 && c <= 0xD7AF) ||  // Hangul syllables
         (c >= 0xF900 && c <= 0xFAFF) ||  // compatibility ideographs
         (c >= 0x20000 && c <= 0x2FA1F);  // extensions B-F, supplement
}

bool is_word(char32_t c) {
  return c >= 0x80 || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

}  // namespace

// Rewrites CJK runs as bigrams (see the top of this file). `query`: drop the
// trailing character of a run that ends the text. Sets `ends_single` when the
// text ends with a one-character CJK run (the caller makes it a prefix).
std::string search_text(std::string_view s, bool query, bool* ends_single) {
  std::string out;
  out.reserve(s.size() * 2);
  std::vector<std::string_view> run;
  auto flush = [&](bool at_end) {
    if (run.empty()) return;
    out += ' ';
    for (size_t k = 0; k + 1 < run.size(); ++k) {
      out.append(run[k]);
      out.append(run[k + 1]);
      out += ' ';
    }
    if (!(query && at_end && run.size() > 1)) out.append(run.back());
    out += ' ';
    if (ends_single) *ends_single = at_end && run.size() == 1;
    run.clear();
  };
  size_t i = 0;
  while (i < s.size()) {
    const size_t start = i;
    size_t len = 0;
    const char32_t cp = next_cp(s, i, len);
    if (is_cjk(cp)) {
      run.push_back(s.substr(start, len));
      continue;
    }
    flush(false);
    if (ends_single) *ends_single = false;
    out.append(s.substr(start, len));
  }
  flush(true);
  return out;
}

namespace {

// Above this many matches, results are listed newest first instead of by bm25.
constexpr int kRankedMatches = 500;

bool has_word(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    size_t len = 0;
    if (is_word(next_cp(s, i, len))) return true;
  }
  return false;
}

// One FTS5 string: the text rewritten, inside double quotes (doubled when
// the text holds one), with * when it is a prefix.
std::string fts_string(std::string_view term, bool prefix) {
  bool single = false;
  const std::string text = search_text(term, /*query=*/true, &single);
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  if (prefix || single) out += '*';
  return out;
}

// The term, or "(term OR alternative ...)" when it has alternatives.
std::string fts_group(const SearchTerm& t) {
  std::string out = fts_string(t.text, t.prefix);
  size_t n = 1;
  for (const auto& a : t.alternatives) {
    if (!has_word(a.text)) continue;
    out += " OR " + fts_string(a.text, a.prefix);
    ++n;
  }
  return n > 1 ? "(" + out + ")" : out;
}

}  // namespace

Result<void> SqliteStore::index_changes(std::span<const std::int64_t> ids) {
  auto sel = prepare(
      "SELECT c.title, coalesce(group_concat(g.headline, ' '), ''), "
      "coalesce(group_concat(g.text, ' '), '') FROM changes c LEFT JOIN guides g ON "
      "g.change_id = c.id WHERE c.id = ?1 GROUP BY c.id");
  auto del = prepare("DELETE FROM search_docs WHERE rowid = ?1");
  auto ins = prepare("INSERT INTO search_docs(rowid, title, headline, body) VALUES(?1,?2,?3,?4)");
  for (auto* st : {&sel, &del, &ins})
    if (!*st) return std::unexpected(st->error());
  for (const std::int64_t id : ids) {
    del->bind(1, id);
    if (auto r = del->run(); !r) return db_error(r.error());
    sel->bind(1, id);
    auto row = sel->step();
    if (!row) return db_error(row.error());
    if (!*row) continue;
    const std::string title = search_text(sel->text(0), false, nullptr);
    const std::string headline = search_text(sel->text(1), false, nullptr);
    const std::string body = search_text(sel->text(2), false, nullptr);
    sel->reset();
    ins->bind(1, id).bind(2, title).bind(3, headline).bind(4, body);
    if (auto r = ins->run(); !r) return db_error(r.error());
  }
  return {};
}

Result<size_t> SqliteStore::index_missing() {
  auto st = prepare(
      "SELECT id FROM changes c WHERE NOT EXISTS (SELECT 1 FROM search_docs s WHERE s.rowid = "
      "c.id)");
  if (!st) return std::unexpected(st.error());
  std::vector<std::int64_t> ids;
  for (;;) {
    auto row = st->step();
    if (!row) return db_error(row.error());
    if (!*row) break;
    ids.push_back(st->i64(0));
  }
  if (auto r = index_changes(ids); !r) return std::unexpected(r.error());
  return ids.size();
}

Result<size_t> SqliteStore::refresh_search_index() {
  // A quick check first, so a reader does not take the write lock for nothing.
  auto st = prepare(
      "SELECT EXISTS(SELECT 1 FROM changes c WHERE NOT EXISTS (SELECT 1 FROM search_docs s "
      "WHERE s.rowid = c.id))");
  if (!st) return std::unexpected(st.error());
  auto row = st->step();
  if (!row) return db_error(row.error());
  if (!*row || st->i64(0) == 0) return size_t{0};
  st->reset();
  return in_transaction<size_t>([&]() -> Result<size_t> { return index_missing(); });
}

Result<std::vector<SearchHit>> SqliteStore::search(std::int64_t repo_id,
                                                   std::span<const SearchTerm> terms,
                                                   std::string_view lang, size_t limit) {
  std::string include, exclude;
  for (const auto& t : terms) {
    if (!has_word(t.text))
      return fail(ErrorKind::kInvalidInput, "search term \"{}\" has no letter or digit", t.text);
    std::string& dst = t.exclude ? exclude : include;
    dst += t.exclude ? " NOT " : (dst.empty() ? "" : " AND ");
    dst += fts_group(t);
  }
  if (include.empty())
    return fail(ErrorKind::kInvalidInput, "a search needs at least one term that is not excluded");
  const std::string match = include + exclude;
  // The repository filter is needed only when the store holds several and
  // one of them is asked for.
  auto repos = prepare("SELECT count(*) FROM repos");
  if (!repos) return std::unexpected(repos.error());
  if (auto row = repos->step(); !row) return db_error(row.error());
  const std::string filter = repos->i64(0) > 1 && repo_id != kAllRepos
                                 ? " AND +rowid IN (SELECT id FROM changes WHERE repo_id = ?2)"
                                 : "";
  // bm25 ranks every match, which costs ~1 µs per matching document; a term
  // found in thousands of documents (a common word) says little about
  // relevance, so such queries list the newest matches first instead.
  auto count =
      prepare("SELECT count(*) FROM (SELECT 1 FROM search_docs WHERE search_docs MATCH ?1" +
              filter + " LIMIT " + std::to_string(kRankedMatches) + ")");
  if (!count) return std::unexpected(count.error());
  count->bind(1, match).bind(2, repo_id);
  auto counted = count->step();
  if (!counted)
    return fail(ErrorKind::kInvalidInput, "the search could not be run: {}",
                counted.error().message);
  const bool by_rank = count->i64(0) < kRankedMatches;
  auto st = prepare(
      // The best `limit` documents first, then their rows: the guide text is
      // read for those alone.
      // Newest first needs no rank: bm25 would read every hit's positions.
      "WITH hits AS MATERIALIZED (SELECT rowid AS id, " +
      std::string(by_rank ? "rank" : "0.0 AS rank") +
      " FROM search_docs WHERE search_docs "
      "MATCH ?1" +
      filter + (by_rank ? " ORDER BY rank" : " ORDER BY rowid DESC") + " LIMIT ?4) SELECT " +
      std::string(kSummaryColumns) +
      ", h.rank, (SELECT g.headline || char(1) || g.text FROM guides g WHERE g.change_id = c.id "
      " ORDER BY g.lang != ?3 LIMIT 1) "
      "FROM hits h JOIN changes c ON c.id = h.id LEFT JOIN judged f ON f.change_id = c.id " +
      (by_rank ? "ORDER BY h.rank, c.merged_at DESC" : "ORDER BY c.merged_at DESC, c.id DESC"));
  if (!st) return std::unexpected(st.error());
  st->bind(1, match).bind(2, repo_id).bind(3, lang).bind(4, static_cast<std::int64_t>(limit));
  std::vector<SearchHit> out;
  for (;;) {
    auto row = st->step();
    if (!row) {
      // A query the parser let through but FTS5 refuses is still the user's input.
      return fail(ErrorKind::kInvalidInput, "the search could not be run: {}", row.error().message);
    }
    if (!*row) break;
    SearchHit h;
    h.change = read_summary(*st);
    h.rank = st->f64(kSummaryCount);
    const std::string g = st->text(kSummaryCount + 1);
    const size_t sep = g.find('\1');
    h.headline = g.substr(0, sep);
    if (sep != std::string::npos) h.text = g.substr(sep + 1);
    out.push_back(std::move(h));
  }
  return out;
}

}  // namespace mergelens
