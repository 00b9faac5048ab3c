// Claims about what a change does, checked against the code before and after
// it (see claims.h).
#include "mergelens/guide/claims.h"

#include <algorithm>
#include <cctype>
#include <ctime>
#include <set>

#include <fmt/format.h>
#include <re2/re2.h>

#include "mergelens/guide/citation_text.h"
#include "mergelens/guide/prose.h"

namespace mergelens {
namespace {

using Claimable = CitationIndex::Claimable;

bool matches(std::string_view s, const RE2& re) {
  return RE2::PartialMatch(re2::StringPiece(s.data(), s.size()), re);
}

// The words between a "new" cue and its subject: articles and the noun of
// what is new ("a new switch `X`", "新增环境变量 `X`").
const RE2& new_before_en() {
  static const RE2 re(
      R"((?i)\b(?:brand[- ]new|new(?:ly\s+(?:added|introduced|created))?|introduc(?:e|es|ed|ing)|add(?:s|ed|ing)?|creat(?:e|es|ed|ing)|defin(?:e|es|ed|ing))\s+(?:(?:a|an|the|one|two|three|several)\s+)?(?:new\s+)?(?:(?:env(?:ironment)?\s+var(?:iable)?s?|switch(?:es)?|flags?|options?|knobs?|settings?|toggles?|parameters?|fields?|files?|functions?|methods?|class(?:es)?|apis?|helpers?|modules?|config(?:uration)?\s+(?:fields?|keys?|options?))\s+)?(?:called\s+|named\s+)?$)");
  return re;
}
const RE2& new_after_en() {
  static const RE2 re(
      R"((?i)^\s*(?:,\s*)?(?:is|are|was|were)\s+(?:a\s+|an\s+)?(?:brand[- ])?new(?:ly)?\b)");
  return re;
}
// What follows a code span a "new" cue stands before: a noun that names
// something else than the span ("the new `f` rule", "新的 `f` 规则"): then
// the rule is new, not `f`. A word that names what the span is ("the new
// `f` helper"), a verb ("the new `f` reads ..."; a word in -s or -ed is taken
// for one) or a function word keeps the claim on the span.
bool modifies_a_noun(std::string_view after) {
  // "adds the `X` to `Y` translation": the translation is new, not `X`.
  static const RE2 mapping(
      R"((?i)^\s+(?:to|into|->|\x{2192})\s+\S+\s+(?:translation|conversion|mapping|normali[sz]ation|migration|renaming|rename|bridge|shim|alias|adapter|fallback)\b)");
  static const RE2 mapping_zh(
      R"(^\s*(?:到|至|转为|转换为|映射到)\s*\S{1,80}?\s*的?(?:转换|映射|换算|迁移|别名|适配|回退|兼容))");
  if (RE2::PartialMatch(re2::StringPiece(after.data(), after.size()), mapping) ||
      RE2::PartialMatch(re2::StringPiece(after.data(), after.size()), mapping_zh))
    return true;
  static const RE2 en(R"(^\s+([a-z]+)\b)");
  static const RE2 keeps(
      R"(^(?:env|environment|var|variable|variables|switch|switches|flag|option|knob|setting|toggle|parameter|field|file|function|method|class|classes|api|helper|module|config|configuration|key|hook|op|operator|kernel|and|or|nor|but|to|in|on|at|by|for|with|from|of|as|that|which|who|is|are|was|were|be|been|has|have|had|do|does|did|will|can|could|may|might|must|should|would|now|also|only|here|there|so|then|when|where|while|if|because|since|instead|into|under|over|after|before|via|per|plus|than|this|it|its|itself|always|never|still|first)$)");
  std::string word;
  if (RE2::PartialMatch(re2::StringPiece(after.data(), after.size()), en, &word))
    return !RE2::FullMatch(word, keeps) && !word.ends_with("s") && !word.ends_with("ed");
  static const RE2 zh(
      R"(^\s*(?:规则|逻辑|路径|分支|检查|行为|布局|默认值|调用|签名|条件|判断|流程|顺序|语义|约定|用法|实现|版本|分派|处理|形状|取值))");
  return RE2::PartialMatch(re2::StringPiece(after.data(), after.size()), zh);
}

const RE2& new_before_zh() {
  static const RE2 re(
      R"((?:新增|新加|新建|引入|加入|添加|增加|新定义)了?(?:一个|一项|个|两个|几个)?(?:新的?)?(?:环境变量|开关|参数|选项|配置项|配置字段|配置|标志|文件|函数|方法|类|接口|API)?\s*$|新的?(?:环境变量|开关|参数|选项|配置项|标志|文件|函数|方法|类|接口|API)\s*$)");
  return re;
}
const RE2& new_after_zh() {
  // "`X` 是新增的", "`X`（新增）"; not "`X` 新增了两个分支" (X adds something).
  static const RE2 re(
      R"(^\s*(?:(?:是|为)(?:新增|新加|新引入|新建)|[（(]?(?:新增|新加|新引入|新建)的?\s*(?:$|[，。；、）)])))");
  return re;
}

const RE2& changed_default() {
  static const RE2 re(
      R"((?i)\b(?:chang(?:e|es|ed|ing)|flip(?:s|ped)?|switch(?:es|ed)|turn(?:s|ed)|mov(?:e|es|ed)|alter(?:s|ed)?)\s+(?:the\s+|its\s+|their\s+|a\s+)?default|\bdefault\s+(?:now\s+)?(?:changes|changed|flips|flipped|goes|went|moves|moved)\b|\bnew\s+defaults?\b|\bdefault\s+is\s+now\b|\bnow\s+defaults?\s+to\b|\bdefaults?\s+(?:changes?\s+)?from\b|默认值?(?:改为|改成|变为|变成|从|由|现在|现为|已改)|(?:改变|修改|更改|调整)了?(?:其|它的|该开关的)?默认|新的默认|默认(?:改|变))");
  return re;
}
const RE2& on_default() {
  static const RE2 re(
      R"((?i)\b(?:on|enabled|true|active)\s+by\s+default\b|\bdefaults?\s+(?:to\s+|is\s+)?(?:on|true|enabled|1)\b|\benabled\s+unless\b|默认(?:即|就)?(?:开启|启用|打开|生效|为\s*(?:True|true|1|开启|启用)))");
  return re;
}
const RE2& off_default() {
  static const RE2 re(
      R"((?i)\b(?:off|disabled|false|inactive)\s+by\s+default\b|\bdefaults?\s+(?:to\s+|is\s+)?(?:off|false|disabled|0)\b|\bopt-in\b|默认(?:即|就)?(?:关闭|禁用|不开启|不启用|不生效|为\s*(?:False|false|0|关闭|禁用)))");
  return re;
}
const RE2& past() {
  static const RE2 re(
      R"((?i)\b(?:was|were|previously|used\s+to|before\s+(?:this|the)\s+(?:change|pr))\b|原来|之前|此前|以前|原先)");
  return re;
}
const RE2& limited() {
  static const RE2 re(
      R"((?i)\bonly\b[^.;]{0,30}?\b(?:when|if|with|for)\b|\blimited\s+(?:reach|impact|scope|audience)\b|\bnarrow\s+(?:reach|impact|audience)\b|\bfew\s+users\b|\bopt-in\b|仅在|只在|只有在|仅当|只有当|仅对|只对|影响(?:面|范围)?(?:有限|较小|很小)|范围有限|少数用户)");
  return re;
}
const RE2& rollout() {
  static const RE2 re(
      R"((?i)\brollout\b|\bgradual|\bstaged\b|\bfeature\s+flag|\bkill\s+switch|\bescape\s+hatch|灰度|逐步|渐进|可回退|逃生)");
  return re;
}
const RE2& default_word() {
  static const RE2 re(R"((?i)\bdefault|默认|缺省)");
  return re;
}
const RE2& bare_names() {
  static const RE2 re(R"(\b([A-Z][A-Z0-9]*_[A-Z0-9_]*[A-Z0-9]|--[a-z0-9][a-z0-9-]*[a-z0-9])\b)");
  return re;
}

std::string norm(std::string_view v) {
  std::string s;
  for (char c : v)
    if (c != '"' && c != '\'' && c != '`' && !std::isspace(static_cast<unsigned char>(c)))
      s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (s == "1" || s == "true" || s == "yes" || s == "on" || s == "enabled") return "true";
  if (s == "0" || s == "false" || s == "no" || s == "off" || s == "disabled") return "false";
  return s;
}

// What a subject named in a sentence is.
struct Subject {
  std::string text;           // as written
  size_t begin = 0, end = 0;  // in the sentence
  const SwitchFact* sw = nullptr;
  std::string file;  // a changed file's path
  bool existed_def = false;
};

const SwitchFact* find_switch(const Claimable& c, std::string name) {
  if (!c.switches_known) return nullptr;
  if (name.starts_with("envs.")) name.erase(0, 5);
  if (auto eq = name.find_first_of("=( "); eq != std::string::npos) name.resize(eq);
  for (const auto& s : c.switches)
    if (s.name == name) return &s;
  if (name.starts_with("--")) {
    std::string field = name.substr(2);
    std::replace(field.begin(), field.end(), '-', '_');
    for (const auto& s : c.switches)
      if (s.name == field) return &s;
  }
  return nullptr;
}

std::vector<Subject> subjects(std::string_view s, const Claimable& c, const CitationIndex& ix) {
  std::vector<Subject> out;
  auto add = [&](std::string text, size_t b, size_t e) {
    Subject sub{text, b, e};
    sub.sw = find_switch(c, text);
    std::string name = text;
    if (auto p = name.find('('); p != std::string::npos) name.resize(p);
    if (!sub.sw) {
      std::string full = ix.resolve_path(name);
      if (!full.empty()) sub.file = full;
    }
    // A name the change defines anew (a method it adds to its class) is new
    // where it is defined, though a namesake existed elsewhere.
    if (!sub.sw && sub.file.empty() && c.context_known)
      sub.existed_def = c.existed.count(name) > 0 && !c.added.count(name);
    if (sub.sw || !sub.file.empty() || sub.existed_def) out.push_back(std::move(sub));
  };
  for (const auto& sp : prose::code_spans(s))
    add(citation_text::span_text(std::string(sp.code)), sp.begin, sp.end);
  std::string rest = prose::without_code(s);
  re2::StringPiece in(rest);
  re2::StringPiece m;
  while (RE2::FindAndConsume(&in, bare_names(), &m)) {
    size_t b = static_cast<size_t>(m.data() - rest.data());
    add(std::string(m), b, b + m.size());
  }
  return out;
}

std::string where(const SwitchSide& s) {
  return fmt::format("{}:{}", s.path, s.line);
}

enum class Family { kNew, kDefault, kReach };

struct False {
  std::string subject;
  Family family;
};

class ClaimChecker {
 public:
  ClaimChecker(const CitationIndex& ix, std::vector<CitationFailure>& out)
      : ix_(ix), c_(ix.claimable()), out_(out) {}

  void sentence(const std::string& field, const std::string& part, std::string_view t,
                prose::Range r) {
    std::string_view s = t.substr(r.begin, r.end - r.begin);
    for (const auto& sub : subjects(s, c_, ix_)) {
      std::string why;
      Family fam = Family::kNew;
      if (says_new(s, sub) && !proposes(field, s)) {
        if (sub.sw && sub.sw->existed_at_parent)
          why = fmt::format("`{}` existed before this change ({} at {})", sub.sw->name,
                            sub.sw->before.origin, where(sub.sw->before));
        else if (!sub.file.empty() && !sub.sw) {
          auto st = c_.files.find(sub.file);
          if (st != c_.files.end() && st->second != FileStatus::kAdded &&
              st->second != FileStatus::kCopied)
            why = fmt::format("`{}` existed before this change", sub.file);
        } else if (sub.existed_def) {
          why = fmt::format("`{}` existed before this change", sub.text);
        }
      }
      if (why.empty() && sub.sw) {
        fam = Family::kDefault;
        why = default_claim(s, *sub.sw);
        if (why.empty()) {
          fam = Family::kReach;
          why = reach_claim(s, *sub.sw);
        }
      }
      if (why.empty()) continue;
      fail(field, part, sub.text, why, r);
      false_.push_back({sub.sw ? sub.sw->name : sub.text, fam});
    }
  }

  // A sentence naming a subject found false, with a cue of the same claim.
  void dependent(const std::string& field, const std::string& part, std::string_view t,
                 prose::Range r) {
    std::string_view s = t.substr(r.begin, r.end - r.begin);
    for (const auto& f : false_) {
      bool names = false;
      for (const auto& sub : subjects(s, c_, ix_))
        names = names || (sub.sw ? sub.sw->name : sub.text) == f.subject;
      if (!names) continue;
      // A default or reach claim is judged where it is made; what argues
      // from a false "new" is the rollout it supposedly enables (a sentence
      // that itself calls the subject new failed where it was made). Naming
      // the subject beside another "new" thing argues nothing from it.
      if (f.family != Family::kNew) continue;
      if (matches(s, rollout())) {
        fail(field, part, f.subject, "argues from a false claim about `" + f.subject + "`", r);
        break;
      }
    }
  }

  bool any_false() const { return !false_.empty(); }

 private:
  // A gap, advice or design alternative that opens with "Add", "Introduce",
  // "增加" proposes what to add; it claims nothing about the change ("增加
  // `f` 在草稿路径上的测试": add a test of `f`).
  static bool proposes(const std::string& field, std::string_view s) {
    if (!field.starts_with("gaps") && !field.starts_with("advice") &&
        !field.starts_with("design_decisions"))
      return false;
    static const RE2 kImperative(
        R"(^\s*(?:(?i:add|introduce|create|define|write|expose)\b|增加|添加|新增|引入|加入|补充|补上|编写))");
    return matches(s, kImperative);
  }

  bool says_new(std::string_view s, const Subject& sub) const {
    std::string_view before = s.substr(0, sub.begin), after = s.substr(sub.end);
    if (before.size() > 64) before = before.substr(before.size() - 64);
    std::string b = prose::without_code(before);
    if ((matches(b, new_before_en()) || matches(b, new_before_zh())) && !modifies_a_noun(after))
      return true;
    // "the alias on line 13 of `x.py` are new logic": the span is the object
    // of a preposition, not what "are new" is said of.
    static const RE2 kObject(R"((?i)\b(?:of|in|from|at|inside|within|under)\s*$)");
    if (matches(b, kObject)) return false;
    return matches(after, new_after_en()) || matches(after, new_after_zh());
  }

  std::string default_claim(std::string_view s, const SwitchFact& sw) const {
    if (!matches(s, default_word()) && !matches(s, on_default()) && !matches(s, off_default()))
      return {};
    const SwitchSide& now =
        matches(s, past()) && !matches(s, changed_default()) ? sw.before : sw.after;
    if (matches(s, changed_default()) && sw.before.exists && sw.after.exists && !sw.default_changed)
      return fmt::format("the default of `{}` is {} before and after this change ({})", sw.name,
                         sw.after.has_default ? "`" + sw.after.default_value + "`" : "unset",
                         where(sw.after));
    if (!now.exists || !now.has_default) return {};
    const std::string v = norm(now.default_value);
    if (v != "true" && v != "false") return {};
    const bool says_on = matches(s, on_default()), says_off = matches(s, off_default());
    if (says_on != says_off && (says_on ? "true" : "false") != v)
      return fmt::format("`{}` defaults to `{}` ({})", sw.name, now.default_value, where(now));
    return {};
  }

  std::string reach_claim(std::string_view s, const SwitchFact& sw) const {
    if (!matches(s, limited()) || !sw.after.exists || !sw.after.has_default) return {};
    if (norm(sw.after.default_value) != "true") return {};
    return fmt::format("`{}` is on by default (`{}` at {}): the path runs for every user", sw.name,
                       sw.after.text, where(sw.after));
  }

  void fail(const std::string& field, const std::string& part, const std::string& citation,
            const std::string& reason, prose::Range r) {
    for (const auto& f : out_)
      if (f.field == field && f.part == part && f.begin == r.begin && f.end == r.end) return;
    out_.push_back({field, part, "`" + citation + "`", reason, r.begin, r.end});
  }

  const CitationIndex& ix_;
  const Claimable& c_;
  std::vector<CitationFailure>& out_;
  std::vector<False> false_;
};

template <class Fn>
void for_each_text(const Guide& g, Fn fn) {
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
  auto list = [&](const char* name, const std::vector<std::string>& items) {
    for (size_t i = 0; i < items.size(); ++i) fn(fmt::format("{}[{}]", name, i), "", items[i]);
  };
  list("design_decisions", g.design_decisions);
  list("number_cautions", g.number_cautions);
  list("body_vs_code", g.body_vs_code);
  list("gaps", g.gaps);
  for (size_t i = 0; i < g.advice.size(); ++i)
    fn(fmt::format("advice[{}]", i), "text", g.advice[i].text);
  for (size_t i = 0; i < g.references.size(); ++i)
    fn(fmt::format("references[{}]", i), "note", g.references[i].note);
}

// "later", "follow-up", "后续" said of a PR: the claim that it came after.
const RE2& later_cue() {
  static const RE2 re(
      R"((?i)\b(?:later|follow[- ]?ups?|followed up|subsequent(?:ly)?|afterwards|newer)\b|后续|之后的|随后|后来|此后)");
  return re;
}

std::string day_of(std::int64_t t) {
  const std::time_t tt = static_cast<std::time_t>(t);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  return fmt::format("{:04}-{:02}-{:02}", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday);
}

}  // namespace

void check_order_claims(const Guide& g, const CitationIndex& index,
                        std::vector<CitationFailure>& out) {
  const auto& earlier = index.claimable().earlier;
  if (earlier.empty()) return;
  static const RE2 kRef(R"((?:^|[^\w/])#(\d{1,9})\b)");
  auto visit = [&](const std::string& field, const std::string& part, std::string_view t) {
    for (const auto& r : prose::sentences(t)) {
      const std::string_view s = t.substr(r.begin, r.end - r.begin);
      re2::StringPiece in(s.data(), s.size());
      std::string digits;
      while (RE2::FindAndConsume(&in, kRef, &digits)) {
        const auto it = earlier.find(std::stoll(digits));
        if (it == earlier.end()) continue;
        const size_t end = static_cast<size_t>(in.data() - s.data());
        const size_t at = end - digits.size() - 1;
        // The cue next to the reference: up to a few words before or after.
        const size_t from = at > 40 ? at - 40 : 0;
        const std::string_view near_before = s.substr(from, at - from);
        const std::string_view near_after = s.substr(end, std::min<size_t>(24, s.size() - end));
        if (!matches(near_before, later_cue()) && !matches(near_after, later_cue())) continue;
        out.push_back(
            {field, part, "#" + digits,
             fmt::format("#{} merged before this change ({})", digits, day_of(it->second)), r.begin,
             r.end});
        break;
      }
    }
  };
  for_each_text(g, visit);
  for (size_t i = 0; i < g.questions.size(); ++i)
    visit(fmt::format("questions[{}]", i), "", g.questions[i]);
}

void fix_reference_order(Guide& g, const CitationIndex& index) {
  const auto& earlier = index.claimable().earlier;
  for (auto& r : g.references) {
    if (!r.ref.starts_with('#') || r.ref.size() < 2 || r.ref.size() > 10) continue;
    if (!std::all_of(r.ref.begin() + 1, r.ref.end(),
                     [](unsigned char ch) { return std::isdigit(ch); }))
      continue;
    const auto it = earlier.find(std::stoll(r.ref.substr(1)));
    if (it == earlier.end()) continue;
    if (!matches(r.relation, later_cue()) && r.relation.find("fixed_by") == std::string::npos &&
        r.relation.find("follow_up") == std::string::npos)
      continue;
    const std::string was = r.relation;
    r.relation = g.lang == "zh" ? "更早的改动" : "earlier change";
    g.writer.edits.push_back(
        fmt::format("references: {} \"{}\": merged before this change ({}): "
                    "now \"{}\"",
                    r.ref, was, day_of(it->second), r.relation));
  }
}

void check_claims(const Guide& g, const CitationIndex& index, std::vector<CitationFailure>& out) {
  const auto& c = index.claimable();
  if (!c.switches_known && !c.context_known && c.files.empty()) return;
  ClaimChecker checker(index, out);
  // Questions propose and ask; they claim nothing (not visited).
  for_each_text(g, [&](const std::string& field, const std::string& part, std::string_view t) {
    for (const auto& r : prose::sentences(t)) checker.sentence(field, part, t, r);
  });
  if (!checker.any_false()) return;
  for_each_text(g, [&](const std::string& field, const std::string& part, std::string_view t) {
    for (const auto& r : prose::sentences(t)) checker.dependent(field, part, t, r);
  });
}

namespace {

// A quoted assertion of a test: what a gap asking for it would quote.
bool is_assertion(std::string_view code) {
  static const RE2 re(
      R"(^(?:assert[\s(]|self\.assert[A-Za-z]*\(|(?:[A-Za-z_][\w.]*\.)?(?:testing\.)?assert_[a-z_]+\(|pytest\.raises\(|(?:EXPECT|ASSERT)_[A-Z_]+\())");
  return RE2::PartialMatch(re2::StringPiece(code.data(), code.size()), re);
}

// Whether the words before a quoted assertion ask to add it ("add `assert
// …`", "添加 `assert …`"), not name it as a place ("next to `assert …`").
bool asks_to_add(std::string_view before) {
  static const RE2 en(
      R"((?i)\b(?:add|adds|adding|pin(?:s|ning)?|insert|include|assert\s+that)\s+(?:(?:an?|the|one)\s+)?(?:(?:assertion|assert|check|line)s?\s+)?(?:(?:like|such\s+as|as)\s+)?(?:e\.g\.\s*)?[:,]?\s*$)");
  static const RE2 zh(
      R"((?:添加|加上|加入|补上|补一条|补充|增加|补)(?:一条|一个|一行)?(?:断言|检查)?(?:如|例如|比如)?[：:，,]?\s*$)");
  const re2::StringPiece piece(before.data(), before.size());
  return RE2::PartialMatch(piece, en) || RE2::PartialMatch(piece, zh);
}

}  // namespace

std::string code_key(std::string_view code) {
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  std::string out;
  bool space = false;
  for (char c : code) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      space = true;
      continue;
    }
    if (c == '\'') c = '"';
    if ((c == ')' || c == ']' || c == '}') && !out.empty() && out.back() == ',') out.pop_back();
    if (space && !out.empty() && word(out.back()) && word(c)) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

void check_gap_claims(const Guide& g, const CitationIndex& index,
                      std::vector<CitationFailure>& out) {
  const auto& tests = index.claimable().added_test_lines;
  if (tests.empty()) return;
  for (size_t i = 0; i < g.gaps.size(); ++i) {
    const std::string& text = g.gaps[i];
    for (const auto& span : prose::code_spans(text)) {
      std::string code = code_key(span.code);
      for (std::string_view tail : {"\u2026", "..."})
        while (code.ends_with(tail)) code = code_key(code.substr(0, code.size() - tail.size()));
      if (code.size() < 12 || !is_assertion(code)) continue;
      const size_t from = span.begin > 60 ? span.begin - 60 : 0;
      if (!asks_to_add(std::string_view(text).substr(from, span.begin - from))) continue;
      for (const auto& [path, added] : tests) {
        if (added.find(code) == std::string::npos) continue;
        size_t begin = 0, end = text.size();
        for (const auto& r : prose::sentences(text))
          if (r.begin <= span.begin && span.begin < r.end) begin = r.begin, end = r.end;
        out.push_back({fmt::format("gaps[{}]", i), "", "`" + code + "`",
                       fmt::format("the change already adds it to {}", path), begin, end});
        break;
      }
    }
  }
}

}  // namespace mergelens
