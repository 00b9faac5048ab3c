#include "mergelens/web/i18n.h"

#include <fmt/format.h>

namespace mergelens::web {

namespace {

struct Entry {
  const char* key;
  const char* zh;
  const char* en;
};

constexpr Entry kStrings[] = {
    {"site", "mergelens 阅读指南", "mergelens reading guides"},
    {"nav_latest", "最新一天", "Latest day"},
    {"nav_week", "本周", "This week"},
    {"nav_tags", "标签列表", "Tags"},
    {"nav_search", "搜索", "Search"},
    {"nav_feed", "订阅", "Feed"},
    {"switch_lang", "English", "中文"},
    {"search_placeholder", "搜索标题、摘要与指南（中文或英文）",
     "Search titles, headlines, guides"},
    {"search_button", "搜索", "Search"},
    {"prev_day", "前一天", "Previous day"},
    {"next_day", "后一天", "Next day"},
    {"no_changes", "这一天没有合并的 PR。", "No pull requests were merged that day."},
    {"open_prs", "尚未合并的 PR", "Open pull requests"},
    {"importance", "重要度", "Importance"},
    {"insight", "洞察价值", "Insight"},
    {"tags", "标签", "Tags"},
    {"original_pr", "原始 PR", "Original PR"},
    {"same_number", "另有变更标着同一编号：", "Other changes carry the same number:"},
    {"newest", "最新", "newest"},
    {"triage", "模型分诊：", "Model triage:"},
    {"no_triage", "本日排序与判断来自静态分析（没有模型分诊）。",
     "The order and verdicts of this day come from the analysis (no model triage)."},
    {"part_triage", "模型分诊覆盖本日部分 PR，其余排序与判断来自静态分析。",
     "A model triaged part of this day; the rest is ordered and judged by the analysis."},
    {"author", "作者", "author"},
    {"merged_at", "合并时间", "merged"},
    {"summary", "概要", "Summary"},
    {"verdict", "结论", "Verdict"},
    {"why", "为什么值得读", "What it teaches"},
    {"focus", "精读要点", "Where to look"},
    {"view_lines", "在原仓库查看这些行", "View these lines on the host"},
    {"skim", "浏览即可", "Skim only"},
    {"design_decisions", "设计决策", "Design decisions"},
    {"questions", "问题与风险", "Questions and risks"},
    {"number_cautions", "数字解读提醒", "Caution on numbers"},
    {"body_vs_code", "描述与代码不一致", "Description vs code"},
    {"gaps", "测试与基准缺口", "Test and benchmark gaps"},
    {"advice", "分角色建议", "Advice by role"},
    {"audience", "适合谁读", "Who should read it"},
    {"references", "相关引用", "Cross-references"},
    {"referenced_by", "后续引用", "Referenced later by"},
    {"writer", "撰写者", "Written by"},
    {"analysis_judgment", "分析给出的判断", "The analysis judged"},
    {"judgment_argued", "模型据材料调整了判断：", "The model argued a different judgment: "},
    {"suggested_note", "虚线框中的代码是指南提出的建议，不在本 PR 中。",
     "Code in a dashed box is proposed by the guide; it is not in this PR."},
    {"suggestion", "建议（不在本 PR 中）", "a suggestion, not in this PR"},
    {"removed_citations", "引用校验删去的内容", "Removed by the citation check"},
    {"writer_facts", "仅有分析结果（尚无指南）", "analysis facts only (no guide yet)"},
    {"pr_body", "PR 描述原文", "PR description as written"},
    {"files", "个文件", "files"},
    {"tag_list", "标签列表", "Tag list"},
    {"sort_by_count", "按数量排序", "Sort by count"},
    {"sort_by_name", "按名称排序", "Sort by name"},
    {"count", "数量", "Count"},
    {"weekly", "每周数量", "Weekly count"},
    {"close_reads", "精读", "Close reads"},
    {"aggregate", "聚合结果", "Aggregated results"},
    {"filters", "筛选", "Filters"},
    {"from", "起始日期", "From"},
    {"to", "截止日期", "To"},
    {"any_verdict", "任意结论", "Any verdict"},
    {"min_score", "最低重要度", "Minimum importance"},
    {"apply", "应用", "Apply"},
    {"figures", "统计", "Figures"},
    {"mean_importance", "平均重要度", "Mean importance"},
    {"mean_insight", "平均洞察价值", "Mean insight"},
    {"close_share", "精读占比", "Share of close reads"},
    {"chart", "每周数量与平均分", "Weekly count and mean scores"},
    {"top_prs", "最值得读的 PR", "Top pull requests"},
    {"all_prs", "全部 PR（最新在前）", "All pull requests, newest first"},
    {"search_results", "搜索结果", "Search results"},
    {"search_help", "支持 \"短语\"、-排除词、前缀*；中文可搜任意长度的词。",
     "Use \"a phrase\", -exclude and prefix*; Chinese terms of any length match."},
    {"result_count", "结果数", "Results"},
    {"no_results", "没有找到结果。", "Nothing matched."},
    {"bad_query", "无法理解这个搜索", "This search could not be understood"},
    {"not_found", "找不到这个页面", "Page not found"},
    {"bad_request", "请求有误", "Bad request"},
    {"server_error", "服务器出错", "Server error"},
    {"feed_all", "全部 PR", "All pull requests"},
    {"feed_close", "仅精读", "Close reads only"},
    {"lines", "行", "lines"},
    {"week_of", "周", "week of"},
    {"digest", "每日摘要", "Daily digest"},
    {"close_links", "值得精读：", "Close reads:"},
    {"skipped", "可跳过", "Safe to skip"},
    {"lp", "（", " ("},
    {"rp", "）", ")"},
    {"sort_by_recent", "按近 4 周活跃度排序", "Sort by the last 4 weeks"},
    {"recent", "近 4 周", "Last 4 weeks"},
    {"tags_help", "每周数量为最近 26 周（UTC，周一起），悬停可看每周数值；右侧数字为单周最大值。",
     "Weekly counts over the last 26 weeks (UTC, from Monday); hover for each week's value; "
     "the number on the right is the highest week."},
    {"axis_left", "左轴", "left axis"},
    {"axis_right", "右轴", "right axis"},
    {"all_repos", "全部仓库", "All repositories"},
    {"repositories", "仓库", "Repositories"},
    {"by_repo", "各仓库：", "By repository: "},
    {"site_nav", "站点导航", "Site"},
    {"day_nav", "按日浏览", "Days"},
    {"excerpt", "代码摘录", "Code excerpt"},
    {"description", "{}：每个合并 PR 的阅读指南、每日摘要与标签汇总。",
     "{}: a reading guide for every merged pull request, daily digests and tag pages."},
    {"tag_feed", "标签订阅", "Tag feed"},
};

constexpr std::pair<const char*, std::pair<const char*, const char*>> kVerdicts[] = {
    {"close_read", {"值得精读", "Close read"}},
    {"selective_read", {"选读", "Selective read"}},
    {"skim", {"浏览即可", "Skim"}},
    {"skip", {"可跳过", "Skip"}},
};

}  // namespace

Lang lang_from(std::string_view code) {
  return code == "en" ? Lang::kEn : Lang::kZh;
}
const char* lang_code(Lang l) {
  return l == Lang::kEn ? "en" : "zh";
}
const char* html_lang(Lang l) {
  return l == Lang::kEn ? "en" : "zh-CN";
}

const char* tr(Lang lang, std::string_view key) {
  for (const auto& e : kStrings)
    if (key == e.key) return lang == Lang::kEn ? e.en : e.zh;
  return "?";
}

const nlohmann::json& ui_strings(Lang lang) {
  static const nlohmann::json zh = [] {
    nlohmann::json j;
    for (const auto& e : kStrings) j[e.key] = e.zh;
    return j;
  }();
  static const nlohmann::json en = [] {
    nlohmann::json j;
    for (const auto& e : kStrings) j[e.key] = e.en;
    return j;
  }();
  return lang == Lang::kEn ? en : zh;
}

std::string verdict_label(Lang lang, std::string_view verdict) {
  for (const auto& [key, labels] : kVerdicts)
    if (verdict == key) return lang == Lang::kEn ? labels.second : labels.first;
  return lang == Lang::kEn ? "Not analysed" : "未分析";
}

int verdict_rank(std::string_view verdict) {
  for (int i = 0; i < 4; ++i)
    if (verdict == kVerdicts[i].first) return i;
  return 4;
}

std::string day_counts(Lang lang, size_t merged, size_t close_reads, size_t open) {
  std::string s = lang == Lang::kEn
                      ? fmt::format("{} merged, {} worth a close read", merged, close_reads)
                      : fmt::format("合并 {} 个，其中 {} 个值得精读", merged, close_reads);
  if (open)
    s += lang == Lang::kEn ? fmt::format("; {} open", open)
                           : fmt::format("；另有 {} 个未合并", open);
  return s;
}

}  // namespace mergelens::web
