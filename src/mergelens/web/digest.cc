// The digest of a day and the digest paragraph of an entry (digest.h).
#include "mergelens/web/digest.h"

#include <algorithm>

#include <fmt/format.h>

#include "mergelens/guide/digest.h"
#include "mergelens/util/strings.h"

namespace mergelens::web {

namespace {

int entry_rank(const DigestEntry& e) {
  return verdict_rank(e.change.verdict) == 3 ? 5 : verdict_rank(e.change.verdict);
}

}  // namespace

std::string digest_paragraph(const Guide& g) {
  if (!trim(g.digest).empty()) return std::string(trim(g.digest));
  return compose_digest(g);
}

Result<std::optional<Guide>> guide_for(const Site& site, std::int64_t id) {
  for (const Lang l : {site.lang, site.lang == Lang::kZh ? Lang::kEn : Lang::kZh}) {
    auto g = site.store.get_guide(id, lang_code(l));
    if (!g) return std::unexpected(g.error());
    if (*g) return g;
  }
  return std::optional<Guide>();
}

namespace {

Result<std::vector<DigestEntry>> entries_of(const Site& site,
                                            const std::vector<ChangeSummary>& rows) {
  std::vector<std::int64_t> ids;
  for (const auto& r : rows) ids.push_back(r.id);
  auto tags = site.store.tags_of(ids);
  if (!tags) return std::unexpected(tags.error());
  auto triage = site.store.triage_of(ids);
  if (!triage) return std::unexpected(triage.error());
  std::vector<DigestEntry> out;
  for (const auto& r : rows) {
    DigestEntry e;
    e.change = r;
    if (auto t = tags->find(r.id); t != tags->end()) e.tags = t->second;
    auto g = guide_for(site, r.id);
    if (!g) return std::unexpected(g.error());
    if (*g) {
      e.has_guide = true;
      e.headline = clean_text((*g)->headline);
      e.paragraph = clean_text(digest_paragraph(**g));
      e.importance_reason = clean_text((*g)->importance.reason);
      e.insight_reason = clean_text((*g)->insight.reason);
      // The guide's judgment is the one shown (a model may argue another).
      if (!(*g)->verdict.empty()) e.change.verdict = (*g)->verdict;
      if ((*g)->importance.value > 0) e.change.importance = (*g)->importance.value;
      if ((*g)->insight.value > 0) e.change.insight = (*g)->insight.value;
    }
    if (auto t = triage->find(r.id); t != triage->end()) {
      const TriageRecord& tr = t->second;
      e.triage = tr;
      const std::string& reason = site.lang == Lang::kZh ? tr.reason_zh : tr.reason_en;
      e.triage_reason = clean_text(
          reason.empty() ? (site.lang == Lang::kZh ? tr.reason_en : tr.reason_zh) : reason);
      // A guide written from this triage shows its own (possibly argued)
      // judgment, which its text agrees with; otherwise the triage's stands.
      const bool from_triage = *g && (*g)->analysis.verdict == tr.verdict &&
                               (*g)->analysis.importance.value == tr.importance &&
                               (*g)->analysis.insight.value == tr.insight;
      if (!from_triage) {
        e.change.verdict = tr.verdict;
        e.change.importance = tr.importance;
        e.change.insight = tr.insight;
        e.importance_reason = e.triage_reason;
        e.insight_reason.clear();
      }
    }
    if (e.headline.empty()) e.headline = clean_text(r.title);
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace

Result<DayDigest> day_digest(const Site& site, std::string_view date_in) {
  DayDigest d;
  d.date = std::string(date_in);
  if (d.date.empty()) {
    auto latest = latest_day(site);
    if (!latest) return std::unexpected(latest.error());
    d.date = *latest;
    if (d.date.empty()) return d;  // an empty store
  }
  auto bounds = site.tz.day_bounds(d.date);
  if (!bounds) return std::unexpected(bounds.error());
  ListQuery q;
  q.since = bounds->first;
  q.until = bounds->second;
  auto rows = site.store.list_changes(site.repo.id, q);
  if (!rows) return std::unexpected(rows.error());
  auto entries = entries_of(site, *rows);
  if (!entries) return std::unexpected(entries.error());
  d.entries = std::move(*entries);
  std::stable_sort(
      d.entries.begin(), d.entries.end(), [](const DigestEntry& a, const DigestEntry& b) {
        const int ra = entry_rank(a), rb = entry_rank(b);
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
  for (const auto& e : d.entries) {
    const std::string& v = e.change.verdict;
    d.close_reads += v == "close_read";
    d.selective_reads += v == "selective_read";
    d.skims += v == "skim";
    d.skips += v == "skip";
    d.triaged += e.triage.has_value();
  }
  // Open pull requests (GitHub source) belong to no day: the newest day lists
  // them apart, under the merged ones.
  if (auto latest = latest_day(site); latest && *latest == d.date) {
    ListQuery oq;
    oq.until = 1;  // merged_at 0
    auto open_rows = site.store.list_changes(site.repo.id, oq);
    if (!open_rows) return std::unexpected(open_rows.error());
    std::erase_if(*open_rows, [](const ChangeSummary& c) { return !c.open; });
    auto open = entries_of(site, *open_rows);
    if (!open) return std::unexpected(open.error());
    d.open = std::move(*open);
  }
  auto prev = site.store.adjacent_merge(site.repo.id, bounds->first, /*before=*/true);
  if (!prev) return std::unexpected(prev.error());
  auto next = site.store.adjacent_merge(site.repo.id, bounds->second, /*before=*/false);
  if (!next) return std::unexpected(next.error());
  if (*prev) d.prev = site.tz.day(**prev);
  if (*next) d.next = site.tz.day(**next);
  return d;
}

nlohmann::json digest_item(const Site& site, const DigestEntry& e) {
  nlohmann::json it = change_item(site, e.change, e.tags, e.has_guide ? e.headline : "");
  it["headline"] = e.headline;
  it["headline_rich"] = rich(e.headline);
  it["paragraph"] = rich(e.paragraph);
  it["paragraph_text"] = e.paragraph;
  it["importance_reason"] = e.importance_reason;
  it["insight_reason"] = e.insight_reason;
  it["triage_reason"] = e.triage_reason;
  it["triaged"] = e.triage.has_value();
  it["triage_rank"] = e.triage ? nlohmann::json(e.triage->rank) : nlohmann::json(nullptr);
  // Numbers repeat across repositories: their anchors name the repository.
  it["anchor"] = site.all() ? fmt::format("pr-r{}-{}", e.change.repo_id, url_ref(e.change))
                            : "pr-" + url_ref(e.change);
  return it;
}

Result<void> add_paragraphs(const Site& site, nlohmann::json& items) {
  for (auto& it : items) {
    auto g = guide_for(site, it["id"].get<std::int64_t>());
    if (!g) return std::unexpected(g.error());
    const std::string p = *g ? clean_text(digest_paragraph(**g)) : std::string();
    it["headline_rich"] = rich(it["headline"].get<std::string>());
    it["paragraph"] = rich(p);
    it["paragraph_text"] = p;
    it["importance_reason"] = *g ? clean_text((*g)->importance.reason) : "";
    it["insight_reason"] = *g ? clean_text((*g)->insight.reason) : "";
    if (*g && (*g)->importance.value > 0) it["importance"] = (*g)->importance.value;
    if (*g && (*g)->insight.value > 0) it["insight"] = (*g)->insight.value;
  }
  return {};
}

std::string day_figures(Lang lang, const DayDigest& d) {
  std::string s = day_counts(lang, d.entries.size(), d.close_reads, d.open.size());
  if (d.entries.empty()) return s;
  const size_t unscored = d.entries.size() - d.close_reads - d.selective_reads - d.skims - d.skips;
  std::vector<std::string> parts;
  auto add = [&](size_t n, std::string_view verdict) {
    if (n) parts.push_back(fmt::format("{} {}", verdict_label(lang, verdict), n));
  };
  add(d.selective_reads, "selective_read");
  add(d.skims, "skim");
  add(d.skips, "skip");
  add(unscored, "");
  if (parts.empty()) return s;
  s += lang == Lang::kEn ? "; " : "；";
  for (size_t i = 0; i < parts.size(); ++i) s += (i ? " · " : "") + parts[i];
  return s;
}

}  // namespace mergelens::web
