// Offline guide: the headline, in the PR's own words in both languages (the
// kind of change first in Chinese), with the key figure the PR states when it
// fits, cut at a word boundary outside code spans.
#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <re2/re2.h>

#include "mergelens/analysis/text/text_facts.h"
#include "mergelens/guide/offline_parts.h"
#include "mergelens/guide/prose.h"

namespace mergelens::guide_detail {

namespace {

// Whether a "[Tag]" of a title names the kind of change (which the Chinese
// label and the tags say) or a marker ("[1/N]", "[Part 2]", "[WIP]"), not its
// scope. A name with a digit is a scope like any other ("[gemma3]", "[310P]",
// "[Qwen3]"): only a series marker is made of its numbers.
bool kind_tag(std::string_view tag) {
  std::string t;
  for (char ch : tag)
    if (ch != ' ' && ch != '-' && ch != '_')
      t += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  static const RE2 kMarker(R"((part|step|stage|phase|pr|patch)?\d+((/|of)(\d+|n))?)");
  if (t.empty() || RE2::FullMatch(t, kMarker)) return true;
  static const std::set<std::string, std::less<>> kKinds = {
      "bug",     "bugfix",   "fix",        "fixes",         "hotfix",        "feature",
      "feat",    "features", "newfeature", "perf",          "performance",   "refactor",
      "misc",    "minor",    "doc",        "docs",          "documentation", "ci",
      "chore",   "test",     "tests",      "wip",           "enhancement",   "improvement",
      "cleanup", "style",    "build",      "deps",          "dependencies",  "revert",
      "rfc",     "draft",    "ready",      "readyformerge", "easy",          "trivial",
      "update",  "core",     "other",      "misc.",         "kernel",        "kernels",
      "model",   "models",   "newmodel"};
  return kKinds.count(t) > 0;
}

}  // namespace

std::string clean_title(std::string_view title) {
  std::string t(title);
  static const RE2 kSuffix(R"(\s*\(#\d+\)\s*$)");
  static const RE2 kBracket(R"(^\s*\[([^\]]{1,30})\]\s*)");
  static const RE2 kConventional(R"(^\s*[a-zA-Z]{2,12}(\([^)]{1,30}\))?!?:\s+)");
  RE2::Replace(&t, kSuffix, "");
  // A bracketed scope ("[AMD]", "[NPU]") narrows the title: it is kept as
  // "AMD: ", so that the headline claims no more than the title does.
  std::vector<std::string> scopes;
  std::string tag;
  while (RE2::PartialMatch(t, kBracket, &tag)) {
    if (!kind_tag(tag) && std::find(scopes.begin(), scopes.end(), tag) == scopes.end())
      scopes.push_back(tag);
    RE2::Replace(&t, kBracket, "");
  }
  // A scope the title names again ("[ROCm] … on ROCm") adds nothing.
  auto lower = [](std::string x) {
    for (char& ch : x) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return x;
  };
  std::erase_if(
      scopes, [&](const std::string& sc) { return lower(t).find(lower(sc)) != std::string::npos; });
  RE2::Replace(&t, kConventional, "");
  if (!t.empty() && t[0] >= 'a' && t[0] <= 'z') t[0] = static_cast<char>(t[0] - 'a' + 'A');
  if (t.empty()) return std::string(title);
  if (!scopes.empty()) t = fmt::format("{}: {}", fmt::join(scopes, "/"), t);
  return t;
}

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
      case FileRole::kDocs:  // examples are scripts, not documentation
        kind = examples_only(c.change, f) ? "示例" : "文档";
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

// `title` without a leading scope that names the same kind of change as the
// Chinese label `kind` ("Examples: X" under "示例" is "X"; of "Examples/ROCm:
// X" only "ROCm: X" stays): the label would repeat it in two languages.
static std::string without_kind_scope(const std::string& title, std::string_view kind) {
  static const std::map<std::string_view, std::vector<std::string_view>> kWords = {
      {"示例", {"example", "examples"}},
      {"文档", {"doc", "docs", "documentation"}},
      {"CI", {"ci"}},
      {"测试", {"test", "tests", "testing"}},
      {"构建", {"build"}},
      {"配置", {"config", "configs"}},
      {"回退", {"revert"}},
      {"修复", {"fix", "bugfix", "bug", "hotfix"}},
      {"优化", {"perf", "performance", "optimization", "optimize"}},
      {"重构", {"refactor"}},
      {"新功能", {"feat", "feature"}}};
  auto words = kWords.find(kind);
  const size_t colon = title.find(": ");
  if (words == kWords.end() || colon == std::string::npos || colon > 40) return title;
  std::vector<std::string> keep;
  bool dropped = false;
  size_t at = 0;
  while (at <= colon) {
    size_t slash = title.find('/', at);
    if (slash == std::string::npos || slash > colon) slash = colon;
    std::string scope = title.substr(at, slash - at);
    std::string lower = scope;
    for (char& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (std::find(words->second.begin(), words->second.end(), lower) != words->second.end())
      dropped = true;
    else
      keep.push_back(scope);
    at = slash + 1;
  }
  if (!dropped) return title;
  const std::string rest = title.substr(colon + 2);
  return keep.empty() ? rest : fmt::format("{}: {}", fmt::join(keep, "/"), rest);
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
    if (std::string kind = headline_kind(c); !kind.empty()) {
      title = without_kind_scope(title, kind);
      if (prose::width(kind + "：" + title) <= kHeadlineWidth ||
          prose::width(title) > kHeadlineWidth)
        title = kind + "：" + title;
    }
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
  if (cut.size() >= title.size()) return with;
  // The words that narrow the title ("for X", "on Y", "when Z") are kept
  // before the figure: without them the headline claims a wider change.
  static const RE2 kNarrowing(
      R"((?i)\b(for|on|in|when|with|without|under|if|during|via|only|except)\b)");
  // The cut's last word counts too: "… on" + "ROCm" loses what "on" narrows.
  const size_t last = cut.rfind(' ');
  if (RE2::PartialMatch(std::string_view(title).substr(last == std::string::npos ? 0 : last),
                        kNarrowing))
    return fit_headline(title);
  return fmt_rt(c.p.headline_number, cut + "…", number);
}

}  // namespace mergelens::guide_detail
