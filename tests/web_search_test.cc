// Search: the query parser (malformed input is refused with a message) and
// FTS5 with CJK bigrams (1-, 2- and 4-character Chinese queries, English
// prefixes, phrases and exclusions), plus highlighted snippets.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <map>

#include "mergelens/store/sqlite_fts.h"
#include "mergelens/web/search.h"
#include "web_fixture.h"

namespace mergelens {
namespace {

using testing::WebStore;

std::vector<std::int64_t> numbers(Store& store, const RepoRecord& repo, std::string_view q) {
  auto terms = web::parse_query(q);
  EXPECT_TRUE(terms) << q << ": " << terms.error().message;
  if (!terms) return {};
  auto hits = store.search(repo.id, *terms, "zh", 50);
  EXPECT_TRUE(hits) << q << ": " << hits.error().message;
  std::vector<std::int64_t> out;
  if (hits)
    for (const auto& h : *hits) out.push_back(h.change.number.value_or(0));
  std::sort(out.begin(), out.end());
  return out;
}

TEST(WebSearchParse, ParsesWordsPhrasesPrefixesAndExclusions) {
  auto t = web::parse_query(R"(cache "kv cache" quant* -docs 缓存)");
  ASSERT_TRUE(t) << t.error().message;
  ASSERT_EQ(t->size(), 5u);
  EXPECT_EQ((*t)[0].text, "cache");
  EXPECT_EQ((*t)[1].text, "kv cache");
  EXPECT_TRUE((*t)[2].prefix);
  EXPECT_EQ((*t)[2].text, "quant");
  EXPECT_TRUE((*t)[3].exclude);
  EXPECT_EQ((*t)[4].text, "缓存");
}

TEST(WebSearchParse, RefusesMalformedQueriesWithAMessage) {
  for (const char* q :
       {"\"unclosed", "a*b", "-", "- x", "***", "-docs", "\"\"", "  ", "a\"b", "\"x\"y"}) {
    auto t = web::parse_query(q);
    EXPECT_FALSE(t) << q;
    if (!t) {
      EXPECT_EQ(t.error().kind, ErrorKind::kInvalidInput) << q;
      EXPECT_FALSE(t.error().message.empty());
    }
  }
  EXPECT_FALSE(web::parse_query(std::string(300, 'a')));
  // FTS5 operators and punctuation are plain words once quoted.
  EXPECT_TRUE(web::parse_query("AND OR NOT title:x ^y (z)"));
}

TEST(WebSearch, MatchesChineseOfOneTwoAndFourCharacters) {
  WebStore w;
  w.add_guide(1001, "zh", "修复 KV 缓存命中率下降", "在调度器中统一缓存驱逐策略，避免命中率回退。");
  w.add_guide(1004, "zh", "MXFP4 量化补齐", "补齐中间维度，量化权重按块对齐。");
  EXPECT_EQ(numbers(*w.store, w.repo, "缓存"), (std::vector<std::int64_t>{1001}));
  EXPECT_EQ(numbers(*w.store, w.repo, "缓存命中"), (std::vector<std::int64_t>{1001}));
  EXPECT_EQ(numbers(*w.store, w.repo, "存"), (std::vector<std::int64_t>{1001}));
  EXPECT_EQ(numbers(*w.store, w.repo, "量化"), (std::vector<std::int64_t>{1004}));
  EXPECT_EQ(numbers(*w.store, w.repo, "补"), (std::vector<std::int64_t>{1004}));
  // The last character of a run and a run next to Latin text.
  EXPECT_EQ(numbers(*w.store, w.repo, "降"), (std::vector<std::int64_t>{1001}));
  EXPECT_EQ(numbers(*w.store, w.repo, "MXFP4量化"), (std::vector<std::int64_t>{1004}));
  // Characters that are not adjacent in the text do not match as a phrase.
  EXPECT_TRUE(numbers(*w.store, w.repo, "缓率").empty());
  EXPECT_TRUE(numbers(*w.store, w.repo, "回退缓存命中率").empty());
}

TEST(WebSearch, MatchesEnglishPrefixesPhrasesAndExclusions) {
  WebStore w;
  EXPECT_EQ(numbers(*w.store, w.repo, "quant*"), (std::vector<std::int64_t>{1004}));
  EXPECT_EQ(numbers(*w.store, w.repo, "QUANTIZATION"), (std::vector<std::int64_t>{1004}));
  EXPECT_EQ(numbers(*w.store, w.repo, "\"kv cache\""), (std::vector<std::int64_t>{1001}));
  EXPECT_TRUE(numbers(*w.store, w.repo, "\"cache kv\"").empty());
  EXPECT_EQ(numbers(*w.store, w.repo, "fix"), (std::vector<std::int64_t>{1001, 1005}));
  EXPECT_EQ(numbers(*w.store, w.repo, "fix -moe"), (std::vector<std::int64_t>{1001}));
  // Hostile text is searchable as text.
  EXPECT_EQ(numbers(*w.store, w.repo, "script"), (std::vector<std::int64_t>{1003}));
}

TEST(WebSearch, NewGuidesAreIndexedInTheSameTransaction) {
  WebStore w;
  EXPECT_TRUE(numbers(*w.store, w.repo, "调度器").empty());
  w.add_guide(1002, "en", "Scheduler", "调度器 rewrite");
  EXPECT_EQ(numbers(*w.store, w.repo, "调度器"), (std::vector<std::int64_t>{1002}));
  // Replacing the guide replaces its document.
  w.add_guide(1002, "en", "Scheduler", "something else");
  EXPECT_TRUE(numbers(*w.store, w.repo, "调度器").empty());
}

// SQLite ranks a one-term search (the term or its other forms, phrases joined
// by OR) in one pass over the index (store/sqlite_fts.h): the ranks are the
// very doubles bm25() gives, and the order is theirs.
TEST(WebSearch, OnePassRanksAreTheRanksOfBm25) {
  WebStore w(/*sqlite_only=*/true);  // PostgreSQL ranks with ts_rank
  w.add_guide(1001, "zh", "KV cache 缓存命中", "cache cache cache：缓存命中率，缓存驱逐。");
  w.add_guide(1002, "zh", "Docs", "a cache note, 缓存 once, quantised caches");
  w.add_guide(1003, "zh", "Hostile", "nothing about it at all, only words and more words here");
  w.add_guide(1004, "zh", "MXFP4 量化", "quantization pads the cache of MXFP4 weights 缓存命中");
  w.add_guide(1005, "zh", "MoE", "命中 cache 命中 缓存 cache quant");
  struct Case {
    std::vector<SearchTerm> terms;
    const char* match;  // the same query written for bm25()
  };
  const std::vector<Case> cases = {
      {{{"cache", false, false, {}}}, "\"cache\""},
      {{{"缓存命中", false, false, {}}}, "\"缓存 存命 命中\""},
      {{{"quant", true, false, {}}}, "\"quant\"*"},
      {{{"缓存", false, false, {{"cache", false}, {"quant", true}}}},
       "(\"缓存\" OR \"cache\" OR \"quant\"*)"},
  };
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open_v2(w.db.c_str(), &raw, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  std::unique_ptr<sqlite3, decltype(&sqlite3_close)> db(raw, sqlite3_close);
  ASSERT_TRUE(sql::register_fts_functions(db.get()));
  for (const auto& c : cases) {
    // bm25() and the function itself, over the same rows.
    std::map<std::int64_t, double> bm25;
    std::vector<std::int64_t> ids;
    std::vector<sql::FtsRowParts> parts;
    sqlite3_stmt* st = nullptr;
    ASSERT_EQ(sqlite3_prepare_v2(db.get(),
                                 "SELECT rowid, bm25(search_docs), ml_bm25_parts(search_docs) "
                                 "FROM search_docs WHERE search_docs MATCH ?1",
                                 -1, &st, nullptr),
              SQLITE_OK);
    sqlite3_bind_text(st, 1, c.match, -1, SQLITE_STATIC);
    while (sqlite3_step(st) == SQLITE_ROW) {
      ids.push_back(sqlite3_column_int64(st, 0));
      bm25[ids.back()] = sqlite3_column_double(st, 1);
      auto p = sql::read_bm25_parts(std::string_view(
          static_cast<const char*>(sqlite3_column_blob(st, 2)), sqlite3_column_bytes(st, 2)));
      ASSERT_TRUE(p) << c.match;
      parts.push_back(*p);
    }
    sqlite3_finalize(st);
    const auto ranks = sql::fts_bm25(parts);
    ASSERT_EQ(ranks.size(), bm25.size()) << c.match;
    for (size_t i = 0; i < ids.size(); ++i) EXPECT_EQ(ranks[i], bm25[ids[i]]) << c.match;
    auto hits = w.store->search(w.repo.id, c.terms, "zh", 50);
    ASSERT_TRUE(hits) << c.match << ": " << hits.error().message;
    ASSERT_EQ(hits->size(), bm25.size()) << c.match;
    ASSERT_GE(hits->size(), 2u) << c.match;
    for (size_t i = 0; i < hits->size(); ++i) {
      const auto& h = (*hits)[i];
      ASSERT_TRUE(bm25.contains(h.change.id)) << c.match;
      EXPECT_EQ(h.rank, bm25[h.change.id]) << c.match << " #" << h.change.number.value_or(0);
      if (i) {
        EXPECT_LE((*hits)[i - 1].rank, h.rank) << c.match;
      }
    }
  }
}

TEST(WebSearch, StoreRefusesTermsWithoutWords) {
  WebStore w;
  std::vector<SearchTerm> only_excluded{{"x", false, true, {}}};
  EXPECT_FALSE(w.store->search(w.repo.id, only_excluded, "zh", 10));
  std::vector<SearchTerm> punct{{"\"*\"", false, false, {}}};
  EXPECT_FALSE(w.store->search(w.repo.id, punct, "zh", 10));
}

TEST(WebSearch, SnippetsHighlightEveryMatch) {
  auto terms = web::parse_query("缓存 kv");
  ASSERT_TRUE(terms);
  auto s = web::snippet({"", "修复 KV 缓存命中率，缓存更稳"}, *terms);
  std::string hits, all;
  for (const auto& seg : s) {
    all += seg["t"].get<std::string>();
    if (seg["hit"].get<bool>()) hits += seg["t"].get<std::string>() + "|";
  }
  EXPECT_EQ(all, "修复 KV 缓存命中率，缓存更稳");
  EXPECT_EQ(hits, "KV|缓存|缓存|");
}

}  // namespace
}  // namespace mergelens
