// Removing what failed the check and keeping the rest (see citations.h).
//
// A failure names a field, a part of an item and the failing sentence. The
// sentence goes; the item stays when what remains still stands (enough words
// outside code to be read on its own). A focus point with a wrong range or
// symbol keeps its place and question and loses only the range or symbol; a
// wrong path or reference drops its item; a scalar field that no longer
// stands takes the fallback guide's text.
#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "mergelens/guide/citations.h"
#include "mergelens/guide/prose.h"

namespace mergelens {
namespace {

// Whether text reads on its own: at least 6 CJK characters or 4 words
// outside code spans.
bool stands(std::string_view t) {
  std::string plain = prose::without_code(t);
  auto l = prose::count_letters(plain);
  if (l.cjk >= 6) return true;
  size_t words = 0;
  bool in = false;
  for (unsigned char c : plain) {
    bool letter = std::isalpha(c) != 0;
    if (letter && !in) ++words;
    in = letter;
  }
  return words >= 4;
}

struct Cuts {
  std::set<std::pair<size_t, size_t>> sentences;  // failing [begin, end)
  bool whole = false;                             // the part itself fails
  std::vector<const CitationFailure*> failures;
};

std::string cut_text(std::string_view t, const Cuts& c) {
  std::string out;
  for (const auto& r : prose::sentences(t)) {
    bool drop = false;
    for (const auto& [b, e] : c.sentences)
      if (r.begin < e && b < r.end) drop = true;
    if (!drop) out.append(t.substr(r.begin, r.end - r.begin));
  }
  return prose::tidy(out);
}

class Pruner {
 public:
  Pruner(Guide& g, const std::vector<CitationFailure>& failures) : g_(g) {
    for (const auto& f : failures) {
      auto& c = cuts_[{f.field, f.part}];
      c.failures.push_back(&f);
      if (f.begin == 0 && f.end == 0)
        c.whole = true;
      else
        c.sentences.insert({f.begin, f.end});
    }
  }

  // Cuts the failing sentences of a text; false when it no longer stands.
  bool text(const std::string& field, const std::string& part, std::string& t,
            const char* outcome_kept, const char* outcome_lost) {
    auto it = cuts_.find({field, part});
    if (it == cuts_.end()) return true;
    std::string rest = it->second.whole ? std::string() : cut_text(t, it->second);
    bool ok = !rest.empty() && stands(rest);
    record(it->second, ok ? outcome_kept : outcome_lost);
    if (ok) t = std::move(rest);
    return ok;
  }

  // Whether a part failed as a whole (path, range, symbol, reference);
  // records it with `outcome`.
  bool whole(const std::string& field, const std::string& part, const char* outcome) {
    auto it = cuts_.find({field, part});
    if (it == cuts_.end()) return false;
    record(it->second, outcome);
    return true;
  }

  // A string list: cut each item, drop those that no longer stand.
  void list(const char* name, std::vector<std::string>& items) {
    std::vector<std::string> kept;
    for (size_t i = 0; i < items.size(); ++i)
      if (text(fmt::format("{}[{}]", name, i), "", items[i], "sentence removed", "item removed"))
        kept.push_back(std::move(items[i]));
    items = std::move(kept);
  }

  void scalar(const char* field, std::string& t, const std::string& fallback) {
    if (!text(field, "", t, "sentence removed", "replaced by the offline text")) t = fallback;
  }

  // An argument (a score's reason, the judgment's argument) goes whole when
  // any of it fails: what is left of an argument no longer argues the move,
  // and settle_judgment then takes the analysis's value and reason.
  bool argument(const char* field, std::string& t, const char* outcome) {
    if (!whole(field, "", outcome)) return true;
    t.clear();
    return false;
  }

 private:
  void record(const Cuts& c, const char* outcome) {
    for (const auto* f : c.failures) {
      std::string where = f->part.empty() ? f->field : f->field + "." + f->part;
      g_.writer.removed.push_back(
          fmt::format("{}: {} ({}): {}", where, f->citation, f->reason, outcome));
    }
  }

  Guide& g_;
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
                               const std::vector<std::string>& suggested) {
  Pruner p(g, failures);
  p.scalar("headline", g.headline, fallback.headline);
  p.scalar("digest", g.digest, fallback.digest);
  p.scalar("summary", g.summary, fallback.summary);
  p.scalar("verdict_text", g.verdict_text, fallback.verdict_text);
  p.scalar("why", g.why, fallback.why);
  p.scalar("audience", g.audience, fallback.audience);
  p.argument("importance.reason", g.importance.reason,
             "reason removed, the analysis's score and reason stand");
  p.argument("insight.reason", g.insight.reason,
             "reason removed, the analysis's score and reason stand");
  p.argument("analysis.argument", g.analysis.argument,
             "argument removed, the analysis's verdict stands");

  std::vector<GuideFocus> focus;
  for (size_t i = 0; i < g.focus.size(); ++i) {
    auto& f = g.focus[i];
    const std::string field = fmt::format("focus[{}]", i);
    if (p.whole(field, "path", "item removed")) continue;
    if (p.whole(field, "range", "range cleared, point kept")) f.start_line = f.end_line = 0;
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
    bool q = p.text(field, "question", f.question, "sentence removed", "question removed");
    if (!q) f.question.clear();
    bool w = p.text(field, "why", f.why, "sentence removed", "why removed");
    if (!w) f.why.clear();
    if (f.question.empty() && f.why.empty()) continue;
    focus.push_back(std::move(f));
  }
  g.focus = std::move(focus);

  // A skim entry is its path and a short reason: a reason with a false part
  // takes the analysis's reason for that file, or the entry goes (a path
  // shown with an empty or half reason, "x.rs ()", says nothing).
  std::vector<GuideSkim> skim;
  for (size_t i = 0; i < g.skim.size(); ++i) {
    const std::string field = fmt::format("skim[{}]", i);
    if (p.whole(field, "path", "item removed")) continue;
    const std::string full = index.resolve_path(g.skim[i].path);
    const GuideSkim* offline = nullptr;
    for (const auto& k : fallback.skim)
      if (k.path == full || k.path == g.skim[i].path) offline = &k;
    const bool has_offline = offline && !offline->reason.empty();
    if (p.whole(field, "reason",
                has_offline ? "reason replaced by the analysis's" : "item removed")) {
      if (!has_offline) continue;
      g.skim[i].reason = offline->reason;
    }
    if (prose::tidy(g.skim[i].reason).empty()) {
      g.writer.removed.push_back(
          fmt::format("{}.reason: {} (empty): {}", field, g.skim[i].path,
                      has_offline ? "reason replaced by the analysis's" : "item removed"));
      if (!has_offline) continue;
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
  for (size_t i = 0; i < g.advice.size(); ++i)
    if (p.text(fmt::format("advice[{}]", i), "text", g.advice[i].text, "sentence removed",
               "item removed"))
      advice.push_back(std::move(g.advice[i]));
  g.advice = std::move(advice);

  std::vector<GuideReference> refs;
  for (size_t i = 0; i < g.references.size(); ++i) {
    const std::string field = fmt::format("references[{}]", i);
    if (p.whole(field, "ref", "item removed")) continue;
    if (!p.text(field, "note", g.references[i].note, "sentence removed", "note removed"))
      g.references[i].note.clear();
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
      g.writer.removed.push_back(
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
