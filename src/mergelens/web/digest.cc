// The digest of a day and the digest paragraph of an entry (digest.h).
#include "mergelens/web/digest.h"

#include <algorithm>

#include <fmt/format.h>

#include "mergelens/report/filter.h"
#include "mergelens/util/strings.h"

namespace mergelens::web {

std::string digest_paragraph(const Guide& g) {
  return report::digest_paragraph(g);
}

Result<std::optional<Guide>> guide_for(const Site& site, std::int64_t id) {
  return report::guide_in(site.store, lang_code(site.lang), id);
}

namespace {

Result<std::vector<DigestEntry>> entries_of(const Site& site,
                                            const std::vector<ChangeSummary>& rows) {
  return report::load_entries(site.store, lang_code(site.lang), rows);
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
  if (site.filter) {
    auto left = report::apply_filter(site.store, *site.filter, d.entries);
    if (!left) return std::unexpected(left.error());
    d.left_out = *left;
  }
  report::order_entries(d.entries);
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
    if (site.filter)
      if (auto r = report::apply_filter(site.store, *site.filter, *open); !r)
        return std::unexpected(r.error());
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

std::string triage_moved_text(Lang lang, const TriageRecord& t) {
  const bool en = lang == Lang::kEn;
  std::vector<std::string> parts;
  if (t.analysis_verdict != t.verdict && !t.analysis_verdict.empty())
    parts.push_back(fmt::format("{} {} → {}", en ? "verdict" : "结论",
                                verdict_label(lang, t.analysis_verdict),
                                verdict_label(lang, t.verdict)));
  if (t.analysis_importance != t.importance && t.analysis_importance > 0)
    parts.push_back(fmt::format("{} {} → {}", en ? "importance" : "重要度", t.analysis_importance,
                                t.importance));
  if (t.analysis_insight != t.insight && t.analysis_insight > 0)
    parts.push_back(
        fmt::format("{} {} → {}", en ? "insight" : "洞察价值", t.analysis_insight, t.insight));
  return fmt::format(
      "{}{}",
      en ? "The model's triage moved the analysis's judgment: " : "模型分诊改动了分析的判断：",
      fmt::join(parts, en ? "; " : "；"));
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
  it["triage_scope"] = e.triage_scope;
  it["triage_line"] = !e.triage_reason.empty() || !e.triage_scope.empty();
  it["triaged"] = e.triage.has_value();
  // Where the model's triage moved the analysis's judgment far, both values.
  it["triage_moved"] = e.triage_moved_far && e.triage.has_value();
  if (e.triage_moved_far && e.triage)
    it["triage_moved_text"] = triage_moved_text(site.lang, *e.triage);
  it["triage_rank"] = e.triage ? nlohmann::json(e.triage->rank) : nlohmann::json(nullptr);
  // The changes it belongs with, as one line ("part 2 of 3 (with #12); reverted by #130").
  it["thread_line"] =
      clean_text(fmt::format("{}", fmt::join(e.thread_text, site.lang == Lang::kEn ? "; " : "；")));
  // Numbers repeat across repositories: their anchors name the repository.
  it["anchor"] = site.all() ? fmt::format("pr-r{}-{}", e.change.repo_id, url_ref(e.change))
                            : "pr-" + url_ref(e.change);
  return it;
}

Result<void> add_paragraphs(const Site& site, nlohmann::json& items) {
  // The guides' briefs, in one read: not a document per item.
  std::vector<std::int64_t> ids;
  for (const auto& it : items) ids.push_back(it["id"].get<std::int64_t>());
  auto briefs = site.store.guide_briefs(ids, lang_code(site.lang));
  if (!briefs) return std::unexpected(briefs.error());
  for (auto& it : items) {
    const auto found = briefs->find(it["id"].get<std::int64_t>());
    const GuideBrief* g = found == briefs->end() ? nullptr : &found->second;
    const std::string p = g ? clean_text(g->paragraph) : std::string();
    it["headline_rich"] = rich(it["headline"].get<std::string>());
    it["paragraph"] = rich(p);
    it["paragraph_text"] = p;
    it["importance_reason"] = g ? clean_text(g->importance_reason) : "";
    it["insight_reason"] = g ? clean_text(g->insight_reason) : "";
    if (g && g->importance > 0) it["importance"] = g->importance;
    if (g && g->insight > 0) it["insight"] = g->insight;
  }
  return {};
}

std::string day_figures(Lang lang, const DayDigest& d) {
  std::string s = day_counts(lang, d.entries.size(), d.close_reads, d.open.size());
  const size_t unscored = d.entries.size() - d.close_reads - d.selective_reads - d.skims - d.skips;
  std::vector<std::string> parts;
  auto add = [&](size_t n, std::string_view verdict) {
    if (n) parts.push_back(fmt::format("{} {}", verdict_label(lang, verdict), n));
  };
  if (!d.entries.empty()) {
    add(d.selective_reads, "selective_read");
    add(d.skims, "skim");
    add(d.skips, "skip");
    add(unscored, "");
  }
  if (!parts.empty()) s += lang == Lang::kEn ? "; " : "；";
  for (size_t i = 0; i < parts.size(); ++i) s += (i ? " · " : "") + parts[i];
  // A filtered digest says what it left out.
  if (d.left_out > 0)
    s += (lang == Lang::kEn ? ". " : "。") + report::not_listed(lang_code(lang), d.left_out);
  return s;
}

}  // namespace mergelens::web
