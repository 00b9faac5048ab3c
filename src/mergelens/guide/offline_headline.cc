// Offline guide: the headline, in the PR's own words in both languages (the
// kind of change first in Chinese), with the key figure the PR states when it
// fits, cut at a word boundary outside code spans.
#include <algorithm>
#include <cctype>
#include <set>

#include <fmt/format.h>

#include "mergelens/analysis/text/text_facts.h"
#include "mergelens/guide/offline_parts.h"
#include "mergelens/guide/prose.h"

namespace mergelens::guide_detail {

std::string headline_kind(const Ctx& c) {
  const Facts& f = c.facts;
  auto has_tag = [&](std::string_view t) {
    return std::any_of(f.tags.begin(), f.tags.end(), [&](const Tag& x) { return x.name == t; });
  };
  struct Kind {
    std::string_view tag, word;
  };
  static constexpr Kind kKinds[] = {{"revert", "回退"},
                                    {"bugfix", "修复"},
                                    {"perf", "优化"},
                                    {"refactor", "重构"},
                                    {"feature", "新功能"}};
  std::string kind;
  for (const auto& k : kKinds)
    if (has_tag(k.tag)) {
      kind = std::string(k.word);
      break;
    }
  // A change whose files all have one role that is not code says so.
  std::set<FileRole> roles;
  for (const auto& file : c.change.files) {
    auto it = f.roles.find(file.path);
    roles.insert(it == f.roles.end() ? FileRole::kCore : it->second);
  }
  if (kind.empty() && roles.size() == 1) {
    switch (*roles.begin()) {
      case FileRole::kDocs:
        kind = "文档";
        break;
      case FileRole::kCi:
        kind = "CI";
        break;
      case FileRole::kTest:
        kind = "测试";
        break;
      case FileRole::kBuild:
        kind = "构建";
        break;
      case FileRole::kConfig:
        kind = "配置";
        break;
      default:
        break;
    }
  }
  return kind;
}

std::string citable_headline(const Ctx& c, std::string text) {
  if (citable(c, text)) return text;
  // A word the checker reads as a citation ("CVE-2026-5760" as lines
  // 2026–5760) is an identifier of the title: mark it as code.
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    size_t j = text.find(' ', i);
    if (j == std::string::npos) j = text.size();
    std::string word = text.substr(i, j - i);
    const bool digits = std::any_of(word.begin(), word.end(), ::isdigit);
    if (digits && word.find('`') == std::string::npos && !citable(c, word)) word = "`" + word + "`";
    out += word;
    if (j < text.size()) out += ' ';
    i = j + 1;
  }
  return citable(c, out) ? out : text;
}

std::string fit_headline(std::string_view text) {
  std::string s(text);
  if (prose::width(s) <= kHeadlineWidth) return s;
  // Cut at a word boundary outside code spans, then close with "…".
  const auto spans = prose::code_spans(s);
  auto inside = [&](size_t at) {
    return std::any_of(spans.begin(), spans.end(),
                       [&](const prose::Span& sp) { return at > sp.begin && at < sp.end; });
  };
  size_t best = 0;
  for (size_t i = 0; i < s.size(); ++i)
    if (s[i] == ' ' && !inside(i) && prose::width(s.substr(0, i)) <= kHeadlineWidth - 1) best = i;
  if (best == 0) return s;
  std::string out = s.substr(0, best);
  while (!out.empty() && (out.back() == ',' || out.back() == ':' || out.back() == ' '))
    out.pop_back();
  return out + "…";
}

std::string headline(const Ctx& c) {
  std::string title = citable_headline(c, clean_title(c.change.title));
  // Both languages frame the change as the PR's own title does; Chinese
  // names the kind of change first: "重构：Remove FlashComm v1".
  // The label never costs the title its words: a title that fits alone is
  // not cut to make room for it.
  if (c.zh())
    if (std::string kind = headline_kind(c); !kind.empty())
      if (prose::width(kind + "：" + title) <= kHeadlineWidth ||
          prose::width(title) > kHeadlineWidth)
        title = kind + "：" + title;
  std::string number = key_figure(c.facts.numbers);
  if (number.empty() || title.find(number) != std::string::npos ||
      prose::width(number) > kFigureWidth)
    return fit_headline(title);
  // The figure must survive the cut: shorten the title, not the figure.
  std::string with = fmt_rt(c.p.headline_number, title, number);
  if (prose::width(with) <= kHeadlineWidth) return with;
  std::string bare = fmt_rt(c.p.headline_number, "", number);
  std::string cut = title;
  while (!cut.empty() && prose::width(cut) + prose::width(bare) + 1 > kHeadlineWidth) {
    auto sp = cut.rfind(' ');
    if (sp == std::string::npos) break;
    cut.resize(sp);
  }
  return cut.size() < title.size() ? fmt_rt(c.p.headline_number, cut + "…", number) : with;
}

}  // namespace mergelens::guide_detail
