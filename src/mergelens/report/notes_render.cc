// The release-notes draft as Markdown and JSON (notes.h).
#include <fmt/format.h>

#include "mergelens/analysis/text/glossary.h"
#include "mergelens/report/notes.h"
#include "mergelens/report/week.h"

namespace mergelens::report {

namespace {

struct Words {
  const char *title, *highlights, *defaults, *contributors, *other, *first_pr, *untagged;
};
constexpr Words kZh{"发布说明草稿", "重点",  "默认值与参数的变化", "新贡献者", "其他",
                    "首个 PR",      "未分类"};
constexpr Words kEn{"Release notes draft", "Highlights", "Changed defaults and flags",
                    "New contributors",    "Other",      "first PR",
                    "Uncategorised"};

// Markdown text: characters that would start markup are escaped; `code`
// spans are kept as written.
std::string md(std::string_view s) {
  std::string out;
  bool code = false;
  for (char c : s) {
    if (c == '`') code = !code;
    if (c == '\n' || c == '\r') c = ' ';
    if (!code && std::string_view("\\*_[]<>#|").find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  if (code) out += '`';
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

std::string line(const Notes& n, const Entry& e) {
  return fmt::format("- {} ({}) by {}\n", md(e.headline), link(n, e.change), md(author(e.change)));
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
    return out;
  }
  out += "\n" +
         (en ? fmt::format("{} changes merged.", n.entries.size())
             : fmt::format("合并 {} 个变更。", n.entries.size())) +
         "\n";
  if (!n.highlights.empty()) {
    out += fmt::format("\n## {}\n\n", w.highlights);
    for (size_t i : n.highlights) {
      const Entry& e = n.entries[i];
      out += line(n, e);
      if (!e.paragraph.empty()) out += fmt::format("  {}\n", md(e.paragraph));
    }
  }
  for (const auto& s : n.sections) {
    out += fmt::format("\n## {}\n\n",
                       s.tag.empty() ? w.untagged : md(tag_display_name(s.tag, n.lang)));
    for (size_t i : s.entries) out += line(n, n.entries[i]);
  }
  if (!n.visible.empty()) {
    out += fmt::format("\n## {}\n\n", w.defaults);
    for (const auto& [i, v] : n.visible)
      out += fmt::format("- {}: {} ({})\n", md(n.entries[i].headline), md(v.summary()),
                         link(n, n.entries[i].change));
  }
  if (!n.new_contributors.empty()) {
    out += fmt::format("\n## {}\n\n", w.contributors);
    for (const auto& c : n.new_contributors)
      out +=
          fmt::format("- {} · {} {}\n", md(c.name), w.first_pr, link(n, n.entries[c.entry].change));
  }
  if (!n.skipped.empty()) {
    if (n.list_skips) {
      out += fmt::format("\n## {}\n\n", w.other);
      for (size_t i : n.skipped) out += line(n, n.entries[i]);
    } else {
      out += "\n" + not_listed(n.lang, n.skipped.size(), en ? "skip verdict" : "可跳过") + "\n";
    }
  }
  if (n.left_out > 0)
    out += "\n" + not_listed(n.lang, n.left_out, en ? "filtered" : "已过滤") + "\n";
  return out;
}

nlohmann::json notes_json(const Notes& n) {
  auto list = [&](const std::vector<size_t>& idx) {
    nlohmann::json a = nlohmann::json::array();
    for (size_t i : idx) a.push_back(entry_json(n.entries[i]));
    return a;
  };
  nlohmann::json j{{"repo", n.repo},
                   {"from", n.from},
                   {"to", n.to},
                   {"lang", n.lang},
                   {"merged", n.entries.size()},
                   {"left_out", n.left_out},
                   {"highlights", list(n.highlights)},
                   {"skipped", list(n.skipped)}};
  j["sections"] = nlohmann::json::array();
  for (const auto& s : n.sections)
    j["sections"].push_back({{"tag", s.tag},
                             {"name", s.tag.empty() ? "" : tag_display_name(s.tag, n.lang)},
                             {"entries", list(s.entries)}});
  j["visible"] = nlohmann::json::array();
  for (const auto& [i, v] : n.visible)
    j["visible"].push_back({{"ref", ref_of(n.entries[i].change)},
                            {"url", n.entries[i].change.url},
                            {"flags_added", v.flags_added},
                            {"flags_removed", v.flags_removed},
                            {"env_added", v.env_added},
                            {"env_removed", v.env_removed},
                            {"api_changed", v.api_changed}});
  j["new_contributors"] = nlohmann::json::array();
  for (const auto& c : n.new_contributors)
    j["new_contributors"].push_back({{"name", c.name},
                                     {"first", ref_of(n.entries[c.entry].change)},
                                     {"url", n.entries[c.entry].change.url}});
  return j;
}

}  // namespace mergelens::report
