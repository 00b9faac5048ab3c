// The writer's prompt leaking into a guide (see prompt_leaks.h).
#include "mergelens/guide/prompt_leaks.h"

#include <fmt/format.h>
#include <re2/re2.h>

#include "mergelens/guide/prose.h"

namespace mergelens {
namespace {

// Words that name the prompt. "The facts" as a section (not "the fact that"),
// the excerpt, the material, what was shown; the analysis and its focus
// regions, verdict and scores as a source.
const RE2& leak_en() {
  static const RE2 re(
      R"((?i)\b(?:the|these|this|its|our)\s+(?:(?:deterministic\s+)?(?:facts|fact\s+section)\b(?:\s+(?:say|says|show|shows|flag|flags|flagged|list|lists|listed|note|notes|noted|mention|mentions|mark|marks|marked|indicate|indicates|report|reports|give|gives|state|states|call|calls)\b)?|(?:diff\s+)?excerpts?\b|(?:provided\s+)?material\b|untrusted\s+(?:data|fence|text)\b)|\b(?:is|are|was|were|isn't|aren't|wasn't|weren't)\s+(?:not\s+)?(?:shown|visible)\s+(?:here|above|below|to\s+(?:me|us)|in\s+the\s+(?:diff|excerpt|material))\b|\bnot\s+(?:shown|visible)\s+in\s+the\s+(?:diff|excerpt|material)\b|\b(?:the\s+)?(?:deterministic\s+)?analysis(?:'s)?\s+(?:flags?|flagged|marks?|marked|lists?|listed|notes?|says|reasons?)\b|\bfocus\s+region\s*#?\d|\bUNTRUSTED\b|\bfacts\s+section\b|\b(?:as\s+)?(?:shown|seen)\s+in\s+the\s+(?:excerpt|facts|material)\b)");
  return re;
}
const RE2& analysis_en() {
  static const RE2 re(R"((?i)\b(?:the\s+)?(?:deterministic\s+)?analysis\b)");
  return re;
}
const RE2& leak_zh() {
  static const RE2 re(
      R"((?:事实(?:部分|一节|段|列表|中|里|显示|表明|标记|指出|提到|列出|给出|称)|摘录|节选|材料(?:中|里|显示|给出|未)|(?:未|没有|并未|没)(?:被)?(?:展示|显示)(?:的)?(?:代码|部分|内容)?(?:中|里)?(?:[，。；]|$)|(?:diff|差异)(?:中|里)?(?:未|没有)(?:展示|显示|给出)|焦点区域\s*#?\d|不可信(?:数据|文本)|确定性分析))");
  return re;
}

// Leading clauses that carry only the source ("According to the facts, ",
// "根据事实部分，"): dropped, the rest kept.
const RE2& lead_en() {
  static const RE2 re(
      R"(^(?i:(?:according\s+to|as|per)\s+(?:the\s+)?(?:deterministic\s+)?(?:facts?(?:\s+section)?|excerpt|material|analysis)(?:\s+(?:shows?|says|notes?|indicates?))?\s*,\s*|the\s+(?:facts?(?:\s+section)?|analysis)\s+(?:says|shows|notes|indicates|states)\s+(?:that\s+)?))");
  return re;
}
const RE2& lead_zh() {
  static const RE2 re(
      R"(^(?:根据|按照|据|从)(?:事实(?:部分)?|摘录|材料|确定性分析|分析)(?:中|来看|显示|所示)?[，,：:]\s*|^(?:事实(?:部分)?|材料|摘录)(?:显示|表明|指出)[，,：:]?\s*)");
  return re;
}
// Parentheses that only say what was shown: "(not shown in the excerpt)",
// "（摘录未展示）".
const RE2& paren() {
  static const RE2 re(
      R"(\s*(?:\((?i:[^()]*\b(?:excerpt|facts\s+section|not\s+shown|material)\b[^()]*)\)|（[^（）]*(?:摘录|事实部分|未展示|未显示|材料)[^（）]*）))");
  return re;
}

template <class Fn>
void for_each_text(Guide& g, Fn fn) {
  fn("headline", "", g.headline);
  fn("digest", "", g.digest);
  fn("summary", "", g.summary);
  fn("verdict_text", "", g.verdict_text);
  fn("why", "", g.why);
  fn("audience", "", g.audience);
  fn("importance.reason", "", g.importance.reason);
  fn("insight.reason", "", g.insight.reason);
  fn("analysis.argument", "", g.analysis.argument);
  for (size_t i = 0; i < g.focus.size(); ++i) {
    fn(fmt::format("focus[{}]", i), "question", g.focus[i].question);
    fn(fmt::format("focus[{}]", i), "why", g.focus[i].why);
  }
  for (size_t i = 0; i < g.skim.size(); ++i)
    fn(fmt::format("skim[{}]", i), "reason", g.skim[i].reason);
  auto list = [&](const char* name, std::vector<std::string>& items) {
    for (size_t i = 0; i < items.size(); ++i) fn(fmt::format("{}[{}]", name, i), "", items[i]);
  };
  list("design_decisions", g.design_decisions);
  list("questions", g.questions);
  list("number_cautions", g.number_cautions);
  list("body_vs_code", g.body_vs_code);
  list("gaps", g.gaps);
  for (size_t i = 0; i < g.advice.size(); ++i)
    fn(fmt::format("advice[{}]", i), "text", g.advice[i].text);
  for (size_t i = 0; i < g.references.size(); ++i)
    fn(fmt::format("references[{}]", i), "note", g.references[i].note);
}

// Upper-cases the first letter of an English sentence left after a cut.
void capitalise(std::string& s, size_t at) {
  if (at < s.size() && s[at] >= 'a' && s[at] <= 'z') s[at] = static_cast<char>(s[at] - 'a' + 'A');
}

// At most `n` bytes of `s`, never inside a UTF-8 sequence.
std::string utf8_prefix(std::string s, size_t n) {
  if (s.size() <= n) return s;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return s.substr(0, n);
}

}  // namespace

bool mentions_prompt(std::string_view s, bool allow_analysis) {
  std::string text = prose::without_code(s);  // code spans never leak
  re2::StringPiece in(text);
  if (RE2::PartialMatch(in, leak_zh())) return true;
  if (!RE2::PartialMatch(in, leak_en())) return false;
  if (!allow_analysis) return true;
  // In the judgment's argument "the analysis" is the thing argued with.
  std::string rest = text;
  RE2::GlobalReplace(&rest, analysis_en(), "");
  return RE2::PartialMatch(rest, leak_en());
}

size_t rewrite_prompt_words(Guide& g) {
  size_t changed = 0;
  for_each_text(g, [&](const std::string& field, const std::string& part, std::string& t) {
    if (t.empty()) return;
    std::string out;
    bool touched = false;
    for (const auto& r : prose::sentences(t)) {
      std::string s = t.substr(r.begin, r.end - r.begin);
      if (!mentions_prompt(s, field == "analysis.argument")) {
        out += s;
        continue;
      }
      std::string before = s;
      size_t lead = s.find_first_not_of(" \n");
      if (lead == std::string::npos) lead = 0;
      std::string head = s.substr(0, lead), body = s.substr(lead);
      if (RE2::Replace(&body, lead_en(), "")) capitalise(body, 0);
      RE2::Replace(&body, lead_zh(), "");
      RE2::GlobalReplace(&body, paren(), "");
      s = head + body;
      if (s != before) {
        touched = true;
        g.writer.removed.push_back(fmt::format("{}{}: prompt words (rewritten): {}", field,
                                               part.empty() ? "" : "." + part,
                                               prose::tidy(before)));
      }
      out += s;
    }
    if (touched) {
      t = out;
      ++changed;
    }
  });
  return changed;
}

void find_prompt_leaks(const Guide& guide, std::vector<CitationFailure>& out) {
  Guide& g = const_cast<Guide&>(guide);  // for_each_text only reads here
  for_each_text(g, [&](const std::string& field, const std::string& part, std::string& t) {
    for (const auto& r : prose::sentences(t)) {
      std::string_view s = std::string_view(t).substr(r.begin, r.end - r.begin);
      if (mentions_prompt(s, field == "analysis.argument"))
        out.push_back({field, part, utf8_prefix(prose::tidy(s), 80),
                       "refers to the writer's prompt, which a reader does not have", r.begin,
                       r.end});
    }
  });
}

}  // namespace mergelens
