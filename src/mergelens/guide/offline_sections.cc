// Offline guide: design decisions, questions, cautions, gaps, advice,
// audience and cross-references.
#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <re2/re2.h>

#include "mergelens/guide/offline_parts.h"

namespace mergelens::guide_detail {
namespace {

// The first added signal of `kinds` outside test and benchmark files.
const Signal* first_signal(const Facts& f, std::initializer_list<std::string_view> kinds) {
  for (const auto& s : f.signals)
    if (s.added && std::find(kinds.begin(), kinds.end(), s.kind) != kinds.end() &&
        !is_test_or_bench(f, s.at.path))
      return &s;
  return nullptr;
}

std::string place(const Signal& s) {
  return s.at.symbol.empty() ? file(s.at.path) : code(s.at.symbol);
}

// At most ~90 bytes, cut at a space so no word ("#26235", a name) is cut in
// two and read as another.
std::string clip_title(std::string_view t) {
  std::string s(t);
  if (s.size() <= 90) return s;
  size_t cut = s.rfind(' ', 90);
  if (cut == std::string::npos || cut < 40) {
    cut = 90;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  }
  while (cut > 0 && (s[cut - 1] == ' ' || s[cut - 1] == '(' || s[cut - 1] == ',')) --cut;
  return s.substr(0, cut) + "…";
}

}  // namespace

std::vector<std::string> design_decisions(const Ctx& c) {
  const auto& f = c.facts;
  std::vector<std::string> out;
  if (const Signal* s = first_signal(f, {"fallback"}))
    out.push_back(fmt_rt(c.p.pattern_fallback, place(*s)));
  if (const Signal* s = first_signal(f, {"dtype_branch", "device_branch", "platform_branch"}))
    out.push_back(fmt_rt(c.p.pattern_branch, place(*s), code(s->detail)));
  if (const Signal* s = first_signal(f, {"env_var", "cli_flag"}))
    out.push_back(fmt_rt(c.p.pattern_switch, place(*s), code(s->detail)));
  if (const Signal* s = first_signal(f, {"concurrency"}))
    out.push_back(fmt_rt(c.p.pattern_concurrency, place(*s), code(s->detail)));
  for (const auto& d : f.definitions) {
    auto it = f.roles.find(d.at.path);
    bool code_role = it == f.roles.end() || it->second == FileRole::kCore ||
                     it->second == FileRole::kKernel || it->second == FileRole::kModel;
    if (d.change == "added" && code_role &&
        (d.kind == "class" || d.kind == "struct" || d.kind == "trait")) {
      out.push_back(fmt_rt(c.p.pattern_abstraction, file(d.at.path), code(d.name)));
      break;
    }
  }
  if (out.size() > 3) out.resize(3);
  return out;
}

std::vector<std::string> questions(const Ctx& c, const std::vector<GuideFocus>& focus) {
  const auto& f = c.facts;
  std::vector<std::string> out;
  std::string asked;
  for (const auto& g : focus) asked += g.question;
  auto covered = [&](const std::string& s) { return asked.find(s) != std::string::npos; };
  for (const auto& d : f.definitions) {
    if (out.size() >= 2) break;
    std::string name = code(d.name);
    if (d.change == "signature_changed" && !covered(name))
      out.push_back(fmt_rt(c.p.risk_signature, name));
    else if (d.change == "removed" && d.kind != "section" && !is_test_file(f, d.at.path))
      out.push_back(fmt_rt(c.p.risk_public_removed, name));
  }
  if (const Signal* s = first_signal(f, {"dtype_branch", "device_branch", "platform_branch"}))
    if (!covered(code(s->detail))) out.push_back(fmt_rt(c.p.risk_dtype, code(s->detail)));
  if (const Signal* s = first_signal(f, {"env_var"}))
    if (!covered(code(s->detail))) out.push_back(fmt_rt(c.p.risk_env, code(s->detail)));
  if (const Signal* s = first_signal(f, {"numeric_constant"}))
    if (!covered(code(s->detail))) out.push_back(fmt_rt(c.p.risk_constant, code(s->detail)));
  if (const Signal* s = first_signal(f, {"todo"}))
    out.push_back(fmt_rt(c.p.risk_todo, code(s->detail)));
  for (const auto& b : f.referenced_by) {
    if (b.relation == "reverts")
      out.insert(out.begin(), fmt_rt(c.p.risk_reverted_later, b.ref, clip_title(b.title)));
    else if (b.relation == "fixes")
      out.insert(out.begin(), fmt_rt(c.p.risk_fixed_later, b.ref, clip_title(b.title)));
  }
  std::vector<std::string> unique;  // two definitions of one name give one question
  for (auto& q : out)
    if (std::find(unique.begin(), unique.end(), q) == unique.end()) unique.push_back(std::move(q));
  if (unique.size() > 4) unique.resize(4);
  return unique;
}

std::vector<std::string> number_cautions(const Ctx& c) {
  std::vector<std::string> out;
  for (const auto& n : c.facts.number_cautions) {
    if (n.kind == "spread") {
      out.push_back(fmt_rt(c.p.num_spread, n.detail));
    } else if (n.kind == "no_benchmark") {
      std::vector<std::string> shown;
      for (const auto& x : c.facts.numbers) {
        if (shown.size() >= 3) break;
        if (x.kind == "count" || x.kind == "percent") continue;
        if (std::find(shown.begin(), shown.end(), x.text) == shown.end()) shown.push_back(x.text);
      }
      if (shown.empty())
        for (const auto& x : c.facts.numbers)
          if (shown.size() < 3 && x.kind != "count") shown.push_back(x.text);
      if (!shown.empty())
        out.push_back(fmt_rt(c.p.num_no_benchmark, fmt::format("{}", fmt::join(shown, ", "))));
    } else if (n.kind == "single_point") {
      auto cut = n.detail.find(" with no");
      out.push_back(fmt_rt(c.p.num_single, n.detail.substr(0, cut)));
    }
  }
  return out;
}

std::vector<std::string> body_vs_code(const Ctx& c) {
  std::vector<std::string> out;
  static const RE2 kShare(R"((\d+) of (\d+) changed lines \((\d+)%\) are under .*)");
  for (const auto& m : c.facts.body_mismatches) {
    if (m.kind == "named_not_touched") {
      out.push_back(fmt_rt(c.p.body_named_not_touched, code(m.subject)));
    } else if (m.kind == "touched_not_mentioned") {
      std::string lines, total, pct;
      if (RE2::FullMatch(m.detail, kShare, &lines, &total, &pct))
        out.push_back(fmt_rt(c.p.body_touched_not_mentioned, lines, pct, code(m.subject)));
    }
    if (out.size() >= 3) break;
  }
  return out;
}

namespace {

// How to name each of `paths`: its file name, or the whole path when two of
// them share a file name ("common/conn.py" and "mooncake/conn.py").
std::string path_label(const Facts& f, const std::string& path) {
  const std::string base = path.substr(path.rfind('/') + 1);
  size_t same = 0;
  for (const auto& g : f.gaps)
    same += g.subject.substr(g.subject.rfind('/') + 1) == base && g.subject != path;
  return same ? code(path, 120) : file(path);
}

}  // namespace

std::vector<std::string> gaps(const Ctx& c) {
  std::vector<std::string> out;
  static const RE2 kLines(R"((\d+) changed lines(?: with (\d+) new branch.*?)?;.*)");
  for (const auto& g : c.facts.gaps) {
    if (g.kind == "test") {
      std::string lines, branches;
      std::string what;
      if (RE2::FullMatch(g.detail, kLines, &lines, &branches))
        what = branches.empty()
                   ? fmt_rt(c.tr("{} 行改动", "{} changed lines"), lines)
                   : fmt_rt(c.tr("{} 行改动、{} 个新分支或守卫",
                                 branches == "1" ? "{} changed lines, {} new branch or guard"
                                                 : "{} changed lines, {} new branches or guards"),
                            lines, branches);
      else
        what = g.detail;
      out.push_back(fmt_rt(c.p.gap_test, path_label(c.facts, g.subject), what));
    } else if (g.kind == "benchmark") {
      out.push_back(fmt_rt(c.p.gap_benchmark, g.subject));
    }
  }
  return out;
}

std::vector<GuideAdvice> advice(const Ctx& c, const Guide& g) {
  const auto& f = c.facts;
  std::vector<GuideAdvice> out;
  const bool worth = f.verdict == Verdict::kCloseRead || f.verdict == Verdict::kSelectiveRead;
  std::vector<std::string> switches;
  for (const auto& s : f.signals)
    if (s.added && (s.kind == "env_var" || s.kind == "cli_flag") && switches.size() < 3 &&
        std::find(switches.begin(), switches.end(), code(s.detail)) == switches.end())
      switches.push_back(code(s.detail));
  if (!switches.empty())
    out.push_back({"user", fmt_rt(c.p.adv_user_switch, phrases::join_list(switches, c.p))});
  for (const auto& d : f.definitions)
    if (d.change == "signature_changed" && !is_test_file(f, d.at.path)) {
      bool public_api = std::any_of(f.signals.begin(), f.signals.end(), [&](const Signal& s) {
        return s.kind == "public_api" && s.detail == d.name;
      });
      if (public_api) {
        out.push_back({"user", fmt_rt(c.p.adv_user_api, code(d.name))});
        break;
      }
    }
  static const std::set<std::string> kHardware = {
      "amd", "rocm", "npu", "ascend", "xpu", "tpu", "cpu", "mps", "blackwell", "hopper", "intel"};
  for (const auto& t : f.tags)
    if (kHardware.count(t.name) && worth) {
      out.push_back({"user", fmt_rt(c.p.adv_user_branch, t.name)});
      break;
    }
  std::vector<std::string> untested;
  for (const auto& gap : f.gaps)
    if (gap.kind == "test" && untested.size() < 2) untested.push_back(path_label(f, gap.subject));
  if (worth && !untested.empty())
    out.push_back(
        {"maintainer", fmt_rt(c.p.adv_maintainer_tests, phrases::join_list(untested, c.p))});
  else if (worth && !f.focus.empty()) {
    const std::string& path = f.focus.front().path;
    auto slash = path.rfind('/');
    if (slash != std::string::npos)
      out.push_back({"maintainer", fmt_rt(c.p.adv_maintainer_module, code(path.substr(0, slash)))});
  }
  if (c.change.open) {
    std::string what = !g.questions.empty() ? g.questions.front()
                       : !g.focus.empty()   ? g.focus.front().question
                                            : std::string();
    if (!what.empty()) out.push_back({"reviewer", fmt_rt(c.p.adv_reviewer_open, what)});
  }
  if (!untested.empty() && (c.change.open || f.tests.empty()) && f.verdict != Verdict::kSkip)
    out.push_back({"reviewer", fmt_rt(c.p.adv_reviewer_tests, phrases::join_list(untested, c.p))});
  if (!f.body_mismatches.empty() && f.verdict != Verdict::kSkip)
    out.push_back({"reviewer", std::string(c.p.adv_reviewer_body)});
  if (std::any_of(f.number_cautions.begin(), f.number_cautions.end(), [](const NumberCaution& n) {
        return n.kind == "no_benchmark" || n.kind == "single_point";
      }))
    out.push_back({"reviewer", std::string(c.p.adv_reviewer_numbers)});
  if (worth && first_signal(f, {"fallback"}))
    out.push_back({"operator", std::string(c.p.adv_operator_fallback)});
  else if (const Signal* s = first_signal(f, {"env_var"}); s && worth)
    out.push_back({"operator", fmt_rt(c.p.adv_operator_switch, code(s->detail))});
  if (out.size() > 5) out.resize(5);
  return out;
}

std::string audience(const Ctx& c) {
  static const std::set<std::string> kGeneric = {"bugfix", "tests", "docs",    "refactor", "ci",
                                                 "build",  "deps",  "cleanup", "style",    "chore"};
  std::vector<std::string> topics;
  for (const auto& t : c.facts.tags)
    if (!kGeneric.count(t.name) && topics.size() < 3) topics.push_back(t.name);
  if (topics.empty()) return {};
  return fmt_rt(c.p.audience, phrases::join_list(topics, c.p)) + std::string(c.p.sentence_end);
}

std::vector<GuideReference> references(const Ctx& c) {
  std::vector<GuideReference> out;
  std::set<std::string> seen;
  for (const auto& r : c.facts.references) {
    std::string ref;
    if (r.kind == "pr" || r.kind == "issue")
      ref = r.repo.empty() ? fmt::format("#{}", r.number) : fmt::format("{}#{}", r.repo, r.number);
    else if (r.kind == "commit")
      ref = r.sha.substr(0, 10);
    else
      continue;
    // As written when the short form is not (an issue of another repository
    // named by its URL).
    if (!citable_ref(c, ref) && !r.text.empty() && citable_ref(c, r.text)) ref = r.text;
    if (!citable_ref(c, ref) || !seen.insert(ref).second) continue;
    std::string_view phrase = r.relation == "fixes"       ? c.p.ref_fixes
                              : r.relation == "follow_up" ? c.p.ref_follow_up
                              : r.relation == "reverts"   ? c.p.ref_reverts
                                                          : c.p.ref_mentions;
    out.push_back({ref, r.relation, fmt_rt(phrase, ref)});
  }
  for (const auto& b : c.facts.referenced_by) {
    if (!seen.insert(b.ref).second) continue;
    std::string_view phrase = b.relation == "fixes"       ? c.p.ref_fixed_by
                              : b.relation == "follow_up" ? c.p.ref_followed_by
                              : b.relation == "reverts"   ? c.p.ref_reverted_by
                                                          : c.p.ref_mentioned_by;
    std::string relation = b.relation == "fixes"       ? "fixed_by"
                           : b.relation == "follow_up" ? "followed_by"
                           : b.relation == "reverts"   ? "reverted_by"
                                                       : "mentioned_by";
    out.push_back({b.ref, relation, fmt_rt(phrase, b.ref) + ": " + clip_title(b.title)});
  }
  if (out.size() > 8) out.resize(8);
  return out;
}

}  // namespace mergelens::guide_detail
