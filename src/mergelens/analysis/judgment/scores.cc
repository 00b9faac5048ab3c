// score_change: the importance and insight scores (importance.cc,
// insight.cc; hand-set weights in score_weights.h, fitted weights and the
// calibrated scale in score_fitted.h) and the verdict they give.
#include "mergelens/analysis/judgment/scores.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "mergelens/analysis/code/code_text.h"
#include "mergelens/analysis/code/language.h"
#include "mergelens/analysis/code/roles.h"
#include "mergelens/analysis/judgment/score_parts.h"
#include "mergelens/analysis/text/text_facts.h"

namespace mergelens {
namespace score_internal {

bool is_code(FileRole r) {
  return r == FileRole::kCore || r == FileRole::kKernel || r == FileRole::kModel;
}

FileRole role_of(const Facts& facts, const std::string& path) {
  auto it = facts.roles.find(path);
  return it == facts.roles.end() ? FileRole::kCore : it->second;
}

bool has_signal(const Facts& f, std::initializer_list<std::string_view> kinds) {
  return std::any_of(f.signals.begin(), f.signals.end(), [&](const Signal& s) {
    return s.added && std::find(kinds.begin(), kinds.end(), s.kind) != kinds.end();
  });
}

namespace {

// "python/sglang/srt/layers/x.py" → "python/sglang/srt/layers": the module a
// file belongs to (its folder, at most four levels deep).
std::string module_of(std::string_view path) {
  size_t cut = 0, depth = 0;
  for (size_t i = 0; i < path.size() && depth < 4; ++i)
    if (path[i] == '/') {
      cut = i;
      ++depth;
    }
  return std::string(path.substr(0, cut));
}

}  // namespace

std::set<std::string> copied_files(const Change& change) {
  std::set<std::string> out, seen;
  for (const auto& f : change.files) {
    if (f.status != FileStatus::kAdded || f.binary || f.truncated || f.hunks.empty()) continue;
    std::string key;
    for (const auto& h : f.hunks)
      for (const auto& l : h.lines) key += l.text + '\n';
    if (!seen.insert(std::move(key)).second) out.insert(f.path);
  }
  return out;
}

namespace {

// The blank and comment-only lines among a file's added and removed lines
// (0 when its hunks were capped: the counts then hold more than the hunks).
int prose_lines(const FileChange& f) {
  if (f.truncated || f.binary) return 0;
  const Language lang = detect_language(f.path);
  int n = 0;
  for (const auto& h : f.hunks)
    for (const auto& l : h.lines) {
      if (l.origin != '+' && l.origin != '-') continue;
      std::string_view t = l.text;
      while (!t.empty() && (t.front() == ' ' || t.front() == '\t')) t.remove_prefix(1);
      while (!t.empty() && (t.back() == ' ' || t.back() == '\t' || t.back() == '\r'))
        t.remove_suffix(1);
      n += t.empty() || signal_internal::is_comment_line(lang, t);
    }
  return n;
}

}  // namespace

CodeStats code_stats(const Change& change, const Facts& facts) {
  CodeStats st;
  std::set<std::string> skimmed;
  for (const auto& s : facts.skim) skimmed.insert(s.path);
  const std::set<std::string> copies = copied_files(change);
  for (const auto& f : change.files) {
    const FileRole r = role_of(facts, f.path);
    if (!is_code(r) || skimmed.count(f.path)) continue;
    if (copies.count(f.path)) {
      ++st.copies;
      continue;
    }
    const int lines = f.additions + f.deletions;
    st.code_lines += lines;
    st.prose_lines += std::min(lines, prose_lines(f));
    ++st.code_files;
    st.kernel |= r == FileRole::kKernel && lines > 0;
    st.modules.insert(module_of(f.path));
    if (f.status == FileStatus::kAdded && (r == FileRole::kModel || f.additions >= 1500))
      st.bulk_lines += lines;
  }
  // A claim, not any figure the text holds: a run time quoted to show that a
  // feature works ("completed in ~45 minutes") claims no performance; a
  // speedup, a before/after pair or a figure whose sentence says what got
  // better does, or a before/after pair (claims_performance).
  st.perf_claim = claims_performance(facts.numbers);
  return st;
}

int scale_level(double raw, std::span<const double, 9> cuts) {
  return 1 + static_cast<int>(
                 std::count_if(cuts.begin(), cuts.end(), [&](double c) { return raw >= c; }));
}

namespace {

// The files of `places` ("path:line"), each once, at most three.
std::vector<std::string> files_of(const std::vector<std::string>& places) {
  std::vector<std::string> out;
  for (const auto& p : places) {
    std::string path = p.substr(0, p.rfind(':'));
    if (out.size() < 3 && std::find(out.begin(), out.end(), path) == out.end())
      out.push_back(std::move(path));
  }
  return out;
}

// The focus files that carry a read: the best regions' files, at most three.
}  // namespace
}  // namespace score_internal

std::vector<std::string> reading_scope(const Facts& facts, const Change* change) {
  // The diff of a file, to know byte-identical copies (empty without `change`).
  auto diff_of = [&](const std::string& path) {
    std::string key;
    if (!change) return key;
    for (const auto& fc : change->files)
      if (fc.path == path)
        for (const auto& h : fc.hunks)
          for (const auto& l : h.lines) key += l.origin + l.text + '\n';
    return key;
  };
  std::vector<std::string> out;
  std::set<std::string> diffs;
  const double best = facts.focus.empty() ? 0 : facts.focus.front().score;
  for (const auto& r : facts.focus) {
    if (out.size() >= 3 || r.score < best * 0.5) break;
    if (std::find(out.begin(), out.end(), r.path) != out.end()) continue;
    // A copy of a file already named is no second place to read.
    if (std::string d = diff_of(r.path); !d.empty() && !diffs.insert(std::move(d)).second) continue;
    out.push_back(r.path);
  }
  return out;
}

void score_change(const Change& change, Facts& facts, const VerdictThresholds& t) {
  using namespace score_internal;
  const CodeStats st = code_stats(change, facts);
  ScoreInputs& in = facts.score_inputs;
  in.code_lines = st.code_lines;
  Score imp = score_importance(change, facts, st, in.importance_features);
  Score ins = score_insight(change, facts, st, in.argued);

  // Caps: changes with no code on the main path cannot rank high.
  if (!facts.cleanup.empty()) {
    imp.value = 1, imp.reasons = {fmt::format("clean-up ({})", facts.cleanup)};
    ins.value = 1, ins.reasons = {"no design decision to learn from"};
    in.argued.clear();
  } else if (st.code_lines == 0) {
    imp.value = std::min(imp.value, t.no_code_importance);
    imp.reasons.push_back("no code on the main path (docs, tests, configs or CI only)");
    ins.value = std::min(ins.value, 2);
  }
  imp.value = std::clamp(imp.value, 1, 10);
  ins.value = std::clamp(ins.value, 1, 10);
  facts.importance = std::move(imp);
  facts.insight = std::move(ins);

  // How much reading pays. A small change on a path that matters with an
  // argued decision is a close read of those places however small; a dense
  // decision that generalises is a close read, or a selective read when
  // spread over many files; a clear decision worth copying, or a change the
  // release notes would list with little to learn, is a selective read
  // naming its files; the rest is skimmed, and what neither matters nor
  // teaches is skipped.
  const int imp_v = facts.importance.value, ins_v = facts.insight.value;
  facts.verdict_scope.clear();
  const bool dense = !in.argued.empty() && st.code_lines > 0 &&
                     st.code_lines <= t.dense_max_lines && imp_v >= t.dense_importance &&
                     ins_v >= t.dense_insight;
  if (!facts.cleanup.empty()) {
    facts.verdict = Verdict::kSkip;
  } else if (dense) {
    facts.verdict = Verdict::kCloseRead;
    facts.verdict_scope = files_of(in.argued);
  } else if (ins_v >= t.close_insight && st.code_lines > 0) {
    facts.verdict =
        st.code_files <= t.close_max_files ? Verdict::kCloseRead : Verdict::kSelectiveRead;
  } else if ((ins_v >= t.selective_insight && st.code_lines > 0) ||
             imp_v >= t.selective_importance) {
    facts.verdict = Verdict::kSelectiveRead;
  } else {
    facts.verdict = imp_v + ins_v <= t.skip_sum ? Verdict::kSkip : Verdict::kSkim;
  }
  // A change that removes a switch users set, or changes its default, changes
  // what every user of it gets: a selective read, never a skim or a skip.
  if ((facts.verdict == Verdict::kSkim || facts.verdict == Verdict::kSkip) &&
      facts.cleanup.empty() && st.code_lines > 0 &&
      std::any_of(facts.switches.begin(), facts.switches.end(), [](const SwitchFact& sw) {
        return !sw.unread && (sw.kind == "env" || sw.kind == "cli") &&
               (sw.change == "removed" || sw.default_changed);
      }))
    facts.verdict = Verdict::kSelectiveRead;
  // Code many modules import, changed in many files, is no skim.
  if ((facts.verdict == Verdict::kSkim || facts.verdict == Verdict::kSkip) &&
      facts.cleanup.empty() && facts.reach.known && facts.reach.direct >= t.wide_reach &&
      st.code_files >= t.wide_files)
    facts.verdict = Verdict::kSelectiveRead;
  // A change of example scripts only is read by those who copy them: worth a
  // glance (the writer names them as examples), not skipped as documentation.
  if (facts.verdict == Verdict::kSkip && facts.cleanup.empty() && !change.files.empty() &&
      std::all_of(change.files.begin(), change.files.end(), [&](const FileChange& fc) {
        auto it = facts.roles.find(fc.path);
        return it != facts.roles.end() && example_script(fc, it->second);
      }))
    facts.verdict = Verdict::kSkim;
  if (facts.verdict_scope.empty() &&
      (facts.verdict == Verdict::kCloseRead || facts.verdict == Verdict::kSelectiveRead))
    facts.verdict_scope = reading_scope(facts, &change);
}

}  // namespace mergelens
