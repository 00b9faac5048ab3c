// The release-notes draft: choosing and grouping (notes.h).
#include "mergelens/report/notes.h"

#include <algorithm>
#include <set>
#include <unordered_set>

#include "mergelens/guide/themes.h"

namespace mergelens::report {

namespace {

constexpr UnixSeconds kYear = 365 * 86400;

std::string who(const Person& p) {
  return p.login.empty() ? p.name : p.login;
}

std::string section_of(std::string_view kind) {
  if (kind == "model-support") return "models";
  if (kind == "feature") return "features";
  if (kind == "perf") return "performance";
  if (kind == "bugfix") return "fixes";
  if (kind == "refactor") return "refactoring";
  if (kind == "revert") return "reverts";
  if (kind == "docs" || kind == "ci" || kind == "tests" || kind == "deps") return "maintenance";
  return "other";
}

constexpr std::string_view kSectionOrder[] = {
    "models", "features", "performance", "fixes", "refactoring", "other", "reverts", "maintenance"};

// Whether a theme gets a line of its own in the sections: something in it
// is worth reading or important (a routine change, CI, docs are counted).
bool listed(const Theme& t, const std::vector<Entry>& entries) {
  if (!t.substantive) return false;
  return std::ranges::any_of(t.entries,
                             [&](size_t i) { return entries[i].change.verdict != "skip"; });
}

}  // namespace

Result<Notes> draft_notes(Store& store, const RepoRecord& repo, const NotesRange& range,
                          const NotesOptions& o, const Filter* filter) {
  if (!range.shas && !range.since && !range.until)
    return fail(ErrorKind::kInvalidInput, "a release-notes range needs revisions or dates");
  if (!range.shas && range.since && range.until && *range.since > *range.until)
    return fail(ErrorKind::kInvalidInput,
                "the release-notes range ends ({}) before it starts ({}): swap the bounds",
                range.to_label, range.from_label);
  Notes n;
  n.repo = repo.name;
  n.web_base = repo.web_base;
  n.from = range.from_label;
  n.to = range.to_label;
  n.lang = o.lang;
  n.list_all = o.list_all;
  ListQuery q;
  if (!range.shas) {
    q.since = range.since;
    q.until = range.until;
  }
  auto rows = store.list_changes(repo.id, q);
  if (!rows) return std::unexpected(rows.error());
  std::erase_if(*rows, [](const ChangeSummary& c) { return c.open; });
  if (range.shas) {
    const std::unordered_set<std::string> want(range.shas->begin(), range.shas->end());
    std::erase_if(*rows, [&](const ChangeSummary& c) { return !want.contains(c.sha); });
  }
  auto entries = load_entries(store, o.lang, *rows);
  if (!entries) return std::unexpected(entries.error());
  n.entries = std::move(*entries);
  if (filter) {
    auto left = apply_filter(store, *filter, n.entries);
    if (!left) return std::unexpected(left.error());
    n.left_out = *left;
  }
  order_entries(n.entries);
  const std::string span =
      !range.span.empty() || range.shas ? range.span : time_span(range.since, range.until);
  if (o.per_pr) {
    n.themes = single_themes(n.entries);
  } else {
    auto themes = window_themes(store, repo.id, span, n.entries, o.lang);
    if (!themes) return std::unexpected(themes.error());
    n.themes = std::move(*themes);
  }

  // Highlights: the best themes that are worth naming and were not reverted
  // in the range; the model's themes only, when it chose them.
  std::vector<bool> shown(n.themes.themes.size(), false);
  for (size_t t = 0; t < n.themes.themes.size() && n.highlights.size() < o.max_highlights; ++t) {
    const Theme& th = n.themes.themes[t];
    if (n.themes.source == "model" && th.kind != "model") break;
    if (th.reverted || !listed(th, n.entries)) continue;
    n.highlights.push_back(t);
    shown[t] = true;
  }
  // Sections: every other listed theme (all of them with list_all), by kind.
  for (size_t t = 0; t < n.themes.themes.size(); ++t) {
    if (shown[t]) continue;
    const Theme& th = n.themes.themes[t];
    if (!o.list_all && !listed(th, n.entries)) {
      for (size_t i : th.entries) {
        ++n.unlisted;
        n.unlisted_skips += n.entries[i].change.verdict == "skip";
      }
      continue;
    }
    const std::string kind = section_of(th.tag);
    auto s = std::ranges::find(n.sections, kind, &NotesSection::kind);
    if (s == n.sections.end()) s = n.sections.insert(n.sections.end(), {kind, {}});
    s->lines.push_back(t);
  }
  std::ranges::stable_sort(n.sections, [](const NotesSection& a, const NotesSection& b) {
    auto pos = [](const std::string& k) {
      return std::ranges::find(kSectionOrder, k) - kSectionOrder;
    };
    return pos(a.kind) < pos(b.kind);
  });

  std::vector<std::int64_t> not_skipped;
  for (const auto& e : n.entries)
    if (e.change.verdict != "skip") not_skipped.push_back(e.change.id);
  auto visible = visible_changes(store, not_skipped);
  if (!visible) return std::unexpected(visible.error());
  for (size_t i = 0; i < n.entries.size(); ++i) {
    if (n.entries[i].change.verdict == "skip") continue;
    if (auto v = visible->find(n.entries[i].change.id); v != visible->end())
      n.visible.emplace_back(i, std::move(v->second));
  }

  // New contributors: no change of theirs merged before the range's first
  // one, said only when the store holds the history before it.
  if (!n.entries.empty()) {
    UnixSeconds first = INT64_MAX;
    for (const auto& e : n.entries) first = std::min(first, e.change.merged_at);
    auto oldest = store.adjacent_merge(repo.id, 1, /*before=*/false);
    if (!oldest) return std::unexpected(oldest.error());
    n.history_from = oldest->value_or(first);
    n.contributors_known = !repo.base_sha.empty() || n.history_from <= first - kYear;
    if (n.contributors_known) {
      ListQuery before;
      before.until = first;
      auto older = store.list_changes(repo.id, before);
      if (!older) return std::unexpected(older.error());
      std::set<std::string> known;
      for (const auto& c : *older)
        if (!c.open) known.insert(who(c.author));
      std::vector<size_t> by_time(n.entries.size());
      for (size_t i = 0; i < by_time.size(); ++i) by_time[i] = i;
      std::ranges::stable_sort(by_time, [&](size_t a, size_t b) {
        return n.entries[a].change.merged_at < n.entries[b].change.merged_at;
      });
      for (size_t i : by_time) {
        const std::string name = who(n.entries[i].change.author);
        if (name.empty() || n.entries[i].change.kind == ChangeKind::kCommit) continue;
        if (known.insert(name).second) n.new_contributors.push_back({name, i});
      }
    }
  }
  return n;
}

}  // namespace mergelens::report
