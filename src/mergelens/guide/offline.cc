// The offline writer. Each element is composed from facts; see offline.h.
#include "mergelens/guide/offline.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "mergelens/guide/offline_parts.h"
#include "mergelens/guide/phrases.h"
#include "mergelens/util/time.h"

namespace mergelens {

using guide_detail::code;
using guide_detail::Ctx;

void fill_from_facts(const Change& change, const Facts& facts, Guide& g) {
  g.verdict = to_string(facts.verdict);
  g.tags.clear();
  for (const auto& t : facts.tags) g.tags.push_back(t.name);
  g.importance.value = facts.importance.value;
  g.insight.value = facts.insight.value;
  g.analysis.verdict = g.verdict;
  g.analysis.importance.value = facts.importance.value;
  g.analysis.insight.value = facts.insight.value;
  g.source.repo = change.repo;
  g.source.number = change.number.value_or(0);
  g.source.sha = change.sha;
  g.source.url = change.url;
  g.source.title = change.title;
  g.source.author = change.author.login.empty() ? change.author.name : change.author.login;
  g.source.merged_at = change.merged_at > 0 && !change.open ? format_utc(change.merged_at) : "";
  g.source.open = change.open;
}

std::vector<std::string> guide_limits(const Change& change, std::string_view lang) {
  const bool zh = lang == "zh";
  std::vector<std::string> out;
  std::vector<std::string> capped;
  for (const auto& f : change.files)
    if (f.truncated) capped.push_back("`" + f.path + "`");
  if (!capped.empty()) {
    std::string names = fmt::format(
        "{}", fmt::join(capped.begin(), capped.begin() + std::min<size_t>(capped.size(), 5),
                        zh ? "、" : ", "));
    if (capped.size() > 5) names += zh ? " 等" : ", ...";
    out.push_back(
        fmt::format(fmt::runtime(zh ? "{} 个文件的 diff 过大，只保存并分析了前面的部分：{}"
                                    : "the diff of {} file(s) was too large; only its first part "
                                      "was stored and analysed: {}"),
                    capped.size(), names));
  }
  if (change.files_truncated)
    out.push_back(
        fmt::format(fmt::runtime(zh ? "文件列表超过上限，只保存了前 {} 个文件"
                                    : "the file list exceeded the cap; only the first {} files "
                                      "were stored"),
                    change.files.size()));
  if (change.title.size() > 200)
    out.push_back(zh ? "标题过长，标题行只取了开头"
                     : "the title is very long; the headline uses "
                       "its beginning");
  if (change.body.size() > 64 * 1024)
    out.push_back(
        fmt::format(fmt::runtime(zh ? "PR 描述有 {} KB，模型提示词中只放入了开头"
                                    : "the description is {} KB; a model prompt carries only its "
                                      "beginning"),
                    change.body.size() / 1024));
  return out;
}

Guide write_offline_guide(const Change& change, const Facts& facts, std::string_view lang) {
  Guide g;
  g.lang = lang == "zh" ? "zh" : "en";
  const phrases::Phrases& p = phrases::get(g.lang);
  const CitationIndex index(change, facts);
  Ctx ctx{change, facts, p, index};
  fill_from_facts(change, facts, g);
  // A change of example scripts only is read by those who copy them: worth
  // a glance, not a close read, and not documentation.
  const bool examples = guide_detail::examples_only(change, facts);
  if (examples) {
    g.verdict = g.analysis.verdict = to_string(Verdict::kSkim);
    std::erase_if(g.tags, [](const std::string& t) { return t == "docs"; });
  }
  g.headline = guide_detail::headline(ctx);
  if (g.headline.size() > 200) {  // cut at a UTF-8 boundary
    size_t cut = 200;
    while (cut > 0 && (static_cast<unsigned char>(g.headline[cut]) & 0xC0) == 0x80) --cut;
    g.headline = g.headline.substr(0, cut) + "…";
  }
  g.limits = guide_limits(change, g.lang);
  auto reasons = [&](const Score& s) {
    std::vector<std::string> out;
    for (const auto& r : s.reasons) {
      if (out.size() == 3) break;
      // The analysis's cap names docs, tests, configs or CI: say what the files are.
      out.push_back(
          phrases::score_reason(examples && r.starts_with("no code on the main path")
                                    ? std::string("no code on the main path (example scripts only)")
                                    : r,
                                g.lang));
    }
    return fmt::format("{}", fmt::join(out, p.semi));
  };
  g.writer.kind = "offline";
  if (change.shallow) {  // no diff: say so and how to get it, nothing else
    g.summary = fmt::format(fmt::runtime(p.summary_shallow), change.parent_sha.substr(0, 12));
    g.verdict_text = std::string(p.verdict_shallow);
    g.digest = g.summary + (g.lang == "zh" ? "" : " ") + g.verdict_text;
    g.importance.reason = reasons(facts.importance);
    g.insight.reason = reasons(facts.insight);
    g.analysis.importance.reason = g.importance.reason;
    g.analysis.insight.reason = g.insight.reason;
    return g;
  }
  g.summary = guide_detail::summary(ctx);
  g.verdict_text =
      examples ? guide_detail::fmt_rt(p.skim, ctx.tr("只涉及示例脚本", "only example scripts")) +
                     std::string(p.sentence_end)
               : guide_detail::verdict_text(ctx);
  const bool worth = !examples && (facts.verdict == Verdict::kCloseRead ||
                                   facts.verdict == Verdict::kSelectiveRead);
  if (facts.verdict != Verdict::kSkip) {
    g.why = guide_detail::lesson(ctx);
    g.focus = guide_detail::focus_points(ctx, worth ? 5 : 2);
    if (worth) g.design_decisions = guide_detail::design_decisions(ctx);
    g.questions = guide_detail::questions(ctx, g.focus);
  }
  auto example = [&](const std::string& path) {
    return std::any_of(change.files.begin(), change.files.end(), [&](const FileChange& fc) {
      return fc.path == path && guide_detail::example_file(facts, fc);
    });
  };
  for (const auto& s : facts.skim)
    g.skim.push_back({s.path, std::string(p.skim_reason(
                                  s.reason == "docs" && example(s.path) ? "example" : s.reason))});
  if (g.skim.size() > 8) g.skim.resize(8);
  g.number_cautions = guide_detail::number_cautions(ctx);
  g.body_vs_code = guide_detail::body_vs_code(ctx);
  if (facts.verdict != Verdict::kSkip) g.gaps = guide_detail::gaps(ctx);
  g.advice = guide_detail::advice(ctx, g);
  if (worth) g.audience = guide_detail::audience(ctx);
  g.references = guide_detail::references(ctx);
  g.importance.reason = reasons(facts.importance);
  g.insight.reason = reasons(facts.insight);
  g.analysis.importance.reason = g.importance.reason;
  g.analysis.insight.reason = g.insight.reason;
  g.digest = guide_detail::digest(ctx, g);
  return g;
}

}  // namespace mergelens
