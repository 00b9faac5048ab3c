// Offline guide: what the code says about itself. Quotes of the comments and
// docstrings a change adds (Facts::rationale), removed lines shown with the
// line that replaced them (Facts::replacements), the contract a test is named
// for, the questions a region's own facts support, the Chinese headline lead
// and the digest paragraph. Every sentence here is built from one of those
// facts; where none applies the functions return nothing.
#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>
#include <re2/re2.h>

#include "mergelens/analysis/text_facts.h"
#include "mergelens/guide/offline_parts.h"
#include "mergelens/guide/prose.h"

namespace mergelens::guide_detail {
namespace {

// The last component of a dotted or scoped name: "A.b.c" → "c", "ns::f" → "f".
std::string_view short_name(std::string_view name) {
  for (std::string_view sep : {".", "::"}) {
    auto p = name.rfind(sep);
    if (p != std::string_view::npos) name.remove_prefix(p + sep.size());
  }
  return name;
}

// Identifiers written as calls ("f(" or "a.f(") in `text`: the names f.
std::set<std::string> calls_in(std::string_view text) {
  static const RE2 kCall(R"(([A-Za-z_][A-Za-z0-9_]*)\s*\()");
  std::set<std::string> out;
  re2::StringPiece in(text.data(), text.size());
  std::string name;
  while (RE2::FindAndConsume(&in, kCall, &name)) out.insert(name);
  return out;
}

// "name = value" / "name: T = value" / "name=value," : the name and the value.
bool assignment(std::string_view text, std::string* name, std::string* value) {
  static const RE2 kAssign(
      R"(^\s*([A-Za-z_][A-Za-z0-9_.]*)\s*(?::\s*[^=]+?)?\s*=\s*([^=].*?)\s*[,;)]?\s*$)");
  return RE2::FullMatch(text, kAssign, name, value);
}

bool is_condition(std::string_view text) {
  static const RE2 kCond(R"(^\s*(?:\}\s*)?(?:if|elif|else if|while)\b.*)");
  return RE2::FullMatch(text, kCond);
}

// The condition of an if/elif/while line, without the keyword and the colon.
std::string condition_of(std::string_view text) {
  static const RE2 kCond(
      R"(^\s*(?:\}\s*)?(?:if|elif|else if|while)\s*\(?\s*(.*?)\s*\)?\s*[:{]?\s*$)");
  std::string c;
  return RE2::FullMatch(text, kCond, &c) ? c : std::string(text);
}

}  // namespace

std::string quote(const Ctx& c, std::string_view text, size_t max) {
  std::string s(text);
  std::replace(s.begin(), s.end(), '\n', ' ');
  // An odd backtick would open a code span that never closes.
  if (std::count(s.begin(), s.end(), '`') % 2) std::replace(s.begin(), s.end(), '`', '\'');
  if (s.size() > max) {
    size_t cut = s.rfind(' ', max);
    if (cut == std::string::npos || cut < max / 2) cut = max;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
    s = s.substr(0, cut);
    if (std::count(s.begin(), s.end(), '`') % 2) s += '`';
    s += "…";
  }
  return c.zh() ? "“" + s + "”" : "\"" + s + "\"";
}

const RationaleNote* note_in_focus(const Ctx& c, int focus) {
  for (const auto& n : c.facts.rationale)
    if (n.focus == focus) return &n;
  return nullptr;
}

std::string note_clause(const Ctx& c, const RationaleNote& n) {
  return fmt_rt(n.kind == "docstring" ? c.p.note_docstring : c.p.note_comment,
                lines_label(c, n.start_line, n.end_line), quote(c, n.text, 240));
}

std::string pair_label(const Replacement& r) {
  return fmt::format("{} → {}", code(r.old_text, 70), code(r.new_text, 70));
}

std::vector<ReplacementGroup> replacement_groups(const Ctx& c) {
  std::map<std::string, ReplacementGroup> by_call;
  for (const auto& r : c.facts.replacements) {
    if (is_test_file(c.facts, r.path)) continue;
    const auto before = calls_in(r.old_text);
    for (const auto& f : calls_in(r.new_text))
      if (!before.count(f)) {
        auto& g = by_call[f];
        g.call = f;
        g.items.push_back(&r);
        break;
      }
  }
  std::vector<ReplacementGroup> out;
  for (auto& [call, g] : by_call) out.push_back(std::move(g));
  std::stable_sort(out.begin(), out.end(),
                   [](const ReplacementGroup& a, const ReplacementGroup& b) {
                     return a.items.size() > b.items.size();
                   });
  return out;
}

const Replacement* typical_replacement(const ReplacementGroup& g) {
  for (const auto* r : g.items)
    if (r->old_text.find(" = ") != std::string::npos) return r;
  return g.items.front();
}

std::string replacement_question(const Ctx& c, const Replacement& r) {
  std::string old_name, old_value, new_name, new_value;
  if (assignment(r.old_text, &old_name, &old_value) &&
      assignment(r.new_text, &new_name, &new_value) && old_name == new_name &&
      old_value != new_value)
    return fmt_rt(c.p.q_value_moved, code(old_name), code(old_value, 50), code(new_value, 50));
  if (is_condition(r.old_text) && is_condition(r.new_text))
    return fmt_rt(c.p.q_condition_changed, code(condition_of(r.old_text), 70),
                  code(condition_of(r.new_text), 70));
  const auto before = calls_in(r.old_text);
  for (const auto& f : calls_in(r.new_text))
    if (!before.count(f)) return fmt_rt(c.p.q_call_replaced, pair_label(r), code(f));
  return {};
}

std::string fallback_question(const Ctx& c, const Signal& s) {
  // "COND: ACTION" as the detector writes a guard with its fallback.
  const auto colon = s.detail.find(": ");
  if (colon == std::string::npos || colon == 0 || colon + 2 >= s.detail.size()) return {};
  return fmt_rt(c.p.q_fallback_to, code(s.detail.substr(0, colon), 60),
                code(s.detail.substr(colon + 2), 60));
}

std::string test_contract(std::string_view name) {
  std::string_view n = short_name(name);
  std::string words;
  if (n.starts_with("test_"))
    n.remove_prefix(5);
  else if (n.starts_with("Test") || n.starts_with("test"))
    n.remove_prefix(4);
  else
    return {};
  for (size_t i = 0; i < n.size(); ++i) {
    const char ch = n[i];
    if (ch == '_') {
      if (!words.empty() && words.back() != ' ') words += ' ';
    } else if (ch >= 'A' && ch <= 'Z') {
      if (!words.empty() && words.back() != ' ') words += ' ';
      words += static_cast<char>(ch - 'A' + 'a');
    } else {
      words += ch;
    }
  }
  while (!words.empty() && words.back() == ' ') words.pop_back();
  return std::count(words.begin(), words.end(), ' ') >= 1 ? words : std::string();
}

const Definition* contract_test(const Ctx& c, const std::string& path, std::int32_t from,
                                std::int32_t to) {
  for (const auto& d : c.facts.definitions)
    if (d.change == "added" && d.at.path == path && d.at.line >= from && d.at.line <= to &&
        !test_contract(d.name).empty())
      return &d;
  return nullptr;
}

std::string contract_sentence(const Ctx& c, const Definition& test) {
  return fmt_rt(c.p.test_contract, code(short_name(test.name), 80),
                quote(c, test_contract(test.name), 120));
}

std::string headline_lead(const Ctx& c) {
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
  if (kind == "回退") return {};  // the title names what is reverted

  // The key object: a definition the top code region adds, calls that
  // replace removed lines, a new switch, a changed signature.
  std::vector<std::string> parts;
  std::string added;
  for (size_t i = 0; i < f.focus.size() && i < 3 && added.empty(); ++i) {
    const auto& r = f.focus[i];
    if (is_test_file(f, r.path)) continue;
    for (const auto& d : f.definitions)
      if (d.change == "added" && d.kind != "section" && d.at.path == r.path &&
          d.at.line >= r.start_line && d.at.line <= r.end_line) {
        added = std::string(short_name(d.name));
        break;
      }
  }
  if (!added.empty()) parts.push_back("新增 " + code(added, 40));
  auto groups = replacement_groups(c);
  if (!groups.empty() && groups.front().items.size() >= 2) {
    const auto& g = groups.front();
    if (g.call == added)
      parts.push_back(fmt::format("{} 处改为调用它", g.items.size()));
    else
      parts.push_back(fmt::format("{} 处改为调用 {}", g.items.size(), code(g.call, 40)));
  }
  if (parts.empty())
    for (const auto& s : f.signals)
      if (s.added && (s.kind == "env_var" || s.kind == "cli_flag") && !is_test_file(f, s.at.path)) {
        parts.push_back("新增开关 " + code(s.detail, 40));
        break;
      }
  if (parts.empty())
    for (const auto& d : f.definitions)
      if (d.change == "signature_changed" && !is_test_file(f, d.at.path)) {
        parts.push_back(code(short_name(d.name), 40) + " 签名变化");
        break;
      }
  if (parts.empty()) return {};
  std::string lead = kind.empty() ? "" : kind + "：";
  lead += fmt::format("{}", fmt::join(parts, "，"));
  if (std::string number = key_figure(f.numbers); !number.empty())
    lead += fmt::format("（PR 称 {}）", number);
  while (prose::width(lead) > kHeadlineWidth && parts.size() > 1) {
    parts.pop_back();
    lead = (kind.empty() ? "" : kind + "：") + fmt::format("{}", fmt::join(parts, "，"));
  }
  return prose::width(lead) <= kHeadlineWidth ? lead : std::string();
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

std::string digest(const Ctx& c, const Guide& g) {
  const std::string end(c.p.sentence_end);
  auto sentence = [&](std::string s) {
    s = prose::tidy(s);
    if (s.empty()) return s;
    if (!s.ends_with(end) && !s.ends_with(".") && !s.ends_with("?") && !s.ends_with("？")) s += end;
    return s;
  };
  std::vector<std::string> out;
  out.push_back(sentence(g.verdict_text));
  if (!g.why.empty()) {
    out.push_back(sentence(g.why));
  } else if (g.verdict == "skip" || g.verdict == "skim") {
    out.push_back(sentence(g.summary));
  }
  // Name the places to read when the verdict did not.
  std::vector<std::string> places;
  for (const auto& f : g.focus) {
    if (places.size() == 2) break;
    if (f.symbol.empty() || g.verdict_text.find(code(f.symbol)) != std::string::npos) continue;
    places.push_back(fmt_rt(c.p.digest_place, code(short_name(f.symbol), 60), file(f.path),
                            lines_label(c, f.start_line, f.end_line)));
  }
  if (!places.empty() && (g.verdict == "close_read" || g.verdict == "selective_read"))
    out.push_back(sentence(fmt_rt(c.p.digest_places, phrases::join_list(places, c.p))));
  if (out.size() > 3) out.resize(3);
  return fmt::format("{}", fmt::join(out, c.zh() ? "" : " "));
}

}  // namespace mergelens::guide_detail
