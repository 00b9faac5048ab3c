// Pieces both backends share (private to store/): the ChangeSummary row
// reader over any statement type with i64/text/opt_i64 accessors
// (sql::Stmt, pg::Stmt), and the UTF-8 decoder the search code uses.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "mergelens/store/store.h"

namespace mergelens {

// The judgment pages show and filter on: the model's triage where the day
// has one, else the analysis's; none for a change without facts. The same as
// the `judged` view (schema.cc), joined directly: SQLite cannot flatten that
// view (a join) on the right of a LEFT JOIN, so it built the view whole, for
// every change of the store, on each query that used it (7 ms at 1,500
// changes, tens at 17,000). `FROM {kJudgedFrom}` names the change c, its
// facts fa and its triage tr; the judgment is read with the expressions
// below.
#define MERGELENS_JUDGED_JOINS \
  " LEFT JOIN facts fa ON fa.change_id = c.id LEFT JOIN triage tr ON tr.change_id = fa.change_id"
inline constexpr std::string_view kJudgedFrom = "changes c" MERGELENS_JUDGED_JOINS;
// The same joins after a FROM that names the change c already.
inline constexpr std::string_view kJudgedJoins = MERGELENS_JUDGED_JOINS;
#undef MERGELENS_JUDGED_JOINS
inline constexpr std::string_view kJudgedVerdict = "coalesce(tr.verdict, fa.verdict)";
inline constexpr std::string_view kJudgedImportance = "coalesce(tr.importance, fa.importance)";
inline constexpr std::string_view kJudgedInsight = "coalesce(tr.insight, fa.insight)";

// Columns 0-18 of a ChangeSummary (FROM kJudgedFrom); a query selecting more
// reads them from kSummaryCount on. The last (a later change of the same
// number) is looked up by number: the unary + keeps SQLite's planner from
// walking changes_by_time instead, every change merged later, for each row
// (50 ms for 50 rows of a whole-history store, where the number takes 0.1 ms).
inline constexpr std::string_view kSummaryColumns =
    "c.id, c.kind, c.number, c.sha, c.title, c.author_name, c.author_email, c.author_login, "
    "c.merged_at, c.url, c.file_count, c.additions, c.deletions, "
    "coalesce(tr.verdict, fa.verdict, ''), coalesce(tr.importance, fa.importance, 0), "
    "coalesce(tr.insight, fa.insight, 0), c.open, c.repo_id, "
    "EXISTS (SELECT 1 FROM changes d WHERE d.repo_id = c.repo_id AND d.number = c.number AND "
    "(+d.merged_at > c.merged_at OR (+d.merged_at = c.merged_at AND d.id > c.id)))";
inline constexpr int kSummaryCount = 19;

// The repository condition of a page query: `column = param` for one
// repository; for kAllRepos a condition true for every row that still names
// the parameter, so parameter numbers stay and the one-repository form keeps
// its index.
inline std::string repo_filter(std::int64_t repo_id, std::string_view column,
                               std::string_view param) {
  if (repo_id == kAllRepos) return std::string(param) + " = 0";
  return std::string(column) + " = " + std::string(param);
}

// "1,2,3": ids for an `IN (...)` list. Integers formatted here, so no user
// text reaches the statement.
inline std::string id_list(std::span<const std::int64_t> ids) {
  std::string out;
  for (const auto id : ids) {
    if (!out.empty()) out += ',';
    out += std::to_string(id);
  }
  return out;
}

template <class St>
ChangeSummary read_summary(const St& st) {
  ChangeSummary s;
  s.id = st.i64(0);
  s.kind = change_kind_from_string(st.text(1)).value_or(ChangeKind::kCommit);
  s.number = st.opt_i64(2);
  s.sha = st.text(3);
  s.title = st.text(4);
  s.author = Person{st.text(5), st.text(6), st.text(7)};
  s.merged_at = st.i64(8);
  s.url = st.text(9);
  s.file_count = static_cast<std::int32_t>(st.i64(10));
  s.additions = st.i64(11);
  s.deletions = st.i64(12);
  s.verdict = st.text(13);
  s.importance = static_cast<int>(st.i64(14));
  s.insight = static_cast<int>(st.i64(15));
  s.open = st.i64(16) != 0;
  s.repo_id = st.i64(17);
  s.number_reused = st.i64(18) != 0;
  return s;
}

// Decodes one UTF-8 code point at s[i]; advances i by its length `len`.
// Invalid bytes decode as themselves (they are copied through untouched).
inline char32_t next_cp(std::string_view s, size_t& i, size_t& len) {
  const auto b = static_cast<unsigned char>(s[i]);
  len = b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 1;
  if (i + len > s.size()) len = 1;
  char32_t cp = len == 1 ? b : len == 2 ? (b & 0x1F) : len == 3 ? (b & 0x0F) : (b & 0x07);
  for (size_t k = 1; k < len; ++k) {
    const auto c = static_cast<unsigned char>(s[i + k]);
    if ((c & 0xC0) != 0x80) {
      len = 1;
      cp = b;
      break;
    }
    cp = (cp << 6) | (c & 0x3F);
  }
  i += len;
  return cp;
}

// The CJK bigram rewriting both backends index with (sql_search.cc).
std::string search_text(std::string_view s, bool query, bool* ends_single);

// The triage table's columns in the order read_triage() reads them.
inline constexpr std::string_view kTriageColumns =
    "change_id, day, key, rank, importance, insight, verdict, scope, reason_zh, reason_en, "
    "model, at, scope_zh";

// A triage row of either backend's statement (columns kTriageColumns).
template <class St>
TriageRecord read_triage(const St& s) {
  TriageRecord t;
  t.change_id = s.i64(0);
  t.day = s.text(1);
  t.key = s.text(2);
  t.rank = static_cast<int>(s.i64(3));
  t.importance = static_cast<int>(s.i64(4));
  t.insight = static_cast<int>(s.i64(5));
  t.verdict = s.text(6);
  t.scope = s.text(7);
  t.reason_zh = s.text(8);
  t.reason_en = s.text(9);
  t.model = s.text(10);
  t.at = s.i64(11);
  t.scope_zh = s.text(12);
  return t;
}

// Whether a new triage record changes what a guide is written from (its
// prompt shows the triage's judgment, scopes and reasons).
inline bool triage_judgment_differs(const TriageRecord& a, const TriageRecord& b) {
  return a.verdict != b.verdict || a.importance != b.importance || a.insight != b.insight ||
         a.scope != b.scope || a.scope_zh != b.scope_zh || a.reason_zh != b.reason_zh ||
         a.reason_en != b.reason_en;
}

}  // namespace mergelens
