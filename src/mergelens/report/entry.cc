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
  const bool en = lang == "en";
  std::vector<Entry> out;
  out.reserve(rows.size());
  for (const auto& r : rows) {
    Entry e;
    e.change = r;
    if (auto t = tags->find(r.id); t != tags->end()) e.tags = t->second;
    auto g = guide_in(store, lang, r.id);
    if (!g) return std::unexpected(g.error());
    if (*g) {
      e.has_guide = true;
      e.headline = clean_utf8_text((*g)->headline);
      e.paragraph = clean_utf8_text(digest_paragraph(**g));
      e.importance_reason = clean_utf8_text((*g)->importance.reason);
      e.insight_reason = clean_utf8_text((*g)->insight.reason);
      // The guide's judgment is the one shown (a model may argue another).
      if (!(*g)->verdict.empty()) e.change.verdict = (*g)->verdict;
      if ((*g)->importance.value > 0) e.change.importance = (*g)->importance.value;
      if ((*g)->insight.value > 0) e.change.insight = (*g)->insight.value;
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
      // (A guide stored before guides recorded their triage held the
      // triage's values where the analysis's belong.)
      const GuideJudgment* from = nullptr;
      GuideJudgment recorded;
      if (*g && !(*g)->triage.verdict.empty()) {
        recorded.verdict = (*g)->triage.verdict;
        recorded.importance.value = (*g)->triage.importance;
        recorded.insight.value = (*g)->triage.insight;
        from = &recorded;
      } else if (*g) {
        from = &(*g)->analysis;
      }
      const bool from_triage = from && from->verdict == tr.verdict &&
                               from->importance.value == tr.importance &&
                               from->insight.value == tr.insight;
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
  auto facts = store.get_facts(e.change.id);
  if (!facts) return std::unexpected(facts.error());
  std::string best;
  double weight = -1;
  if (*facts)
    for (const auto& t : (*facts)->tags)
      if (t.weight > weight && std::ranges::find(e.tags, t.name) != e.tags.end()) {
        weight = t.weight;
        best = t.name;
      }
  if (best.empty() && !e.tags.empty()) best = e.tags.front();
  return best;
}

}  // namespace mergelens::report
