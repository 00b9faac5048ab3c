#include "mergelens/guide/markdown.h"

#include <fmt/format.h>

#include "mergelens/guide/triage_guide.h"

namespace mergelens {
namespace {

struct Labels {
  const char *verdict, *why, *focus, *skim, *design, *questions, *numbers, *body, *gaps, *advice,
      *audience, *references, *importance, *insight, *tags, *original, *author, *merged, *open,
      *writer_offline, *writer_llm, *fallback, *lines, *line, *limits, *focus_light;
  const char* role(const std::string& r) const {
    if (zh) {
      if (r == "user") return "使用者";
      if (r == "maintainer") return "维护者";
      if (r == "reviewer") return "审阅者";
      if (r == "operator") return "运维";
    } else {
      if (r == "user") return "Users";
      if (r == "maintainer") return "Maintainers";
      if (r == "reviewer") return "Reviewers";
      if (r == "operator") return "Operators";
    }
    return r.c_str();
  }
  bool zh;
};

constexpr Labels kZh{"结论",
                     "为什么值得读",
                     "精读要点",
                     "浏览即可",
                     "值得学习的设计",
                     "问题与风险",
                     "关于数字",
                     "描述与代码",
                     "测试与基准缺口",
                     "给不同读者的建议",
                     "读者",
                     "相关",
                     "重要度",
                     "洞察价值",
                     "标签",
                     "原始 PR",
                     "作者",
                     "合并时间",
                     "未合并",
                     "离线撰写（未使用模型）",
                     "由模型 {} 撰写",
                     "模型失败，改用离线撰写：{}",
                     "第 {}–{} 行",
                     "第 {} 行",
                     "未完整读取",
                     "如果要看，看这里",
                     true};
constexpr Labels kEn{"Verdict",
                     "Why read it",
                     "Where to look",
                     "Skim",
                     "Design decisions",
                     "Questions and risks",
                     "On the numbers",
                     "Description vs code",
                     "Test and benchmark gaps",
                     "Advice by role",
                     "Audience",
                     "Related",
                     "Importance",
                     "Insight",
                     "Tags",
                     "Original PR",
                     "author",
                     "merged",
                     "open",
                     "written offline (no model)",
                     "written by model {}",
                     "model failed, written offline: {}",
                     "lines {}–{}",
                     "line {}",
                     "Not fully read",
                     "If you look, look here",
                     false};

void list(std::string& out, const char* title, const std::vector<std::string>& items) {
  if (items.empty()) return;
  out += fmt::format("\n**{}**\n", title);
  for (const auto& s : items) out += fmt::format("- {}\n", s);
}

}  // namespace

std::string triage_markdown(const Guide& g) {
  const GuideTriage& t = g.triage;
  if (t.verdict.empty()) return {};
  const bool zh = g.lang == "zh";
  std::string out =
      zh ? fmt::format("_当日模型分诊的判断：{} · 重要度 {} · 洞察价值 {}",
                       verdict_words(t.verdict, "zh"), t.importance, t.insight)
         : fmt::format("_The day's model triage judged: {} · importance {} · insight {}",
                       verdict_words(t.verdict, "en"), t.importance, t.insight);
  if (!t.scope.empty()) out += (zh ? "；范围：" : "; scope: ") + t.scope;
  if (!t.reason.empty()) out += (zh ? "；理由：" : "; why: ") + t.reason;
  return out + "_\n";
}

std::string judgment_lines(const Guide& g) {
  const bool zh = g.lang == "zh";
  std::string out = triage_markdown(g);
  // The analysis's own judgment when the one shown differs from it.
  const GuideJudgment& a = g.analysis;
  if (!a.verdict.empty() && (a.verdict != g.verdict || a.importance.value != g.importance.value ||
                             a.insight.value != g.insight.value))
    out += zh ? fmt::format("_分析的判断：{} · 重要度 {} · 洞察价值 {}_\n",
                            verdict_words(a.verdict, "zh"), a.importance.value, a.insight.value)
              : fmt::format("_The analysis judged: {} · importance {} · insight {}_\n",
                            verdict_words(a.verdict, "en"), a.importance.value, a.insight.value);
  if (!a.argument.empty())
    out += (zh ? "_撰写本指南的模型据材料调整了判断：" : "_The guide's model argued: ") +
           a.argument + "_\n";
  return out;
}

std::string guide_to_markdown(const Guide& g) {
  const Labels& L = g.lang == "zh" ? kZh : kEn;
  std::string out = fmt::format("## {}\n\n", g.headline);
  if (!g.summary.empty()) out += g.summary + "\n\n";
  out += fmt::format("**{}**: {}\n", L.verdict, g.verdict_text);
  if (!g.why.empty()) out += fmt::format("\n**{}**: {}\n", L.why, g.why);
  if (!g.focus.empty()) {
    const bool light = g.verdict == "skim" || g.verdict == "skip";
    out += fmt::format("\n**{}**\n", light ? L.focus_light : L.focus);
    for (size_t i = 0; i < g.focus.size(); ++i) {
      const auto& f = g.focus[i];
      std::string where =
          f.start_line <= 0 ? fmt::format("`{}`", f.path)
          : f.end_line <= f.start_line
              ? fmt::format("`{}` {}", f.path, fmt::format(fmt::runtime(L.line), f.start_line))
              : fmt::format("`{}` {}", f.path,
                            fmt::format(fmt::runtime(L.lines), f.start_line, f.end_line));
      if (!f.symbol.empty()) where += fmt::format(" `{}`", f.symbol);
      out += f.question.empty() ? fmt::format("{}. {}", i + 1, where)
                                : fmt::format("{}. {}: {}", i + 1, where, f.question);
      if (!f.why.empty()) out += fmt::format(" ({})", f.why);
      out += "\n";
    }
  }
  if (!g.skim.empty()) {
    out += fmt::format("\n**{}**: ", L.skim);
    for (size_t i = 0; i < g.skim.size(); ++i)
      out += fmt::format("{}`{}` ({})", i ? ", " : "", g.skim[i].path, g.skim[i].reason);
    out += "\n";
  }
  list(out, L.design, g.design_decisions);
  list(out, L.questions, g.questions);
  list(out, L.numbers, g.number_cautions);
  list(out, L.body, g.body_vs_code);
  list(out, L.gaps, g.gaps);
  list(out, L.limits, g.limits);
  if (!g.advice.empty()) {
    out += fmt::format("\n**{}**\n", L.advice);
    for (const auto& a : g.advice)
      out += fmt::format("- {}{}{}\n", L.role(a.role), L.zh ? "：" : ": ", a.text);
  }
  if (!g.audience.empty()) out += fmt::format("\n**{}**: {}\n", L.audience, g.audience);
  if (!g.references.empty()) {
    out += fmt::format("\n**{}**\n", L.references);
    // Each entry names its PR or commit (a 40-digit sha shown by its first 12).
    for (const auto& r : g.references) {
      std::string ref = r.ref;
      const auto at = ref.find('@');
      if (at != std::string::npos && ref.size() - at - 1 > 12) ref.resize(at + 13);
      if (at == std::string::npos && ref.size() == 40 &&
          ref.find_first_not_of("0123456789abcdef") == std::string::npos)
        ref.resize(12);
      // A note that names its reference already ("follow-up to #1250",
      // "reverts 470c077999") stands alone.
      const auto id_at = r.ref.find_last_of("#@");
      const std::string id = r.ref.substr(id_at == std::string::npos ? 0 : id_at + 1, 7);
      if (r.note.empty() || (!id.empty() && r.note.find(id) != std::string::npos))
        out += fmt::format("- {}\n", r.note.empty() ? ref : r.note);
      else
        out += fmt::format("- {}{}{}\n", ref, L.zh ? "：" : ": ", r.note);
    }
  }
  out += "\n";
  if (g.importance.value > 0)
    out += fmt::format("**{}** {}/10{}\n", L.importance, g.importance.value,
                       g.importance.reason.empty() ? "" : " — " + g.importance.reason);
  if (g.insight.value > 0)
    out += fmt::format("**{}** {}/10{}\n", L.insight, g.insight.value,
                       g.insight.reason.empty() ? "" : " — " + g.insight.reason);
  out += judgment_lines(g);
  if (!g.tags.empty()) out += fmt::format("**{}**: {}\n", L.tags, fmt::join(g.tags, ", "));
  // "2026-09-01T09:12:00Z" → "2026-09-01 09:12 UTC"
  std::string at = g.source.merged_at;
  if (at.size() == 20 && at[10] == 'T') at = at.substr(0, 10) + " " + at.substr(11, 5) + " UTC";
  std::string when = g.source.open ? std::string(L.open) : fmt::format("{} {}", L.merged, at);
  // Without a known host (a clone ingested with no --url-base) the PR is
  // named, not linked: an empty link would lead nowhere.
  std::string origin;
  if (!g.source.url.empty())
    origin = fmt::format("[{}]({})", L.original, g.source.url);
  else if (g.source.number > 0)
    origin = fmt::format("{} #{}", L.original, g.source.number);
  else
    origin = fmt::format("{} {}", L.original, g.source.sha.substr(0, 12));
  out += fmt::format("\n{} · {} {} · {}\n", origin, L.author, g.source.author, when);
  std::string writer = g.writer.kind == "llm"
                           ? fmt::format(fmt::runtime(L.writer_llm), g.writer.model)
                           : std::string(L.writer_offline);
  if (!g.writer.fallback_reason.empty())
    writer = fmt::format(fmt::runtime(L.fallback), g.writer.fallback_reason);
  if (!g.writer.removed.empty())
    writer +=
        fmt::format(fmt::runtime(L.zh ? "；引用校验删去 {} 处" : "; the citation check removed {}"),
                    g.writer.removed.size());
  if (!g.writer.edits.empty())
    writer +=
        fmt::format(fmt::runtime(L.zh ? "；撰写时另有 {} 处改动" : "; {} other edit(s) logged"),
                    g.writer.edits.size());
  out += fmt::format("_{}_\n", writer);
  return out;
}

}  // namespace mergelens
