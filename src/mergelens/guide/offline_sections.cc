// Offline guide: design decisions, questions, cautions, gaps, advice,
// audience and cross-references.
#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <re2/re2.h>

#include "mergelens/guide/offline_parts.h"

namespace mergelens::guide_detail {
namespace {

std::string place(const Signal& s) {
  return s.at.symbol.empty() ? file(s.at.path) : code_name(s.at.symbol);
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
  // Only decisions the change shows and the parent confirms: a new path
  // beside the code that ran before, a switch the parent did not have. A
  // branch on dtype, a lock or a new class is a place to read (a focus
  // point), not by itself a decision a reader can reuse.
  std::vector<std::string> out;
  if (auto v = code_signals(c, {"fallback"}); !v.empty())
    out.push_back(fmt_rt(c.p.pattern_fallback, place(*v[0]), code(v[0]->detail, 70)));
  if (auto v = switch_signals(c, true); !v.empty())
    out.push_back(fmt_rt(c.p.pattern_switch, place(*v[0]), code_name(v[0]->detail)));
  std::erase(out, std::string());
  return out;
}

std::vector<std::string> questions(const Ctx& c, const std::vector<GuideFocus>& focus) {
  const auto& f = c.facts;
  std::vector<std::string> out;
  std::string asked;
  for (const auto& g : focus) asked += g.question;
  auto covered = [&](const std::string& s) { return asked.find(s) != std::string::npos; };
  // A name the change removes from one place and defines in another moved.
  auto defined_elsewhere = [&](const Definition& d) {
    const std::string_view short_name = std::string_view(d.name).substr(d.name.rfind('.') + 1);
    return std::any_of(f.definitions.begin(), f.definitions.end(), [&](const Definition& o) {
      return &o != &d && o.change != "removed" &&
             std::string_view(o.name).substr(o.name.rfind('.') + 1) == short_name;
    });
  };
  // A method of a class the change removes goes with it.
  auto owner_removed = [&](const Definition& d) {
    const size_t dot = d.name.rfind('.');
    if (dot == std::string::npos) return false;
    const std::string owner = d.name.substr(0, dot);
    return std::any_of(f.definitions.begin(), f.definitions.end(), [&](const Definition& o) {
      return o.change == "removed" && o.name == owner;
    });
  };
  for (const auto& d : f.definitions) {
    if (out.size() >= 2) break;
    if (!public_name(f, d)) continue;
    std::string name = code_name(d.name);
    // A signature that accepts every call it accepted before asks nothing of
    // callers; nor does one of a function that only raises.
    if (d.change == "signature_changed" && !d.compatible &&
        (d.kind == "function" || d.kind == "method") && !covered(name) && !raises_on_entry(c, d))
      out.push_back(fmt_rt(c.p.risk_signature, name));
    else if (d.change == "removed" && d.kind != "section" && !defined_elsewhere(d) &&
             !owner_removed(d))
      out.push_back(fmt_rt(c.p.risk_public_removed, name));
  }
  if (auto v = code_signals(c, {"dtype_branch", "device_branch", "platform_branch"}); !v.empty())
    if (!covered(code(v[0]->detail))) out.push_back(fmt_rt(c.p.risk_dtype, code(v[0]->detail)));
  if (auto v = code_signals(c, {"numeric_constant"}); !v.empty())
    if (!covered(code(v[0]->detail))) out.push_back(fmt_rt(c.p.risk_constant, code(v[0]->detail)));
  if (auto v = code_signals(c, {"todo"}); !v.empty())
    out.push_back(fmt_rt(c.p.risk_todo, code(v[0]->detail)));
  for (const auto& b : f.referenced_by) {
    if (b.relation == "reverts")
      out.insert(out.begin(), fmt_rt(c.p.risk_reverted_later, b.ref, clip_title(b.title)));
    else if (b.relation == "fixes")
      out.insert(out.begin(), fmt_rt(c.p.risk_fixed_later, b.ref, clip_title(b.title)));
  }
  std::vector<std::string> unique;  // two definitions of one name give one question
  for (auto& q : out)
    if (!q.empty() && std::find(unique.begin(), unique.end(), q) == unique.end())
      unique.push_back(std::move(q));
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

// An existing test, outside the diff, that calls the definition of `path`
// holding the gap's first new branch (`symbol`, or a definition nested in it)
// among those the change edits (the context's "test" items); nullptr when
// none, or when the branch's definition is unknown: a test of another
// function of the file does not take the branch the gap quotes.
const ContextItem* existing_test(const Ctx& c, const std::string& path, const std::string& symbol) {
  if (symbol.empty()) return nullptr;
  std::string old = path;  // the context's edited definitions carry the old path
  for (const auto& f : c.change.files)
    if (f.path == path && !f.old_path.empty()) old = f.old_path;
  auto holds = [&](const std::string& target) {
    return symbol == target || symbol.starts_with(target + ".");
  };
  for (const auto& t : c.facts.context) {
    if (t.why != "test" || !holds(t.target)) continue;
    for (const auto& d : c.facts.context)
      if (d.why == "changed" && d.name == t.target && d.path == old) return &t;
  }
  return nullptr;
}

}  // namespace

std::vector<std::string> gaps(const Ctx& c) {
  std::vector<std::string> out;
  // "N changed lines with K new branches or guards; first: DETAIL; ..." (coverage.h).
  static const RE2 kBranches(
      R"((\d+) changed lines with (\d+) new branch(?:es)? or guards?; first: (.*); (?:no changed test covers it|the change adds or edits no test)$)");
  std::set<std::string> diffs;  // a gap in a copy of a file already named says it again
  for (const auto& g : c.facts.gaps) {
    if (g.kind == "test") {
      if (std::string key = diff_key(c, g.subject); !key.empty() && !diffs.insert(key).second)
        continue;
      std::string lines, branches, first;
      if (!RE2::FullMatch(g.detail, kBranches, &lines, &branches, &first)) continue;
      const std::string file = path_label(c.facts, g.subject);
      std::string s;
      if (const ContextItem* t = existing_test(c, g.subject, g.symbol))
        s = branches == "1" ? fmt_rt(c.p.gap_test_one_existing, file, code(first, 70),
                                     code_name(t->name), code(t->path, 120), code_name(t->target))
                            : fmt_rt(c.p.gap_test_existing, file, code(first, 70),
                                     code_name(t->name), code(t->path, 120), code_name(t->target));
      if (s.empty())
        s = branches == "1" ? fmt_rt(c.p.gap_test_one, file, code(first, 70))
                            : fmt_rt(c.p.gap_test, file, code(first, 70));
      if (!s.empty()) out.push_back(s);
    } else if (g.kind == "benchmark") {
      if (std::string s = fmt_rt(c.p.gap_benchmark, g.subject); !s.empty()) out.push_back(s);
    }
  }
  return out;
}

std::vector<GuideAdvice> advice(const Ctx& c, const Guide& g) {
  // Advice a reader can act on that follows from a checked fact of this
  // change. Generic counsel that fits any PR ("measure after upgrading",
  // "read the folder whole", "log which path was taken") is not written;
  // reviewers are addressed only while the PR is open.
  const auto& f = c.facts;
  std::vector<GuideAdvice> out;
  auto add = [&](const char* role, std::string text) {
    if (!text.empty()) out.push_back({role, std::move(text)});
  };
  std::vector<std::string> switches;
  for (const auto* s : switch_signals(c, true))
    if (switches.size() < 3) switches.push_back(code_name(s->detail));
  if (!switches.empty())
    add("user", fmt_rt(c.p.adv_user_switch, phrases::join_list(switches, c.p)));
  for (const SwitchFact* s : changed_defaults(c, 2))
    add("user", fmt_rt(c.p.adv_user_default, code_name(s->name), code(s->before.default_value, 40),
                       code(s->after.default_value, 40)));
  for (const auto& d : f.definitions)
    if (d.change == "signature_changed" && !d.compatible &&
        (d.kind == "function" || d.kind == "method") && public_name(f, d)) {
      bool public_api = std::any_of(f.signals.begin(), f.signals.end(), [&](const Signal& s) {
        return s.kind == "public_api" && s.detail == d.name;
      });
      if (public_api) {
        add("user", fmt_rt(c.p.adv_user_api, code_name(d.name)));
        break;
      }
    }
  if (c.change.open) {
    std::string what = !g.questions.empty() ? g.questions.front()
                       : !g.focus.empty()   ? g.focus.front().question
                                            : std::string();
    if (!what.empty()) add("reviewer", fmt_rt(c.p.adv_reviewer_open, what));
    // A point a reviewer raised that asks for a change or a follow-up.
    for (const auto& rp : f.review_points)
      if (rp.kind == "changes_requested" || rp.kind == "follow_up") {
        const std::string where =
            rp.path.empty() ? std::string(c.p.review_point_whole)
                            : (c.zh() ? " " : "") + code(rp.path, 80) +
                                  (rp.line > 0 ? (c.zh() ? fmt::format(" 第 {} 行", rp.line)
                                                         : fmt::format(" line {}", rp.line))
                                               : std::string());
        add("reviewer", fmt_rt(c.p.adv_reviewer_point, rp.reviewer, where));
        break;
      }
    std::vector<std::string> untested;
    for (const auto& gap : f.gaps)
      if (gap.kind == "test" && untested.size() < 2) untested.push_back(path_label(f, gap.subject));
    if (!untested.empty() && !g.gaps.empty())
      add("reviewer", fmt_rt(c.p.adv_reviewer_tests, phrases::join_list(untested, c.p)));
    if (!g.body_vs_code.empty()) add("reviewer", std::string(c.p.adv_reviewer_body));
    if (std::any_of(f.number_cautions.begin(), f.number_cautions.end(),
                    [](const NumberCaution& n) { return n.kind == "single_point"; }))
      add("reviewer", std::string(c.p.adv_reviewer_numbers));
  }
  if (out.size() > 5) out.resize(5);
  return out;
}

std::string audience(const Ctx& c) {
  // Topics, not kinds of change ("feature", "perf") nor a repository's own
  // labels for its folders ("module-ops").
  static const std::set<std::string> kGeneric = {
      "bugfix", "tests", "docs",    "refactor", "ci",     "build", "deps",         "cleanup",
      "style",  "chore", "feature", "perf",     "revert", "misc",  "model-support"};
  std::vector<std::string> topics;
  for (const auto& t : c.facts.tags)
    if (!kGeneric.count(t.name) && t.name.find("module") == std::string::npos && topics.size() < 3)
      topics.push_back(t.name);
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
    else if (r.kind == "commit" && !(r.relation == "mentions" && !r.repo.empty()))
      ref = r.sha.substr(0, 10);  // another project's commit only named (a version stamp)
                                  // is no related change of this one
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
