#include "mergelens/guide/validate.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include <fmt/format.h>
#include <re2/re2.h>

#include "mergelens/guide/guide_json.h"
#include "mergelens/guide/prose.h"

namespace mergelens {
namespace {

int level(std::string_view v) {
  if (v == "close_read") return 3;
  if (v == "selective_read") return 2;
  if (v == "skim") return 1;
  if (v == "skip") return 0;
  return -1;
}

const char* verdict_at(int l) {
  static const char* names[] = {"skip", "skim", "selective_read", "close_read"};
  return names[std::clamp(l, 0, 3)];
}

bool matches(std::string_view s, const RE2& re) {
  return RE2::PartialMatch(re2::StringPiece(s.data(), s.size()), re);
}

// `text` without quoted strings ("…", “…”, 「…」) and code spans.
std::string plain_prose(std::string_view text) {
  std::string t = prose::without_code(text);
  static const RE2 kQuoted(
      R"("[^"\n]{0,200}"|\x{201C}[^\x{201D}\n]{0,200}\x{201D}|「[^」\n]{0,200}」)");
  RE2::GlobalReplace(&t, kQuoted, " ");
  return t;
}

// Whether a reason cites the material: a code span, a path, a figure or a
// PR reference (the checker has already removed those that were false).
bool cites(std::string_view reason) {
  if (!prose::code_spans(reason).empty()) return true;
  for (size_t i = 0; i < reason.size(); ++i) {
    unsigned char c = reason[i];
    if (std::isdigit(c)) return true;
    if (c == '#' && i + 1 < reason.size() &&
        std::isdigit(static_cast<unsigned char>(reason[i + 1])))
      return true;
  }
  return reason.find('/') != std::string_view::npos;
}

}  // namespace

std::string verdict_lead(std::string_view v) {
  // The first clause: up to the first colon, comma, full stop or dash.
  size_t cut = v.size();
  for (std::string_view stop : {"\uFF1A", ":", "\uFF0C", ",", "\u3002", ". ", "\u2014", " - ",
                                "\uFF1B", ";", "\uFF08", "("})
    if (auto p = v.find(stop); p != std::string_view::npos) cut = std::min(cut, p);
  std::string_view lead = v.substr(0, std::min<size_t>(cut, 120));
  static const RE2 kNegatedClose(
      R"((不必|无需|不用|没必要|不值得|不需要)(精读|细读|仔细读)|(?i:not worth (a )?(close|careful) read|no need for a close read))");
  static const RE2 kSkim(
      R"(略读|浏览|扫一眼|快速看|粗读|粗看|速览|过一遍|(?i:\bskim|\bglance|\bbrowse))");
  static const RE2 kSkip(
      R"(跳过|无需阅读|不必读|不用读|可以忽略|可忽略|不值得读|(?i:\bskip\b|no need to read|not worth reading|\bignore\b))");
  static const RE2 kSelective(R"(选择性|选读|部分精读|挑着读|(?i:selective|selectively))");
  static const RE2 kClose(
      R"(精读|细读|值得读|值得一读|仔细读|认真读|(?i:close read|worth reading|read (it )?closely|worth a (close|careful) (read|look)))");
  if (matches(lead, kNegatedClose) || matches(lead, kSkim)) return "skim";
  if (matches(lead, kSkip)) return "skip";
  if (matches(lead, kSelective)) return "selective_read";
  if (matches(lead, kClose)) return "close_read";
  return "";
}

std::vector<std::string> injected_paragraphs(const Change& c) {
  static const RE2 kInjection(
      R"((?i)(ignore|disregard|forget)\s+(all\s+|any\s+)?(the\s+)?(previous|prior|above|earlier|preceding)\s+(instructions|prompts?|rules)|system\s+prompt|you\s+are\s+now\s|new\s+instructions\s*:|忽略(之前|以上|前面)的?(所有)?指令)");
  std::vector<std::string> out;
  auto scan = [&](const std::string& text) {
    size_t start = 0;
    while (start < text.size()) {
      size_t end = text.find("\n\n", start);
      if (end == std::string::npos) end = text.size();
      std::string para = text.substr(start, end - start);
      if (RE2::PartialMatch(para, kInjection)) out.push_back(para);
      start = end + 2;
    }
  };
  scan(c.title + "\n\n" + c.body);
  for (const auto& cm : c.commits) scan(cm.message);
  for (const auto& r : c.reviews) scan(r.body);
  for (const auto& r : c.review_comments) scan(r.body);
  for (const auto& r : c.comments) scan(r.body);
  return out;
}

std::string validate_guide(const Guide& g, const Change& c, std::string_view lang,
                           const std::vector<std::string>& injected) {
  if (g.headline.empty()) return "the headline is empty";
  if (g.summary.empty()) return "the summary is empty";
  if (g.verdict_text.empty()) return "the verdict is empty";
  const auto letters =
      prose::count_letters(plain_prose(g.headline + "\n" + g.summary + "\n" + g.verdict_text));
  if (lang == "zh" && letters.cjk < 2) return "the guide is not written in Chinese";
  if (lang == "en" && letters.cjk * 4 > letters.latin) return "the guide is not written in English";
  const std::string lead = verdict_lead(g.verdict_text);
  const int shown = level(g.verdict);
  if (!lead.empty() && shown >= 0 && std::abs(level(lead) - shown) >= 2)
    return fmt::format("the verdict leads with \"{}\" but the guide's verdict is {}", lead,
                       g.verdict);
  if (injected.empty()) return {};
  // The change's text outside the planted paragraphs: what the guide may
  // repeat even when a planted paragraph also has it (a path, an identifier).
  std::string other;
  for (const auto& f : c.files) {
    other += f.path + "\n";
    for (const auto& h : f.hunks)
      for (const auto& l : h.lines) other += l.text + "\n";
  }
  std::string own = c.title + "\n\n" + c.body;
  for (const auto& cm : c.commits) own += "\n\n" + cm.message;
  for (const auto& para : injected)
    for (size_t p = own.find(para); p != std::string::npos; p = own.find(para))
      own.erase(p, para.size());
  other += own;
  const std::string text = guide_text(g);
  for (const auto& para : injected) {
    for (size_t i = 0; i + 24 <= para.size(); i += 8) {
      std::string_view piece(para.data() + i, 24);
      if (text.find(piece) != std::string::npos && other.find(piece) == std::string::npos)
        return "the guide repeats text from an instruction planted in the PR";
    }
    static const RE2 kUrl(R"((https?://[^\s)>"']+))");
    re2::StringPiece in(para);
    std::string url;
    while (RE2::FindAndConsume(&in, kUrl, &url))
      if (text.find(url) != std::string::npos && other.find(url) == std::string::npos)
        return "the guide repeats a URL from an instruction planted in the PR";
  }
  return {};
}

size_t trim_lists(Guide& g, size_t max) {
  size_t cut = 0;
  auto trim = [&](auto& v) {
    if (v.size() > max) {
      cut += v.size() - max;
      v.resize(max);
    }
  };
  trim(g.focus);
  trim(g.skim);
  trim(g.design_decisions);
  trim(g.questions);
  trim(g.number_cautions);
  trim(g.body_vs_code);
  trim(g.gaps);
  trim(g.advice);
  trim(g.references);
  return cut;
}

std::string shorten_headline(std::string_view h) {
  constexpr double kTarget = 30;  // Chinese characters (80 Latin ones)
  if (prose::width(h) <= 1.5 * kTarget) return std::string(h);
  // The lead before the first colon outside code, when it reads on its own.
  std::string plain = prose::without_code(h);
  size_t cut = std::string::npos;
  for (std::string_view colon : {"\uFF1A", ": "})
    if (auto p = plain.find(colon); p != std::string::npos) cut = std::min(cut, p);
  if (cut == std::string::npos) return std::string(h);
  std::string lead = prose::tidy(h.substr(0, cut));
  const double w = prose::width(lead);
  if (w >= 6 && w <= 1.3 * kTarget) return lead;
  return std::string(h);
}

void settle_judgment(Guide& g, const Facts& f, const Guide& offline) {
  const std::string a_verdict = to_string(f.verdict);
  GuideJudgment analysis;
  analysis.verdict = a_verdict;
  analysis.importance = {f.importance.value, offline.importance.reason};
  analysis.insight = {f.insight.value, offline.insight.reason};
  bool moved = false;
  auto settle = [&](GuideScore& shown, const GuideScore& a) {
    if (shown.value <= 0 || a.value <= 0) {  // not given, or nothing to move from
      shown.value = a.value;
      if (shown.reason.empty()) shown.reason = a.reason;
      return;
    }
    if (shown.value == a.value) {
      if (shown.reason.empty()) shown.reason = a.reason;
      return;
    }
    if (!cites(shown.reason)) {
      shown = a;
      return;
    }
    shown.value = std::clamp(shown.value, std::max(1, a.value - 2), std::min(10, a.value + 2));
    moved = true;
  };
  settle(g.importance, analysis.importance);
  settle(g.insight, analysis.insight);
  const int a_level = level(a_verdict), m_level = level(g.verdict);
  bool verdict_moved = false;
  if (m_level < 0 || m_level == a_level || a_level < 0 || !cites(g.analysis.argument)) {
    // A verdict that goes back takes its text with it: the verdict sentence
    // and the digest paragraph argued the model's verdict, so the offline
    // guide's verdict sentence (which states the analysis's) replaces it and
    // the paragraph is composed again from it and the guide's lesson.
    if (m_level >= 0 && a_level >= 0 && m_level != a_level) {
      g.verdict_text = offline.verdict_text;
      g.digest.clear();
    }
    g.verdict = a_verdict;
  } else {
    g.verdict = verdict_at(a_level + (m_level > a_level ? 1 : -1));
    verdict_moved = true;
  }
  // The argument is the verdict's; moved scores carry their own reasons.
  (void)moved;
  analysis.argument = verdict_moved ? g.analysis.argument : std::string();
  g.analysis = std::move(analysis);
}

}  // namespace mergelens
