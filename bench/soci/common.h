// Shared rows, SQL and timing helpers of the SOCI probe (not part of mergelens).
#pragma once
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

// Columns of mergelens store/rows.h kSummaryColumns.
inline const std::string kSummaryColumns =
    "c.id, c.kind, c.number, c.sha, c.title, c.author_name, c.author_email, c.author_login, "
    "c.merged_at, c.url, c.file_count, c.additions, c.deletions, coalesce(f.verdict, ''), "
    "coalesce(f.importance, 0), coalesce(f.insight, 0), c.open, c.repo_id";

struct Summary {
  std::int64_t id = 0;
  std::string kind;
  std::optional<std::int64_t> number;
  std::string sha, title, author_name, author_email, author_login;
  std::int64_t merged_at = 0;
  std::string url;
  std::int64_t file_count = 0, additions = 0, deletions = 0;
  std::string verdict;
  std::int64_t importance = 0, insight = 0, open = 0, repo_id = 0;
};

struct FileRow {
  std::string path, old_path, status;
  std::int64_t binary = 0, truncated = 0, additions = 0, deletions = 0;
  std::optional<std::string> patch, unavailable;
};

struct ChangeRow {
  std::int64_t id = 0;
  std::string kind;
  std::optional<std::int64_t> number;
  std::string sha, parent_sha, title, body, author_name, author_email, author_login;
  std::int64_t merged_at = 0;
  std::string url;
  std::int64_t files_truncated = 0;
  std::string repo;
  std::int64_t shallow = 0;
  std::vector<FileRow> files;
  std::vector<std::string> labels;
};

// A digest of everything read, so both paths are checked to read the same.
inline std::uint64_t mix(std::uint64_t h, std::string_view s) {
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return (h ^ 0xff) * 1099511628211ull;
}
inline std::uint64_t mix(std::uint64_t h, const std::string& s) { return mix(h, std::string_view(s)); }
inline std::uint64_t mix(std::uint64_t h, std::int64_t v) { return mix(h, std::to_string(v)); }
inline std::uint64_t mix(std::uint64_t h, const std::optional<std::int64_t>& v) {
  return v ? mix(h, *v) : mix(h, std::string_view("<null>"));
}
inline std::uint64_t mix(std::uint64_t h, const std::optional<std::string>& v) {
  return v ? mix(h, std::string_view(*v)) : mix(h, std::string_view("<null>"));
}
inline std::uint64_t digest(const std::vector<Summary>& v) {
  std::uint64_t h = 14695981039346656037ull;
  for (auto& s : v) {
    h = mix(mix(mix(mix(mix(mix(h, s.id), s.kind), s.number), s.sha), s.title), s.author_name);
    h = mix(mix(mix(mix(mix(h, s.author_email), s.author_login), s.merged_at), s.url), s.file_count);
    h = mix(mix(mix(mix(mix(h, s.additions), s.deletions), s.verdict), s.importance), s.insight);
    h = mix(mix(h, s.open), s.repo_id);
  }
  return h;
}
inline std::uint64_t digest(const ChangeRow& c) {
  std::uint64_t h = 14695981039346656037ull;
  h = mix(mix(mix(mix(mix(mix(h, c.id), c.kind), c.number), c.sha), c.parent_sha), c.title);
  h = mix(mix(mix(mix(mix(h, c.body), c.author_name), c.author_email), c.author_login), c.merged_at);
  h = mix(mix(mix(mix(h, c.url), c.files_truncated), c.repo), c.shallow);
  for (auto& f : c.files) {
    h = mix(mix(mix(mix(mix(h, f.path), f.old_path), f.status), f.binary), f.truncated);
    h = mix(mix(mix(mix(h, f.additions), f.deletions), f.patch), f.unavailable);
  }
  for (auto& l : c.labels) h = mix(h, l);
  return h;
}

struct Timer {
  std::string name;
  std::vector<double> us;
};

inline double now_us() {
  return std::chrono::duration<double, std::micro>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

inline void report(const std::vector<Timer>& ts, size_t raw_index_of(size_t)) {
  std::printf("%-34s %10s %10s %10s\n", "path", "p50 us", "mean us", "p50/raw");
  std::vector<double> p50(ts.size());
  for (size_t i = 0; i < ts.size(); ++i) {
    auto v = ts[i].us;
    std::sort(v.begin(), v.end());
    p50[i] = v[v.size() / 2];
  }
  for (size_t i = 0; i < ts.size(); ++i) {
    const auto& v = ts[i].us;
    const double mean = std::accumulate(v.begin(), v.end(), 0.0) / v.size();
    std::printf("%-34s %10.1f %10.1f %10.2f\n", ts[i].name.c_str(), p50[i], mean,
                p50[i] / p50[raw_index_of(i)]);
  }
}
