// The release-notes draft as Markdown and JSON (notes.h).
#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "mergelens/report/notes.h"
#include "mergelens/report/week.h"
#include "mergelens/util/strings.h"
#include "mergelens/util/time.h"

namespace mergelens::report {

namespace {

struct Words {
  const char *title, *highlights, *defaults, *contributors, *first_pr, *merged, *by_model,
      *by_analysis, *more_model, *per_pr;
};
constexpr Words kZh{"发布说明草稿",
                    "重点",
                    "默认值与参数的变化",
                    "新贡献者",
                    "首个 PR",
                    "合并 {} 个变更。",
                    "主题由模型 {} 对整个范围的主题评审选出。",
                    "主题由静态分析按关联（系列、回滚、重新合入、跟进、对新增文件的后续修改）、标签"
                    "和路径归组（这个范围没有模型主题评审）。",
                    "模型的主题未涵盖的 {} 个变更按静态分析归组。",
                    "重点逐个 PR 按各自的判断选出（不归组为主题）。"};
constexpr Words kEn{
    "Release notes draft",
    "Highlights",
    "Changed defaults and flags",
    "New contributors",
    "first PR",
    "{} merged.",
    "Themes chosen by {} in a theme pass over the whole range.",
    "Themes found by the analysis: threads (series, reverts, re-lands, follow-ups, "
    "later work on added files), tags and paths (no model theme pass for this range).",
    "The {} the model's themes did not name are grouped by the analysis.",
    "Highlights chosen PR by PR, each by its own judgment (no themes)."};

std::string section_name(std::string_view kind, bool en) {
  static const std::map<std::string_view, std::pair<const char*, const char*>> kNames = {
      {"models", {"模型支持", "Models"}},
      {"features", {"新功能", "Features"}},
      {"performance", {"性能", "Performance"}},
      {"fixes", {"问题修复", "Bug fixes"}},
      {"refactoring", {"重构", "Refactoring"}},
      {"reverts", {"回滚", "Reverts"}},
      {"other", {"其他变更", "Other changes"}},
      {"maintenance", {"构建、CI、文档与测试", "Build, CI, docs and tests"}}};
  auto it = kNames.find(kind);
  if (it == kNames.end()) return std::string(kind);
  return en ? it->second.second : it->second.first;
}

// Markdown text: what would start markup is escaped, and no more (GitHub
// shows a needless backslash before a letter or a CJK character as typed).
// `code` spans are kept as written; newlines become spaces.
std::string md(std::string_view s) {
  std::string out;
  bool code = false;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '\n' || c == '\r') c = ' ';
    if (c == '`') code = !code;
    if (!code) {
      const char prev = i ? s[i - 1] : ' ';
      const char next = i + 1 < s.size() ? s[i + 1] : ' ';
      auto word = [](char ch) {
        return (ch >= '0' && ch <= '9') || ((ch | 0x20) >= 'a' && (ch | 0x20) <= 'z');
      };
      bool escape = c == '\\' || c == '*' || c == '[' || c == ']' || c == '<' || c == '|';
      // "_" only where it could open or close emphasis (not inside snake_case).
      if (c == '_' && !(word(prev) && word(next))) escape = true;
      // "#" and ">" only where they would start a heading or a quote.
      if ((c == '#' || c == '>') && out.empty()) escape = true;
      if (escape) out += '\\';
    }
    out += c;
  }
  if (code) out += '`';
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

std::string ref_of(const ChangeSummary& c) {
  return c.number ? fmt::format("#{}", *c.number) : c.sha.substr(0, 12);
}

// "[#123](https://github.com/o/r/pull/123)", or the bare ref without a URL.
std::string link(const Notes& n, const ChangeSummary& c) {
  std::string url = c.url;
  if (!url.starts_with("https://") && !url.starts_with("http://")) url.clear();
  if (url.empty() && !n.web_base.empty())
    url = c.number ? fmt::format("{}/pull/{}", n.web_base, *c.number)
                   : fmt::format("{}/commit/{}", n.web_base, c.sha);
  return url.empty() ? ref_of(c) : fmt::format("[{}]({})", ref_of(c), url);
}

std::string author(const ChangeSummary& c) {
  return c.author.login.empty() ? c.author.name : "@" + c.author.login;
}

// The authors of `members`, each once, in order.
std::string authors(const Notes& n, const std::vector<size_t>& members) {
  std::vector<std::string> names;
  for (size_t i : members) {
    std::string a = md(author(n.entries[i].change));
    if (!a.empty() && std::ranges::find(names, a) == names.end()) names.push_back(a);
  }
  if (names.size() > 4) {
    const size_t more = names.size() - 3;
    names.resize(3);
    names.push_back(n.lang == "en" ? fmt::format("{} more", more) : fmt::format("另 {} 人", more));
  }
  return fmt::format("{}", fmt::join(names, ", "));
}

// Members reverted by another member of the same theme: folded into its item.
std::map<size_t, size_t> folded_reverts(const Notes& n, const Theme& t) {
  std::map<std::int64_t, size_t> index;
  for (size_t i : t.entries) index[n.entries[i].change.id] = i;
  std::map<size_t, size_t> out;  // revert → reverted
  for (size_t i : t.entries)
    for (const auto& note : n.entries[i].thread)
      if (note.relation == "reverts" && !note.later)
        if (auto it = index.find(note.other.id); it != index.end() && !out.contains(i))
          out[i] = it->second;
  return out;
}

// The PR references of a theme's members: "[#1](u), [#2](u)".
std::string cites(const Notes& n, const std::vector<size_t>& members) {
  std::vector<std::string> refs;
  for (size_t i : members) refs.push_back(link(n, n.entries[i].change));
  return fmt::format("{}", fmt::join(refs, ", "));
}

// A theme as one section line: its members' headlines with their PRs (a
// revert folded under the change it reverts), then the authors.
std::string theme_line(const Notes& n, const Theme& t) {
  const bool en = n.lang == "en";
  const auto folded = folded_reverts(n, t);
  std::map<size_t, std::vector<size_t>> reverted_by;
  for (const auto& [revert, target] : folded) reverted_by[target].push_back(revert);
  std::vector<std::string> items;
  std::vector<size_t> rest;
  for (size_t i : t.entries) {
    if (folded.contains(i)) continue;
    if (items.size() >= 6) {
      rest.push_back(i);
      continue;
    }
    std::string item =
        fmt::format("{} ({}", md(n.entries[i].headline), link(n, n.entries[i].change));
    for (size_t r : reverted_by[i])
      item += en ? fmt::format(", reverted by {}", link(n, n.entries[r].change))
                 : fmt::format("，已被 {} 撤销", link(n, n.entries[r].change));
    items.push_back(item + ")");
  }
  std::string line = "- ";
  if ((t.kind == "series" || t.kind == "topic" || t.kind == "model") && t.entries.size() > 1)
    line += fmt::format("**{}**: ", md(t.title));
  line += fmt::format("{}", fmt::join(items, en ? "; " : "；"));
  if (!rest.empty())
    line += en ? fmt::format("; and {} more: {}", rest.size(), cites(n, rest))
               : fmt::format("；另有 {} 个：{}", rest.size(), cites(n, rest));
  const std::string who = authors(n, t.entries);
  if (!who.empty()) line += " by " + who;
  return line + "\n";
}

std::string highlight_line(const Notes& n, const Theme& t) {
  std::string line = fmt::format("- **{}**", md(t.title));
  if (!t.highlight.empty() && t.highlight != t.title) line += ": " + md(t.highlight);
  return line + fmt::format(" ({})\n", cites(n, t.entries));
}

nlohmann::json theme_entries_json(const Notes& n, const Theme& t) {
  nlohmann::json j = theme_json(t, n.entries);
  j["entries"] = nlohmann::json::array();
  for (size_t i : t.entries) {
    nlohmann::json e = entry_json(n.entries[i]);
    e["theme_rank"] = t.rank;
    j["entries"].push_back(std::move(e));
  }
  return j;
}

}  // namespace

std::string notes_markdown(const Notes& n) {
  const bool en = n.lang == "en";
  const Words& w = en ? kEn : kZh;
  std::string range = n.from.empty() ? n.to : n.to.empty() ? n.from : n.from + " → " + n.to;
  std::string out =
      fmt::format("# {} · {}{}\n", md(n.repo), w.title, range.empty() ? "" : " · " + md(range));
  if (n.entries.empty()) {
    out += en ? "\nNo merged change in this range.\n" : "\n这个范围内没有合并的变更。\n";
    if (n.left_out > 0)
      out += "\n" + not_listed(n.lang, n.left_out, en ? "filtered" : "已过滤") + "\n";
    return out;
  }
  // English words take the count with its noun ("1 change", "3 changes").
  auto count = [en](size_t k) {
    return en ? plural(static_cast<std::int64_t>(k), "change") : std::to_string(k);
  };
  out += "\n" + fmt::format(fmt::runtime(w.merged), count(n.entries.size())) + " ";
  if (n.themes.source == "model") {
    out += fmt::format(fmt::runtime(w.by_model), md(n.themes.model));
    if (n.themes.model_left_out > 0)
      out += " " + fmt::format(fmt::runtime(w.more_model), count(n.themes.model_left_out));
  } else if (n.themes.source == "per_pr") {
    out += w.per_pr;
  } else {
    out += w.by_analysis;
  }
  out += "\n";
  if (!n.highlights.empty()) {
    out += fmt::format("\n## {}\n\n", w.highlights);
    for (size_t t : n.highlights) out += highlight_line(n, n.themes.themes[t]);
  }
  for (const auto& s : n.sections) {
    out += fmt::format("\n## {}\n\n", section_name(s.kind, en));
    for (size_t t : s.lines) out += theme_line(n, n.themes.themes[t]);
  }
  if (!n.visible.empty()) {
    out += fmt::format("\n## {}\n\n", w.defaults);
    for (const auto& [i, v] : n.visible)
      out += fmt::format("- {}: `{}` ({})\n", md(n.entries[i].headline), v.summary(),
                         link(n, n.entries[i].change));
  }
  if (!n.contributors_known) {
    out += fmt::format(
        "\n{}\n",
        en ? fmt::format("New contributors are not listed: the store holds this repository's "
                         "history only from {}.",
                         format_day(n.history_from))
           : fmt::format("未列出新贡献者：存储中这个仓库的历史只从 {} 开始。",
                         format_day(n.history_from)));
  } else if (!n.new_contributors.empty()) {
    out += fmt::format("\n## {}\n\n", w.contributors);
    for (const auto& c : n.new_contributors)
      out +=
          fmt::format("- {} · {} {}\n", md(c.name), w.first_pr, link(n, n.entries[c.entry].change));
  }
  if (n.unlisted > 0) {
    const size_t minor = n.unlisted - n.unlisted_skips;
    // Only the kinds the range holds: no "0 routine".
    std::vector<std::string> kinds;
    if (minor > 0)
      kinds.push_back(en ? fmt::format("{} routine: narrow fixes, tuning, tooling", minor)
                         : fmt::format("{} 个常规改动：局部修复、调优、工具", minor));
    if (n.unlisted_skips > 0)
      kinds.push_back(en ? plural(static_cast<std::int64_t>(n.unlisted_skips), "skip verdict") +
                               ": CI, docs, tests, version bumps"
                         : fmt::format("{} 个可跳过：CI、文档、测试、版本号", n.unlisted_skips));
    std::string why;
    if (en)
      why = fmt::format("{} not listed ({}); `notes --all` lists them.",
                        plural(static_cast<std::int64_t>(n.unlisted), "more change"),
                        fmt::join(kinds, "; "));
    else
      why = fmt::format("另有 {} 个变更未列出（{}）；`notes --all` 会列出全部。", n.unlisted,
                        fmt::join(kinds, "；"));
    out += "\n" + why + "\n";
  }
  if (n.left_out > 0)
    out += "\n" + not_listed(n.lang, n.left_out, en ? "filtered" : "已过滤") + "\n";
  return out;
}

nlohmann::json notes_json(const Notes& n) {
  nlohmann::json j{{"repo", n.repo},
                   {"from", n.from},
                   {"to", n.to},
                   {"lang", n.lang},
                   {"merged", n.entries.size()},
                   {"left_out", n.left_out},
                   {"themes_source", n.themes.source},
                   {"themes_model", n.themes.model},
                   {"unlisted", n.unlisted},
                   {"unlisted_skips", n.unlisted_skips}};
  j["highlights"] = nlohmann::json::array();
  for (size_t t : n.highlights)
    j["highlights"].push_back(theme_entries_json(n, n.themes.themes[t]));
  j["sections"] = nlohmann::json::array();
  for (const auto& s : n.sections) {
    nlohmann::json lines = nlohmann::json::array();
    for (size_t t : s.lines) lines.push_back(theme_entries_json(n, n.themes.themes[t]));
    j["sections"].push_back(
        {{"kind", s.kind}, {"name", section_name(s.kind, n.lang == "en")}, {"lines", lines}});
  }
  j["visible"] = nlohmann::json::array();
  for (const auto& [i, v] : n.visible)
    j["visible"].push_back({{"ref", ref_of(n.entries[i].change)},
                            {"url", n.entries[i].change.url},
                            {"flags_added", v.flags_added},
                            {"flags_removed", v.flags_removed},
                            {"env_added", v.env_added},
                            {"env_removed", v.env_removed},
                            {"api_changed", v.api_changed}});
  if (n.contributors_known) {
    j["new_contributors"] = nlohmann::json::array();
    for (const auto& c : n.new_contributors)
      j["new_contributors"].push_back({{"name", c.name},
                                       {"first", ref_of(n.entries[c.entry].change)},
                                       {"url", n.entries[c.entry].change.url}});
  } else {
    j["new_contributors"] = nullptr;
  }
  j["history_from"] = n.history_from ? format_utc(n.history_from) : "";
  return j;
}

}  // namespace mergelens::report
