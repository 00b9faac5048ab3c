// Insight: how much a careful reader learns from the places the focus ranking
// sends them to, per line they must read (weights and their reasons:
// score_weights.h).
//
// Only the first few focus regions of code files count: that is what a reader
// reads. In each, the lessons are the decisions visible there (a fallback, a
// lock, a hardware branch, a precondition, a switch, a replacement of one call
// by another) and the author's own argument for them (an added comment that
// says why). Tests show the contract but are never the lesson. The sum is
// divided by a cost that grows with the lines of those regions, so a big
// change collects no more insight than its best regions hold, and mechanical
// bulk (model ports, dropped-in files, tables, moved code) counts at a low
// rate. That density is the raw insight; the score is its place on the
// calibrated scale (score_fitted.h). The argued decisions found on the way
// (an argued comment, a guard with a fallback) are what the verdict's scope
// names.
#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "mergelens/util/strings.h"

#include "mergelens/analysis/judgment/score_fitted.h"
#include "mergelens/analysis/judgment/score_parts.h"
#include "mergelens/analysis/judgment/score_weights.h"

namespace mergelens::score_internal {
namespace {

namespace w = score_weights;

// Words of a comment that argues for the code rather than describing it.
// Words a docstring with a parameter list needs beside it to explain code
// rather than label it ("Child class for the X dataset" does not).
constexpr int kExplainingWords = 12;

bool argues(std::string_view text) {
  std::string t(text);
  for (char& c : t)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  static constexpr std::string_view kWords[] = {
      "because", "since ", "so that",  "otherwise",    "avoid",      "instead",   "must ",
      "prevent", "would",  "cannot",   "can't",        "won't",      "don't",     "ensure",
      "require", "race",   "deadlock", "overflow",     "precision",  "synchron",  "sync",
      "block",   "stall",  "leak",     "hang",         "crash",      "expensive", "cheap",
      "unsafe",  "why",    "unlike",   "rather than",  "workaround", "only when", "only if",
      "so we",   "so the", "to keep",  "to make sure", "breaks",     "corrupt",   "wrong",
      "costs",   "faster", "slower",   "copies",       "copy",       "waits",     "wait for"};
  for (auto word : kWords) {
    const size_t at = t.find(word);
    // "since" as a version or a date ("since v2", "since 2024") does not argue.
    if (at != std::string::npos && !(word == "since " && at + 6 < t.size() &&
                                     (t[at + 6] == 'v' || (t[at + 6] >= '0' && t[at + 6] <= '9'))))
      return true;
  }
  return false;
}

// Whether the switch `name` is known to be new: absent at the parent and
// declared at the merge (Facts::switches; "--flag" also as its field
// "flag"). Without switch facts no switch counts.
bool new_switch(const Facts& f, const std::string& name) {
  if (!f.switches_known) return false;
  std::string field;
  if (name.starts_with("--")) {
    field = name.substr(2);
    std::replace(field.begin(), field.end(), '-', '_');
  }
  for (const auto& s : f.switches)
    if (s.name == name || (!field.empty() && s.name == field))
      return !s.existed_at_parent && !s.before.exists && s.after.exists;
  return false;
}

// One lesson found at a place of a region: a guard, a replacement, a comment...
struct Item {
  std::string reason;
  double points = 0;
  std::int32_t first = 0, last = 0;  // new-file lines
  bool argued = false;               // an argued comment or a guard with a fallback
};

bool inside(const FocusRegion& r, const std::string& path, std::int32_t line) {
  return path == r.path && line >= r.start_line - 1 && line <= r.end_line + 1;
}

bool contains(const std::vector<std::string>& v, std::string_view s) {
  return std::any_of(v.begin(), v.end(), [&](const std::string& x) { return x == s; });
}

// A region that is mechanical bulk: a model port, a dropped-in file, data or moved code.
bool bulk_region(const Change& change, const Facts& facts, const FocusRegion& r) {
  if (contains(r.reasons, "repetitive data") || contains(r.reasons, "moved code")) return true;
  for (const auto& f : change.files) {
    if (f.path != r.path || f.status != FileStatus::kAdded) continue;
    return role_of(facts, f.path) == FileRole::kModel || f.additions >= w::kLargeAddedFile;
  }
  return false;
}

// What a replacement brings in: the word pieces of the new line that the old
// one lacks ("clear_full_to_swa_mapping"), so the same edit made in five
// places counts once.
std::string brought_in(const Replacement& r) {
  auto words = [](std::string_view s) {
    std::set<std::string> out;
    std::string cur;
    for (char c : s) {
      if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_') {
        cur += c;
      } else if (!cur.empty()) {
        out.insert(cur);
        cur.clear();
      }
    }
    if (!cur.empty()) out.insert(cur);
    return out;
  };
  const auto a = words(r.old_text), b = words(r.new_text);
  std::string key;
  for (const auto& x : b)
    if (!a.contains(x)) key += x + " ";
  return key.empty() ? r.new_text : key;
}

int words(std::string_view text) {
  int n = 0;
  bool in = false;
  for (char c : text) {
    const bool letter = c != ' ' && c != '\n' && c != '\t';
    n += letter && !in;
    in = letter;
  }
  return n;
}

// The prose of a comment or docstring before its parameter documentation
// (":param x: ...", "Args:", "@param"): what it says about the code beyond
// naming its inputs.
std::string_view prose_part(std::string_view text) {
  size_t cut = text.size();
  for (std::string_view m : {":param", ":type", ":return", ":rtype", ":raises", "@param", "@return",
                             "Args:", "Arguments:", "Parameters\n", "Returns:"})
    if (const size_t p = text.find(m); p != std::string_view::npos) cut = std::min(cut, p);
  return text.substr(0, cut);
}

// The lessons of focus region `index`, in line order.
std::vector<Item> region_lessons(const Facts& facts, size_t index, std::set<std::string>& edits) {
  const FocusRegion& r = facts.focus[index];
  std::vector<Item> items;
  auto at = [&](std::string reason, double points, std::int32_t first, std::int32_t last,
                bool argued = false) {
    items.push_back({std::move(reason), points, first, last, argued});
  };
  for (const auto& s : facts.signals) {
    if (!s.added || !inside(r, s.at.path, s.at.line)) continue;
    const std::string& k = s.kind;
    // A checked fallback (a new path beside the code that ran before) is an
    // argued decision; a mention of one is not. A switch counts only once it
    // is known to be new (the context resolver's switch facts): an env var
    // read on an added line may have existed for months.
    if (k == "fallback")
      at("a new path beside the old code", w::kFallback, s.at.line, s.at.line, true);
    else if (k == "guard" || k == "raise" || k == "early_return" || k == "try" || k == "handler")
      at("a new guard", w::kGuard, s.at.line, s.at.line);
    else if (k == "concurrency")
      at("concurrency", w::kConcurrency, s.at.line, s.at.line);
    else if (k == "dtype_branch" || k == "device_branch" || k == "platform_branch")
      at("dtype/device branches", w::kBranch, s.at.line, s.at.line);
    else if ((k == "env_var" || k == "cli_flag") && new_switch(facts, s.detail))
      at("a switch left to the user", w::kSwitch, s.at.line, s.at.line);
    else if (k == "numeric_constant")
      at("tuned constants", w::kConstant, s.at.line, s.at.line);
  }
  for (const auto& p : facts.replacements)
    if (p.focus == static_cast<std::int32_t>(index) && edits.insert(brought_in(p)).second)
      at("a line replaced by another", w::kReplacement, p.new_line, p.new_line);
  for (const auto& n : facts.rationale) {
    if (n.focus != static_cast<std::int32_t>(index)) continue;
    if (argues(n.text))
      at("a comment argues the decision",
         w::kArguedComment +
             std::min(w::kArguedLength, static_cast<double>(words(n.text)) / w::kWordsPerPoint),
         n.start_line, n.end_line, words(n.text) >= w::kArguedWords);
    else if (prose_part(n.text).size() == n.text.size() ||  // no parameter list
             words(prose_part(n.text)) >= kExplainingWords)
      at("comments explain the code", n.kind == "docstring" ? w::kDocstring : w::kPlainComment,
         n.start_line, n.end_line);
  }
  for (const auto& d : facts.definitions) {
    if (!inside(r, d.at.path, d.at.line)) continue;
    if (d.change == "added" && (d.kind == "class" || d.kind == "struct" || d.kind == "trait"))
      // Said as it is: a subclass that only sets defaults is no "abstraction".
      at("a new type", w::kAbstraction, d.at.line, d.at.line);
    else if (d.change == "signature_changed")
      at("a signature changed", w::kSignature, d.at.line, d.at.line);
  }
  std::stable_sort(items.begin(), items.end(),
                   [](const Item& a, const Item& b) { return a.first < b.first; });
  return items;
}

}  // namespace

Score score_insight(const Change& change, const Facts& facts, const CodeStats& stats,
                    std::vector<std::string>& argued) {
  argued.clear();
  Score s{1, {}};
  // The regions a reader reads: the first few of code files.
  std::vector<size_t> read;
  double best = 0;
  for (size_t i = 0; i < facts.focus.size() && read.size() < w::kReadRegions; ++i) {
    const FocusRegion& r = facts.focus[i];
    if (!is_code(role_of(facts, r.path))) continue;
    if (read.empty()) best = r.score;
    if (r.score < best * w::kMinRegionShare) break;
    read.push_back(i);
  }
  if (read.empty() || stats.code_lines == 0) {
    s.value = 1;
    s.reasons.push_back("no code on the main path (docs, tests, configs or CI only)");
    return s;
  }
  // Lessons within kDecisionGap lines of each other are one decision (a
  // comment, the branch it explains and the line it replaced): the decision
  // is worth its best lesson and a little of the rest. Decisions then count
  // with diminishing returns, the best first.
  std::set<std::string> edits;
  // reason → places and points, for the reasons (the weightiest first)
  std::map<std::string, std::pair<int, double>> places;
  std::vector<double> decisions;
  int lines = 0;
  for (size_t i : read) {
    const FocusRegion& r = facts.focus[i];
    const double rate = bulk_region(change, facts, r) ? w::kBulkRate : 1.0;
    lines += std::max(r.changed_lines, r.end_line - r.start_line + 1);
    const std::vector<Item> items = region_lessons(facts, i, edits);
    double best = 0, sum = 0;
    std::int32_t last = 0;
    auto close = [&] {
      if (sum > 0) decisions.push_back(rate * (best + w::kRestOfDecision * (sum - best)));
      best = sum = 0;
    };
    for (size_t k = 0; k < items.size(); ++k) {
      const Item& it = items[k];
      if (k > 0 && it.first - last > w::kDecisionGap) close();
      best = std::max(best, it.points);
      sum += it.points;
      last = std::max(last, it.last);
      ++places[it.reason].first;
      places[it.reason].second += it.points * rate;
      if (it.argued && rate == 1.0) {
        std::string place = fmt::format("{}:{}", r.path, it.first);
        if (std::find(argued.begin(), argued.end(), place) == argued.end())
          argued.push_back(std::move(place));
      }
    }
    close();
  }
  if (stats.code_lines <= w::kSmallChangeLines && stats.perf_claim) {
    decisions.push_back(w::kSmallChangeBigEffect);
    auto& small =
        places[fmt::format("small change ({}), large effect", plural(stats.code_lines, "line"))];
    ++small.first;
    small.second += w::kSmallChangeBigEffect;
  }
  std::sort(decisions.begin(), decisions.end(), std::greater<>());
  double total = 0, factor = 1;
  for (double d : decisions) {
    total += d * factor;
    factor *= w::kRepeatFactor;
  }
  total = std::min(total, w::kMaxLessons);
  const double cost = std::max(1.0, std::log2(1.0 + lines / w::kLinesPerUnit));
  s.raw = total / cost;
  s.value = scale_level(s.raw, score_fitted::kInsightCuts);
  // A guide shows the first few reasons: the ones that weighed most, then by
  // name so the order is stable.
  std::vector<std::pair<std::string, std::pair<int, double>>> ranked(places.begin(), places.end());
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto& a, const auto& b) { return a.second.second > b.second.second; });
  for (const auto& [reason, np] : ranked)
    s.reasons.push_back(np.first > 1 ? fmt::format("{} ({} places)", reason, np.first) : reason);
  s.reasons.push_back(fmt::format("{} to read in {}", plural(lines, "line"),
                                  plural(static_cast<std::int64_t>(read.size()), "region")));
  if (stats.code_lines > 0 && stats.bulk_lines >= w::kBulkShare * stats.code_lines &&
      s.value > w::kBulkCap) {
    s.value = w::kBulkCap;
    s.reasons.push_back("mostly mechanical bulk (model ports, dropped-in or generated code)");
  }
  s.value = std::clamp(s.value, 1, 10);
  return s;
}

}  // namespace mergelens::score_internal
