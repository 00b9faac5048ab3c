// A repository's ISO week (week.h).
#include "mergelens/report/week.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "mergelens/guide/themes.h"
#include "mergelens/util/time.h"

namespace mergelens::report {

namespace {

constexpr std::int64_t kDay = 86400;
constexpr std::int64_t kWeek = 7 * kDay;
constexpr size_t kMaxMoves = 12;

std::string trend_of(std::int64_t count, double mean) {
  if (mean == 0) return count > 0 ? "new" : "steady";
  if (count == 0) return "gone";
  if (count >= 1.5 * mean && count - mean >= 2) return "up";
  if (count <= 0.5 * mean && mean - count >= 2) return "down";
  return "steady";
}

nlohmann::json thread_refs(const Entry& e) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& n : e.thread)
    a.push_back({{"relation", n.relation},
                 {"direction", n.later ? "later" : "earlier"},
                 {"ref", link_ref(n.other)},
                 {"detail", n.detail}});
  return a;
}

}  // namespace

// The ISO week forms are util/time.h's, shared with every other date.
Result<UnixSeconds> iso_week_start(std::string_view w) {
  return parse_iso_week(w);
}

std::string iso_week_of(UnixSeconds t) {
  return format_iso_week(t);
}

Result<Week> load_week(Store& store, std::int64_t repo_id, std::string_view week_in,
                       std::string_view lang, const Filter* filter) {
  Week w;
  w.repo_id = repo_id;
  w.week = std::string(week_in);
  if (w.week.empty()) {
    auto newest = store.adjacent_merge(repo_id, INT64_MAX, /*before=*/true);
    if (!newest) return std::unexpected(newest.error());
    if (!*newest) return w;  // an empty store
    w.week = iso_week_of(**newest);
  }
  auto start = iso_week_start(w.week);
  if (!start) return std::unexpected(start.error());
  w.week = iso_week_of(*start);  // "2026-w48" → "2026-W48"
  w.since = *start;
  w.until = *start + kWeek;
  // The four weeks before, for the tags' movement.
  ListQuery q;
  q.since = w.since - 4 * kWeek;
  q.until = w.until;
  auto rows = store.list_changes(repo_id, q);
  if (!rows) return std::unexpected(rows.error());
  std::vector<ChangeSummary> these, before;
  for (auto& r : *rows) (r.merged_at >= w.since ? these : before).push_back(std::move(r));
  auto entries = load_entries(store, lang, these);
  if (!entries) return std::unexpected(entries.error());
  w.entries = std::move(*entries);
  if (filter) {
    auto left = apply_filter(store, *filter, w.entries);
    if (!left) return std::unexpected(left.error());
    w.left_out = *left;
  }
  order_entries(w.entries);
  for (const auto& e : w.entries) {
    const std::string& v = e.change.verdict;
    w.close_reads += v == "close_read";
    w.selective_reads += v == "selective_read";
    w.skims += v == "skim";
    w.skips += v == "skip";
    w.triaged += e.triage.has_value();
  }
  // Close reads grouped by their strongest tag; groups in the order of their best entry.
  for (size_t i = 0; i < w.entries.size(); ++i) {
    if (w.entries[i].change.verdict != "close_read") continue;
    auto tag = strongest_tag(store, w.entries[i]);
    if (!tag) return std::unexpected(tag.error());
    auto g = std::ranges::find(w.close_by_tag, *tag, &TagGroup::tag);
    if (g == w.close_by_tag.end()) g = w.close_by_tag.insert(w.close_by_tag.end(), {*tag, {}});
    g->entries.push_back(i);
  }
  // Each shown tag against the four weeks before (every change of those weeks).
  std::vector<std::int64_t> before_ids;
  for (const auto& r : before) before_ids.push_back(r.id);
  auto before_tags = store.tags_of(before_ids);
  if (!before_tags) return std::unexpected(before_tags.error());
  std::map<std::string, std::int64_t> now;
  for (const auto& e : w.entries)
    for (const auto& t : e.tags) ++now[t];
  if (filter)
    for (const auto& t : filter->tags) now.try_emplace(t, 0);
  std::map<std::string, std::vector<std::int64_t>> prev;
  for (const auto& r : before) {
    auto t = before_tags->find(r.id);
    if (t == before_tags->end()) continue;
    const size_t slot = static_cast<size_t>((r.merged_at - (w.since - 4 * kWeek)) / kWeek);
    for (const auto& name : t->second) {
      if (!now.contains(name)) continue;
      auto& weeks = prev[name];
      weeks.resize(4, 0);
      ++weeks[std::min<size_t>(slot, 3)];
    }
  }
  for (const auto& [tag, count] : now) {
    TagMove m;
    m.tag = tag;
    m.count = count;
    m.previous = prev.contains(tag) ? prev[tag] : std::vector<std::int64_t>(4, 0);
    for (auto n : m.previous) m.previous_mean += static_cast<double>(n) / 4.0;
    m.previous_mean = std::round(m.previous_mean * 100) / 100;
    m.trend = trend_of(m.count, m.previous_mean);
    w.moves.push_back(std::move(m));
  }
  std::ranges::stable_sort(w.moves, [](const TagMove& a, const TagMove& b) {
    if (a.count != b.count) return a.count > b.count;
    return a.previous_mean > b.previous_mean;
  });
  if (w.moves.size() > kMaxMoves) w.moves.resize(kMaxMoves);
  std::vector<std::int64_t> shown;
  for (const auto& e : w.entries)
    if (e.change.verdict != "skip") shown.push_back(e.change.id);
  auto visible = visible_changes(store, shown);
  if (!visible) return std::unexpected(visible.error());
  for (size_t i = 0; i < w.entries.size(); ++i) {
    if (w.entries[i].change.verdict == "skip") continue;
    if (auto v = visible->find(w.entries[i].change.id); v != visible->end())
      w.visible.push_back({i, std::move(v->second)});
  }
  auto themes =
      window_themes(store, repo_id, repo_id == kAllRepos ? "" : week_span(w.week), w.entries, lang);
  if (!themes) return std::unexpected(themes.error());
  w.themes = std::move(*themes);
  auto p = store.adjacent_merge(repo_id, w.since, /*before=*/true);
  if (!p) return std::unexpected(p.error());
  auto n = store.adjacent_merge(repo_id, w.until, /*before=*/false);
  if (!n) return std::unexpected(n.error());
  if (*p && **p > 0) w.prev = iso_week_of(**p);
  if (*n) w.next = iso_week_of(**n);
  return w;
}

nlohmann::json entry_json(const Entry& e) {
  const ChangeSummary& c = e.change;
  nlohmann::json j{{"id", c.id},
                   {"repo_id", c.repo_id},
                   {"number", c.number ? nlohmann::json(*c.number) : nlohmann::json(nullptr)},
                   {"sha", c.sha},
                   {"ref", c.number ? fmt::format("#{}", *c.number) : c.sha.substr(0, 12)},
                   {"title", c.title},
                   {"headline", e.headline},
                   {"paragraph", e.paragraph},
                   {"verdict", c.verdict},
                   {"importance", c.importance},
                   {"insight", c.insight},
                   {"tags", e.tags},
                   {"author", c.author.login.empty() ? c.author.name : c.author.login},
                   {"merged_at", format_utc(c.merged_at)},
                   {"url", c.url},
                   {"triaged", e.triage.has_value()},
                   {"triage_reason", e.triage_reason},
                   {"thread", thread_refs(e)},
                   {"thread_text", e.thread_text}};
  return j;
}

nlohmann::json week_json(const Week& w, std::optional<size_t> max_themes) {
  nlohmann::json j;
  j["week"] = w.week;
  j["since"] = format_utc(w.since);
  j["until"] = format_utc(w.until);
  j["merged"] = w.entries.size();
  j["left_out"] = w.left_out;
  j["close_reads"] = w.close_reads;
  j["selective_reads"] = w.selective_reads;
  j["skims"] = w.skims;
  j["skips"] = w.skips;
  j["triaged"] = w.triaged;
  j["themes_source"] = w.themes.source;
  j["themes_model"] = w.themes.model;
  j["themes"] = nlohmann::json::array();
  for (const auto& t : w.themes.themes) {
    if (max_themes && j["themes"].size() >= *max_themes) break;
    j["themes"].push_back(theme_json(t, w.entries));
  }
  if (max_themes) j["themes_total"] = w.themes.themes.size();
  j["entries"] = nlohmann::json::array();
  for (size_t i = 0; i < w.entries.size(); ++i) {
    nlohmann::json e = entry_json(w.entries[i]);
    if (i < w.themes.rank_of.size()) e["theme_rank"] = w.themes.rank_of[i];
    j["entries"].push_back(std::move(e));
  }
  j["close_by_tag"] = nlohmann::json::array();
  for (const auto& g : w.close_by_tag) {
    nlohmann::json refs = nlohmann::json::array();
    for (size_t i : g.entries) refs.push_back(entry_json(w.entries[i])["ref"]);
    j["close_by_tag"].push_back({{"tag", g.tag}, {"refs", refs}});
  }
  j["moves"] = nlohmann::json::array();
  for (const auto& m : w.moves)
    j["moves"].push_back({{"tag", m.tag},
                          {"count", m.count},
                          {"previous", m.previous},
                          {"previous_mean", m.previous_mean},
                          {"trend", m.trend}});
  j["visible"] = nlohmann::json::array();
  for (const auto& v : w.visible)
    j["visible"].push_back({{"ref", entry_json(w.entries[v.entry])["ref"]},
                            {"flags_added", v.what.flags_added},
                            {"flags_removed", v.what.flags_removed},
                            {"env_added", v.what.env_added},
                            {"env_removed", v.what.env_removed},
                            {"api_changed", v.what.api_changed}});
  j["prev"] = w.prev ? nlohmann::json(*w.prev) : nlohmann::json(nullptr);
  j["next"] = w.next ? nlohmann::json(*w.next) : nlohmann::json(nullptr);
  return j;
}

}  // namespace mergelens::report
