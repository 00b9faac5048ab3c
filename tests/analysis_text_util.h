// Helpers of the analysis/text tests (analysis_text_test.cc,
// analysis_text_robust_test.cc): lookups in the text facts, one-line dumps for
// failure messages, and a file change from a hand-written patch.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "mergelens/analysis/text/text_facts.h"
#include "mergelens/model/diff.h"

namespace mergelens::testing_text {

inline const NumberFact* find_number(const std::vector<NumberFact>& v, std::string_view text) {
  for (const auto& f : v)
    if (f.text == text) return &f;
  return nullptr;
}
inline const Reference* find_ref(const std::vector<Reference>& v, std::string_view kind,
                                 std::int64_t number, std::string_view sha = "") {
  for (const auto& r : v)
    if (r.kind == kind && (number == 0 || r.number == number) &&
        (sha.empty() || r.sha.starts_with(sha)))
      return &r;
  return nullptr;
}
inline const Mention* find_mention(const std::vector<Mention>& v, std::string_view text) {
  for (const auto& m : v)
    if (m.text == text) return &m;
  return nullptr;
}
inline std::string dump(const std::vector<NumberFact>& v) {
  std::string s;
  for (const auto& f : v) s += "[" + f.kind + " '" + f.text + "' " + std::to_string(f.value) + "] ";
  return s;
}
inline std::string dump(const std::vector<Reference>& v) {
  std::string s;
  for (const auto& r : v)
    s += "[" + r.kind + " " + r.relation + " '" + r.text + "' " + r.repo + "] ";
  return s;
}
inline std::string dump(const std::vector<BodyMismatch>& v) {
  std::string s;
  for (const auto& m : v) s += "[" + m.kind + " " + m.subject + "] ";
  return s;
}

inline FileChange file(std::string path, std::string_view patch, int additions = 0,
                       int deletions = 0) {
  FileChange f;
  f.path = std::move(path);
  auto p = parse_patch(patch);
  EXPECT_TRUE(p) << p.error().message;
  if (p) f.hunks = std::move(p->hunks);
  for (const auto& h : f.hunks)
    for (const auto& l : h.lines) {
      f.additions += l.origin == '+';
      f.deletions += l.origin == '-';
    }
  if (additions || deletions) f.additions = additions, f.deletions = deletions;
  return f;
}

}  // namespace mergelens::testing_text
