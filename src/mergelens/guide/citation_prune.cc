// Removing what failed the check and keeping the rest (see citations.h).
//
// A failure names a field, a part of an item and the failing sentence. The
// failing clause goes when it can go alone, else its sentence; the item
// stays when what remains still stands (enough words outside code to be
// read on its own), and the sentences left are joined so the paragraph
// still reads (guide/prune_text.h). A focus point with a wrong range or
// symbol keeps its place and question and loses only the range or symbol,
// and the range's numbers wherever its text repeats them; a wrong path or
// reference drops its item; a scalar field that no longer stands takes the
// fallback guide's text; a verdict sentence or digest paragraph that lost
// its lead gets it back from the verdict.
#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "mergelens/guide/citations.h"
#include "mergelens/guide/prose.h"
#include "mergelens/guide/prune_text.h"
#include "mergelens/guide/validate.h"

namespace mergelens {
namespace {

using prune_text::stands;

struct Cuts {
  // Failing sentences [begin, end) with the failures in each.
  std::map<std::pair<size_t, size_t>, std::vector<const CitationFailure*>> sentences;
  bool whole = false;  // the part itself fails
  std::vector<const CitationFailure*> failures;
};

struct Cut {
  std::string text;
  std::map<const CitationFailure*, const char*> outcome;  // per failure: clause or sentence
};

// `t` without its failing clauses or sentences, put back together.
Cut cut_text(std::string_view t, const Cuts& c) {
  Cut out;
  std::vector<std::string> kept;
  std::vector<bool> after;
  bool removed = false;
  for (const auto& r : prose::sentences(t)) {
    std::vector<const CitationFailure*> failing;
    for (const auto& [range, fs] : c.sentences)
      if (r.begin < range.second && range.first < r.end)
        failing.insert(failing.end(), fs.begin(), fs.end());
    std::string s(t.substr(r.begin, r.end - r.begin));
    // A sentence that only points back at one removed goes with it.
    if (failing.empty() && removed && prune_text::refers_back(s)) continue;
    if (failing.empty()) {
      kept.push_back(std::move(s));
      after.push_back(removed);
      removed = false;
      continue;
    }
    // Each failing clause alone, while what is left of the sentence reads.
    std::string cur = s;
    bool clauses = true;
    for (const auto* f : failing) {
      std::string next = prune_text::without_clause(cur, f->citation);
      if (next.empty()) {
        clauses = false;
        break;
      }
      cur = std::move(next);
    }
    for (const auto* f : failing) out.outcome[f] = clauses ? "clause removed" : "sentence removed";
    if (clauses) {
      // The sentence keeps its spacing to the next one.
      size_t trail = s.size();
      while (trail > 0 && (s[trail - 1] == ' ' || s[trail - 1] == '\n')) --trail;
      while (!cur.empty() && (cur.back() == ' ' || cur.back() == '\n')) cur.pop_back();
      kept.push_back(cur + s.substr(trail));
      after.push_back(removed);
      removed = false;
    } else {
      removed = true;
    }
  }
  out.text = prune_text::join_kept(kept, after, t);
  return out;
}

class Pruner {
 public:
  Pruner(Guide& g, const std::vector<CitationFailure>& failures, PruneReport& report)
      : g_(g), report_(report) {
    for (const auto& f : failures) {
      auto& c = cuts_[{f.field, f.part}];
      c.failures.push_back(&f);
      if (f.begin == 0 && f.end == 0)
        c.whole = true;
      else
        c.sentences[{f.begin, f.end}].push_back(&f);
    }
  }

  // Cuts the failing clauses or sentences of a text; false when it no
  // longer stands (then `t` is left as it was and each failure is recorded
  // with `outcome_lost`).
  bool text(const std::string& field, const std::string& part, std::string& t,
            const char* outcome_lost) {
    auto it = cuts_.find({field, part});
    if (it == cuts_.end()) return true;
    Cut cut;
    if (!it->second.whole) cut = cut_text(t, it->second);
    const bool ok = !cut.text.empty() && stands(cut.text);
    for (const auto* f : it->second.failures)
      record(*f, ok && cut.outcome.count(f) ? cut.outcome[f] : outcome_lost);
    report_.fields_edited.insert(part.empty() ? field : field + "." + part);
    if (ok) t = std::move(cut.text);
    return ok;
  }

  // Whether a part failed as a whole (path, range, symbol, reference);
  // records it with `outcome`.
  bool whole(const std::string& field, const std::string& part, const char* outcome) {
    auto it = cuts_.find({field, part});
    if (it == cuts_.end()) return false;
    for (const auto* f : it->second.failures) record(*f, outcome);
    report_.fields_edited.insert(part.empty() ? field : field + "." + part);
    return true;
  }

  // A string list: cut each item, drop those that no longer stand.
  void list(const char* name, std::vector<std::string>& items) {
    std::vector<std::string> kept;
    for (size_t i = 0; i < items.size(); ++i) {
      const std::string field = fmt::format("{}[{}]", name, i);
      if (text(field, "", items[i], "item removed"))
        kept.push_back(std::move(items[i]));
      else
        report_.items_removed.insert(field);
    }
    items = std::move(kept);
  }

  // A scalar that no longer stands takes the fallback's text (logged).
  void scalar(const char* field, std::string& t, const std::string& fallback) {
    if (!text(field, "", t, fallback.empty() ? "removed" : "replaced by the offline text"))
      t = fallback;
  }

  // An argument (a score's reason, the judgment's argument) goes whole when
  // any of it fails: what is left of an argument no longer argues the move,
  // and settle_judgment then takes the starting value and reason.
  bool argument(const char* field, std::string& t, const char* outcome) {
    if (!whole(field, "", outcome)) return true;
    t.clear();
    return false;
  }

  void edit(std::string line) { g_.writer.edits.push_back(std::move(line)); }
  void removed_item(const std::string& field) { report_.items_removed.insert(field); }

 private:
  void record(const CitationFailure& f, const char* outcome) {
    std::string where = f.part.empty() ? f.field : f.field + "." + f.part;
    g_.writer.removed.push_back(
        fmt::format("{}: {} ({}): {}", where, f.citation, f.reason, outcome));
  }

  Guide& g_;
  PruneReport& report_;
  std::map<std::pair<std::string, std::string>, Cuts> cuts_;
};

// Every text of the guide, for finding the code it still quotes.
std::string guide_text_for_suggestions(const Guide& g) {
  std::string all = g.headline + "\n" + g.digest + "\n" + g.summary + "\n" + g.verdict_text + "\n" +
                    g.why + "\n" + g.audience + "\n" + g.importance.reason + "\n" +
                    g.insight.reason + "\n" + g.analysis.argument + "\n";
  for (const auto* v :
       {&g.design_decisions, &g.questions, &g.number_cautions, &g.body_vs_code, &g.gaps})
    for (const auto& x : *v) all += x + "\n";
  for (const auto& a : g.advice) all += a.text + "\n";
  for (const auto& f : g.focus) all += f.question + "\n" + f.why + "\n";
  for (const auto& k : g.skim) all += k.reason + "\n";
  for (const auto& r : g.references) all += r.note + "\n";
  return all;
}

}  // namespace

size_t remove_failed_citations(Guide& g, const std::vector<CitationFailure>& failures,
                               const Guide& fallback, const CitationIndex& index,
                               const std::vector<std::string>& suggested, PruneReport* report) {
  PruneReport local;
  PruneReport& rep = report ? *report : local;
  rep.list_sizes = {{"focus", g.focus.size()},
                    {"skim", g.skim.size()},
                    {"design_decisions", g.design_decisions.size()},
                    {"questions", g.questions.size()},
                    {"number_cautions", g.number_cautions.size()},
                    {"body_vs_code", g.body_vs_code.size()},
                    {"gaps", g.gaps.size()},
                    {"advice", g.advice.size()},
                    {"references", g.references.size()}};
  Pruner p(g, failures, rep);
  p.scalar("headline", g.headline, fallback.headline);
  p.scalar("summary", g.summary, fallback.summary);
  // The verdict sentence leads with the verdict: one that lost its lead gets
  // it back (the verdict the answer gives, else the one it led with).
  const std::string verdict_lead_before = verdict_lead(g.verdict_text);
  if (p.text("verdict_text", "", g.verdict_text,
             fallback.verdict_text.empty() ? "removed" : "replaced by the offline text")) {
    if (!verdict_lead_before.empty() && verdict_lead(g.verdict_text).empty()) {
      const std::string& v = g.verdict.empty() ? verdict_lead_before : g.verdict;
      g.verdict_text = prune_text::with_verdict_lead(v, g.verdict_text, g.verdict_text);
      p.edit(fmt::format("verdict_text: its lead went with a removal: led again with {}", v));
    }
  } else {
    g.verdict_text = fallback.verdict_text;
  }
  // The digest paragraph: one that lost its lead sentence (or all of it) is
  // rebuilt from the verdict sentence and what is left of it.
  const std::string digest_before = g.digest;
  const std::string digest_lead_before = verdict_lead(g.digest);
  const bool digest_stands = p.text("digest", "", g.digest, "rebuilt from the verdict sentence");
  if (!digest_stands || (g.digest != digest_before && !digest_lead_before.empty() &&
                         verdict_lead(g.digest).empty())) {
    std::string rest = digest_stands ? g.digest : std::string();
    std::string lead = prune_text::first_sentence(g.verdict_text);
    if (!lead.empty() && rest.find(lead) == std::string::npos) {
      const bool zh = prose::has_cjk(lead);
      if (!lead.ends_with("。") && !lead.ends_with(".") && !lead.ends_with("？") &&
          !lead.ends_with("?"))
        lead += zh ? "。" : ".";
      rest = rest.empty() ? lead : lead + (zh ? "" : " ") + rest;
    }
    g.digest = rest;
    p.edit(rest.empty() ? "digest: nothing left after the removals: composed again from the guide"
                        : "digest: its lead sentence went with a removal: rebuilt from the "
                          "verdict sentence and what was left");
  }
  p.scalar("why", g.why, fallback.why);
  p.scalar("audience", g.audience, fallback.audience);
  p.argument("importance.reason", g.importance.reason,
             "reason removed: the starting score and its reason stand");
  p.argument("insight.reason", g.insight.reason,
             "reason removed: the starting score and its reason stand");
  p.argument("analysis.argument", g.analysis.argument,
             "argument removed: the starting verdict stands");

  std::vector<GuideFocus> focus;
  for (size_t i = 0; i < g.focus.size(); ++i) {
    auto& f = g.focus[i];
    const std::string field = fmt::format("focus[{}]", i);
    if (p.whole(field, "path", "item removed")) {
      p.removed_item(field);
      continue;
    }
    const std::int32_t rejected_first = f.start_line, rejected_last = f.end_line;
    const bool range_failed = p.whole(field, "range", "range cleared, point kept");
    if (range_failed) f.start_line = f.end_line = 0;
    // A symbol written with a note ("`try_x (error handling)`", "`f` gating") keeps
    // its leading name when the change has it; otherwise it is cleared.
    std::string lead = f.symbol.substr(0, f.symbol.find_first_of(" ("));
    while (!lead.empty() && (lead.back() == ',' || lead.back() == ':')) lead.pop_back();
    // Only a name that reads as an identifier (`snake_case`, `a.b`, `Camel`), not a
    // word such as "module".
    const bool named = std::any_of(
        lead.begin() + (lead.empty() ? 0 : 1), lead.end(),
        [](unsigned char ch) { return ch == '_' || ch == '.' || ch == ':' || std::isupper(ch); });
    const bool keep_lead =
        named && lead.size() >= 3 && lead != f.symbol && index.has_code_span(lead);
    if (p.whole(field, "symbol",
                keep_lead ? "symbol cut to its name, point kept" : "symbol cleared, point kept"))
      f.symbol = keep_lead ? lead : std::string();
    if (!p.text(field, "question", f.question, "question removed")) f.question.clear();
    if (!p.text(field, "why", f.why, "why removed")) f.why.clear();
    // The rejected lines go wherever the point's text repeats them.
    if (range_failed)
      for (auto [part, text] : {std::pair{"question", &f.question}, std::pair{"why", &f.why}}) {
        bool changed = false;
        std::string rest =
            prune_text::without_lines(*text, rejected_first, rejected_last, &changed);
        if (!changed) continue;
        const bool ok = !rest.empty() && stands(rest);
        g.writer.removed.push_back(fmt::format(
            "{}.{}: {}-{} (the rejected range, repeated in the text): {}", field, part,
            rejected_first, rejected_last, ok ? "line numbers removed" : "text removed"));
        *text = ok ? rest : std::string();
      }
    if (f.question.empty() && f.why.empty()) {
      p.edit(fmt::format("{}: no question or why left: item removed", field));
      p.removed_item(field);
      continue;
    }
    focus.push_back(std::move(f));
  }
  g.focus = std::move(focus);

  // A skim entry is its path and a short reason: a reason with a false part
  // takes the analysis's reason for that file, or the entry goes (a path
  // shown with an empty or half reason, "x.rs ()", says nothing).
  std::vector<GuideSkim> skim;
  for (size_t i = 0; i < g.skim.size(); ++i) {
    const std::string field = fmt::format("skim[{}]", i);
    if (p.whole(field, "path", "item removed")) {
      p.removed_item(field);
      continue;
    }
    const std::string full = index.resolve_path(g.skim[i].path);
    const GuideSkim* offline = nullptr;
    for (const auto& k : fallback.skim)
      if (k.path == full || k.path == g.skim[i].path) offline = &k;
    const bool has_offline = offline && !offline->reason.empty();
    if (p.whole(field, "reason",
                has_offline ? "reason replaced by the analysis's" : "item removed")) {
      if (!has_offline) {
        p.removed_item(field);
        continue;
      }
      g.skim[i].reason = offline->reason;
    }
    if (prose::tidy(g.skim[i].reason).empty()) {
      g.writer.edits.push_back(
          fmt::format("{}.reason: {} (empty): {}", field, g.skim[i].path,
                      has_offline ? "reason replaced by the analysis's" : "item removed"));
      if (!has_offline) {
        p.removed_item(field);
        continue;
      }
      g.skim[i].reason = offline->reason;
    }
    skim.push_back(std::move(g.skim[i]));
  }
  g.skim = std::move(skim);

  p.list("design_decisions", g.design_decisions);
  p.list("questions", g.questions);
  p.list("number_cautions", g.number_cautions);
  p.list("body_vs_code", g.body_vs_code);
  p.list("gaps", g.gaps);

  std::vector<GuideAdvice> advice;
  for (size_t i = 0; i < g.advice.size(); ++i) {
    const std::string field = fmt::format("advice[{}]", i);
    if (p.text(field, "text", g.advice[i].text, "item removed"))
      advice.push_back(std::move(g.advice[i]));
    else
      p.removed_item(field);
  }
  g.advice = std::move(advice);

  std::vector<GuideReference> refs;
  for (size_t i = 0; i < g.references.size(); ++i) {
    const std::string field = fmt::format("references[{}]", i);
    if (p.whole(field, "ref", "item removed")) {
      p.removed_item(field);
      continue;
    }
    // A reference without its note is a bare link: it goes whole.
    if (!p.text(field, "note", g.references[i].note, "item removed")) {
      p.removed_item(field);
      continue;
    }
    refs.push_back(std::move(g.references[i]));
  }
  g.references = std::move(refs);

  for (auto& f : g.focus)
    if (auto full = index.resolve_path(f.path); !full.empty()) f.path = full;
  for (auto& s : g.skim)
    if (auto full = index.resolve_path(s.path); !full.empty()) s.path = full;
  // Suggestions that survived: those still written somewhere in the guide.
  std::vector<std::string> kept;
  std::string all;
  for (const auto* s : {&g.design_decisions, &g.questions, &g.gaps})
    for (const auto& x : *s) all += x + "\n";
  for (const auto& a : g.advice) all += a.text + "\n";
  for (const auto& f : g.focus) all += f.question + "\n" + f.why + "\n";
  for (const auto& s : suggested)
    if (all.find("`" + s) != std::string::npos || all.find(s + "`") != std::string::npos ||
        all.find(s) != std::string::npos)
      kept.push_back(s);
  // Code the answer declared it proposes stays marked as a proposal wherever
  // the guide still quotes it, even when it is made of the change's names
  // (`shared_output.record_stream(current_stream)`); an entry dropped is
  // recorded with why.
  const std::string text = guide_text_for_suggestions(g);
  for (size_t i = 0; i < g.suggested_code.size(); ++i) {
    const std::string& d = g.suggested_code[i];
    if (d.empty() || std::find(kept.begin(), kept.end(), d) != kept.end()) continue;
    const std::string quoted = "`" + d + "`";
    const char* why = nullptr;
    if (text.find(quoted) == std::string::npos && text.find(d) == std::string::npos)
      why = "no longer quoted in the guide";
    else if (index.has_code_span(d))
      why = "written in the change, not a proposal";
    if (why) {
      g.writer.edits.push_back(
          fmt::format("suggested_code[{}]: `{}` ({}): entry removed", i, d, why));
      continue;
    }
    kept.push_back(d);
  }
  g.suggested_code = std::move(kept);
  return failures.size();
}

size_t count_items(const Guide& g) {
  return g.focus.size() + g.skim.size() + g.design_decisions.size() + g.questions.size() +
         g.number_cautions.size() + g.body_vs_code.size() + g.gaps.size() + g.advice.size() +
         g.references.size();
}

}  // namespace mergelens
