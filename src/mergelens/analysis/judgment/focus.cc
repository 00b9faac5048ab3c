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
//             little (role_weight).
// explained = +kExplainedBonus for a segment with an added comment or
//             docstring that says why (Facts::rationale): the author pointed
//             there. Neutral on reviewers' lines in bench/attention; it puts
//             the place the code explains before plain edits of its size.
// moved     = 0.3 for code that only moved.
// skim      = 0.15 for files the clean-up detector put on the skim list.
// reviewed  = +kReviewBonus when reviewers left line comments within
//             kReviewSlack lines of the segment (GitHub source only): the
//             places reviewers argued about are the ones a reader should see.
// data      = 0.3 for repetitive hunks (10+ added lines of at most a fifth as
//             many distinct shapes: tables, enum lists, generated entries).
//
// Tried on bench/attention and left out: a bonus for added imports (its one
// gain there was a comment on a licence header beside an import, and it put
// single import lines before explained changes), and raising a role toward 1
// by its share of the change (no change there; it put a 39-line JSON table
// before an explained kernel change).
//
// Hunks of one file closer than kMergeGap lines become one region; a region's
// score is the sum of its hunks'.
//
// Places. Regions under a fifth of the best score are dropped, except that
// the first kMinPlaces places are always filled when the change has that
// many regions: a 4-hunk PR whose kernel dwarfs its import block used to get
// one place, and the reviewer's comment sat on the import (bench/attention,
// vllm-ascend #121). If the third place is a further region of a file the
// first two already show, the best region of another file takes it when it
// scores at least kOtherFileShare of it: a reader sees the change cross a
// file boundary (the Python wrapper beside its kernel, flashinfer #422).
// Together: hit@3 0.759 -> 0.796 on vllm-ascend (baseline 0.778), 0.442 ->
// 0.488 on flashinfer (baseline 0.558), and on llm-compressor, gathered after
// these were chosen, 0.685 -> 0.741 (baseline 0.704).
#include "mergelens/analysis/judgment/focus.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

namespace mergelens {
namespace {

constexpr std::int32_t kMergeGap = 8;
constexpr double kReviewBonus = 2.0;
constexpr double kExplainedBonus = 1.0;
constexpr std::int32_t kReviewSlack = 3;
constexpr size_t kMaxRegions = 8;
constexpr size_t kMinPlaces = 3;
constexpr double kOtherFileShare = 0.7;

struct Bonus {
  const char* kind;
  double weight;
  const char* reason;
};

constexpr Bonus kSignalBonus[] = {
    {"fallback", 2.5, "new path beside the old code"},
    // Neither is checked to keep the old path; both still mark a decision.
    {"handler", 2.5, "handled exception"},
    {"fallback_mention", 2.5, "fallback"},
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

// A run of changed lines inside one hunk (context gaps of up to kRunGap lines
// keep a run going), or a piece of a long run cut at a definition.
struct Segment {
  size_t hunk_fact = 0;             // index into Facts::hunks
  int group = 0;                    // pieces of one cut run share a group and never merge
  std::int32_t start = 0, end = 0;  // new-file lines
  std::int32_t added = 0, removed = 0;
  std::string symbol;
  std::set<std::string> shapes;
  double score = 0;
  std::vector<std::string> reasons;
};

constexpr int kRunGap = 2;
// Runs with more added lines are cut at definitions. Below this a new file is
// one place to read: on both development sets of bench/attention, cutting at
// 400 lines put reviewers' comments outside the top three more often than
// keeping files of up to 1,000 lines whole (hit@3 0.722 -> 0.759 on
// vllm-ascend, 0.395 -> 0.442 on flashinfer) without raising the median lines
// a reader reads in the top three.
constexpr std::int32_t kSplitAbove = 1000;

bool repetitive(const Segment& s) {
  return s.added >= 10 && static_cast<int>(s.shapes.size()) * 5 <= s.added;
}

// Runs of changed lines of one hunk, in order.
std::vector<Segment> runs_of(const Hunk& h, size_t hunk_fact, int& group) {
  std::vector<Segment> out;
  Segment cur;
  bool open = false;
  int gap = 0;
  std::int32_t pos = h.new_start;  // new-file position of the next line
  for (const auto& l : h.lines) {
    if (l.origin == '+' || l.origin == '-') {
      const std::int32_t at = l.origin == '+' ? l.new_no : std::max<std::int32_t>(pos, 1);
      if (!open) {
        cur = Segment{};
        cur.hunk_fact = hunk_fact;
        cur.group = ++group;
        cur.start = at;
        open = true;
      }
      cur.end = std::max(cur.end, at);
      if (l.origin == '+') {
        ++cur.added;
        cur.shapes.insert(shape_of(l.text));
      } else {
        ++cur.removed;
      }
      gap = 0;
    } else if (open && l.origin == ' ' && ++gap > kRunGap) {
      out.push_back(std::move(cur));
      open = false;
    }
    if (l.origin == '+' || l.origin == ' ') pos = l.new_no + 1;
  }
  if (open) out.push_back(std::move(cur));
  return out;
}

// Cuts a long run at the definitions that start inside it, so a new 300-line
// file yields one region per function or class instead of one blob.
void split_at_definitions(const Hunk& h, const std::string& path, const Facts& facts,
                          std::vector<Segment>& segs) {
  std::vector<Segment> out;
  for (auto& seg : segs) {
    std::vector<std::pair<std::int32_t, std::string>> cuts;
    if (seg.added > kSplitAbove)
      for (const auto& d : facts.definitions)
        if (d.at.path == path && d.change != "removed" && d.at.line > seg.start &&
            d.at.line <= seg.end)
          cuts.emplace_back(d.at.line, d.name);
    if (cuts.empty()) {
      out.push_back(std::move(seg));
      continue;
    }
    std::sort(cuts.begin(), cuts.end());
    std::vector<Segment> pieces(cuts.size() + 1);
    for (size_t i = 0; i < pieces.size(); ++i) {
      pieces[i].hunk_fact = seg.hunk_fact;
      pieces[i].group = seg.group;
      pieces[i].start = i == 0 ? seg.start : cuts[i - 1].first;
      pieces[i].end = i < cuts.size() ? cuts[i].first - 1 : seg.end;
      pieces[i].symbol = i == 0 ? seg.symbol : cuts[i - 1].second;
    }
    for (const auto& l : h.lines) {
      if (l.origin != '+' || l.new_no < seg.start || l.new_no > seg.end) continue;
      size_t i = 0;
      while (i < cuts.size() && l.new_no >= cuts[i].first) ++i;
      ++pieces[i].added;
      pieces[i].shapes.insert(shape_of(l.text));
    }
    pieces[0].removed = seg.removed;
    for (auto& p : pieces)
      if (p.added > 0 || p.removed > 0) out.push_back(std::move(p));
  }
  segs = std::move(out);
}

// The definition holding most of a region's added lines: its added code
// lines, else all its added lines, each counted for its own symbol and for
// every listed symbol enclosing it (`A` holds `A.f`). The deepest name
// holding two thirds of them names the region; none does when they sit at
// file level or spread over several definitions (a hunk's first changed
// line, or git's header, names the definition before an added one). nullopt
// when the region adds nothing or its hunks carry no spans (no outline): a
// removed line's place in the new file says little of what held it, so a
// removal keeps the definition the hunk names.
std::optional<std::string> majority_symbol(const std::vector<const HunkFacts*>& hunks,
                                           const FocusRegion& r) {
  std::vector<const SymbolSpan*> in;
  for (const HunkFacts* h : hunks)
    for (const SymbolSpan& s : h->spans)
      if (s.end >= r.start_line && s.start <= r.end_line) in.push_back(&s);
  if (in.empty()) return std::nullopt;
  for (int pass = 0; pass < 2; ++pass) {
    std::map<std::string, std::int32_t> own;
    std::int32_t total = 0;
    for (const SymbolSpan* s : in)
      if (s->added && (pass == 1 || s->code)) {
        own[s->symbol] += s->lines;
        total += s->lines;
      }
    if (total == 0) continue;
    std::string best;
    for (const auto& [name, n] : own) {
      if (name.empty()) continue;
      std::int32_t held = 0;
      for (const auto& [inner, m] : own)
        if (inner == name ||
            (inner.starts_with(name) &&
             (inner.compare(name.size(), 1, ".") == 0 || inner.compare(name.size(), 2, "::") == 0)))
          held += m;
      if (held * 3 >= total * 2 && name.size() > best.size()) best = name;
    }
    return best;
  }
  return std::nullopt;
}

// Whether qualified name `inner` is `outer` or nested in it ("A.f" in "A").
bool within(std::string_view inner, std::string_view outer) {
  if (!inner.starts_with(outer)) return false;
  const std::string_view rest = inner.substr(outer.size());
  return rest.empty() || rest.starts_with(".") || rest.starts_with("::");
}

// The longest qualified prefix of two names, cut at "." or "::".
std::string common_name(std::string_view a, std::string_view b) {
  auto boundary = [](std::string_view x, size_t at) {
    return at == x.size() || x.substr(at).starts_with(".") || x.substr(at).starts_with("::");
  };
  size_t n = 0;
  while (n < a.size() && n < b.size() && a[n] == b[n]) ++n;
  while (n > 0 && !(boundary(a, n) && boundary(b, n))) --n;
  return std::string(a.substr(0, n));
}

// Keeps a region's name true of its whole range. A name that does not hold
// every changed code line of the region (added and removed, each under the
// definition that held it) would claim the range lies inside it ("lines
// 295–337 get_parallel_op" when get_parallel_op starts at 321 and the item
// asks about a helper removed above it). Then the region is named for the
// deepest definition holding all of them (the class of two methods), or,
// when none does, its range is clipped to the named definition's changed
// lines (their count recounted); a region whose lines have no name keeps its
// range unnamed; a clipped range keeps the comment lines right above the
// definition (its doc comment). Regions without spans (no outline) are left
// as they are.
void keep_name_true(const std::vector<const HunkFacts*>& hunks, FocusRegion& r) {
  if (r.symbol.empty()) return;
  std::vector<const SymbolSpan*> in;
  for (const HunkFacts* h : hunks)
    for (const SymbolSpan& s : h->spans)
      if (s.end >= r.start_line && s.start <= r.end_line) in.push_back(&s);
  const bool any_code =
      std::any_of(in.begin(), in.end(), [](const SymbolSpan* s) { return s->code; });
  std::optional<std::string> common;
  bool held = true;
  for (const SymbolSpan* s : in) {
    if (any_code && !s->code) continue;
    held = held && within(s->symbol, r.symbol);
    common = common ? common_name(*common, s->symbol) : s->symbol;
  }
  if (in.empty() || held) return;
  if (common && !common->empty()) {
    r.symbol = *common;
    return;
  }
  std::int32_t start = INT32_MAX, end = 0, lines = 0;
  for (const SymbolSpan* s : in)
    if (within(s->symbol, r.symbol)) {
      start = std::min(start, s->start);
      end = std::max(end, s->end);
    }
  if (start > end) {  // nothing of it in range: name nothing
    r.symbol.clear();
    return;
  }
  // The comment (or blank) lines right above it go with it: its doc comment.
  for (bool grew = true; grew;) {
    grew = false;
    for (const SymbolSpan* s : in)
      if (!s->code && s->start < start && s->end >= start - 1) {
        start = s->start;
        grew = true;
      }
  }
  for (const SymbolSpan* s : in)
    if (s->start >= start && s->end <= end) lines += s->lines;
  r.start_line = std::max(r.start_line, start);
  r.end_line = std::min(r.end_line, end);
  r.changed_lines = lines;
}

// Regions come sorted best first. When the third shares a file with the
// first or second, the best region of a third file moves up to third place if
// it scores at least kOtherFileShare of the one it displaces.
void prefer_another_file_third(std::vector<FocusRegion>& regions) {
  if (regions.size() <= 3) return;
  auto shown = [&](const FocusRegion& r) {
    return r.path == regions[0].path || r.path == regions[1].path;
  };
  if (!shown(regions[2])) return;
  auto other = std::find_if(regions.begin() + 3, regions.end(),
                            [&](const FocusRegion& r) { return !shown(r); });
  if (other == regions.end() || other->score < kOtherFileShare * regions[2].score) return;
  std::rotate(regions.begin() + 2, other, other + 1);
}

}  // namespace

void rank_focus(const Change& change, Facts& facts) {
  std::unordered_map<std::string, const SkimItem*> skim;
  for (const auto& sk : facts.skim) skim[sk.path] = &sk;

  std::vector<Segment> segments;
  int group = 0;
  for (size_t hi = 0; hi < facts.hunks.size(); ++hi) {
    HunkFacts& h = facts.hunks[hi];
    h.score = 0;
    h.reasons.clear();
    if (h.file >= change.files.size() || h.hunk >= change.files[h.file].hunks.size()) continue;
    const FileChange& f = change.files[h.file];
    const Hunk& hunk = f.hunks[h.hunk];
    std::vector<Segment> segs = runs_of(hunk, hi, group);
    for (auto& sg : segs) sg.symbol = h.symbol;
    // Only very large new files are cut: there one hunk is the whole file. In
    // edited files a hunk is already what the author changed, and keeping
    // hunks whole matches where reviewers comment better (bench/attention:
    // cutting every run over 40 lines at definitions lowered hit@3 from 0.76
    // to 0.63).
    if (f.status == FileStatus::kAdded) split_at_definitions(hunk, f.path, facts, segs);

    auto role_it = facts.roles.find(f.path);
    const FileRole role = role_it == facts.roles.end() ? FileRole::kCore : role_it->second;
    for (auto& sg : segs) {
      const double size = std::log2(1.0 + sg.added + 0.5 * sg.removed);
      double bonus = 0;
      std::set<std::string> seen;
      auto inside = [&](const Place& p) {
        return p.path == f.path && p.line >= sg.start - 1 && p.line <= sg.end + 1;
      };
      for (const auto& sig : facts.signals) {
        if (!inside(sig.at) || !seen.insert(sig.kind).second) continue;
        for (const auto& b : kSignalBonus)
          if (sig.kind == b.kind) {
            bonus += sig.added ? b.weight : b.weight * 0.5;
            sg.reasons.push_back(sig.detail.empty() ? b.reason
                                                    : fmt::format("{} ({})", b.reason, sig.detail));
          }
      }
      for (const auto& d : facts.definitions) {
        if (!inside(d.at)) continue;
        if (d.change == "signature_changed") {
          bonus += 1.5;
          sg.reasons.push_back(fmt::format("signature of {} changed", d.name));
        } else if (d.change == "added" && seen.insert("def:" + d.name).second && seen.size() < 12) {
          bonus += 0.5;
          sg.reasons.push_back(fmt::format("new {} {}", d.kind, d.name));
        }
      }
      bonus = std::min(bonus, 8.0);  // many small signals do not beat one strong place
      const auto discussed = std::count_if(
          change.review_comments.begin(), change.review_comments.end(),
          [&](const ReviewComment& c) {
            const std::int32_t at = c.line ? c.line : c.original_line;
            return c.path == f.path && at >= sg.start - kReviewSlack && at <= sg.end + kReviewSlack;
          });
      const bool explained =
          std::any_of(facts.rationale.begin(), facts.rationale.end(), [&](const RationaleNote& n) {
            return n.path == f.path && n.start_line <= sg.end + 1 && n.end_line >= sg.start - 1;
          });
      if (explained) {
        bonus += kExplainedBonus;
        sg.reasons.push_back("an added comment explains it");
      }
      if (discussed > 0) {
        bonus += kReviewBonus;
        sg.reasons.push_back(fmt::format("reviewers commented ({})", discussed));
      }
      double score = (size + bonus) * role_weight(role);
      if (role != FileRole::kCore && role != FileRole::kKernel && role != FileRole::kModel)
        sg.reasons.push_back(fmt::format("{} file", to_string(role)));
      if (repetitive(sg)) {
        score *= 0.3;
        sg.reasons.push_back("repetitive data");
      }
      if (h.moved) {
        score *= 0.3;
        sg.reasons.push_back("moved code");
      }
      if (auto it = skim.find(f.path); it != skim.end()) {
        score *= 0.15;
        sg.reasons.push_back(it->second->reason);
      }
      if (bonus == 0 && !h.moved)
        sg.reasons.insert(sg.reasons.begin(),
                          fmt::format("{} changed lines", sg.added + sg.removed));
      sg.score = score;
      h.score += score;
      for (const auto& why : sg.reasons)
        if (std::find(h.reasons.begin(), h.reasons.end(), why) == h.reasons.end())
          h.reasons.push_back(why);
    }
    for (auto& sg : segs) segments.push_back(std::move(sg));
  }

  // Merge nearby segments of a file into regions (pieces of one cut run stay apart).
  std::sort(segments.begin(), segments.end(), [&](const Segment& a, const Segment& b) {
    const size_t fa = facts.hunks[a.hunk_fact].file, fb = facts.hunks[b.hunk_fact].file;
    return fa != fb ? fa < fb : a.start < b.start;
  });
  std::vector<FocusRegion> regions;
  size_t last_file = SIZE_MAX;
  int last_group = -1;
  for (const Segment& sg : segments) {
    const size_t file = facts.hunks[sg.hunk_fact].file;
    if (!regions.empty() && file == last_file && sg.group != last_group &&
        sg.start - regions.back().end_line <= kMergeGap) {
      FocusRegion& r = regions.back();
      r.end_line = std::max(r.end_line, sg.end);
      r.score += sg.score;
      r.changed_lines += sg.added + sg.removed;
      for (const auto& why : sg.reasons)
        if (std::find(r.reasons.begin(), r.reasons.end(), why) == r.reasons.end())
          r.reasons.push_back(why);
      if (r.symbol.empty()) r.symbol = sg.symbol;
      last_group = sg.group;
      continue;
    }
    FocusRegion r;
    r.path = change.files[file].path;
    r.start_line = sg.start;
    r.end_line = std::max(sg.start, sg.end);
    r.symbol = sg.symbol;
    r.score = sg.score;
    r.reasons = sg.reasons;
    r.changed_lines = sg.added + sg.removed;
    regions.push_back(std::move(r));
    last_file = file;
    last_group = sg.group;
  }
  std::map<std::string, std::vector<const HunkFacts*>> hunks_of;
  for (const HunkFacts& h : facts.hunks)
    if (h.file < change.files.size()) hunks_of[change.files[h.file].path].push_back(&h);
  for (FocusRegion& r : regions) {
    if (auto name = majority_symbol(hunks_of[r.path], r)) r.symbol = std::move(*name);
    keep_name_true(hunks_of[r.path], r);
  }
  std::stable_sort(regions.begin(), regions.end(),
                   [](const FocusRegion& a, const FocusRegion& b) { return a.score > b.score; });
  prefer_another_file_third(regions);
  facts.focus.clear();
  facts.lines_worth_reading = 0;
  if (regions.empty() || regions.front().score <= 0) return;
  const double best = regions.front().score;
  for (auto& r : regions) {
    if (facts.focus.size() >= kMaxRegions) break;
    if (r.score < best * 0.2 && facts.focus.size() >= kMinPlaces) break;
    r.score = std::round(r.score * 100) / 100;
    facts.focus.push_back(std::move(r));
  }
  for (size_t i = 0; i < facts.focus.size() && i < 3; ++i)
    if (facts.focus[i].score >= best * 0.5 - 0.01)
      facts.lines_worth_reading += facts.focus[i].changed_lines;
}

}  // namespace mergelens
