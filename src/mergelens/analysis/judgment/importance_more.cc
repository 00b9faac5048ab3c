// The importance features that transfer across repositories (issue 32 item
// 5), beside the rules of importance.cc: the title's words, where the changed
// lines are (shares by file role), what the change adds (code files,
// definitions), and its links to other changes (a series part, a re-land, a
// follow-up of an earlier change, later changes that name it). Their weights
// are fitted with the others on many repositories' release notes
// (score_fitted.h, bench/judgment/fit_scale.py).
//
// A project's own changelog or release-notes file (CHANGELOG.md, HISTORY.md,
// whats-new.rst, news fragments) is process, not documentation: in projects
// that keep one, most PRs touch it, and in projects that do not, none do. It
// counts in no feature here, and not as documentation that comes with code.
#include <re2/re2.h>
#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "mergelens/analysis/code/code_text.h"
#include "mergelens/analysis/judgment/score_parts.h"
#include "mergelens/util/strings.h"

namespace mergelens::score_internal {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

ML_PATTERN(series_marker,
           R"re((?i)(?:[\[(]\s*\d+\s*/\s*(?:\d+|n)\s*[\])]|\bpart\s*(?:\d+|[ivx]+)\b|)re"
           R"re(\((?:i|ii|iii|iv|v|vi|vii|viii|ix|x)\)|\b\d+\s*/\s*n\b))re")
ML_PATTERN(reland_words,
           R"re((?i)\b(?:re-?land(?:s|ed|ing)?|re-?appl(?:y|ies|ied)|re-?introduce[sd]?)\b)re")
ML_PATTERN(trailing_number, R"re(\s*\(#\d+\)\s*$)re")

// The roles whose share of the changed lines is a feature ("share_test", ...);
// code on the main path (core) is what the shares are measured against.
constexpr std::pair<FileRole, std::string_view> kShareRoles[] = {
    {FileRole::kKernel, "share_kernel"},
    {FileRole::kModel, "share_model"},
    {FileRole::kConfig, "share_config"},
    {FileRole::kTest, "share_test"},
    {FileRole::kBenchmark, "share_benchmark"},
    {FileRole::kDocs, "share_docs"},
    {FileRole::kCi, "share_ci"},
    {FileRole::kBuild, "share_build"},
    {FileRole::kGenerated, "share_generated"},
};

}  // namespace

bool release_notes_file(std::string_view path) {
  static const std::set<std::string, std::less<>> dirs = {
      "changelog",     "changelog.d",   "changes",      "newsfragments",    "news",
      "release_notes", "release-notes", "releasenotes", "upcoming_changes", "whats_new",
      "whatsnew"};
  static const std::set<std::string, std::less<>> stems = {
      "changelog", "changes",       "history",       "news",         "whats-new",  "whats_new",
      "whatsnew",  "release-notes", "release_notes", "releasenotes", "release_dev"};
  const std::string p = lower(path);
  size_t start = 0;
  while (true) {
    const size_t slash = p.find('/', start);
    if (slash == std::string::npos) break;
    if (dirs.contains(std::string_view(p).substr(start, slash - start))) return true;
    start = slash + 1;
  }
  std::string_view base = std::string_view(p).substr(start);
  base = base.substr(0, base.find('.'));
  return stems.contains(base);
}

std::vector<std::string> title_words(std::string_view title) {
  std::string t(title);
  while (RE2::Replace(&t, trailing_number(), "")) {
  }
  t = lower(t);
  std::set<std::string> words;
  size_t i = 0;
  while (i < t.size()) {
    if (t[i] < 'a' || t[i] > 'z') {
      ++i;
      continue;
    }
    size_t j = i + 1;
    while (j < t.size() && ((t[j] >= 'a' && t[j] <= 'z') || (t[j] >= '0' && t[j] <= '9'))) ++j;
    if (j - i >= 2 && j - i <= 24) words.insert(t.substr(i, j - i));
    i = j;
  }
  return {words.begin(), words.end()};
}

void more_importance_features(const Change& change, const Facts& facts,
                              std::map<std::string, double>& values,
                              std::map<std::string, std::string>& reasons) {
  auto add = [&](std::string name, std::string reason, double value = 1) {
    reasons[name] = std::move(reason);
    values[std::move(name)] = value;
  };
  for (auto& w : title_words(change.title)) add("w:" + w, fmt::format("the title says “{}”", w));

  // Where the changed lines are: the share of each role (release notes left out).
  // A file added in several places with the same content counts once.
  const std::set<std::string> copies = copied_files(change);
  std::map<FileRole, int> lines;
  int total = 0, added_code_files = 0, copied_code_files = 0;
  for (const auto& f : change.files) {
    if (release_notes_file(f.path)) continue;
    const FileRole r = role_of(facts, f.path);
    if (copies.count(f.path)) {
      copied_code_files += is_code(r);
      continue;
    }
    lines[r] += f.additions + f.deletions;
    total += f.additions + f.deletions;
    if (f.status == FileStatus::kAdded && is_code(r)) ++added_code_files;
  }
  if (total > 0)
    for (const auto& [role, name] : kShareRoles)
      if (lines[role] > 0)
        add(std::string(name),
            fmt::format("{:.0f} % of the changed lines are {}", 100.0 * lines[role] / total,
                        to_string(role)),
            static_cast<double>(lines[role]) / total);
  if (added_code_files > 0)
    add("adds_files",
        copied_code_files == 0
            ? fmt::format("adds {} code files", added_code_files)
            : fmt::format("adds {} and {} of {}", plural(added_code_files, "code file"),
                          plural(copied_code_files, "copy", "copies"),
                          added_code_files == 1 ? "it" : "them"),
        std::log10(1.0 + added_code_files));
  const int new_defs = static_cast<int>(
      std::count_if(facts.definitions.begin(), facts.definitions.end(), [&](const Definition& d) {
        return d.change == "added" && is_code(role_of(facts, d.at.path)) &&
               !copies.count(d.at.path);
      }));
  if (new_defs > 0)
    add("adds_defs", "adds " + plural(new_defs, "definition"), std::log10(1.0 + new_defs));

  // Links to other changes.
  if (RE2::PartialMatch(change.title, series_marker()))
    add("series", "one part of a series of changes");
  if (RE2::PartialMatch(change.title, reland_words()))
    add("reland", "lands an earlier change again");
  for (const auto& r : facts.references)
    if (r.relation == "follow_up" && r.repo.empty()) {
      add("follows_up", fmt::format("follows up an earlier change ({})", r.text));
      break;
    }
  if (!facts.referenced_by.empty())
    add("named_later", fmt::format("{} later changes name it", facts.referenced_by.size()),
        std::log10(1.0 + static_cast<double>(facts.referenced_by.size())));
}

}  // namespace mergelens::score_internal
