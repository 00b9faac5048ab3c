// Importance = reach: how much of the running system and its users a change
// touches. Insight = how much a reader learns: a reusable decision is visible.
// Both start low and earn points from facts; every point carries its reason,
// so a guide can argue the score ("importance 6: meaningful optimisation,
// narrow reach").
#include "mergelens/analysis/scores.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

namespace mergelens {
namespace {

bool is_code(FileRole r) {
  return r == FileRole::kCore || r == FileRole::kKernel || r == FileRole::kModel;
}

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

bool has_signal(const Facts& f, std::initializer_list<std::string_view> kinds) {
  return std::any_of(f.signals.begin(), f.signals.end(), [&](const Signal& s) {
    return s.added && std::find(kinds.begin(), kinds.end(), s.kind) != kinds.end();
  });
}

std::string first_detail(const Facts& f, std::string_view kind) {
  for (const auto& s : f.signals)
    if (s.added && s.kind == kind) return s.detail;
  return {};
}

void add(Score& s, int points, std::string reason) {
  s.value += points;
  s.reasons.push_back(std::move(reason));
}

}  // namespace

void score_change(const Change& change, Facts& facts, const VerdictThresholds& t) {
  std::set<std::string> skimmed;
  for (const auto& s : facts.skim) skimmed.insert(s.path);
  int code_lines = 0;
  bool kernel = false;
  std::set<std::string> modules;
  for (const auto& f : change.files) {
    auto it = facts.roles.find(f.path);
    const FileRole r = it == facts.roles.end() ? FileRole::kCore : it->second;
    if (!is_code(r) || skimmed.count(f.path)) continue;
    code_lines += f.additions + f.deletions;
    kernel |= r == FileRole::kKernel && f.additions + f.deletions > 0;
    modules.insert(module_of(f.path));
  }
  const bool perf_claim =
      std::any_of(facts.numbers.begin(), facts.numbers.end(), [](const auto& n) {
        return n.kind == "speedup" || n.kind == "throughput" || n.kind == "latency" ||
               n.kind == "memory";
      });
  const bool reverts = std::any_of(facts.references.begin(), facts.references.end(),
                                   [](const Reference& r) { return r.relation == "reverts"; });
  const bool public_api =
      has_signal(facts, {"public_api"}) ||
      std::any_of(facts.definitions.begin(), facts.definitions.end(),
                  [](const Definition& d) { return d.change == "signature_changed"; });
  const bool new_abstraction =
      std::any_of(facts.definitions.begin(), facts.definitions.end(), [&](const Definition& d) {
        auto it = facts.roles.find(d.at.path);
        return d.change == "added" &&
               (d.kind == "class" || d.kind == "struct" || d.kind == "trait") &&
               (it == facts.roles.end() || is_code(it->second));
      });

  const bool bugfix = std::any_of(facts.tags.begin(), facts.tags.end(),
                                  [](const Tag& t) { return t.name == "bugfix"; });
  const Reference* fixes = nullptr;
  for (const auto& r : facts.references)
    if ((r.relation == "fixes" || r.relation == "follow_up") && r.repo.empty() && !fixes)
      fixes = &r;

  Score imp{code_lines > 0 ? 2 : 1, {}};
  if (code_lines >= 20) add(imp, 1, fmt::format("{} lines of code changed", code_lines));
  if (code_lines >= 100) imp.value += 1;
  if (code_lines >= 400) imp.value += 1;
  if (modules.size() >= 2) add(imp, 1, fmt::format("{} modules touched", modules.size()));
  if (modules.size() >= 4) imp.value += 1;
  if (kernel) add(imp, 1, "kernel code");
  if (public_api) add(imp, 1, "public API changes");
  if (has_signal(facts, {"env_var", "cli_flag"})) {
    std::string what = first_detail(facts, "cli_flag");
    if (what.empty()) what = first_detail(facts, "env_var");
    add(imp, 1, fmt::format("user-visible switch {}", what));
  }
  if (perf_claim) add(imp, 1, "performance numbers claimed");
  if (bugfix && code_lines > 0) {
    add(imp, 1, "fixes a defect in code");
    if (fixes) add(imp, 1, fmt::format("fixes a reported problem ({})", fixes->text));
  }
  if (has_signal(facts, {"concurrency", "dtype_branch", "device_branch"}))
    add(imp, 1, "touches correctness-critical paths (concurrency, dtype or device)");
  if (reverts) add(imp, 1, "reverts an earlier change");
  // History: a change later reverted or fixed mattered (it broke something).
  for (const auto& b : facts.referenced_by) {
    if (b.relation == "reverts") {
      add(imp, 1, fmt::format("reverted later by {}", b.ref));
      break;
    }
  }
  for (const auto& b : facts.referenced_by) {
    if (b.relation == "fixes" || b.relation == "follow_up") {
      add(imp, 1, fmt::format("needed a follow-up ({})", b.ref));
      break;
    }
  }

  Score ins{1, {}};
  if (has_signal(facts, {"fallback"}))
    add(ins, 2, "guard with fallback");
  else if (has_signal(facts, {"guard", "raise", "assert", "early_return", "try"}))
    add(ins, 1, "new guards");
  if (has_signal(facts, {"concurrency"})) add(ins, 2, "concurrency");
  if (has_signal(facts, {"dtype_branch", "device_branch", "platform_branch"}))
    add(ins, 1, "dtype/device branches");
  if (new_abstraction) add(ins, 1, "new abstraction");
  if (kernel && code_lines >= 10) add(ins, 2, "kernel technique");
  if (code_lines > 0 && code_lines <= 40 &&
      (perf_claim || has_signal(facts, {"fallback", "concurrency"})))
    add(ins, 2, fmt::format("small change ({} lines), large effect", code_lines));
  if (has_signal(facts, {"numeric_constant"})) add(ins, 1, "tuned constants");
  if (std::any_of(facts.tests.begin(), facts.tests.end(),
                  [](const TestFact& t) { return !t.covers.empty(); }))
    add(ins, 1, "tests show the contract");

  // Caps: changes with no code on the main path cannot rank high.
  if (!facts.cleanup.empty()) {
    imp = {1, {fmt::format("clean-up ({})", facts.cleanup)}};
    ins = {1, {"no design decision to learn from"}};
  } else if (code_lines == 0) {
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
  size_t code_files = 0;
  for (const auto& f : change.files) {
    auto it = facts.roles.find(f.path);
    if ((it == facts.roles.end() || is_code(it->second)) && !skimmed.count(f.path)) ++code_files;
  }
  const bool worth = (sum >= t.close_sum && ins_v >= t.close_insight) ||
                     (ins_v >= t.close_insight + 1 && imp_v >= 3);
  if (!facts.cleanup.empty() || sum < t.skim_sum)
    facts.verdict = Verdict::kSkip;
  else if (worth)
    facts.verdict = code_files <= t.close_max_files ? Verdict::kCloseRead : Verdict::kSelectiveRead;
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
