#include "mergelens/guide/validate.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <optional>

#include <fmt/format.h>
#include <re2/re2.h>

#include "mergelens/guide/digest.h"
#include "mergelens/guide/guide_json.h"
#include "mergelens/guide/prose.h"
#include "mergelens/guide/triage_guide.h"

namespace mergelens {
namespace {

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

int verdict_level(std::string_view v) {
  if (v == "close_read") return 3;
  if (v == "selective_read") return 2;
  if (v == "skim") return 1;
  if (v == "skip") return 0;
  return -1;
}

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
  // The same instruction planted in the code (a string literal or a
  // comment): the literal's text, else the line.
  static const RE2 kLiteral(R"re(("[^"]{12,}"|'[^']{12,}'))re");
  for (const auto& f : c.files)
    for (const auto& h : f.hunks)
      for (const auto& l : h.lines) {
        if (l.origin != '+' || !RE2::PartialMatch(l.text, kInjection)) continue;
        re2::StringPiece in(l.text);
        std::string lit, found;
        while (RE2::FindAndConsume(&in, kLiteral, &lit))
          if (RE2::PartialMatch(lit, kInjection)) found = lit.substr(1, lit.size() - 2);
        out.push_back(found.empty() ? std::string(prose::tidy(l.text)) : found);
      }
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
  const int shown = verdict_level(g.verdict);
  if (!lead.empty() && shown >= 0 && std::abs(verdict_level(lead) - shown) >= 2)
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
  // An instruction planted in the code too is no excuse to repeat it.
  for (const auto& para : injected)
    for (size_t p = other.find(para); p != std::string::npos; p = other.find(para))
      other.erase(p, para.size());
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
  return fit_headline(h);
}

void settle_judgment(Guide& g, const Facts& f, const Guide& offline) {
  const std::string a_verdict = to_string(f.verdict);
  GuideJudgment analysis;
  analysis.verdict = a_verdict;
  analysis.importance = {f.importance.value, offline.importance.reason};
  analysis.insight = {f.insight.value, offline.insight.reason};
  auto settle = [&](GuideScore& shown, const GuideScore& a, const char* name) {
    if (shown.value <= 0 || a.value <= 0) {  // not given, or nothing to move from
      if (shown.value != a.value)
        g.writer.edits.push_back(
            fmt::format("{}.value: not given: the starting {} stands", name, a.value));
      shown.value = a.value;
      if (shown.reason.empty()) shown.reason = a.reason;
      return;
    }
    if (shown.value == a.value) {
      if (shown.reason.empty() && !a.reason.empty()) {
        g.writer.edits.push_back(fmt::format("{}.reason: blank: the starting reason stands", name));
        shown.reason = a.reason;
      }
      return;
    }
    if (!cites(shown.reason)) {
      // An unargued move, or one whose argument the check removed (the
      // removal is logged by the pruner): the starting value goes back
      // with its own reason.
      g.writer.edits.push_back(fmt::format(
          "{}: {} {}: the starting {} and its reason stand", name, shown.value,
          shown.reason.empty() ? "without a reason" : "with a reason citing nothing", a.value));
      shown = a;
      return;
    }
    const int clamped =
        std::clamp(shown.value, std::max(1, a.value - 2), std::min(10, a.value + 2));
    if (clamped != shown.value)
      g.writer.edits.push_back(fmt::format("{}.value: {} is more than 2 from the starting {}: {}",
                                           name, shown.value, a.value, clamped));
    shown.value = clamped;
  };
  settle(g.importance, analysis.importance, "importance");
  settle(g.insight, analysis.insight, "insight");
  const int a_level = verdict_level(a_verdict);
  const std::string lead = verdict_lead(g.verdict_text);
  // The verdict the answer argues: its judgment's, or (an answer in the
  // first schema) the one its verdict sentence leads with.
  int m_level = verdict_level(g.verdict);
  if (m_level < 0) m_level = verdict_level(lead);
  int shown = a_level;
  bool moved = false;
  if (a_level >= 0 && m_level >= 0 && m_level != a_level) {
    if (cites(g.analysis.argument)) {
      // An argued move stands, at most one level from the starting one: a
      // verdict farther away is clamped to the nearest allowed level.
      shown = a_level + (m_level > a_level ? 1 : -1);
      moved = true;
    }
  }
  if (a_level < 0) shown = m_level;
  if (m_level >= 0 && shown >= 0 && m_level != shown)
    g.writer.edits.push_back(fmt::format("judgment.verdict: {} {}: {}", verdict_at(m_level),
                                         moved ? "is more than one level from the starting one"
                                               : "without an argument citing the material",
                                         verdict_at(shown)));
  // The verdict sentence and the digest paragraph follow the verdict shown:
  // a verdict that went back takes the text that argued it with it (the
  // offline guide's sentence states the starting verdict; the paragraph is
  // composed again by the caller); a sentence leading two levels or more
  // away from the verdict shown goes too, so the guide is never lost for it.
  const int l_level = verdict_level(lead);
  const bool reverted =
      !moved && m_level >= 0 && shown >= 0 && m_level != shown && verdict_level(g.verdict) >= 0;
  const bool far = l_level >= 0 && shown >= 0 && std::abs(l_level - shown) >= 2;
  if ((reverted || far) && !offline.verdict_text.empty()) {
    g.writer.edits.push_back(
        fmt::format("verdict_text: leads with {}, not the verdict shown ({}): the offline "
                    "sentence for it replaces it, and the digest is composed again",
                    lead.empty() ? verdict_at(m_level) : lead, verdict_at(shown)));
    g.verdict_text = offline.verdict_text;
    g.digest.clear();
  } else if (shown >= 0) {
    const int d_level = verdict_level(verdict_lead(g.digest));
    if (d_level >= 0 && (std::abs(d_level - shown) >= 2 || (reverted && d_level != shown))) {
      g.writer.edits.push_back(
          fmt::format("digest: leads with {}, not the verdict shown ({}): composed again",
                      verdict_at(d_level), verdict_at(shown)));
      g.digest.clear();
    }
  }
  g.verdict = shown >= 0 ? verdict_at(shown) : a_verdict;
  analysis.argument = moved ? g.analysis.argument : std::string();
  g.analysis = std::move(analysis);
}

void agree_judgments(Guide& a, const Guide& offline_a, Guide& b, const Guide& offline_b) {
  auto back = [](Guide& g, const char* what) {
    g.writer.edits.push_back(fmt::format(
        "{}: the other language of the same answer keeps the starting one: the starting one "
        "stands",
        what));
  };
  if (a.verdict != b.verdict) {
    for (auto [g, off] : {std::pair{&a, &offline_a}, std::pair{&b, &offline_b}}) {
      const GuideJudgment start = starting_judgment(*g);
      if (g->verdict == start.verdict) continue;
      back(*g, "judgment.verdict");
      g->verdict = start.verdict;
      g->verdict_text = off->verdict_text;
      g->analysis.argument.clear();
      g->digest = compose_digest(*g);
    }
  }
  auto score = [&](GuideScore Guide::*field, const char* name) {
    if ((a.*field).value == (b.*field).value) return;
    for (Guide* g : {&a, &b}) {
      const GuideJudgment start = starting_judgment(*g);
      const GuideScore& s =
          std::string_view(name) == "importance" ? start.importance : start.insight;
      if ((g->*field).value == s.value) continue;
      back(*g, name);
      g->*field = s;
    }
  };
  score(&Guide::importance, "importance");
  score(&Guide::insight, "insight");
}

double headline_width(std::string_view h) {
  // prose::width counts a full-width character 1 and any other 0.375; the
  // examples' 90 Latin characters against 40 Chinese ones make it 4/9. With
  // T the code points (backticks aside), width = F + 0.375 (T - F).
  double total = 0;
  for (unsigned char c : h)
    if ((c & 0xC0) != 0x80 && c != '`') ++total;
  const double full = std::max(0.0, (prose::width(h) - 0.375 * total) / (1 - 0.375));
  return full + (total - full) * 4.0 / 9.0;
}

std::string fit_headline(std::string_view h) {
  if (headline_width(h) <= kHeadlineWidth) return std::string(h);
  const std::string plain = prose::without_code(h);  // same byte offsets, code blanked
  // Not inside brackets: "（adapter 只作用于 target" is no phrase.
  auto balanced = [](std::string_view lead) {
    auto count = [&](std::string_view x) {
      size_t n = 0;
      for (size_t q = lead.find(x); q != std::string_view::npos; q = lead.find(x, q + 1)) ++n;
      return n;
    };
    return count("(") + count("\uFF08") == count(")") + count("\uFF09");
  };
  auto longest = [&](std::initializer_list<std::string_view> stops, double min_width) {
    std::string best;
    for (std::string_view stop : stops)
      for (size_t p = plain.find(stop); p != std::string::npos; p = plain.find(stop, p + 1)) {
        std::string lead = prose::tidy(h.substr(0, p));
        if (!balanced(lead)) continue;
        const double w = headline_width(lead);
        if (w >= min_width && w <= kHeadlineWidth && lead.size() > best.size())
          best = std::move(lead);
      }
    return best;
  };
  std::string best = longest({"\uFF0C", "\uFF1B", "\uFF1A", "\u3001", ", ", "; ", ": ", " \u2014 ",
                              "\u2014\u2014", " - ", " \u2013 "},
                             8);
  // Before a linking word, when that keeps at least half the headline.
  if (best.empty())
    best = longest(
        {" with ", " for ", " by ", " via ", " so ", " when ", " to ", " and ", " (", "\uFF08",
         "\u5E76", "\u4EE5", "\u4ECE\u800C", "\u4F7F", "\u901A\u8FC7", "\u540C\u65F6"},
        kHeadlineWidth / 2);
  return best.empty() ? std::string(h) : best;
}

std::string fit_digest(std::string_view d) {
  if (prose::width(d) <= kDigestWidth) return std::string(d);
  // Whole sentences from the start while they fit; at least the first.
  std::string out;
  for (const auto& r : prose::sentences(d)) {
    std::string_view s = d.substr(r.begin, r.end - r.begin);
    if (!out.empty() && prose::width(out) + prose::width(s) > kDigestWidth) break;
    out.append(s);
  }
  return prose::tidy(out);
}

namespace {

// How a score's reason opens: "Kept:", "Raised by 1 from 5:", "由 6 上调：".
struct MoveLead {
  int direction = 0;  // -1 lowered, 0 kept, 1 raised
  int from = 0;       // 0 when not said
  size_t length = 0;  // bytes of the opening, separator and spaces included
};

std::optional<MoveLead> move_lead(std::string_view reason) {
  static const RE2 kEn(
      R"(^(?i:(kept|unchanged|unmoved)|(raised|lifted|increased|moved up|bumped)|(lowered|reduced|decreased|cut|moved down))(?:\s+by\s+\d+)?(?:\s+from\s+(\d+))?(?:\s+to\s+\d+)?\s*(?:[:;,.]|\x{2014}|\s-)\s*)");
  static const RE2 kZh(
      R"(^(?:(保持(?:不变)?|维持(?:不变)?|不变)|(?:由|从|较)\s*(\d+)\s*分?\s*(上调|调高|提高|提升|下调|调低|降低)(?:\s*\d+\s*分?)?(?:至\s*\d+)?|(上调|调高|提高|下调|调低|降低)(?:\s*\d+\s*分?)?)\s*[：:；;，,。]\s*)");
  re2::StringPiece in(reason.data(), reason.size());
  MoveLead m;
  std::string kept, up, down, from, zh_verb, zh_bare;
  if (RE2::Consume(&in, kEn, &kept, &up, &down, &from)) {
    m.direction = !kept.empty() ? 0 : !up.empty() ? 1 : -1;
  } else if (RE2::Consume(&in, kZh, &kept, &from, &zh_verb, &zh_bare)) {
    const std::string& verb = zh_verb.empty() ? zh_bare : zh_verb;
    const bool lowered = verb == "下调" || verb == "调低" || verb == "降低";
    m.direction = !kept.empty() ? 0 : lowered ? -1 : 1;
  } else {
    return std::nullopt;
  }
  if (!from.empty() && from.size() < 3) m.from = std::stoi(from);
  m.length = reason.size() - in.size();
  return m;
}

// Whether the opening is true of a move from `start` to `shown`.
bool lead_true(const MoveLead& m, int shown, int start) {
  if (start <= 0) return false;
  if (m.from > 0 && m.from != start) return false;
  return m.direction == (shown > start) - (shown < start);
}

}  // namespace

void align_score_texts(Guide& g) {
  const bool zh = g.lang == "zh";
  auto align = [&](GuideScore& shown, int analysis, int triage, const char* name) {
    const auto m = move_lead(shown.reason);
    if (!m || analysis <= 0 || shown.reason.size() == m->length) return;
    if (lead_true(*m, shown.value, analysis) || lead_true(*m, shown.value, triage)) return;
    std::string lead;
    if (shown.value == analysis)
      lead = zh ? "保持：" : "Kept: ";
    else if (zh)
      lead = fmt::format("由 {} {}：", analysis, shown.value > analysis ? "上调" : "下调");
    else
      lead = fmt::format("{} from {}: ", shown.value > analysis ? "Raised" : "Lowered", analysis);
    std::string was = shown.reason.substr(0, m->length);
    while (!was.empty() && static_cast<unsigned char>(was.back()) == ' ') was.pop_back();
    shown.reason = lead + shown.reason.substr(m->length);
    g.writer.edits.push_back(
        fmt::format("{}.reason: opened \"{}\" for {} against the analysis's {}: now \"{}\"", name,
                    was, shown.value, analysis, lead.substr(0, lead.find_last_not_of(' ') + 1)));
  };
  align(g.importance, g.analysis.importance.value, g.triage.importance, "importance");
  align(g.insight, g.analysis.insight.value, g.triage.insight, "insight");
}

}  // namespace mergelens
