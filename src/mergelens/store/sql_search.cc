// Full-text search over titles, guide headlines and guide text (store.h,
// "search"), written once for both databases.
//
// Both index the same text. A tokenizer that splits on anything that is not a
// letter or a digit would keep a run of Chinese (or Japanese, Korean)
// characters as one long token, and a short query would never match inside
// it. Before indexing, every CJK run c1..cn is rewritten as its overlapping
// bigrams followed by its last character ("缓存命中" -> "缓存 存命 命中 中");
// a query run is rewritten the same way (without the trailing character when
// the run ends the term, since the document's run may go on). A query of two
// or more characters is then a phrase of adjacent bigrams, which matches
// exactly where the characters occur in a row; a single character is a prefix
// query ("存"*), which matches the bigram it starts or the trailing character.
//
// What differs is the index, so each database has its own query syntax and
// document form (below), and the statements name its columns:
// - SQLite: an FTS5 table (unicode61 tokenizer) with the rewritten title,
//   headlines and text as three columns; ranking is bm25 (lower is better).
// - PostgreSQL: a tsvector per change, indexed with GIN. The store builds the
//   tsvector and the tsquery itself instead of letting a text-search
//   configuration parse the text, so tokens are cut exactly as FTS5's
//   unicode61 does for the text we index (split on ASCII punctuation and
//   spaces and on Unicode punctuation, ASCII folded to lower case) whatever
//   the server's locale: a phrase is a chain of `<->`, a prefix is `:*`.
//   Title, headline and guide text carry weights A, B and C; ranking is
//   ts_rank (higher is better, reported negated so lower is better, as bm25).
// The terms' grouping (AND of the terms, OR of a term's other forms, NOT of
// the excluded ones), the ranking cut-off and the reading of hits are shared.
#include <algorithm>
#include <unordered_map>

#include <fmt/format.h>

#include "mergelens/store/pg_util.h"
#include "mergelens/store/sql_store.h"
#include "mergelens/store/sqlite_fts.h"
#include "mergelens/util/utf8.h"

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

// Calls f(code point, its bytes) for each code point of `s` (see next_cp).
template <class F>
void each_cp(std::string_view s, F f) {
  size_t i = 0;
  while (i < s.size()) {
    const size_t start = i;
    size_t len = 0;
    const char32_t cp = next_cp(s, i, len);
    f(cp, s.substr(start, len));
  }
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
  each_cp(s, [&](char32_t cp, std::string_view ch) {
    if (is_cjk(cp)) {
      run.push_back(ch);
      return;
    }
    flush(false);
    if (ends_single) *ends_single = false;
    out.append(ch);
  });
  flush(true);
  return out;
}

namespace {

// Above this many matches, results are listed newest first instead of by rank.
constexpr int kRankedMatches = 500;

// --- SQLite: FTS5 query strings ---

bool is_word(char32_t c) {
  return c >= 0x80 || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

bool has_word(std::string_view s) {
  bool found = false;
  each_cp(s, [&](char32_t cp, std::string_view) { found = found || is_word(cp); });
  return found;
}

// One FTS5 string: the text rewritten, inside double quotes (doubled when
// the text holds one), with * when it is a prefix; "" when it has no word.
std::string fts_term(std::string_view term, bool prefix) {
  if (!has_word(term)) return {};
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

// --- PostgreSQL: tsvector and tsquery text ---

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
  each_cp(s, [&](char32_t cp, std::string_view ch) {
    if (is_separator(cp)) {
      if (!cur.empty()) out.push_back(std::move(cur));
      cur.clear();
      return;
    }
    for (char c : ch) cur += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  });
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
std::string tsquery_term(std::string_view text, bool prefix) {
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

// --- shared ---

// How a dialect writes one term and joins terms.
struct QuerySyntax {
  std::string (*term)(std::string_view text, bool prefix);  // "" when the text has no word
  std::string_view and_, and_not, or_;
};
constexpr QuerySyntax kFts5{fts_term, " AND ", " NOT ", " OR "};
constexpr QuerySyntax kTsquery{tsquery_term, " & ", " & !", " | "};

// Every included term (a term with alternatives is one OR group), then every
// excluded one. kInvalidInput when a term has no word or none is included.
Result<std::string> match_expression(std::span<const SearchTerm> terms, const QuerySyntax& syntax) {
  std::string include, exclude;
  for (const auto& t : terms) {
    std::string expr = syntax.term(t.text, t.prefix);
    if (expr.empty())
      return fail(ErrorKind::kInvalidInput, "search term \"{}\" has no letter or digit", t.text);
    // The glossary's other forms of the term (forms without a word are ignored).
    size_t forms = 1;
    for (const auto& alt : t.alternatives) {
      const std::string other = syntax.term(alt.text, alt.prefix);
      if (other.empty()) continue;
      expr += std::string(syntax.or_) + other;
      ++forms;
    }
    if (forms > 1) expr = "(" + expr + ")";
    if (t.exclude) {
      exclude += std::string(syntax.and_not) + expr;
    } else {
      if (!include.empty()) include += syntax.and_;
      include += expr;
    }
  }
  if (include.empty())
    return fail(ErrorKind::kInvalidInput, "a search needs at least one term that is not excluded");
  return include + exclude;
}

SearchHit read_hit(const db::Query& st) {
  SearchHit h;
  h.change = read_summary(st);
  h.rank = st.f64(kSummaryCount);
  const std::string g = st.text(kSummaryCount + 1);
  const size_t sep = g.find('\1');
  h.headline = g.substr(0, sep);
  if (sep != std::string::npos) h.text = g.substr(sep + 1);
  return h;
}

// A query the parser let through but the index refuses is still the user's
// input (kInvalidInput); the index's own words stay internal (paths, FTS5
// or tsquery text): a remote client reads a fixed sentence, the operator's
// log the whole message. A deadline or a failing store stays what it is.
std::unexpected<Error> refused(Error e) {
  if (e.kind == ErrorKind::kTimeout || e.kind == ErrorKind::kIo) return std::unexpected(e);
  e.kind = ErrorKind::kInvalidInput;
  e.message = "the search could not be run: " + e.message;
  e.internal = true;
  return std::unexpected(std::move(e));
}

}  // namespace

std::string SqlStore::unindexed_changes() const {
  return fmt::format(
      "FROM changes c WHERE NOT EXISTS (SELECT 1 FROM search_docs s WHERE s.{} = c.id)",
      pick("rowid", "change_id"));
}

Result<void> SqlStore::index_changes(std::span<const std::int64_t> ids) {
  auto sel = q(fmt::format(
      "SELECT c.title, coalesce({0}(g.headline, ' '), ''), coalesce({0}(g.text, ' '), '') "
      "FROM changes c LEFT JOIN guides g ON g.change_id = c.id WHERE c.id = $1 GROUP BY c.id",
      pick("group_concat", "string_agg")));
  // FTS5 has no upsert: the old document goes first (with it, the document
  // of a deleted change). PostgreSQL's went with ON DELETE CASCADE.
  std::optional<db::Query> del;
  if (!is_pg()) del.emplace(q("DELETE FROM search_docs WHERE rowid = $1"));
  auto ins = q(pick("INSERT INTO search_docs(rowid, title, headline, body) VALUES($1, $2, $3, $4)",
                    "INSERT INTO search_docs(change_id, doc) VALUES($1, $2::tsvector) "
                    "ON CONFLICT (change_id) DO UPDATE SET doc = excluded.doc"));
  for (const std::int64_t id : ids) {
    if (del)
      if (auto r = del->bind(1, id).run(); !r) return std::unexpected(r.error());
    sel.bind(1, id);
    auto row = sel.step();
    if (!row) return std::unexpected(row.error());
    if (!*row) {
      sel.reset();
      continue;
    }
    const std::string title = sel.text(0), headline = sel.text(1), text = sel.text(2);
    sel.reset();
    ins.bind(1, id);
    if (is_pg()) {
      ins.bind(2, tsvector_text({{title, 'A'}, {headline, 'B'}, {text, 'C'}}));
    } else {
      ins.bind(2, search_text(title, false, nullptr));
      ins.bind(3, search_text(headline, false, nullptr));
      ins.bind(4, search_text(text, false, nullptr));
    }
    if (auto r = ins.run(); !r) return std::unexpected(r.error());
  }
  return {};
}

Result<size_t> SqlStore::index_missing() {
  auto ids = q("SELECT id " + unindexed_changes()).ids();
  if (!ids) return std::unexpected(ids.error());
  if (auto r = index_changes(*ids); !r) return std::unexpected(r.error());
  return ids->size();
}

Result<size_t> SqlStore::refresh_search_index() {
  // A quick check first, so a reader does not take the write lock for nothing.
  auto any = q("SELECT EXISTS(SELECT 1 " + unindexed_changes() + ")").first_i64();
  if (!any) return std::unexpected(any.error());
  if (!*any || **any == 0) return size_t{0};
  return tx<size_t>([&]() { return index_missing(); });
}

Result<std::vector<SearchHit>> SqlStore::search_one_pass(const std::string& match,
                                                         std::string_view lang, size_t limit) {
  // Up to kRankedMatches matches, oldest first (FTS5 reads a term's matches
  // backwards only by loading them whole). As many: the newest `limit` are
  // the answer, and nothing is ranked.
  auto first = q(fmt::format("SELECT rowid FROM search_docs WHERE search_docs MATCH $1 LIMIT {}",
                             kRankedMatches));
  first.bind(1, match);
  auto ids = first.collect([](const db::Query& r) { return r.i64(0); });
  if (!ids) return refused(ids.error());
  const bool ranked = ids->size() < static_cast<size_t>(kRankedMatches);
  if (!ranked) {
    auto newest =
        q("SELECT rowid FROM search_docs WHERE search_docs MATCH $1 "
          "ORDER BY rowid DESC LIMIT $2");
    newest.bind(1, match).bind(2, static_cast<std::int64_t>(limit));
    ids = newest.collect([](const db::Query& r) { return r.i64(0); });
    if (!ids) return refused(ids.error());
  }
  // Fewer: all of them again, each with what bm25() reads, ranked here with
  // the phrases' document counts taken from these rows (sqlite_fts.h).
  std::vector<sql::FtsRowParts> parts;
  if (ranked && !ids->empty()) {
    ids->clear();
    auto st =
        q("SELECT rowid, ml_bm25_parts(search_docs) FROM search_docs "
          "WHERE search_docs MATCH $1");
    st.bind(1, match);
    for (;;) {
      auto row = st.step();
      if (!row) return refused(row.error());
      if (!*row) break;
      auto p = sql::read_bm25_parts(st.blob(1));
      if (!p)
        return fail(ErrorKind::kInternal, "ml_bm25_parts returned {} bytes", st.blob(1).size());
      ids->push_back(st.i64(0));
      parts.push_back(std::move(*p));
    }
    st.reset();
  }
  std::vector<double> ranks;
  std::vector<size_t> order(ids->size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  if (ranked) {
    ranks = sql::fts_bm25(parts);
    // Equal ranks keep the older change, as SQLite's sort of the two-pass
    // statement does (it reads the matches oldest first).
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return ranks[a] != ranks[b] ? ranks[a] < ranks[b] : (*ids)[a] < (*ids)[b];
    });
  }
  if (order.size() > limit) order.resize(limit);
  // Their rows, in one statement whatever the ids; the guide in `lang`, else
  // the first other (two lookups: ORDER BY would sort for every row).
  std::vector<std::int64_t> wanted;
  for (size_t i : order) wanted.push_back((*ids)[i]);
  auto rows = q(fmt::format(
      "SELECT {}, 0.0, coalesce((SELECT g.headline || char(1) || g.text FROM guides g "
      "WHERE g.change_id = c.id AND g.lang = $2), (SELECT g.headline || char(1) || g.text "
      "FROM guides g WHERE g.change_id = c.id ORDER BY g.lang LIMIT 1)) "
      "FROM changes c LEFT JOIN facts fa ON fa.change_id = c.id "
      "LEFT JOIN triage tr ON tr.change_id = fa.change_id WHERE {}",
      kSummaryColumns, in_ids("c.id", 1)));
  rows.bind(1, ids_value(wanted)).bind(2, lang);
  auto hits = rows.collect(read_hit);
  if (!hits) return refused(hits.error());
  std::unordered_map<std::int64_t, double> rank_of;
  if (ranked)
    for (size_t i : order) rank_of.emplace((*ids)[i], ranks[i]);
  for (auto& h : *hits)
    if (auto it = rank_of.find(h.change.id); it != rank_of.end()) h.rank = it->second;
  // As the two-pass statement orders them: by rank, then newest first.
  std::sort(hits->begin(), hits->end(), [](const SearchHit& a, const SearchHit& b) {
    if (a.rank != b.rank) return a.rank < b.rank;
    if (a.change.merged_at != b.change.merged_at) return a.change.merged_at > b.change.merged_at;
    return a.change.id > b.change.id;
  });
  return hits;
}

Result<std::vector<SearchHit>> SqlStore::search(std::int64_t repo_id,
                                                std::span<const SearchTerm> terms,
                                                std::string_view lang, size_t limit) {
  auto match = match_expression(terms, is_pg() ? kTsquery : kFts5);
  if (!match) return std::unexpected(match.error());
  // The matching documents ($1: the match expression, $2: the repository),
  // their change id and their rank (lower is better).
  std::string docs, id, rank, by_rank;
  if (is_pg()) {
    docs = "search_docs s JOIN changes c ON c.id = s.change_id WHERE s.doc @@ $1::tsquery AND " +
           repo_filter(repo_id, "c.repo_id", "$2");
    id = "s.change_id";
    rank = "-ts_rank(s.doc, $1::tsquery)::float8";
    by_rank = "2, s.change_id DESC";
  } else {
    // The repository filter is needed only when the store holds several and
    // one of them is asked for.
    auto repos = q("SELECT count(*) FROM repos").first_i64();
    if (!repos) return std::unexpected(repos.error());
    const bool filtered = repos->value_or(0) > 1 && repo_id != kAllRepos;
    // One term (with its other forms: phrases joined by OR), over every row:
    // ranked in one pass (sqlite_fts.h).
    if (ranks_in_one_pass() && !filtered && terms.size() == 1 && !terms[0].exclude)
      return search_one_pass(*match, lang, limit);
    docs = "search_docs WHERE search_docs MATCH $1";
    if (filtered) docs += " AND +rowid IN (SELECT id FROM changes WHERE repo_id = $2)";
    id = "rowid";
    rank = "rank";
    by_rank = "rank";
  }
  // Ranking costs ~1 µs per matching document; a term found in thousands of
  // documents (a common word) says little about relevance, so such queries
  // list the newest matches first instead.
  auto count =
      q(fmt::format("SELECT count(*) FROM (SELECT 1 FROM {} LIMIT {}) m", docs, kRankedMatches));
  count.bind(1, *match).bind(2, repo_id);
  auto counted = count.step();
  if (!counted) return refused(counted.error());
  const bool ranked = count.i64(0) < kRankedMatches;
  // The best `limit` documents first, then their rows: the guide text is read
  // for those alone. Newest first needs no rank: ranking would read every
  // hit's positions.
  auto st = q(fmt::format(
      "WITH hits AS MATERIALIZED (SELECT {} AS id, {} AS rank FROM {} ORDER BY {} LIMIT $4) "
      "SELECT {}, h.rank, coalesce((SELECT g.headline || {sep} || g.text FROM guides g "
      "WHERE g.change_id = c.id AND g.lang = $3), (SELECT g.headline || {sep} || g.text "
      "FROM guides g WHERE g.change_id = c.id ORDER BY g.lang LIMIT 1)) "
      "FROM hits h JOIN changes c ON c.id = h.id LEFT JOIN facts fa ON fa.change_id = c.id "
      "LEFT JOIN triage tr ON tr.change_id = fa.change_id ORDER BY {}",
      id, ranked ? rank : pick("0.0", "0.0::float8"), docs, ranked ? by_rank : id + " DESC",
      kSummaryColumns, ranked ? "h.rank, c.merged_at DESC" : "c.merged_at DESC, c.id DESC",
      fmt::arg("sep", pick("char(1)", "chr(1)"))));
  st.bind(1, *match).bind(2, repo_id).bind(3, lang).bind(4, static_cast<std::int64_t>(limit));
  auto hits = st.collect(read_hit);
  // A query the parser let through but the index refuses is still the user's input.
  if (!hits) return refused(hits.error());
  return hits;
}

}  // namespace mergelens
