// Focus weights. A hunk's score is
//
//   (size + Σ signal bonuses + Σ definition bonuses) × role × moved × skim
//
// size      = log2(1 + added + 0.5 × removed): new logic counts more than deleted
//             logic, and size has diminishing returns, so a 9-line guard with a
//             fallback can outrank a 300-line boilerplate addition.
// signals   = what a reviewer stops at (kSignalBonus below): guards and
//             fallbacks, concurrency, dtype/device/platform branches, env vars
//             and flags (user-visible switches), changed numeric constants,
//             public API. Each kind counts once per hunk.
// role      = kernels and core code full weight; model definitions slightly
//             less; tests, benchmarks, configs, docs, CI and generated files
//             little (kRoleWeight).
// moved     = 0.3 for code that only moved.
// skim      = 0.15 for files the clean-up detector put on the skim list.
// data      = 0.3 for repetitive hunks (10+ added lines of at most a fifth as
//             many distinct shapes: tables, enum lists, generated entries).
//
// Hunks of one file closer than kMergeGap lines become one region; a region's
// score is the sum of its hunks'.
#include "mergelens/analysis/focus.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>
#include <unordered_map>

#include <fmt/format.h>

namespace mergelens {
namespace {

constexpr std::int32_t kMergeGap = 8;
constexpr size_t kMaxRegions = 8;

struct Bonus {
  const char* kind;
  double weight;
  const char* reason;
};

constexpr Bonus kSignalBonus[] = {
    {"fallback", 2.5, "guard with fallback"},
    {"guard", 2.0, "new guard"},
    {"concurrency", 2.5, "concurrency"},
    {"dtype_branch", 2.0, "dtype branch"},
    {"device_branch", 2.0, "device branch"},
    {"platform_branch", 1.5, "platform branch"},
    {"raise", 1.5, "raises an error"},
    {"assert", 1.2, "assertion"},
    {"early_return", 1.0, "early return"},
    {"try", 1.0, "exception handling"},
    {"preprocessor", 1.0, "preprocessor branch"},
    {"env_var", 1.5, "environment variable"},
    {"cli_flag", 1.5, "command-line flag"},
    {"numeric_constant", 1.5, "numeric constant changed"},
    {"public_api", 1.5, "public API"},
    {"todo", 0.3, "TODO added"},
    {"dead_code_removed", 0.3, "dead code removed"},
};

double role_weight(FileRole r) {
  switch (r) {
    case FileRole::kKernel:
      return 1.2;
    case FileRole::kCore:
      return 1.0;
    case FileRole::kModel:
      return 0.9;
    case FileRole::kTest:
      return 0.35;
    case FileRole::kBenchmark:
      return 0.3;
    case FileRole::kBuild:
      return 0.3;
    case FileRole::kConfig:
      return 0.25;
    case FileRole::kCi:
      return 0.2;
    case FileRole::kDocs:
      return 0.15;
    case FileRole::kGenerated:
      return 0.02;
  }
  return 1.0;
}

// "FIELD_12 = 12" and "FIELD_13 = 13" share a shape: letters and digits
// collapse to one class each.
std::string shape_of(std::string_view line) {
  std::string out;
  char last = 0;
  for (unsigned char ch : line) {
    char cls = std::isdigit(ch)                  ? '0'
               : (std::isalpha(ch) || ch == '_') ? 'a'
               : std::isspace(ch)                ? ' '
                                                 : static_cast<char>(ch);
    if ((cls == '0' || cls == 'a' || cls == ' ') && cls == last) continue;
    out += cls;
    last = cls;
  }
  return out;
}

bool repetitive(const Hunk& h) {
  std::set<std::string> shapes;
  int added = 0;
  for (const auto& l : h.lines)
    if (l.origin == '+') {
      ++added;
      shapes.insert(shape_of(l.text));
    }
  return added >= 10 && static_cast<int>(shapes.size()) * 5 <= added;
}

}  // namespace

void rank_focus(const Change& change, Facts& facts) {
  std::unordered_map<std::string, const SkimItem*> skim;
  for (const auto& s : facts.skim) skim[s.path] = &s;

  // Signals and definitions per (path, line) → hunk lookup by line span.
  for (auto& h : facts.hunks) {
    if (h.file >= change.files.size()) continue;
    const FileChange& f = change.files[h.file];
    h.score = 0;
    h.reasons.clear();
    const double size = std::log2(1.0 + h.added + 0.5 * h.removed);
    double bonus = 0;
    std::set<std::string> seen;
    auto inside = [&](const Place& p) {
      return p.path == f.path && p.line >= h.new_start - 1 && p.line <= h.new_end + 1;
    };
    for (const auto& s : facts.signals) {
      if (!inside(s.at) || !seen.insert(s.kind).second) continue;
      for (const auto& b : kSignalBonus)
        if (s.kind == b.kind) {
          bonus += s.added ? b.weight : b.weight * 0.5;
          h.reasons.push_back(s.detail.empty() ? b.reason
                                               : fmt::format("{} ({})", b.reason, s.detail));
        }
    }
    for (const auto& d : facts.definitions) {
      if (!inside(d.at)) continue;
      if (d.change == "signature_changed") {
        bonus += 1.5;
        h.reasons.push_back(fmt::format("signature of {} changed", d.name));
      } else if (d.change == "added") {
        bonus += 1.0;
        h.reasons.push_back(fmt::format("new {} {}", d.kind, d.name));
      }
    }
    auto role_it = facts.roles.find(f.path);
    const FileRole role = role_it == facts.roles.end() ? FileRole::kCore : role_it->second;
    double score = (size + bonus) * role_weight(role);
    if (role != FileRole::kCore && role != FileRole::kKernel && role != FileRole::kModel)
      h.reasons.push_back(fmt::format("{} file", to_string(role)));
    if (h.hunk < f.hunks.size() && repetitive(f.hunks[h.hunk])) {
      score *= 0.3;
      h.reasons.push_back("repetitive data");
    }
    if (h.moved) {
      score *= 0.3;
      h.reasons.push_back("moved code");
    }
    if (auto it = skim.find(f.path); it != skim.end()) {
      score *= 0.15;
      h.reasons.push_back(it->second->reason);
    }
    if (h.reasons.empty() || (bonus == 0 && !h.moved))
      h.reasons.insert(h.reasons.begin(), fmt::format("{} changed lines", h.added + h.removed));
    h.score = score;
  }

  // Merge hunks of a file into regions.
  std::vector<const HunkFacts*> order;
  for (const auto& h : facts.hunks)
    if (h.file < change.files.size()) order.push_back(&h);
  std::sort(order.begin(), order.end(), [](const HunkFacts* a, const HunkFacts* b) {
    return a->file != b->file ? a->file < b->file : a->new_start < b->new_start;
  });
  std::vector<FocusRegion> regions;
  size_t last_file = SIZE_MAX;
  for (const HunkFacts* h : order) {
    const std::int32_t start = h->new_start, end = std::max(h->new_start, h->new_end);
    if (!regions.empty() && h->file == last_file && start - regions.back().end_line <= kMergeGap) {
      FocusRegion& r = regions.back();
      r.end_line = std::max(r.end_line, end);
      r.score += h->score;
      r.changed_lines += h->added + h->removed;
      for (const auto& why : h->reasons)
        if (std::find(r.reasons.begin(), r.reasons.end(), why) == r.reasons.end())
          r.reasons.push_back(why);
      if (r.symbol.empty()) r.symbol = h->symbol;
      continue;
    }
    FocusRegion r;
    r.path = change.files[h->file].path;
    r.start_line = start;
    r.end_line = end;
    r.symbol = h->symbol;
    r.score = h->score;
    r.reasons = h->reasons;
    r.changed_lines = h->added + h->removed;
    regions.push_back(std::move(r));
    last_file = h->file;
  }
  std::stable_sort(regions.begin(), regions.end(),
                   [](const FocusRegion& a, const FocusRegion& b) { return a.score > b.score; });
  facts.focus.clear();
  facts.lines_worth_reading = 0;
  if (regions.empty() || regions.front().score <= 0) return;
  const double best = regions.front().score;
  for (auto& r : regions) {
    if (facts.focus.size() >= kMaxRegions || r.score < best * 0.2) break;
    r.score = std::round(r.score * 100) / 100;
    facts.focus.push_back(std::move(r));
  }
  for (size_t i = 0; i < facts.focus.size() && i < 3; ++i)
    if (facts.focus[i].score >= best * 0.5)
      facts.lines_worth_reading += facts.focus[i].changed_lines;
}

}  // namespace mergelens
