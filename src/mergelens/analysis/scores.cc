// score_change: the importance and insight scores (importance.cc,
// insight.cc; weights in score_weights.h) and the verdict they give.
#include "mergelens/analysis/scores.h"

#include <algorithm>

#include <fmt/format.h>

#include "mergelens/analysis/score_parts.h"

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

CodeStats code_stats(const Change& change, const Facts& facts) {
  CodeStats st;
  std::set<std::string> skimmed;
  for (const auto& s : facts.skim) skimmed.insert(s.path);
  for (const auto& f : change.files) {
    const FileRole r = role_of(facts, f.path);
    if (!is_code(r) || skimmed.count(f.path)) continue;
    const int lines = f.additions + f.deletions;
    st.code_lines += lines;
    ++st.code_files;
    st.kernel |= r == FileRole::kKernel && lines > 0;
    st.modules.insert(module_of(f.path));
    if (f.status == FileStatus::kAdded && (r == FileRole::kModel || f.additions >= 1500))
      st.bulk_lines += lines;
  }
  st.perf_claim = std::any_of(facts.numbers.begin(), facts.numbers.end(), [](const auto& n) {
    return n.kind == "speedup" || n.kind == "throughput" || n.kind == "latency" ||
           n.kind == "memory";
  });
  return st;
}

}  // namespace score_internal

void score_change(const Change& change, Facts& facts, const VerdictThresholds& t) {
  using namespace score_internal;
  const CodeStats st = code_stats(change, facts);
  Score imp = score_importance(change, facts, st);
  Score ins = score_insight(change, facts, st);

  // Caps: changes with no code on the main path cannot rank high.
  if (!facts.cleanup.empty()) {
    imp = {1, {fmt::format("clean-up ({})", facts.cleanup)}};
    ins = {1, {"no design decision to learn from"}};
  } else if (st.code_lines == 0) {
    imp.value = std::min(imp.value + 1, 3);
    imp.reasons.push_back("no code on the main path (docs, tests, configs or CI only)");
    ins.value = std::min(ins.value, 2);
  }
  imp.value = std::clamp(imp.value, 1, 10);
  ins.value = std::clamp(ins.value, 1, 10);
  facts.importance = std::move(imp);
  facts.insight = std::move(ins);

  // Worth reading: a high total, or a lesson on a path that matters. A
  // worthwhile change spread over many code files becomes a selective read
  // naming the files that carry it.
  const int imp_v = facts.importance.value, ins_v = facts.insight.value, sum = imp_v + ins_v;
  const bool worth = (sum >= t.close_sum && ins_v >= t.close_insight) ||
                     (ins_v >= t.dense_insight && imp_v >= t.dense_importance);
  if (!facts.cleanup.empty() || sum < t.skim_sum)
    facts.verdict = Verdict::kSkip;
  else if (worth)
    facts.verdict =
        st.code_files <= t.close_max_files ? Verdict::kCloseRead : Verdict::kSelectiveRead;
  else if (sum >= t.selective_sum)
    facts.verdict = Verdict::kSelectiveRead;
  else
    facts.verdict = Verdict::kSkim;

  facts.verdict_scope.clear();
  if (facts.verdict == Verdict::kCloseRead || facts.verdict == Verdict::kSelectiveRead) {
    const double best = facts.focus.empty() ? 0 : facts.focus.front().score;
    for (const auto& r : facts.focus) {
      if (facts.verdict_scope.size() >= 3 || r.score < best * 0.5) break;
      if (std::find(facts.verdict_scope.begin(), facts.verdict_scope.end(), r.path) ==
          facts.verdict_scope.end())
        facts.verdict_scope.push_back(r.path);
    }
  }
}

}  // namespace mergelens
