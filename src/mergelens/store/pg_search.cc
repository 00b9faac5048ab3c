// PgStore: full-text search over titles, guide headlines and guide text.
//
// The same bigram rewriting as the SQLite store (search_text in
// sqlite_search.cc: every CJK run becomes its overlapping bigrams plus its
// last character) feeds a tsvector per change, indexed with GIN. The store
// builds the tsvector and the tsquery itself instead of letting a text-search
// configuration parse the text, so tokens are cut exactly as FTS5's
// unicode61 does for the text we index (split on ASCII punctuation and
// spaces and on Unicode punctuation, ASCII folded to lower case) whatever
// the server's locale: a phrase is a chain of `<->`, a prefix is `:*`, and a
// query of any length, one character included, matches as a substring.
// Title, headline and guide text carry weights A, B and C; ranking is
// ts_rank (higher is better, reported negated so lower is better, as bm25).
#include "mergelens/store/pg_store_impl.h"
#include "mergelens/util/utf8.h"

namespace mergelens {

namespace {

constexpr int kRankedMatches = 500;  // as in sqlite_search.cc
constexpr size_t kMaxLexeme = 2000;  // PostgreSQL refuses lexemes over 2047 bytes (as stored)
constexpr int kMaxPosition = 16383;  // tsvector positions stop there

bool is_separator(char32_t c) {
  if (c < 0x80)
    return !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'));
  return (c >= 0x80 && c <= 0xBF) ||      // Latin-1 punctuation and symbols
         (c >= 0x2000 && c <= 0x206F) ||  // general punctuation
         (c >= 0x3000 && c <= 0x303F) ||  // CJK symbols and punctuation
         (c >= 0xFF00 && c <= 0xFF0F) || (c >= 0xFF1A && c <= 0xFF20) ||
         (c >= 0xFF3B && c <= 0xFF40) || (c >= 0xFF5B && c <= 0xFF65);  // full-width punctuation
}

// The tokens of already rewritten text, ASCII lower-cased.
std::vector<std::string> tokens(std::string_view s) {
  std::vector<std::string> out;
  std::string cur;
  size_t i = 0;
  while (i < s.size()) {
    const size_t start = i;
    size_t len = 0;
    const char32_t cp = next_cp(s, i, len);
    if (is_separator(cp)) {
      if (!cur.empty()) out.push_back(std::move(cur));
      cur.clear();
      continue;
    }
    for (size_t k = start; k < i; ++k)
      cur += (s[k] >= 'A' && s[k] <= 'Z') ? static_cast<char>(s[k] - 'A' + 'a') : s[k];
  }
  if (!cur.empty()) out.push_back(std::move(cur));
  // Cut where the token as the database holds it (pg::to_db: 4 bytes per
  // escaped byte) reaches the limit; index and query cut alike.
  for (auto& t : out) {
    if (t.size() <= kMaxLexeme / 4) continue;
    size_t held = 0, keep = 0;
    while (keep < t.size()) {
      const size_t len = decode_utf8(t, keep).len;
      const size_t add = pg::to_db(std::string_view(t).substr(keep, len)).size();
      if (held + add > kMaxLexeme) break;
      held += add;
      keep += len;
    }
    t.resize(keep);
  }
  return out;
}

// A quoted lexeme for tsvector/tsquery input.
void quote(std::string& out, std::string_view lexeme) {
  out += '\'';
  for (char c : lexeme) {
    if (c == '\'' || c == '\\') out += c == '\'' ? '\'' : '\\';
    out += c;
  }
  out += '\'';
}

// "'tok':1A 'tok2':2A ..." for the fields with their weights.
std::string tsvector_text(std::initializer_list<std::pair<std::string_view, char>> fields) {
  std::string out;
  int pos = 1;
  for (const auto& [text, weight] : fields) {
    for (const auto& t : tokens(search_text(text, false, nullptr))) {
      if (!out.empty()) out += ' ';
      quote(out, t);
      out += fmt::format(":{}{}", std::min(pos++, kMaxPosition), weight);
    }
    pos += 8;  // a gap: a phrase does not run from the title into the headline
  }
  return out;
}

// One term as tsquery text: a lexeme, or a phrase of lexemes chained with
// <->, the last one a prefix (:*) when asked or when it is a lone CJK
// character; "" when the term has no token.
std::string tsquery_of(std::string_view text, bool prefix) {
  bool single = false;
  const auto toks = tokens(search_text(text, /*query=*/true, &single));
  if (toks.empty()) return {};
  std::string expr = toks.size() > 1 ? "(" : "";
  for (size_t i = 0; i < toks.size(); ++i) {
    if (i) expr += " <-> ";
    quote(expr, toks[i]);
    if (i + 1 == toks.size() && (prefix || single)) expr += ":*";
  }
  if (toks.size() > 1) expr += ")";
  return expr;
}

}  // namespace

Result<void> PgStore::index_changes(std::span<const std::int64_t> ids) {
  for (const std::int64_t id : ids) {
    auto sel =
        pq("SELECT c.title, coalesce(string_agg(g.headline, ' '), ''), "
          "coalesce(string_agg(g.text, ' '), '') FROM changes c LEFT JOIN guides g ON "
          "g.change_id = c.id WHERE c.id = $1 GROUP BY c.id");
    sel.bind(1, id);
    auto row = sel.step();
    if (!row) return std::unexpected(row.error());
    if (!*row) continue;  // deleted: its document went with it
    const std::string doc =
        tsvector_text({{sel.text(0), 'A'}, {sel.text(1), 'B'}, {sel.text(2), 'C'}});
    auto ins =
        pq("INSERT INTO search_docs(change_id, doc) VALUES($1, $2::tsvector) ON CONFLICT "
          "(change_id) DO UPDATE SET doc = excluded.doc");
    ins.bind(1, id).bind(2, doc);
    if (auto r = ins.run(); !r) return std::unexpected(r.error());
  }
  return {};
}

Result<size_t> PgStore::refresh_search_index() {
  auto st =
      pq("SELECT id FROM changes c WHERE NOT EXISTS (SELECT 1 FROM search_docs s WHERE "
        "s.change_id = c.id)");
  auto ids = column_ids(st);
  if (!ids) return std::unexpected(ids.error());
  if (ids->empty()) return size_t{0};
  return in_transaction<size_t>([&]() -> Result<size_t> {
    if (auto r = index_changes(*ids); !r) return std::unexpected(r.error());
    return ids->size();
  });
}

Result<std::vector<SearchHit>> PgStore::search(std::int64_t repo_id,
                                               std::span<const SearchTerm> terms,
                                               std::string_view lang, size_t limit) {
  std::string include, exclude;
  for (const auto& t : terms) {
    std::string expr = tsquery_of(t.text, t.prefix);
    if (expr.empty())
      return fail(ErrorKind::kInvalidInput, "search term \"{}\" has no letter or digit", t.text);
    // The glossary's other forms of the term: one OR group (forms without a word are ignored).
    size_t forms = 1;
    for (const auto& alt : t.alternatives) {
      const std::string other = tsquery_of(alt.text, alt.prefix);
      if (other.empty()) continue;
      expr += " | " + other;
      ++forms;
    }
    if (forms > 1) expr = "(" + expr + ")";
    if (t.exclude) {
      exclude += " & !" + expr;
    } else {
      include += (include.empty() ? "" : " & ") + expr;
    }
  }
  if (include.empty())
    return fail(ErrorKind::kInvalidInput, "a search needs at least one term that is not excluded");
  const std::string query = include + exclude;
  auto count = pq(
      "SELECT count(*) FROM (SELECT 1 FROM search_docs s JOIN changes c ON c.id = s.change_id "
      "WHERE s.doc @@ $1::tsquery AND " +
      repo_filter(repo_id, "c.repo_id", "$2") + " LIMIT " + std::to_string(kRankedMatches) + ") m");
  count.bind(1, query).bind(2, repo_id);
  auto counted = count.step();
  if (!counted)
    return fail(ErrorKind::kInvalidInput, "the search could not be run: {}",
                counted.error().message);
  const bool by_rank = count.i64(0) < kRankedMatches;
  auto st =
      pq("WITH hits AS MATERIALIZED (SELECT s.change_id AS id, " +
        std::string(by_rank ? "-ts_rank(s.doc, $1::tsquery)::float8" : "0.0::float8") +
        " AS rank FROM search_docs s JOIN changes c ON c.id = s.change_id WHERE s.doc @@ "
        "$1::tsquery AND " +
        repo_filter(repo_id, "c.repo_id", "$2") +
        (by_rank ? " ORDER BY 2, s.change_id DESC" : " ORDER BY s.change_id DESC") +
        " LIMIT $4) SELECT " + std::string(kSummaryColumns) +
        ", h.rank, (SELECT g.headline || chr(1) || g.text FROM guides g WHERE g.change_id = c.id "
        "ORDER BY g.lang != $3 LIMIT 1) FROM hits h JOIN changes c ON c.id = h.id LEFT JOIN judged "
        "f ON f.change_id = c.id " +
        (by_rank ? "ORDER BY h.rank, c.merged_at DESC" : "ORDER BY c.merged_at DESC, c.id DESC"));
  st.bind(1, query).bind(2, repo_id).bind(3, lang).bind(4, static_cast<std::int64_t>(limit));
  std::vector<SearchHit> out;
  for (;;) {
    auto row = st.step();
    if (!row)
      return fail(ErrorKind::kInvalidInput, "the search could not be run: {}", row.error().message);
    if (!*row) break;
    SearchHit h;
    h.change = read_summary(st);
    h.rank = st.f64(kSummaryCount);
    const std::string g = st.text(kSummaryCount + 1);
    const size_t sep = g.find('\1');
    h.headline = g.substr(0, sep);
    if (sep != std::string::npos) h.text = g.substr(sep + 1);
    out.push_back(std::move(h));
  }
  return out;
}

}  // namespace mergelens
