#include <sqlite3.h>

#include <gtest/gtest.h>

#include <map>

#include "mergelens/model/diff.h"
#include "mergelens/store/schema.h"
#include "mergelens/store/store.h"
#include "test_helpers.h"
#include "test_store.h"

namespace mergelens {
namespace {

using testing::TempDir;
using testing::TestStore;

Change sample_change(std::int64_t number, const std::string& sha, UnixSeconds t) {
  Change c;
  c.kind = ChangeKind::kSquash;
  c.number = number;
  c.sha = sha;
  c.title = "Fix caf\xe9 (invalid UTF-8 kept)";
  c.body = "body";
  c.author = {"Ada", "1+ada@users.noreply.github.com", "ada"};
  c.merged_at = t;
  c.url = "https://github.com/o/r/pull/" + std::to_string(number);
  c.labels = {"bug"};
  Commit cm;
  cm.sha = sha;
  cm.message = "Fix (#" + std::to_string(number) + ")";
  c.commits.push_back(cm);
  FileChange f;
  f.path = "python/x.py";
  f.additions = 1;
  f.deletions = 1;
  f.hunks = parse_patch("@@ -3,3 +3,3 @@ def f():\n a\n-b\n+c\n d\n")->hunks;
  c.files.push_back(f);
  FileChange bin;
  bin.path = "docs/logo.png";
  bin.status = FileStatus::kAdded;
  bin.binary = true;
  c.files.push_back(bin);
  return c;
}

TEST(Store, RoundTripsAChange) {
  TempDir dir;
  TestStore store(dir);
  ASSERT_TRUE(store.store);
  auto repo = store->upsert_repo({0, "o/r", "/src", "https://github.com/o/r", "main", ""});
  ASSERT_TRUE(repo);
  std::vector<Change> in = {sample_change(7, std::string(40, 'a'), 1000)};
  auto n = store->put_changes(repo->id, in, std::string(40, 'a'));
  ASSERT_TRUE(n);
  EXPECT_EQ(*n, 1u);

  auto out = find_change(*store, *repo, "#7");
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_EQ(out->title, in[0].title);
  EXPECT_EQ(out->repo, "o/r");
  EXPECT_EQ(out->labels, in[0].labels);
  ASSERT_EQ(out->files.size(), 2u);
  EXPECT_EQ(render_patch(out->files[0].hunks), render_patch(in[0].files[0].hunks));
  EXPECT_EQ(out->files[0].hunks[0].lines[2].new_no, 4);
  EXPECT_TRUE(out->files[1].binary);
  EXPECT_EQ(out->commits.size(), 1u);

  auto again = store->find_repo("o/r");
  ASSERT_TRUE(again && *again);
  EXPECT_EQ((*again)->base_sha, std::string(40, 'a'));
}

TEST(Store, InsertIsIdempotent) {
  TempDir dir;
  TestStore store(dir);
  auto repo = store->upsert_repo({0, "o/r", "", "", "", ""});
  std::vector<Change> in = {sample_change(7, std::string(40, 'a'), 1000),
                            sample_change(8, std::string(40, 'b'), 2000)};
  EXPECT_EQ(*store->put_changes(repo->id, in, std::nullopt), 2u);
  EXPECT_EQ(*store->put_changes(repo->id, in, std::nullopt), 0u);
  EXPECT_EQ(*store->count_changes(repo->id), 2u);
  auto list = store->list_changes(repo->id, ListQuery{});
  ASSERT_TRUE(list);
  ASSERT_EQ(list->size(), 2u);
  EXPECT_EQ(list->front().number.value_or(0), 8);  // newest first
  EXPECT_EQ(list->front().file_count, 2);
}

TEST(Store, FindsByShaPrefixAndReportsAmbiguity) {
  TempDir dir;
  TestStore store(dir);
  auto repo = store->upsert_repo({0, "o/r", "", "", "", ""});
  std::vector<Change> in = {sample_change(1, "abcdef0" + std::string(33, '1'), 1),
                            sample_change(2, "abcdef0" + std::string(33, '2'), 2)};
  ASSERT_TRUE(store->put_changes(repo->id, in, std::nullopt));
  auto one = find_change(*store, *repo, "abcdef02");
  ASSERT_TRUE(one);
  EXPECT_EQ(one->number.value_or(0), 2);
  auto amb = find_change(*store, *repo, "abcdef0");
  ASSERT_FALSE(amb);
  EXPECT_NE(amb.error().message.find("ambiguous"), std::string::npos);
  auto missing = find_change(*store, *repo, "#99");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().kind, ErrorKind::kNotFound);
  EXPECT_FALSE(find_change(*store, *repo, "HEAD~1"));
}

// Issue 22: PR numbers of seven or more digits were read as sha prefixes,
// so /pr/1234567 answered 404 and an export stopped half-way.
TEST(Store, LongPrNumbersAreNumbersFirstAndAllDigitShasStillResolve) {
  TempDir dir;
  TestStore store(dir);
  auto repo = store->upsert_repo({0, "o/r", "", "", "", ""});
  std::vector<Change> in = {sample_change(1234567, "9a" + std::string(38, '3'), 1),
                            sample_change(5, "7654321" + std::string(33, '4'), 2)};
  ASSERT_TRUE(store->put_changes(repo->id, in, std::nullopt));
  for (const char* ref : {"1234567", "#1234567"}) {
    auto c = find_change(*store, *repo, ref);
    ASSERT_TRUE(c) << ref << ": " << c.error().message;
    EXPECT_EQ(c->number.value_or(0), 1234567) << ref;
  }
  // No PR 7654321: the digits are a sha prefix.
  auto by_sha = find_change(*store, *repo, "7654321");
  ASSERT_TRUE(by_sha) << by_sha.error().message;
  EXPECT_EQ(by_sha->number.value_or(0), 5);
  EXPECT_FALSE(find_change(*store, *repo, "#7654321"));
}

TEST(Store, ChoosesTheRepository) {
  TempDir dir;
  TestStore store(dir);
  auto none = resolve_repo(*store, "");
  ASSERT_FALSE(none);
  ASSERT_TRUE(store->upsert_repo({0, "a/one", "", "", "", ""}));
  EXPECT_EQ(resolve_repo(*store, "")->name, "a/one");
  ASSERT_TRUE(store->upsert_repo({0, "b/two", "", "", "", ""}));
  auto ambiguous = resolve_repo(*store, "");
  ASSERT_FALSE(ambiguous);
  EXPECT_NE(ambiguous.error().message.find("a/one, b/two"), std::string::npos);
  EXPECT_EQ(resolve_repo(*store, "b/two")->name, "b/two");
  EXPECT_FALSE(resolve_repo(*store, "c/three"));
}

// A shallow clone's boundary is stored marked and without files; a later
// read of it with its parent (the clone was deepened) rewrites it in place.
TEST(Store, ShallowBoundaryIsFilledInByAReadWithItsParent) {
  TempDir dir;
  TestStore store(dir);
  auto repo = store->upsert_repo({0, "o/r", "", "", "", ""});
  const std::string sha(40, 'c');
  Change boundary = sample_change(9, sha, 3000);
  boundary.files.clear();
  boundary.commits.clear();
  boundary.parent_sha.clear();
  boundary.shallow = true;
  std::vector<Change> in = {sample_change(8, std::string(40, 'b'), 2000), boundary};
  EXPECT_EQ(*store->put_changes(repo->id, in, std::nullopt), 2u);
  auto marked = find_change(*store, *repo, "#9");
  ASSERT_TRUE(marked);
  EXPECT_TRUE(marked->shallow);
  EXPECT_TRUE(marked->files.empty());
  EXPECT_FALSE(find_change(*store, *repo, "#8")->shallow);
  EXPECT_EQ(*store->shallow_boundaries(repo->id), std::vector<std::string>{sha});
  std::vector<std::pair<std::int64_t, Facts>> facts = {{marked->id, Facts{}}};
  ASSERT_TRUE(store->put_facts(facts));
  // Read again as a boundary: nothing changes.
  std::vector<Change> again = {boundary};
  EXPECT_EQ(*store->put_changes(repo->id, again, std::nullopt), 0u);

  Change full = sample_change(9, sha, 3000);
  full.parent_sha = std::string(40, 'b');
  std::vector<Change> deeper = {full};
  EXPECT_EQ(*store->put_changes(repo->id, deeper, std::nullopt), 1u);
  auto filled = find_change(*store, *repo, "#9");
  ASSERT_TRUE(filled);
  EXPECT_EQ(filled->id, marked->id);
  EXPECT_FALSE(filled->shallow);
  EXPECT_EQ(filled->parent_sha, full.parent_sha);
  EXPECT_EQ(filled->files.size(), 2u);
  EXPECT_EQ(filled->commits.size(), 1u);
  EXPECT_EQ(filled->labels, full.labels);
  EXPECT_FALSE(*store->get_facts(marked->id));  // the next analysis reads the diff
  EXPECT_TRUE(store->shallow_boundaries(repo->id)->empty());
  EXPECT_EQ(*store->put_changes(repo->id, deeper, std::nullopt), 0u);
  EXPECT_EQ(*store->count_changes(repo->id), 2u);
}

// Thread links are written with the facts (to the stored change with the
// link's sha), read both ways with both ends named, and replaced when the
// facts are; themes are one document per window.
TEST(StoreThreads, LinksBothWaysAddedFilesAndThemes) {
  TempDir dir;
  TestStore store(dir);
  ASSERT_TRUE(store.store);
  auto repo = store->upsert_repo({0, "o/r", "/src", "https://github.com/o/r", "main", ""});
  ASSERT_TRUE(repo);
  std::vector<Change> in = {sample_change(7, std::string(40, 'a'), 1000),
                            sample_change(8, std::string(40, 'b'), 2000),
                            sample_change(9, std::string(40, 'c'), 3000)};
  ASSERT_TRUE(store->put_changes(repo->id, in, std::nullopt));
  std::map<std::int64_t, std::int64_t> id;
  for (std::int64_t n : {7, 8, 9}) id[n] = (*store->get_change_by_number(repo->id, n))->id;
  Facts f8, f9;
  f8.thread = {{"builds_on", std::string(40, 'a'), 7, "docs/logo.png"}};
  f9.thread = {{"reverts", std::string(40, 'b'), 8, "number"},
               {"series", std::string(40, 'f'), 0, "2/2"}};  // not stored: no link
  std::vector<std::pair<std::int64_t, Facts>> facts{{id[8], f8}, {id[9], f9}};
  ASSERT_TRUE(store->put_facts(facts));
  std::vector<std::int64_t> just8{id[8]};
  auto edges = store->thread_edges(just8);
  ASSERT_TRUE(edges) << edges.error().message;
  ASSERT_EQ(edges->size(), 2u);
  EXPECT_EQ((*edges)[0].from.number, 8);
  EXPECT_EQ((*edges)[0].to.number, 7);
  EXPECT_EQ((*edges)[0].relation, "builds_on");
  EXPECT_EQ((*edges)[0].detail, "docs/logo.png");
  EXPECT_EQ((*edges)[1].from.number, 9);
  EXPECT_EQ((*edges)[1].to.id, id[8]);
  EXPECT_EQ((*edges)[1].relation, "reverts");
  EXPECT_EQ((*edges)[1].from.title, in[2].title);
  EXPECT_EQ((*edges)[1].from.merged_at, 3000);
  // New facts replace the change's links.
  f9.thread.clear();
  std::vector<std::pair<std::int64_t, Facts>> again{{id[9], f9}};
  ASSERT_TRUE(store->put_facts(again));
  edges = store->thread_edges(just8);
  ASSERT_TRUE(edges);
  EXPECT_EQ(edges->size(), 1u);
  // Every change added docs/logo.png; since 2000 only #8's and #9's count.
  auto added = store->added_files(repo->id, 2000);
  ASSERT_TRUE(added);
  ASSERT_EQ(added->size(), 2u);
  EXPECT_EQ((*added)[0],
            (std::pair<std::string, std::string>{std::string(40, 'b'), "docs/logo.png"}));
  // Themes: one document per window, replaced in place.
  EXPECT_FALSE(*store->get_themes(repo->id, "week:2026-W38"));
  ASSERT_TRUE(store->put_themes(repo->id, {"week:2026-W38", "k1", "m", 5, R"({"themes":[]})"}));
  ASSERT_TRUE(store->put_themes(repo->id, {"week:2026-W38", "k2", "m", 6, R"({"themes":[1]})"}));
  auto t = store->get_themes(repo->id, "week:2026-W38");
  ASSERT_TRUE(t && *t);
  EXPECT_EQ((*t)->key, "k2");
  EXPECT_EQ((*t)->doc, R"({"themes":[1]})");
  EXPECT_FALSE(*store->get_themes(repo->id, "week:2026-W39"));
}

TEST(SqliteStore, RefusesDamagedForeignAndNewerFiles) {
  TempDir dir;
  testing::write_file(dir / "garbage.db", std::string(8192, 'x'));
  auto garbage = open_sqlite_store(dir / "garbage.db");
  ASSERT_FALSE(garbage);
  EXPECT_EQ(garbage.error().kind, ErrorKind::kCorrupt);
  EXPECT_NE(garbage.error().message.find("garbage.db"), std::string::npos);

  sqlite3* raw = nullptr;
  sqlite3_open((dir / "other.db").c_str(), &raw);
  sqlite3_exec(raw, "CREATE TABLE t(x)", nullptr, nullptr, nullptr);
  sqlite3_close(raw);
  auto other = open_sqlite_store(dir / "other.db");
  ASSERT_FALSE(other);
  EXPECT_NE(other.error().message.find("another program"), std::string::npos);

  { ASSERT_TRUE(open_sqlite_store(dir / "newer.db")); }
  sqlite3_open((dir / "newer.db").c_str(), &raw);
  sqlite3_exec(raw, "PRAGMA user_version = 999", nullptr, nullptr, nullptr);
  sqlite3_close(raw);
  auto newer = open_sqlite_store(dir / "newer.db");
  ASSERT_FALSE(newer);
  EXPECT_EQ(newer.error().kind, ErrorKind::kUnsupported);
  EXPECT_NE(newer.error().message.find("newer"), std::string::npos);

  auto missing = open_sqlite_store(dir / "missing.db", StoreOptions{.create = false});
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().kind, ErrorKind::kNotFound);
}

// Writes a store at `path` as an older build left it: the migrations
// `applied` (indexes into sql::migrations(), in order), schema `version`,
// repository o/r, then `rows`.
::testing::AssertionResult write_old_store(const std::string& path, std::vector<size_t> applied,
                                           int version, const std::string& rows) {
  sqlite3* raw = nullptr;
  if (sqlite3_open(path.c_str(), &raw) != SQLITE_OK)
    return ::testing::AssertionFailure() << "cannot open " << path;
  const auto steps = sql::migrations();
  std::string script;
  for (size_t i : applied) script += std::string(steps[i]);
  script += fmt::format("PRAGMA user_version = {};", version);
  script += fmt::format("PRAGMA application_id = {};", sql::kApplicationId);
  script += "INSERT INTO repos(name) VALUES('o/r');" + rows;
  char* err = nullptr;
  const int rc = sqlite3_exec(raw, script.c_str(), nullptr, nullptr, &err);
  const std::string message = err ? err : "";
  sqlite3_free(err);
  sqlite3_close(raw);
  if (rc != SQLITE_OK) return ::testing::AssertionFailure() << message;
  return ::testing::AssertionSuccess();
}

// Change #9 of repository 1, as an INSERT: `extra_columns` and `extra_values`
// name columns the schema of the test has beyond the first ones.
std::string change_nine(const std::string& extra_columns = "",
                        const std::string& extra_values = "") {
  return "INSERT INTO changes(repo_id, kind, number, sha, parent_sha, title, body, author_name, "
         "author_email, author_login, merged_at, url, file_count, additions, deletions, "
         "files_truncated" +
         extra_columns + ") VALUES(1, 'squash', 9, '" + std::string(40, 'c') +
         "', '', 't', '', '', '', '', 1, '', 0, 0, 0, 0" + extra_values + ");";
}

// The branch that added changes.shallow numbered it migration 6, before the
// deliveries and jobs migrations took 6 and 7: its stores still open, keep
// their boundaries and gain the tables they lacked.
TEST(SqliteStore, UpgradesAStoreWhoseShallowColumnWasMigrationSix) {
  TempDir dir;
  const std::string path = dir / "v6.db";
  ASSERT_TRUE(write_old_store(path, {0, 1, 2, 3, 4, 7}, 6, change_nine(", shallow", ", 1")));
  const auto steps = sql::migrations();
  sqlite3* raw = nullptr;

  auto s = open_sqlite_store(path, StoreOptions{.create = false});
  ASSERT_TRUE(s) << s.error().message;
  auto repo = (*s)->find_repo("o/r");
  ASSERT_TRUE(repo && *repo);
  EXPECT_EQ(*(*s)->shallow_boundaries((*repo)->id), std::vector<std::string>{std::string(40, 'c')});
  sqlite3_open(path.c_str(), &raw);
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(raw,
                     "SELECT (SELECT user_version FROM pragma_user_version), (SELECT count(*) FROM "
                     "sqlite_master WHERE name IN ('deliveries', 'jobs'))",
                     -1, &st, nullptr);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int64(st, 0), static_cast<std::int64_t>(steps.size()));
  EXPECT_EQ(sqlite3_column_int64(st, 1), 2);
  sqlite3_finalize(st);
  sqlite3_close(raw);
}

// Migration 15 rebuilds guides as a rowid table (a lookup no longer reads
// whole rows): a v14 store's guides are kept as they were, and new facts
// still mark them stale.
TEST(SqliteStore, MigrationFifteenKeepsGuidesAndMarksThemStale) {
  TempDir dir;
  const std::string path = dir / "v14.db";
  const auto steps = sql::migrations();
  ASSERT_GE(steps.size(), 15u);
  ASSERT_TRUE(write_old_store(
      path, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}, 14,
      change_nine() +
          "INSERT INTO guides(change_id, lang, writer, headline, text, stale, written_at, doc) "
          "VALUES(1, 'zh', 'offline', '标题', 'text', 0, 5, x'0102'), "
          "(1, 'en', 'offline', 'Headline', 'words', 0, 6, x'03');"));

  ASSERT_TRUE(open_sqlite_store(path, StoreOptions{.create = false}));
  sqlite3* raw = nullptr;
  char* err = nullptr;
  sqlite3_open(path.c_str(), &raw);
  auto rows = [&](const char* sql) {
    std::vector<std::string> out;
    sqlite3_stmt* st = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(raw, sql, -1, &st, nullptr), SQLITE_OK) << sql;
    while (sqlite3_step(st) == SQLITE_ROW)
      out.push_back(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)));
    sqlite3_finalize(st);
    return out;
  };
  EXPECT_EQ(rows("SELECT lang || '|' || writer || '|' || headline || '|' || text || '|' || stale "
                 "|| '|' || written_at || '|' || hex(doc) FROM guides ORDER BY lang"),
            (std::vector<std::string>{"en|offline|Headline|words|0|6|03",
                                      "zh|offline|标题|text|0|5|0102"}));
  EXPECT_EQ(rows("SELECT sql LIKE '%WITHOUT ROWID%' FROM sqlite_master WHERE name = 'guides'"),
            std::vector<std::string>{"0"});
  EXPECT_EQ(rows("SELECT user_version FROM pragma_user_version"),
            std::vector<std::string>{std::to_string(steps.size())});
  // The stale triggers came back with the table.
  ASSERT_EQ(sqlite3_exec(raw,
                         "INSERT INTO facts(change_id, version, verdict, importance, insight, "
                         "lines_worth_reading, doc) VALUES(1, 1, 'skim', 1, 1, 0, x'00')",
                         nullptr, nullptr, &err),
            SQLITE_OK)
      << err;
  EXPECT_EQ(rows("SELECT group_concat(stale) FROM guides"), std::vector<std::string>{"1,1"});
  // The key still refuses a second guide of one change and language.
  EXPECT_NE(sqlite3_exec(raw,
                         "INSERT INTO guides(change_id, lang, writer, headline, text, written_at, "
                         "doc) VALUES(1, 'zh', 'x', 'h', 't', 7, x'00')",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(raw);
}

TEST(SqliteStore, ReopensAnExistingStoreWithoutMigratingAgain) {
  TempDir dir;
  {
    auto s = open_sqlite_store(dir / "db.sqlite");
    auto repo = (*s)->upsert_repo({0, "o/r", "", "", "", ""});
    std::vector<Change> in = {sample_change(7, std::string(40, 'a'), 1000)};
    ASSERT_TRUE((*s)->put_changes(repo->id, in, std::nullopt));
  }
  auto s = open_sqlite_store(dir / "db.sqlite", StoreOptions{.create = false});
  ASSERT_TRUE(s) << s.error().message;
  auto repo = resolve_repo(**s, "");
  ASSERT_TRUE(repo);
  EXPECT_EQ(*(*s)->count_changes(repo->id), 1u);
}

// The facts' brief carries the first focus path (themes read it instead of
// the document); a brief of the older form (no focus path) is read through
// the document until fill_page_rows() writes it again.
TEST(StoreBriefs, FocusPathInTheBriefAndOlderBriefsRefilled) {
  TempDir dir;
  TestStore store(dir);
  ASSERT_TRUE(store.store);
  auto repo = store->upsert_repo({0, "o/r", "/src", "https://github.com/o/r", "main", ""});
  ASSERT_TRUE(repo);
  std::vector<Change> in = {sample_change(7, std::string(40, 'a'), 1000)};
  ASSERT_TRUE(store->put_changes(repo->id, in, std::nullopt));
  const std::int64_t id = (*store->get_change_by_number(repo->id, 7))->id;
  Facts f;
  FocusRegion region;
  region.path = "python/srt/layers/moe/router.py";
  f.focus.push_back(region);
  Tag tag;
  tag.name = "moe";
  tag.weight = 0.8;
  f.tags.push_back(tag);
  std::vector<std::pair<std::int64_t, Facts>> facts{{id, f}};
  ASSERT_TRUE(store->put_facts(facts));
  const std::vector<std::int64_t> ids{id};
  auto b = store->facts_briefs(ids);
  ASSERT_TRUE(b) << b.error().message;
  EXPECT_EQ(b->at(id).focus_path, "python/srt/layers/moe/router.py");
  EXPECT_EQ(*store->fill_page_rows(), 0u);  // nothing to fill
  // A brief as an older release wrote it.
  const std::string old = R"(UPDATE facts_briefs SET brief = '{"s":[],"t":[["moe",0.8]]}')";
  if (store.location.pg()) {
    ASSERT_EQ(testing::pg_admin(store.location.str(), old), "");
  } else {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(store.location.str().c_str(), &db), SQLITE_OK);
    EXPECT_EQ(sqlite3_exec(db, old.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
  }
  auto reopened = store.reopen();
  ASSERT_TRUE(reopened);
  b = reopened->facts_briefs(ids);
  ASSERT_TRUE(b) << b.error().message;
  EXPECT_EQ(b->at(id).focus_path, "python/srt/layers/moe/router.py");  // from the document
  EXPECT_EQ(*reopened->fill_page_rows(), 1u);
  EXPECT_EQ(*reopened->fill_page_rows(), 0u);
  b = reopened->facts_briefs(ids);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->at(id).focus_path, "python/srt/layers/moe/router.py");
  ASSERT_EQ(b->at(id).tag_weights.size(), 1u);
}

}  // namespace
}  // namespace mergelens
