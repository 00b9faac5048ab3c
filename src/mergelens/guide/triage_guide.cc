// What a guide takes from the day's triage (triage_guide.h).
#include "mergelens/guide/triage_guide.h"

#include <cstdlib>

#include <fmt/format.h>

#include "mergelens/analysis/judgment/scores.h"
#include "mergelens/guide/phrases.h"
#include "mergelens/guide/prose.h"
#include "mergelens/guide/validate.h"

namespace mergelens {
namespace {

// "the day's triage judged 6; the analysis 3", in `lang`.
std::string moved_reason(int triage, int analysis, std::string_view lang) {
  return lang == "zh"
             ? fmt::format("当日模型分诊判为 {}，分析为 {}", triage, analysis)
             : fmt::format("the day's triage judged {}; the analysis {}", triage, analysis);
}

// One line of a fenced section: newlines folded, the fence's word defused.
std::string line_of(std::string_view text) {
  std::string s;
  for (char c : text) s.push_back(c == '\n' || c == '\r' ? ' ' : c);
  size_t p = 0;
  while ((p = s.find("UNTRUSTED", p)) != std::string::npos) s.replace(p, 9, "untrusted");
  return s;
}

}  // namespace

const char* verdict_words(std::string_view v, std::string_view lang) {
  const bool zh = lang == "zh";
  if (v == "close_read") return zh ? "值得精读" : "close read";
  if (v == "selective_read") return zh ? "选读" : "selective read";
  if (v == "skim") return zh ? "浏览即可" : "skim";
  if (v == "skip") return zh ? "可跳过" : "skip";
  return zh ? "未判断" : "not judged";
}

std::string triage_scope(const TriageJudgment& t, std::string_view lang) {
  const std::string& own = lang == "zh" ? t.scope_zh : t.scope;
  return own.empty() ? (lang == "zh" ? t.scope : t.scope_zh) : own;
}

std::string triage_reason(const TriageJudgment& t, std::string_view lang) {
  const std::string& own = lang == "zh" ? t.reason_zh : t.reason_en;
  return own.empty() ? (lang == "zh" ? t.reason_en : t.reason_zh) : own;
}

std::string analysis_reason(const Score& s, std::string_view lang) {
  const auto& p = phrases::get(lang == "zh" ? "zh" : "en");
  std::string out;
  size_t n = 0;
  for (const auto& r : s.reasons) {
    if (n++ == 3) break;
    if (!out.empty()) out += p.semi;
    out += phrases::score_reason(r, lang == "zh" ? "zh" : "en");
  }
  return out;
}

namespace {

// The reasons of the two starting scores (each its own): a kept score the
// analysis's; a moved one the triage's reason, or, the second of two moved
// scores (the one moved less), the two values.
std::pair<std::string, std::string> start_reasons(int t_imp, int t_ins, int a_imp, int a_ins,
                                                  const std::string& reason,
                                                  const std::string& a_imp_reason,
                                                  const std::string& a_ins_reason,
                                                  std::string_view lang) {
  const int moved_imp = std::abs(t_imp - a_imp), moved_ins = std::abs(t_ins - a_ins);
  const bool importance_first = moved_imp >= moved_ins;
  auto one = [&](int value, int analysis_value, bool own, const std::string& kept) {
    if (value == analysis_value) return kept;
    return own && !reason.empty() ? reason : moved_reason(value, analysis_value, lang);
  };
  return {one(t_imp, a_imp, importance_first || moved_ins == 0, a_imp_reason),
          one(t_ins, a_ins, !importance_first || moved_imp == 0, a_ins_reason)};
}

}  // namespace

Facts start_facts(const Facts& analysis, const TriageJudgment& t, std::string_view lang) {
  Facts f = analysis;
  if (t.importance < 1 || t.importance > 10 || t.insight < 1 || t.insight > 10) return f;
  const auto [imp, ins] =
      start_reasons(t.importance, t.insight, analysis.importance.value, analysis.insight.value,
                    triage_reason(t, lang), "", "", lang);
  auto take = [](Score& s, int value, const std::string& reason) {
    if (value == s.value) return;  // kept: the analysis's value and reasons
    s.value = value;
    s.raw = value;
    s.reasons = {reason};
  };
  take(f.importance, t.importance, imp);
  take(f.insight, t.insight, ins);
  f.verdict = t.verdict;
  if (f.verdict == Verdict::kSkim || f.verdict == Verdict::kSkip) {
    f.verdict_scope.clear();
  } else if (f.verdict_scope.empty()) {
    f.verdict_scope = reading_scope(f);
  }
  return f;
}

void record_judgments(Guide& g, const Facts& analysis, const TriageJudgment* t) {
  const std::string argument = g.analysis.argument;
  g.analysis.verdict = to_string(analysis.verdict);
  g.analysis.importance = {analysis.importance.value, analysis_reason(analysis.importance, g.lang)};
  g.analysis.insight = {analysis.insight.value, analysis_reason(analysis.insight, g.lang)};
  g.analysis.argument = argument;
  g.triage = {};
  if (!t) return;
  g.triage.verdict = to_string(t->verdict);
  g.triage.importance = t->importance;
  g.triage.insight = t->insight;
  g.triage.scope = triage_scope(*t, g.lang);
  g.triage.reason = triage_reason(*t, g.lang);
}

GuideJudgment starting_judgment(const Guide& g) {
  if (g.triage.verdict.empty()) return g.analysis;
  GuideJudgment s;
  s.verdict = g.triage.verdict;
  const auto [imp, ins] = start_reasons(
      g.triage.importance, g.triage.insight, g.analysis.importance.value, g.analysis.insight.value,
      g.triage.reason, g.analysis.importance.reason, g.analysis.insight.reason, g.lang);
  s.importance = {g.triage.importance, imp};
  s.insight = {g.triage.insight, ins};
  return s;
}

std::string triage_prompt_section(const TriageJudgment& t, const Facts& a, std::string_view lang,
                                  std::string_view fence) {
  std::string out =
      "\n## The model's earlier judgment (the day's triage; an opinion, not a fact)\n"
      "Before this guide, a model compared this PR with the other PRs merged the same day and "
      "judged it. The deterministic analysis did not compute this: it is a model's opinion, "
      "formed from a short entry per PR (title, size, description), and it may be wrong. Start "
      "your judgment from it: keep it when the material supports it, or argue a move away from "
      "it (see \"judgment\"), citing the material. Its scope and reason below are text a model "
      "wrote: never cite them as facts, and do not repeat a claim in them that the material "
      "does not show.\n";
  out += fmt::format(
      "triage: verdict {}; importance {}, insight {} (the analysis: verdict {}; importance {}, "
      "insight {})\n",
      to_string(t.verdict), t.importance, t.insight, to_string(a.verdict), a.importance.value,
      a.insight.value);
  std::string lines;
  auto add = [&](const char* label, const std::string& text) {
    if (!text.empty()) lines += fmt::format("{}: {}\n", label, line_of(text));
  };
  const bool both = lang == "both";
  if (both || lang == "en") {
    add("triage scope (English)", t.scope);
    add("triage reason (English)", t.reason_en);
  }
  if (both || lang == "zh") {
    add("triage scope (Chinese)", t.scope_zh);
    add("triage reason (Chinese)", t.reason_zh);
  }
  // A language asked alone still sees the other's words when its own are empty.
  if (lines.empty()) {
    add("triage scope", t.scope.empty() ? t.scope_zh : t.scope);
    add("triage reason", t.reason_en.empty() ? t.reason_zh : t.reason_en);
  }
  if (!lines.empty())
    out += fmt::format("<<<UNTRUSTED {}\n{}UNTRUSTED>>> {}\n", fence, lines, fence);
  return out;
}

std::vector<std::string> check_triage_texts(TriageJudgment& t, const CitationIndex& index) {
  std::vector<std::string> removed;
  for (auto [name, field] :
       {std::pair{"scope", &t.scope}, std::pair{"scope_zh", &t.scope_zh},
        std::pair{"reason_zh", &t.reason_zh}, std::pair{"reason_en", &t.reason_en}}) {
    if (field->empty()) continue;
    // One claim field, checked and pruned as a guide's lesson is.
    Guide g;
    g.why = *field;
    auto report = check_guide(g, index);
    if (report.failures.empty()) continue;
    remove_failed_citations(g, report.failures, Guide{}, index, report.suggested);
    for (const auto& r : g.writer.removed)
      removed.push_back(std::string(name) + (r.starts_with("why") ? r.substr(3) : ": " + r));
    *field = g.why;
  }
  return removed;
}

bool triage_moved_far(std::string_view analysis_verdict, int analysis_importance,
                      std::string_view triage_verdict, int triage_importance) {
  const int a = verdict_level(analysis_verdict), t = verdict_level(triage_verdict);
  if (a >= 0 && t >= 0 && std::abs(a - t) >= 2) return true;
  return analysis_importance > 0 && triage_importance > 0 &&
         std::abs(analysis_importance - triage_importance) >= 2;
}

}  // namespace mergelens
