#include "mergelens/pipeline/migrate.h"

#include <algorithm>

namespace mergelens {
namespace {

constexpr size_t kBatch = 200;

Result<void> copy_repo(Store& from, Store& to, const RepoRecord& repo, MigrateReport& report,
                       Progress* progress) {
  auto target = to.upsert_repo(repo);
  if (!target) return std::unexpected(target.error());
  auto list = from.list_changes(repo.id, ListQuery{});  // newest first
  if (!list) return std::unexpected(list.error());
  if (progress) progress->set_total(report.changes + list->size());
  std::vector<std::pair<std::int64_t, std::int64_t>> ids;  // (source, target), newest first
  for (const auto& s : *list) {
    auto c = from.get_change_by_id(s.id);
    if (!c) return std::unexpected(c.error());
    if (!*c) continue;
    Change change = std::move(**c);
    change.id = 0;
    auto id = to.put_pull(target->id, change, {}, std::nullopt);
    if (!id) return std::unexpected(id.error());
    ids.emplace_back(s.id, *id);
    ++report.changes;
    if (progress) progress->advance(1);
  }
  if (auto r = to.put_changes(target->id, {}, repo.base_sha); !r) return std::unexpected(r.error());
  auto sync = from.get_sync_state(repo.id);
  if (!sync) return std::unexpected(sync.error());
  if (auto r = to.put_sync_state(target->id, *sync); !r) return std::unexpected(r.error());

  // Facts newest first: storing a change's facts drops those of the older
  // changes it names, which are therefore stored after it.
  std::vector<std::int64_t> stale;  // target ids whose guides were stale
  for (size_t start = 0; start < ids.size(); start += kBatch) {
    std::vector<std::pair<std::int64_t, Facts>> facts;
    std::vector<std::pair<std::int64_t, Guide>> guides;
    const size_t end = std::min(ids.size(), start + kBatch);
    for (size_t i = start; i < end; ++i) {
      auto f = from.get_facts(ids[i].first);
      if (!f) return std::unexpected(f.error());
      if (*f) facts.emplace_back(ids[i].second, std::move(**f));
    }
    if (auto r = to.put_facts(facts); !r) return std::unexpected(r.error());
    report.facts += facts.size();
    std::vector<std::int64_t> source_ids;
    for (size_t i = start; i < end; ++i) source_ids.push_back(ids[i].first);
    // The model's triage before the guides: storing it marks guides stale.
    auto triage = from.triage_of(source_ids);
    if (!triage) return std::unexpected(triage.error());
    std::vector<TriageRecord> moved;
    for (size_t i = start; i < end; ++i)
      if (auto t = triage->find(ids[i].first); t != triage->end()) {
        moved.push_back(t->second);
        moved.back().change_id = ids[i].second;
      }
    if (auto r = to.put_triage(moved); !r) return std::unexpected(r.error());
    report.triage += moved.size();
    auto lines = from.guide_lines(source_ids);
    if (!lines) return std::unexpected(lines.error());
    for (size_t i = start; i < end; ++i) {
      auto it = lines->find(ids[i].first);
      if (it == lines->end()) continue;
      for (const auto& line : it->second) {
        auto g = from.get_guide(ids[i].first, line.lang);
        if (!g) return std::unexpected(g.error());
        if (!*g) continue;
        auto st = from.guide_state(ids[i].first, line.lang);
        if (!st) return std::unexpected(st.error());
        if (st->stale) stale.push_back(ids[i].second);
        guides.emplace_back(ids[i].second, std::move(**g));
      }
    }
    if (auto r = to.put_guides(guides); !r) return std::unexpected(r.error());
    report.guides += guides.size();
  }
  // Storing facts again marks a change's guides stale, as they were.
  std::sort(stale.begin(), stale.end());
  stale.erase(std::unique(stale.begin(), stale.end()), stale.end());
  for (auto id : stale) {
    auto f = to.get_facts(id);
    if (!f) return std::unexpected(f.error());
    if (!*f) continue;
    const std::pair<std::int64_t, Facts> item{id, std::move(**f)};
    if (auto r = to.put_facts(std::span(&item, 1)); !r) return std::unexpected(r.error());
  }
  return {};
}

}  // namespace

Result<MigrateReport> migrate_store(Store& from, Store& to, Progress* progress) {
  MigrateReport report;
  auto existing = to.list_repos();
  if (!existing) return std::unexpected(existing.error());
  if (!existing->empty())
    return fail(ErrorKind::kInvalidInput,
                "the target store already holds {} repositor{}: migrate into an empty store",
                existing->size(), existing->size() == 1 ? "y" : "ies");
  auto repos = from.list_repos();
  if (!repos) return std::unexpected(repos.error());
  for (const auto& repo : *repos) {
    if (auto r = copy_repo(from, to, repo, report, progress); !r) return std::unexpected(r.error());
    ++report.repos;
  }
  for (std::string after;;) {
    auto page = from.cache_entries(after, 500);
    if (!page) return std::unexpected(page.error());
    if (page->empty()) break;
    for (const auto& [key, json] : *page)
      if (auto r = to.cache_put(key, json); !r) return std::unexpected(r.error());
    report.cache += page->size();
    after = page->back().first;
  }
  auto runs = from.write_runs(SIZE_MAX / 2);
  if (!runs) return std::unexpected(runs.error());
  for (auto it = runs->rbegin(); it != runs->rend(); ++it)
    if (auto r = to.record_write_run(*it); !r) return std::unexpected(r.error());
  report.runs = runs->size();
  auto settings = from.list_repo_settings();
  if (!settings) return std::unexpected(settings.error());
  for (const auto& s : *settings)
    if (auto r = to.put_repo_settings(s); !r) return std::unexpected(r.error());
  if (progress) progress->finish();
  return report;
}

}  // namespace mergelens
