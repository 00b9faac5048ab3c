// Helpers of the analysis/code tests (analysis_code_test.cc,
// analysis_signals_test.cc): hand-written hunks and changes, a file reader
// over a map, and lookups in the facts.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "mergelens/analysis/code/code_facts.h"
#include "mergelens/model/diff.h"

namespace mergelens::testing_code {

// One hunk in unified format; the header counts come from the lines.
inline std::string H(int old_start, int new_start, const std::vector<std::string>& lines,
                     const std::string& section = "") {
  int o = 0, n = 0;
  for (const auto& l : lines) {
    if (l.empty() || l[0] == ' ') ++o, ++n;
    if (!l.empty() && l[0] == '-') ++o;
    if (!l.empty() && l[0] == '+') ++n;
  }
  std::string out = fmt::format("@@ -{},{} +{},{} @@", old_start, o, new_start, n);
  if (!section.empty()) out += " " + section;
  out += "\n";
  for (const auto& l : lines) out += l + "\n";
  return out;
}

struct FileSpec {
  FileSpec(std::string p, std::string diff, FileStatus st = FileStatus::kModified,
           std::string old = "", bool bin = false)
      : path(std::move(p)),
        patch(std::move(diff)),
        status(st),
        old_path(std::move(old)),
        binary(bin) {}
  std::string path;
  std::string patch;
  FileStatus status;
  std::string old_path;
  bool binary;
};

inline Change make_change(const std::vector<FileSpec>& specs) {
  Change c;
  for (const auto& s : specs) {
    FileChange f;
    f.path = s.path;
    f.old_path = s.old_path;
    f.status = s.status;
    f.binary = s.binary;
    if (!s.patch.empty()) {
      auto p = parse_patch(s.patch);
      EXPECT_TRUE(p) << p.error().message;
      if (p) f.hunks = std::move(p->hunks);
    }
    c.files.push_back(std::move(f));
  }
  return c;
}

inline std::string join(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

inline FileReader reader(std::map<std::string, std::string> files) {
  return [files = std::move(files)](const std::string& path) -> std::optional<std::string> {
    auto it = files.find(path);
    if (it == files.end()) return std::nullopt;
    return it->second;
  };
}

inline std::vector<std::string> details(const CodeFacts& f, const std::string& kind,
                                        bool added = true) {
  std::vector<std::string> out;
  for (const auto& s : f.signals)
    if (s.kind == kind && s.added == added) out.push_back(s.detail);
  return out;
}

inline bool has(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

inline const Definition* find_def(const CodeFacts& f, const std::string& name) {
  for (const auto& d : f.definitions)
    if (d.name == name) return &d;
  return nullptr;
}

}  // namespace mergelens::testing_code
