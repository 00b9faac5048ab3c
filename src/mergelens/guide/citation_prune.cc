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
  p.scalar("importance.reason", g.importance.reason, fallback.importance.reason);
  p.scalar("insight.reason", g.insight.reason, fallback.insight.reason);
  {
    std::string none;
    p.scalar("analysis.argument", g.analysis.argument, none);
  }

  std::vector<GuideFocus> focus;
  for (size_t i = 0; i < g.focus.size(); ++i) {
    auto& f = g.focus[i];
    const std::string field = fmt::format("focus[{}]", i);
    if (p.whole(field, "path", "item removed")) continue;
    if (p.whole(field, "range", "range cleared, point kept")) f.start_line = f.end_line = 0;
    if (p.whole(field, "symbol", "symbol cleared, point kept")) f.symbol.clear();
    bool q = p.text(field, "question", f.question, "sentence removed", "question removed");
    if (!q) f.question.clear();
    bool w = p.text(field, "why", f.why, "sentence removed", "why removed");
    if (!w) f.why.clear();
    if (f.question.empty() && f.why.empty()) continue;
    focus.push_back(std::move(f));
  }
  g.focus = std::move(focus);

  std::vector<GuideSkim> skim;
  for (size_t i = 0; i < g.skim.size(); ++i) {
    const std::string field = fmt::format("skim[{}]", i);
    if (p.whole(field, "path", "item removed")) continue;
    if (!p.text(field, "reason", g.skim[i].reason, "sentence removed", "reason removed"))
      g.skim[i].reason.clear();
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
  g.suggested_code = std::move(kept);
  return failures.size();
}

size_t count_items(const Guide& g) {
  return g.focus.size() + g.skim.size() + g.design_decisions.size() + g.questions.size() +
         g.number_cautions.size() + g.body_vs_code.size() + g.gaps.size() + g.advice.size() +
         g.references.size();
}

}  // namespace mergelens
