// Entries with their guide lines and judgment (entry.h).
#include "mergelens/report/entry.h"

#include <algorithm>

#include "mergelens/guide/digest.h"
#include "mergelens/guide/triage_guide.h"
#include "mergelens/util/strings.h"
#include "mergelens/util/utf8.h"

namespace mergelens::report {

std::string digest_paragraph(const Guide& g) {
  if (!trim(g.digest).empty()) return std::string(trim(g.digest));
  return compose_digest(g);
}

Result<std::optional<Guide>> guide_in(Store& store, std::string_view lang, std::int64_t id) {
  const std::string other = lang == "en" ? "zh" : "en";
  for (const std::string_view l : {lang, std::string_view(other)}) {
    auto g = store.get_guide(id, l);
    if (!g) return std::unexpected(g.error());
    if (*g) return g;
  }
  return std::optional<Guide>();
}

Result<std::vector<Entry>> load_entries(Store& store, std::string_view lang,
                                        const std::vector<ChangeSummary>& rows) {
  std::vector<std::int64_t> ids;
  for (const auto& r : rows) ids.push_back(r.id);
  auto tags = store.tags_of(ids);
  if (!tags) return std::unexpected(tags.error());
  auto triage = store.triage_of(ids);
  if (!triage) return std::unexpected(triage.error());
  auto threads = thread_notes(store, ids);
  if (!threads) return std::unexpected(threads.error());
  // Each guide's brief (headline, paragraph, judgment): not its whole document.
  auto briefs = store.guide_briefs(ids, lang);
  if (!briefs) return std::unexpected(briefs.error());
  const bool en = lang == "en";
  std::vector<Entry> out;
  out.reserve(rows.size());
  for (const auto& r : rows) {
    Entry e;
    e.change = r;
    if (auto t = tags->find(r.id); t != tags->end()) e.tags = t->second;
    const auto found = briefs->find(r.id);
    const GuideBrief* g = found == briefs->end() ? nullptr : &found->second;
    if (g) {
      e.has_guide = true;
      e.headline = clean_utf8_text(g->headline);
      e.paragraph = clean_utf8_text(g->paragraph);
      e.importance_reason = clean_utf8_text(g->importance_reason);
      e.insight_reason = clean_utf8_text(g->insight_reason);
      // The guide's judgment is the one shown (a model may argue another).
      if (!g->verdict.empty()) e.change.verdict = g->verdict;
      if (g->importance > 0) e.change.importance = g->importance;
      if (g->insight > 0) e.change.insight = g->insight;
    }
    if (auto t = triage->find(r.id); t != triage->end()) {
      const TriageRecord& tr = t->second;
      e.triage = tr;
      const std::string& reason = en ? tr.reason_en : tr.reason_zh;
      e.triage_reason =
          clean_utf8_text(reason.empty() ? (en ? tr.reason_zh : tr.reason_en) : reason);
      const std::string& scope = en ? tr.scope : tr.scope_zh;
      e.triage_scope = clean_utf8_text(scope.empty() ? (en ? tr.scope_zh : tr.scope) : scope);
      e.triage_moved_far =
          triage_moved_far(tr.analysis_verdict, tr.analysis_importance, tr.verdict, tr.importance);
      // A guide written from this triage shows its own (possibly argued)
      // judgment, which its text agrees with; otherwise the triage's stands.
      const bool from_triage = g && g->analysis_verdict == tr.verdict &&
                               g->analysis_importance == tr.importance &&
                               g->analysis_insight == tr.insight;
      if (!from_triage) {
        e.change.verdict = tr.verdict;
        e.change.importance = tr.importance;
        e.change.insight = tr.insight;
        e.importance_reason = e.triage_reason;
        e.insight_reason.clear();
      }
    }
    if (e.headline.empty()) e.headline = clean_utf8_text(r.title);
    if (auto t = threads->find(r.id); t != threads->end()) e.thread = std::move(t->second);
    e.thread_text = thread_phrases(lang, r.title, r.merged_at, e.thread);
    out.push_back(std::move(e));
  }
  return out;
}

int verdict_level(std::string_view v) {
  if (v == "close_read") return 4;
  if (v == "selective_read") return 3;
  if (v == "skim") return 2;
  if (v == "skip") return 1;
  return 0;
}

namespace {

// Sort rank: close reads 0 ... skims 2, unanalysed 3, skips 4.
int sort_rank(const Entry& e) {
  const int level = verdict_level(e.change.verdict);
  return level == 0 ? 3 : level == 1 ? 4 : 4 - level;
}

}  // namespace

void order_entries(std::vector<Entry>& entries) {
  std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    const int ra = sort_rank(a), rb = sort_rank(b);
    if (ra != rb) return ra < rb;
    // Within a verdict: the model's order of its day first.
    if (a.triage.has_value() != b.triage.has_value()) return a.triage.has_value();
    if (a.triage && a.triage->day == b.triage->day && a.triage->rank != b.triage->rank)
      return a.triage->rank < b.triage->rank;
    const int sa = a.change.importance + a.change.insight;
    const int sb = b.change.importance + b.change.insight;
    if (sa != sb) return sa > sb;
    return a.change.merged_at > b.change.merged_at;
  });
}

Result<std::string> strongest_tag(Store& store, const Entry& e) {
  // The tags' weights from the facts' brief, not the whole document.
  auto facts = store.facts_briefs(std::span<const std::int64_t>(&e.change.id, 1));
  if (!facts) return std::unexpected(facts.error());
  std::string best;
  double weight = -1;
  if (auto f = facts->find(e.change.id); f != facts->end())
    for (const auto& [name, w] : f->second.tag_weights)
      if (w > weight && std::ranges::find(e.tags, name) != e.tags.end()) {
        weight = w;
        best = name;
      }
  if (best.empty() && !e.tags.empty()) best = e.tags.front();
  return best;
}

}  // namespace mergelens::report
