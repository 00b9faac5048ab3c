#include "mergelens/guide/prompt.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "mergelens/guide/prompt_context.h"
#include "mergelens/guide/prompt_excerpt.h"
#include "mergelens/guide/prompt_text.h"
#include "mergelens/guide/triage_guide.h"
#include "mergelens/llm/tokens.h"
#include "mergelens/model/diff.h"

namespace mergelens {

using llm::estimate_tokens;
using prompt_detail::build_excerpt;
using prompt_detail::clip_tokens;
using prompt_detail::facts_section;
using prompt_detail::fence_of;
using prompt_detail::replace_all;
using prompt_detail::untrusted_section;

namespace {

// The judgment the answer starts from: the day's triage's when there is
// one (given in its own section), else the analysis's.
std::string starting_line(const Facts& f, const TriageJudgment* t) {
  if (t)
    return fmt::format(
        "\nThe starting judgment is the day's triage's (\"The model's earlier judgment\"): "
        "verdict {}, importance {}, insight {}. ",
        to_string(t->verdict), t->importance, t->insight);
  return fmt::format(
      "\nThe starting judgment is the facts': verdict {}, importance {}, insight {}. ",
      to_string(f.verdict), f.importance.value, f.insight.value);
}

// The triage's own section of a guide prompt (empty without a triage).
std::string triage_section(const Change& c, const Facts& f, std::string_view lang,
                           const TriageJudgment* t) {
  return t ? triage_prompt_section(*t, f, lang, fence_of(c)) : std::string();
}

std::string system_for(std::string_view lang) {
  std::string_view rule = lang == "zh"   ? prompt_text::kLangZh
                          : lang == "en" ? prompt_text::kLangEn
                                         : prompt_text::kLangBoth;
  return replace_all(std::string(prompt_text::kSystem), "{lang_rule}", rule);
}

std::string answer_suffix(const Facts& f, std::string_view lang, const TriageJudgment* triage) {
  std::string s = fmt::format("\n{}\n", prompt_text::kAnswerFormat);
  if (lang == "both") s += fmt::format("{}\n", prompt_text::kBothFormat);
  s += starting_line(f, triage);
  s += lang == "zh"   ? "Write the prose in Simplified Chinese.\n"
       : lang == "en" ? "Write the prose in English.\n"
                      : "Write \"zh\" in Simplified Chinese and \"en\" in English.\n";
  return s;
}

std::string call_line(std::string_view kind) {
  return fmt::format("Call: {}\n", kind);
}

std::string diff_section(const Change& c, const std::string& diff,
                         const std::vector<std::string>& left_in, bool whole = false) {
  const std::string fence = fence_of(c);
  if (diff.empty()) return std::string();  // no room for any of it: no empty fence
  std::string out = fmt::format(
      "\n## {} (untrusted data; new-file line numbers at the left, '-' lines removed)\n"
      "<<<UNTRUSTED {}\n{}UNTRUSTED>>> {}\n",
      whole ? "The whole diff" : "Diff excerpt", fence, replace_all(diff, "UNTRUSTED", "untrusted"),
      fence);
  if (!left_in.empty()) {
    std::vector<std::string> left = left_in;
    if (left.size() > 80) {
      size_t more = left.size() - 80;
      left.resize(80);
      left.push_back(fmt::format("  … and {} more", more));
    }
    out += fmt::format("Files not shown in the excerpt:\n{}\n", fmt::join(left, "\n"));
  }
  return out;
}

// Reserve for the list of files an excerpt leaves out (at most 80 lines; an
// upper bound: every changed file).
size_t left_reserve(const Change& c) {
  size_t reserve = 0, listed = 0;
  for (const auto& fc : c.files)
    if (listed++ < 81) reserve += estimate_tokens(fc.path) + 12;
  return reserve;
}

struct Frame {
  std::string facts, text;  // clipped to their shares
  long excerpt_budget = 0;
};

// The facts take at most `facts_share` of the budget; the PR text up to
// `text_share` with them (at least 8 %); the excerpt the rest, less room for
// the list of changed files it leaves out when the prompt lists them
// (`file_list`; a reduce call does not: the notes stand for the parts).
Frame frame(const Change& c, const Facts& f, size_t budget, size_t fixed_tokens, size_t facts_share,
            size_t text_share, bool file_list = true) {
  Frame fr;
  const size_t frame_tokens = fixed_tokens + 160;
  const size_t facts_cap = budget * facts_share / 100;
  fr.facts = facts_section(c, f, facts_cap > frame_tokens ? facts_cap - frame_tokens : 64);
  const size_t fixed = frame_tokens + estimate_tokens(fr.facts);
  const size_t text_cap = std::max(
      budget * text_share / 100 > fixed ? budget * text_share / 100 - fixed : 0, budget * 8 / 100);
  fr.text = untrusted_section(c, fence_of(c), text_cap);
  fr.excerpt_budget =
      static_cast<long>(budget) -
      static_cast<long>(fixed + estimate_tokens(fr.text) + (file_list ? left_reserve(c) : 0));
  return fr;
}

std::vector<size_t> all_regions(const Facts& f) {
  std::vector<size_t> v(f.focus.size());
  for (size_t i = 0; i < v.size(); ++i) v[i] = i;
  return v;
}

// The code around the change, the diff (whole when it fits beside the
// context, else an excerpt of `regions`) and what was left out, within
// `budget` tokens. `list_files`: name the changed files left out (a notes
// call, which reads one part, names only what it cut).
struct Body {
  std::string text;
  PromptCoverage coverage;
};
Body diff_and_context(const Change& c, const Facts& f, const std::vector<ContextText>& ctx,
                      long budget, const std::vector<size_t>& regions, bool other_hunks,
                      bool list_files, const std::vector<long>& caps = {}) {
  Body b;
  const long context_full = static_cast<long>(prompt_detail::context_cost(c, f, ctx));
  const long context_share = std::min(context_full, std::max<long>(budget / 4, 0));
  prompt_detail::Excerpt ex;
  bool whole = false;
  if (other_hunks) {
    ex = prompt_detail::whole_diff(c, f);
    const long cost = static_cast<long>(estimate_tokens(ex.diff));
    whole = ex.left.empty() && cost + context_share <= budget;
  }
  long context_budget = context_share;
  if (whole) {
    context_budget = budget - static_cast<long>(estimate_tokens(ex.diff));
  } else {
    ex = build_excerpt(c, f, prompt_detail::code_first(f, regions), budget - context_share,
                       other_hunks, caps);
    context_budget = context_share + std::max<long>(ex.remaining, 0);
  }
  auto context = prompt_detail::context_section(c, f, ctx, context_budget);
  b.coverage = ex.coverage;
  b.text = context.text;
  b.text += diff_section(c, ex.diff, {}, whole);
  std::vector<std::string> missing = list_files ? ex.left : std::vector<std::string>{};
  missing.insert(missing.end(), ex.cut.begin(), ex.cut.end());
  b.text += prompt_detail::not_shown_section(missing, context.left_out);
  return b;
}

// The notes of a split PR within `tokens`, whole notes only: each part
// keeps its first notes (the notes calls write them best first), taken in
// turns so that no part loses all of its notes to an earlier part's, and a
// line says how many of a part's notes were left out for room.
std::string fit_notes(std::string_view notes, size_t tokens) {
  if (estimate_tokens(notes) <= tokens) return std::string(notes);
  struct Part {
    std::string head;
    std::vector<std::string> lines;
    size_t kept = 0;
  };
  std::vector<Part> parts;
  size_t pos = 0;
  while (pos < notes.size()) {
    size_t end = notes.find('\n', pos);
    end = end == std::string_view::npos ? notes.size() : end + 1;
    std::string_view line = notes.substr(pos, end - pos);
    if (line.starts_with("Part ") || parts.empty())
      parts.push_back({std::string(line), {}, 0});
    else
      parts.back().lines.emplace_back(line);
    pos = end;
  }
  size_t used = 0;
  for (const auto& part : parts) used += estimate_tokens(part.head) + 16;  // + the left-out line
  for (bool more = true; more;) {
    more = false;
    for (auto& part : parts) {
      if (part.kept >= part.lines.size()) continue;
      const size_t cost = estimate_tokens(part.lines[part.kept]);
      if (used + cost > tokens) continue;
      used += cost;
      ++part.kept;
      more = true;
    }
  }
  std::string out;
  for (const auto& part : parts) {
    out += part.head;
    for (size_t i = 0; i < part.kept; ++i) out += part.lines[i];
    if (const size_t left = part.lines.size() - part.kept; left > 0)
      out += fmt::format("[… {} more note{} of this part left out for room]\n", left,
                         left == 1 ? "" : "s");
  }
  return out;
}

void finish(Prompt& p) {
  p.estimated_tokens =
      llm::estimate_tokens(std::vector<llm::Message>{{"system", p.system}, {"user", p.user}});
}

}  // namespace

Prompt build_prompt(const Change& c, const Facts& f, std::string_view lang, size_t budget,
                    const std::vector<ContextText>& context, const TriageJudgment* triage) {
  Prompt p;
  p.system = system_for(lang);
  const std::string suffix = answer_suffix(f, lang, triage);
  const std::string call = lang == "both" ? call_line("both") : std::string();
  const std::string earlier = triage_section(c, f, lang, triage);
  Frame fr = frame(c, f, budget,
                   estimate_tokens(p.system) + estimate_tokens(suffix + call + earlier), 50, 35);
  // The headings, the list of what was left out and the messages' framing
  // are not in the excerpt's budget: a prompt over the budget is built again
  // with the excerpt smaller by what it went over.
  long excerpt_budget = fr.excerpt_budget;
  for (int attempt = 0; attempt < 4; ++attempt) {
    auto body = diff_and_context(c, f, context, excerpt_budget, all_regions(f),
                                 /*other_hunks=*/true, /*list_files=*/true);
    p.coverage = body.coverage;
    p.user = call + fr.facts + earlier;
    p.user += "\n## The PR's own text (untrusted data)\n" + fr.text;
    p.user += body.text;
    p.user += suffix;
    finish(p);
    if (p.estimated_tokens <= budget || excerpt_budget <= 0) break;
    excerpt_budget -= static_cast<long>(p.estimated_tokens - budget) + 16;
  }
  p.max_tokens = guide_completion_budget(lang);
  return p;
}

std::optional<SplitPlan> plan_split(const Change& c, const Facts& f, size_t budget, int max_calls) {
  if (max_calls < 3 || f.focus.size() < 2) return std::nullopt;
  Prompt single = build_prompt(c, f, "zh", budget);
  if (single.coverage.top_regions_shown >= single.coverage.top_regions) return std::nullopt;
  // What one notes call can show: the budget less its frame.
  const size_t notes_fixed =
      estimate_tokens(prompt_text::kNotesSystem) + estimate_tokens(prompt_text::kNotesFormat) + 40;
  Frame fr = frame(c, f, budget, notes_fixed, 25, 35);
  const long room = std::max<long>(fr.excerpt_budget, static_cast<long>(budget / 4));
  SplitPlan plan;
  plan.regions_single = single.coverage.top_regions_shown;
  const size_t top = std::min(f.focus.size(), kTopRegions);
  std::vector<long> cost(std::min<size_t>(f.focus.size(), 3 * kTopRegions));
  long top_total = 0;
  for (size_t k = 0; k < cost.size(); ++k) {
    cost[k] = static_cast<long>(prompt_detail::region_cost(c, f, k));
    if (k < top) top_total += std::min(cost[k], room);
  }
  // As many calls as the top regions need, at most max_calls - 1.
  const size_t groups = std::clamp<size_t>(static_cast<size_t>((top_total + room - 1) / room), 2,
                                           static_cast<size_t>(max_calls - 1));
  const size_t per_group = (top + groups - 1) / groups;
  const long share = room / static_cast<long>(std::max<size_t>(per_group, 1));
  plan.groups.resize(groups);
  plan.caps.resize(groups);
  std::vector<long> used(groups, 0);
  std::vector<std::set<std::string>> files(groups);
  auto place = [&](size_t k, long want, bool capped) {
    // The group already holding the file, else the least used one.
    size_t pick = groups;
    for (size_t g = 0; g < groups && pick == groups; ++g)
      if (files[g].count(f.focus[k].path) && used[g] + want <= room &&
          plan.groups[g].size() < per_group + (capped ? 0 : 8))
        pick = g;
    if (pick == groups) {
      size_t best = 0;
      for (size_t g = 1; g < groups; ++g)
        if (used[g] < used[best]) best = g;
      if (used[best] + want > room) return false;
      pick = best;
    }
    plan.groups[pick].push_back(k);
    plan.caps[pick].push_back(capped ? want : 0);
    used[pick] += want;
    files[pick].insert(f.focus[k].path);
    ++plan.regions_planned;
    return true;
  };
  // The top regions first, each within its share; then others that fit whole.
  // Code before tests: a part spends its room on the code the focus ranks first.
  std::vector<size_t> top_order(top);
  for (size_t k = 0; k < top; ++k) top_order[k] = k;
  for (size_t k : prompt_detail::code_first(f, top_order))
    place(k, std::min(cost[k], share), cost[k] > share);
  for (size_t k = top; k < cost.size(); ++k) place(k, cost[k], false);
  std::erase_if(plan.groups, [](const std::vector<size_t>& g) { return g.empty(); });
  std::erase_if(plan.caps, [](const std::vector<long>& g) { return g.empty(); });
  if (plan.groups.size() < 2) return std::nullopt;  // one prompt shows as much
  return plan;
}

Prompt build_notes_prompt(const Change& c, const Facts& f, const SplitPlan& plan, size_t group,
                          size_t budget, const std::vector<ContextText>& context,
                          size_t max_notes) {
  Prompt p;
  p.system = std::string(prompt_text::kNotesSystem);
  std::string files;
  std::set<std::string> seen;
  for (size_t k : plan.groups.at(group))
    if (seen.insert(f.focus[k].path).second) files += (files.empty() ? "" : ", ") + f.focus[k].path;
  const std::string head =
      call_line(fmt::format("notes-{}", group + 1)) +
      fmt::format("Part {} of {} of this PR: {}\n\n", group + 1, plan.groups.size(), files);
  max_notes = std::clamp<size_t>(max_notes, 1, kMaxNotes);
  const std::string suffix =
      fmt::format("\n{}\n", replace_all(std::string(prompt_text::kNotesFormat), "{max_notes}",
                                        std::to_string(max_notes)));
  Frame fr =
      frame(c, f, budget, estimate_tokens(p.system) + estimate_tokens(head + suffix), 25, 35);
  // The context of this part's files only.
  std::set<std::string> part_files;
  for (size_t k : plan.groups[group]) part_files.insert(f.focus[k].path);
  std::vector<ContextText> part_context;
  for (const auto& t : context)
    if (part_files.count(t.item.at.substr(0, t.item.at.rfind(':'))) ||
        part_files.count(t.item.path))
      part_context.push_back(t);
  auto body = diff_and_context(c, f, part_context, fr.excerpt_budget, plan.groups[group],
                               /*other_hunks=*/false, /*list_files=*/false, plan.caps[group]);
  p.coverage = body.coverage;
  p.user = head + fr.facts;
  p.user += "\n## The PR's own text (untrusted data)\n" + fr.text;
  p.user += body.text;
  p.user += suffix;
  p.max_tokens = notes_completion_budget(max_notes);
  finish(p);
  return p;
}

Prompt build_reduce_prompt(const Change& c, const Facts& f, std::string_view lang,
                           std::string_view notes, size_t budget,
                           const std::vector<ContextText>& context, const TriageJudgment* triage) {
  Prompt p;
  p.system = system_for(lang);
  const std::string suffix = answer_suffix(f, lang, triage);
  const std::string earlier = triage_section(c, f, lang, triage);
  const std::string head = call_line(lang == "both" ? "reduce-both" : "reduce");
  // The notes come first: at most 40 % of the budget, whole notes only.
  const std::string intro =
      fmt::format("\n## Notes on the parts of this PR\n{}\n", prompt_text::kReduceIntro);
  // (Less when the frame leaves less: the facts and the PR text keep ~300.)
  const size_t frame_tokens =
      estimate_tokens(p.system) + estimate_tokens(suffix + head + earlier) + 300;
  const size_t notes_cap =
      std::min(budget * 40 / 100, budget > frame_tokens ? budget - frame_tokens : 0);
  const size_t intro_tokens = estimate_tokens(intro) + 4;
  const std::string note_text =
      intro + fit_notes(notes, notes_cap > intro_tokens ? notes_cap - intro_tokens : 0) + "\n";
  Frame fr = frame(c, f, budget,
                   estimate_tokens(p.system) + estimate_tokens(suffix + head + earlier) +
                       estimate_tokens(note_text),
                   70, 80, /*file_list=*/false);
  // A short excerpt of the top regions, so the guide can cite their lines.
  std::vector<size_t> top;
  for (size_t k = 0; k < f.focus.size() && k < 3; ++k) top.push_back(k);
  // What the excerpt leaves out is listed after it, outside its budget: a
  // prompt over the budget is built again with the excerpt smaller by what
  // it went over (as build_prompt does).
  long excerpt_budget = std::max<long>(fr.excerpt_budget, 0);
  for (int attempt = 0; attempt < 4; ++attempt) {
    auto body = diff_and_context(c, f, context, excerpt_budget, top, /*other_hunks=*/false,
                                 /*list_files=*/false);
    p.coverage = body.coverage;
    p.user = head + fr.facts + earlier;
    p.user += "\n## The PR's own text (untrusted data)\n" + fr.text;
    p.user += note_text;
    p.user += body.text;
    p.user += suffix;
    finish(p);
    if (p.estimated_tokens <= budget || excerpt_budget <= 0) break;
    excerpt_budget =
        std::max<long>(excerpt_budget - static_cast<long>(p.estimated_tokens - budget) - 16, 0);
  }
  p.max_tokens = guide_completion_budget(lang);
  return p;
}

int guide_completion_budget(std::string_view lang) {
  // One language at the format's lengths: the scalars (headline, digest of
  // up to 300 Chinese characters, summary, verdict, lesson, audience, two
  // score reasons and the judgment, ~1,200 tokens), five focus points of
  // ~250 and some sixteen list items of ~90: about 3,900, asked with a
  // third to spare. Both languages twice that.
  constexpr int kOne = (1200 + 5 * 250 + 16 * 90) * 4 / 3;
  return lang == "both" ? 2 * kOne : kOne;
}

int notes_completion_budget(size_t notes) {
  // A careful note of eight fields is ~225 tokens (eight of them ~1,800),
  // a skim entry ~30 (up to ten); a third to spare.
  return static_cast<int>((100 + std::max<size_t>(notes, 1) * 225 + 10 * 30) * 4 / 3);
}

std::string citation_retry_message(const std::vector<CitationFailure>& failures,
                                   std::string_view lang) {
  std::string list;
  for (const auto& f : failures)
    list += fmt::format("- {}{}: {} ({})\n", f.field, f.part.empty() ? "" : "." + f.part,
                        f.citation, f.reason);
  std::string msg = replace_all(std::string(prompt_text::kRetryEn), "{failures}", list);
  if (lang == "zh") msg += " Keep writing the prose in Simplified Chinese.";
  if (lang == "both") msg += " Keep both languages, \"zh\" and \"en\".";
  return msg;
}

BaselineCoverage largest_files_first(const Change& c, const Facts& f, size_t budget) {
  std::vector<size_t> order(c.files.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return c.files[a].additions + c.files[a].deletions >
           c.files[b].additions + c.files[b].deletions;
  });
  BaselineCoverage out;
  std::set<std::string> included;
  for (size_t i : order) {
    const FileChange& fc = c.files[i];
    std::string patch =
        fmt::format("--- {}\n+++ {}\n{}", fc.old_path.empty() ? fc.path : fc.old_path, fc.path,
                    render_patch(fc.hunks));
    size_t t = estimate_tokens(patch);
    if (out.tokens + t > budget) continue;
    out.tokens += t;
    included.insert(fc.path);
  }
  size_t total = 0, shown = 0;
  for (size_t k = 0; k < f.focus.size() && k < 3; ++k) {
    const auto& r = f.focus[k];
    for (const auto& fc : c.files) {
      if (fc.path != r.path) continue;
      for (const auto& h : fc.hunks) {
        auto pos = prompt_detail::positions(h);
        for (size_t i = 0; i < h.lines.size(); ++i) {
          if (h.lines[i].origin != '+' && h.lines[i].origin != '-') continue;
          if (pos[i] < r.start_line || pos[i] > r.end_line) continue;
          ++total;
          shown += included.count(fc.path);
        }
      }
    }
  }
  out.top3_share = total == 0 ? 1.0 : static_cast<double>(shown) / static_cast<double>(total);
  return out;
}

}  // namespace mergelens
