// The release-notes draft: choosing and grouping (notes.h).
#include "mergelens/report/notes.h"

#include <algorithm>
#include <set>
#include <unordered_set>

namespace mergelens::report {

namespace {

std::string who(const Person& p) {
  return p.login.empty() ? p.name : p.login;
}

}  // namespace

Result<Notes> draft_notes(Store& store, const RepoRecord& repo, const NotesRange& range,
                          const NotesOptions& o, const Filter* filter) {
  if (!range.shas && !range.since && !range.until)
    return fail(ErrorKind::kInvalidInput, "a release-notes range needs revisions or dates");
  Notes n;
  n.repo = repo.name;
  n.web_base = repo.web_base;
  n.from = range.from_label;
  n.to = range.to_label;
  n.lang = o.lang;
  n.list_skips = o.list_skips;
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

  // Highlights: close reads and changes of importance 7 or more, by
  // importance, then insight, then the entries' order; at least three
  // (the most important ones) when the range has that many to choose from.
  std::vector<size_t> cands;
  for (size_t i = 0; i < n.entries.size(); ++i)
    if (verdict_level(n.entries[i].change.verdict) >= 2) cands.push_back(i);
  std::ranges::stable_sort(cands, [&](size_t a, size_t b) {
    const auto& ca = n.entries[a].change;
    const auto& cb = n.entries[b].change;
    if (ca.importance != cb.importance) return ca.importance > cb.importance;
    return ca.insight > cb.insight;
  });
  for (size_t i : cands) {
    if (n.highlights.size() >= o.max_highlights) break;
    const auto& c = n.entries[i].change;
    if (c.verdict == "close_read" || c.importance >= 7 || n.highlights.size() < 3)
      n.highlights.push_back(i);
  }

  // Sections by each entry's strongest tag, biggest first.
  for (size_t i = 0; i < n.entries.size(); ++i) {
    if (n.entries[i].change.verdict == "skip") {
      n.skipped.push_back(i);
      continue;
    }
    auto tag = strongest_tag(store, n.entries[i]);
    if (!tag) return std::unexpected(tag.error());
    auto s = std::ranges::find(n.sections, *tag, &NotesSection::tag);
    if (s == n.sections.end()) s = n.sections.insert(n.sections.end(), {*tag, {}});
    s->entries.push_back(i);
  }
  std::ranges::stable_sort(n.sections, [](const NotesSection& a, const NotesSection& b) {
    if (a.tag.empty() != b.tag.empty()) return b.tag.empty();  // untagged last
    return a.entries.size() > b.entries.size();
  });

  std::vector<std::int64_t> shown;
  for (const auto& e : n.entries)
    if (e.change.verdict != "skip") shown.push_back(e.change.id);
  auto visible = visible_changes(store, shown);
  if (!visible) return std::unexpected(visible.error());
  for (size_t i = 0; i < n.entries.size(); ++i) {
    if (n.entries[i].change.verdict == "skip") continue;
    if (auto v = visible->find(n.entries[i].change.id); v != visible->end())
      n.visible.emplace_back(i, std::move(v->second));
  }

  // New contributors: no change of theirs merged before the range's first one.
  if (!n.entries.empty()) {
    UnixSeconds first = INT64_MAX;
    for (const auto& e : n.entries) first = std::min(first, e.change.merged_at);
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
  return n;
}

}  // namespace mergelens::report
