// Themes of a window (themes.h): the model's when stored, else offline from
// threads, tags and paths.
#include "mergelens/report/themes.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "mergelens/analysis/text/glossary.h"
#include "mergelens/analysis/text/threads.h"
#include "mergelens/guide/themes.h"
#include "mergelens/util/strings.h"
#include "mergelens/util/utf8.h"

namespace mergelens::report {

namespace {

constexpr std::string_view kKinds[] = {"model-support", "feature", "perf", "bugfix", "refactor",
                                       "revert",        "docs",    "ci",   "tests",  "deps"};

bool is_kind(std::string_view tag) {
  return std::ranges::find(kKinds, tag) != std::end(kKinds);
}

bool substantive(const Entry& e) {
  const auto& v = e.change.verdict;
  return v == "close_read" || v == "selective_read" || e.change.importance >= 5;
}

// What the offline grouping reads of each entry's facts.
struct Traits {
  std::string topic;  // the strongest specific topic tag, else ""
  std::string area;   // the last two folders of its first focus file, else ""
};

Result<std::vector<Traits>> traits_of(Store& store, const std::vector<Entry>& entries) {
  // A tag most of the window carries (npu in an NPU backend) groups nothing.
  std::map<std::string, size_t> count;
  for (const auto& e : entries)
    for (const auto& t : e.tags) ++count[t];
  const size_t common = std::max<size_t>(3, entries.size() * 2 / 5);
  std::vector<Traits> out(entries.size());
  // The briefs hold the tag weights and the first focus path: no facts
  // document is decoded (a week page of 400 changes spent 3/4 of its time there).
  std::vector<std::int64_t> ids;
  for (const auto& e : entries) ids.push_back(e.change.id);
  auto briefs = store.facts_briefs(ids);
  if (!briefs) return std::unexpected(briefs.error());
  for (size_t i = 0; i < entries.size(); ++i) {
    auto brief = briefs->find(entries[i].change.id);
    if (brief == briefs->end()) continue;
    double best = -1;
    for (const auto& [name, weight] : brief->second.tag_weights) {
      if (is_kind(name) || count[name] > common) continue;
      if (std::ranges::find(entries[i].tags, name) == entries[i].tags.end()) continue;
      if (weight > best) {
        best = weight;
        out[i].topic = name;
      }
    }
    if (!brief->second.focus_path.empty()) {
      std::string dir = brief->second.focus_path;
      const size_t slash = dir.rfind('/');
      dir = slash == std::string::npos ? std::string() : dir.substr(0, slash);
      const size_t a = dir.rfind('/');
      if (a != std::string::npos) {
        const size_t b = dir.rfind('/', a - 1);
        if (b != std::string::npos) dir = dir.substr(b + 1);
      }
      out[i].area = dir;
    }
  }
  return out;
}

// The title of a thread: the stem of its first series part, else its best
// member's headline.
std::string thread_title(const std::vector<Entry>& entries, const std::vector<size_t>& members) {
  size_t first = members.front();
  int part = 0;
  for (size_t i : members)
    if (auto m = series_marker(entries[i].change.title); m && (part == 0 || m->part < part)) {
      part = m->part;
      first = i;
    }
  if (part > 0) {
    auto m = series_marker(entries[first].change.title);
    std::string stem = m->stem;
    // Bracketed kinds in front ("[Refactor][DSA] ...") stay: they name the series.
    if (!trim(stem).empty()) return clean_utf8_text(std::string(trim(stem)));
  }
  return entries[members.front()].headline;
}

void finish(Themes& t, const std::vector<Entry>& entries) {
  t.rank_of.assign(entries.size(), 0);
  for (size_t r = 0; r < t.themes.size(); ++r) {
    t.themes[r].rank = static_cast<int>(r + 1);
    for (size_t i : t.themes[r].entries) t.rank_of[i] = t.themes[r].rank;
  }
}

// Sorts members most important first (the entries' reading order breaking ties).
void order_members(std::vector<size_t>& members, const std::vector<Entry>& entries) {
  std::ranges::stable_sort(members, [&](size_t a, size_t b) {
    const auto& ca = entries[a].change;
    const auto& cb = entries[b].change;
    const bool ra = ca.verdict == "skip", rb = cb.verdict == "skip";
    if (ra != rb) return rb;
    if (ca.importance != cb.importance) return ca.importance > cb.importance;
    if (ca.insight != cb.insight) return ca.insight > cb.insight;
    return a < b;
  });
}

Theme make_theme(const std::vector<Entry>& entries, std::vector<size_t> members, std::string kind) {
  order_members(members, entries);
  Theme t;
  t.entries = std::move(members);
  t.kind = std::move(kind);
  t.tag = kind_of(entries[t.entries.front()]);
  for (size_t i : t.entries) t.substantive = t.substantive || substantive(entries[i]);
  // Reverted in the window and not brought back: a change with a later
  // revert among the members and no later re-land.
  std::set<std::int64_t> ids;
  for (size_t i : t.entries) ids.insert(entries[i].change.id);
  // Only the theme's main change counts: a reverted follow-up leaves the feature.
  bool reverted = false, relanded = false;
  for (const auto& n : entries[t.entries.front()].thread) {
    if (!n.later || !ids.contains(n.other.id)) continue;
    reverted = reverted || n.relation == "reverts";
    relanded = relanded || n.relation == "relands";
  }
  t.reverted = reverted && !relanded;
  return t;
}

double score(const Theme& t, const std::vector<Entry>& entries) {
  const auto& best = entries[t.entries.front()].change;
  if (best.verdict == "skip") return -100 + best.importance;
  size_t more = 0;
  for (size_t i = 1; i < t.entries.size(); ++i) more += substantive(entries[t.entries[i]]);
  double s = best.importance + (best.verdict == "close_read" ? 0.5 : 0);
  if (t.kind == "thread" || t.kind == "series") s += std::min(2.0, 0.5 * static_cast<double>(more));
  if (t.kind == "topic") s += std::min(1.0, 0.25 * static_cast<double>(more));
  if (t.reverted) s -= 3;
  return s;
}

void rank(std::vector<Theme>& themes, const std::vector<Entry>& entries) {
  std::vector<std::pair<double, size_t>> keyed;
  for (size_t i = 0; i < themes.size(); ++i) keyed.emplace_back(score(themes[i], entries), i);
  std::ranges::stable_sort(keyed, [&](const auto& a, const auto& b) {
    if (a.first != b.first) return a.first > b.first;
    return themes[a.second].entries.front() < themes[b.second].entries.front();
  });
  std::vector<Theme> out;
  for (auto& [s, i] : keyed) out.push_back(std::move(themes[i]));
  themes = std::move(out);
}

// Offline themes of the entries at `which` (indexes into `entries`).
Result<std::vector<Theme>> group(Store& store, const std::vector<Entry>& entries,
                                 const std::vector<size_t>& which, std::string_view lang) {
  std::vector<std::int64_t> ids;
  std::map<std::int64_t, std::vector<ThreadNote>> notes;
  std::map<std::int64_t, size_t> index;
  for (size_t i : which) {
    ids.push_back(entries[i].change.id);
    notes[entries[i].change.id] = entries[i].thread;
    index[entries[i].change.id] = i;
  }
  auto traits = traits_of(store, entries);
  if (!traits) return std::unexpected(traits.error());
  std::vector<Theme> themes;
  std::map<std::pair<std::string, std::string>, std::vector<size_t>> topics;
  for (const auto& g : thread_groups(ids, notes)) {
    std::vector<size_t> members;
    for (auto id : g) members.push_back(index[id]);
    if (members.size() > 1) {
      bool series = false;
      for (size_t i : members) series = series || series_marker(entries[i].change.title);
      Theme t = make_theme(entries, members, series ? "series" : "thread");
      t.title = thread_title(entries, t.entries);
      themes.push_back(std::move(t));
      continue;
    }
    const size_t i = members.front();
    const Traits& tr = (*traits)[i];
    if (!tr.topic.empty() && !tr.area.empty() && entries[i].change.verdict != "skip")
      topics[{tr.topic, tr.area}].push_back(i);
    else
      themes.push_back(make_theme(entries, {i}, "single"));
  }
  for (auto& [key, members] : topics) {
    if (members.size() == 1) {
      themes.push_back(make_theme(entries, members, "single"));
      continue;
    }
    Theme t = make_theme(entries, members, "topic");
    t.title = clean_utf8_text(tag_display_name(key.first, lang)) + " · " + key.second;
    themes.push_back(std::move(t));
  }
  for (auto& t : themes) {
    if (t.kind == "single") t.title = entries[t.entries.front()].headline;
    if (t.kind != "single") {
      // The members' headlines, best first, as the line (at most three); a
      // thread titled by its best member's headline lists the others.
      const bool titled_by_best = t.kind == "thread";
      std::vector<std::string> heads;
      for (size_t k = titled_by_best ? 1 : 0; k < t.entries.size(); ++k) {
        const Entry& e = entries[t.entries[k]];
        if (heads.size() < 3 && e.change.verdict != "skip") heads.push_back(e.headline);
      }
      if (!heads.empty())
        t.highlight = (titled_by_best ? (lang == "en" ? "with " : "另有：") : std::string()) +
                      fmt::format("{}", fmt::join(heads, lang == "en" ? "; " : "；"));
    }
  }
  rank(themes, entries);
  return themes;
}

}  // namespace

std::string kind_of(const Entry& e) {
  for (auto k : kKinds)
    if (std::ranges::find(e.tags, k) != e.tags.end()) return std::string(k);
  return "";
}

Themes single_themes(const std::vector<Entry>& entries) {
  Themes out;
  out.source = "per_pr";
  std::vector<size_t> order(entries.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::ranges::stable_sort(order, [&](size_t a, size_t b) {
    const auto& ca = entries[a].change;
    const auto& cb = entries[b].change;
    const bool sa = ca.verdict == "skip" || ca.verdict.empty();
    const bool sb = cb.verdict == "skip" || cb.verdict.empty();
    if (sa != sb) return sb;
    if (ca.importance != cb.importance) return ca.importance > cb.importance;
    return ca.insight > cb.insight;
  });
  for (size_t i : order) {
    Theme t = make_theme(entries, {i}, "single");
    t.title = entries[i].headline;
    out.themes.push_back(std::move(t));
  }
  finish(out, entries);
  return out;
}

Result<Themes> offline_themes(Store& store, const std::vector<Entry>& entries,
                              std::string_view lang) {
  Themes out;
  out.source = "analysis";
  std::vector<size_t> all(entries.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  auto themes = group(store, entries, all, lang);
  if (!themes) return std::unexpected(themes.error());
  out.themes = std::move(*themes);
  finish(out, entries);
  return out;
}

Result<Themes> window_themes(Store& store, std::int64_t repo_id, std::string_view span,
                             const std::vector<Entry>& entries, std::string_view lang) {
  auto set = span.empty() ? Result<std::optional<ThemeSet>>(std::optional<ThemeSet>())
                          : store.get_themes(repo_id, span);
  if (!set) return std::unexpected(set.error());
  std::optional<ThemeAnswer> answer;
  if (*set) {
    auto doc = nlohmann::json::parse((*set)->doc, nullptr, false);
    if (!doc.is_discarded())
      if (auto a = themes_from_doc(doc)) answer = std::move(*a);
  }
  if (!answer) return offline_themes(store, entries, lang);
  Themes out;
  out.source = "model";
  out.model = (*set)->model;
  out.at = (*set)->at;
  std::map<std::int64_t, size_t> index;
  for (size_t i = 0; i < entries.size(); ++i) index[entries[i].change.id] = i;
  std::vector<bool> named(entries.size(), false);
  const bool en = lang == "en";
  for (const auto& item : answer->themes) {
    std::vector<size_t> members;
    for (auto id : item.change_ids)
      if (auto it = index.find(id); it != index.end() && !named[it->second]) {
        members.push_back(it->second);
        named[it->second] = true;
      }
    if (members.empty()) continue;
    Theme t;
    t.kind = "model";
    t.entries = members;  // the model's order
    t.tag = kind_of(entries[members.front()]);
    for (size_t i : members) t.substantive = t.substantive || substantive(entries[i]);
    const std::string& title = en ? item.title_en : item.title_zh;
    const std::string& other_title = en ? item.title_zh : item.title_en;
    t.title = clean_utf8_text(title.empty() ? other_title : title);
    const std::string& line = en ? item.highlight_en : item.highlight_zh;
    const std::string& other_line = en ? item.highlight_zh : item.highlight_en;
    t.highlight = clean_utf8_text(line.empty() ? other_line : line);
    out.themes.push_back(std::move(t));
  }
  std::vector<size_t> rest;
  for (size_t i = 0; i < entries.size(); ++i)
    if (!named[i]) rest.push_back(i);
  out.model_left_out = rest.size();
  auto more = group(store, entries, rest, lang);
  if (!more) return std::unexpected(more.error());
  for (auto& t : *more) out.themes.push_back(std::move(t));
  finish(out, entries);
  return out;
}

nlohmann::json theme_json(const Theme& t, const std::vector<Entry>& entries) {
  nlohmann::json refs = nlohmann::json::array();
  for (size_t i : t.entries) {
    const auto& c = entries[i].change;
    refs.push_back(c.number ? fmt::format("#{}", *c.number) : c.sha.substr(0, 12));
  }
  return {{"rank", t.rank},
          {"title", t.title},
          {"highlight", t.highlight},
          {"kind", t.kind},
          {"tag", t.tag},
          {"reverted", t.reverted},
          {"substantive", t.substantive},
          {"refs", std::move(refs)}};
}

}  // namespace mergelens::report
