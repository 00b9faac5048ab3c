// Pieces both backends share (private to store/): the ChangeSummary row
// reader over any statement type with i64/text/opt_i64 accessors
// (sql::Stmt, pg::Stmt), and the UTF-8 decoder the search code uses.
#pragma once

#include <string>
#include <string_view>

#include "mergelens/store/store.h"

namespace mergelens {

// Columns 0-16 of a ChangeSummary (changes c LEFT JOIN facts f).
inline constexpr std::string_view kSummaryColumns =
    "c.id, c.kind, c.number, c.sha, c.title, c.author_name, c.author_email, c.author_login, "
    "c.merged_at, c.url, c.file_count, c.additions, c.deletions, coalesce(f.verdict, ''), "
    "coalesce(f.importance, 0), coalesce(f.insight, 0), c.open";

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

// The CJK bigram rewriting both backends index with (sqlite_search.cc).
std::string search_text(std::string_view s, bool query, bool* ends_single);

}  // namespace mergelens
