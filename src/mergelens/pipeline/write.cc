#include "mergelens/pipeline/write.h"

#include <algorithm>
#include <ctime>
#include <map>
#include <thread>

#include "mergelens/guide/citations.h"
#include "mergelens/guide/offline.h"
#include "mergelens/guide/triage_guide.h"
#include "mergelens/pipeline/write_llm.h"

namespace mergelens {
namespace {

// One unit of work: a change and the languages it needs a guide in.
struct Item {
  std::int64_t id = 0;
  std::vector<std::string> langs;
};

}  // namespace

// The offline writer cites only facts; the checker still runs, so a detector
// bug can never publish a citation the change lacks.
Guide write_checked_offline(const Change& change, const Facts& facts, const std::string& lang,
                            const TriageJudgment* triage) {
  CitationIndex index(change, facts);
  // A triage stored before its texts were checked is checked here.
  std::optional<TriageJudgment> checked;
  if (triage) {
    checked = *triage;
    (void)check_triage_texts(*checked, index);
    triage = &*checked;
  }
  Guide g = write_offline_guide(change, triage ? start_facts(facts, *triage, lang) : facts, lang);
  auto failures = check_citations(g, index);
  if (!failures.empty()) remove_failed_citations(g, failures, g, index);
  record_judgments(g, facts, triage);
  return g;
}

Result<WriteReport> write_guides(Store& store, const RepoRecord& repo, const WriteOptions& opt,
                                 Progress* progress) {
  WriteReport report;
  report.ledger.started_at = static_cast<UnixSeconds>(std::time(nullptr));
  report.ledger.writer = opt.client ? "llm" : "offline";
  LlmWriter* llm_writer = nullptr;
  std::unique_ptr<LlmWriter> owned;
  if (opt.client) {
    LlmOptions lo;
    lo.budget_tokens = opt.budget_tokens;
    lo.max_calls = opt.max_calls;
    lo.bilingual = opt.bilingual;
    lo.clone_path = repo.path;
    owned = std::make_unique<LlmWriter>(*opt.client, store, lo);
    llm_writer = owned.get();
    report.ledger.model = llm_writer->model();
  }

  // With a model, the days of what needs writing are triaged first: a
  // guide starts from the day's judgment (and a changed triage makes the
  // guides it moves stale, so they are listed below).
  if (opt.client && opt.triage) {
    std::vector<std::int64_t> todo;
    for (const auto& lang : opt.langs) {
      auto ids = store.changes_needing_guide(repo.id, lang, true, opt.force);
      if (!ids) return std::unexpected(ids.error());
      for (auto id : *ids)
        if (opt.only.empty() || std::find(opt.only.begin(), opt.only.end(), id) != opt.only.end())
          todo.push_back(id);
    }
    auto days = triage_days_of(store, todo);
    if (!days) return std::unexpected(days.error());
    if (!days->empty()) {
      TriageOptions to;
      to.batch_size = opt.triage_batch;
      to.days = *days;
      auto t = triage_days(store, repo, *opt.client, to);
      if (!t) return std::unexpected(t.error());
      report.triage = std::move(*t);
    }
  }

  // What needs writing, per change: with a model and both languages, a change
  // that needs both gets one bilingual request.
  std::vector<Item> items;
  std::map<std::int64_t, size_t> at;
  const bool merge_langs = llm_writer && opt.bilingual && opt.langs.size() > 1;
  for (const auto& lang : opt.langs) {
    auto ids = store.changes_needing_guide(repo.id, lang, opt.client != nullptr, opt.force);
    if (!ids) return std::unexpected(ids.error());
    for (auto id : *ids) {
      if (!opt.only.empty() && std::find(opt.only.begin(), opt.only.end(), id) == opt.only.end())
        continue;
      if (merge_langs && at.count(id)) {
        items[at[id]].langs.push_back(lang);
        continue;
      }
      at[id] = items.size();
      items.push_back({id, {lang}});
    }
  }
  size_t total = 0;
  for (const auto& it : items) total += it.langs.size();
  if (progress) progress->set_total(total);

  const size_t batch = std::max<size_t>(1, opt.batch_size);
  for (size_t start = 0; start < items.size(); start += batch) {
    const size_t n = std::min(batch, items.size() - start);
    std::vector<Change> changes;
    std::vector<Facts> facts;
    std::vector<const Item*> work;
    size_t guides_in_batch = 0;
    for (size_t i = 0; i < n; ++i) {
      const Item& item = items[start + i];
      guides_in_batch += item.langs.size();
      auto c = store.get_change_by_id(item.id);
      if (!c) return std::unexpected(c.error());
      auto f = store.get_facts(item.id);
      if (!f) return std::unexpected(f.error());
      if (!*c || !*f) continue;
      // Back-references as known now (facts may predate a later fix).
      auto back = store.referenced_by(repo.id, **c);
      if (!back) return std::unexpected(back.error());
      (*f)->referenced_by = std::move(*back);
      changes.push_back(std::move(**c));
      facts.push_back(std::move(**f));
      work.push_back(&item);
    }
    // The day's triage, where there is one, is what a guide starts from.
    std::vector<std::int64_t> ids;
    for (const auto& c : changes) ids.push_back(c.id);
    auto triage = store.triage_of(ids);
    if (!triage) return std::unexpected(triage.error());
    std::vector<std::optional<TriageJudgment>> starts(changes.size());
    for (size_t i = 0; i < changes.size(); ++i)
      if (auto t = triage->find(changes[i].id); t != triage->end())
        starts[i] = triage_judgment_of(t->second);
    auto triage_for = [&](size_t i) { return starts[i] ? &*starts[i] : nullptr; };
    std::vector<std::vector<Guide>> written(changes.size());
    if (llm_writer) {
      // One thread per change in flight; the client bounds concurrent requests.
      const unsigned threads = std::max(1u, std::min<unsigned>(llm_writer->concurrency(), 16));
      auto run = [&](unsigned t) {
        for (size_t i = t; i < changes.size(); i += threads) {
          LlmOutcome outcome;
          if (changes[i].shallow) {  // no diff to show a model: the offline guide says so
            for (const auto& lang : work[i]->langs)
              written[i].push_back(
                  write_checked_offline(changes[i], facts[i], lang, triage_for(i)));
          } else if (work[i]->langs.size() == 2)
            written[i] = llm_writer->write_both(changes[i], facts[i], &outcome, triage_for(i));
          else
            written[i] = {llm_writer->write(changes[i], facts[i], work[i]->langs[0], &outcome,
                                            triage_for(i))};
        }
      };
      std::vector<std::thread> pool;
      for (unsigned t = 1; t < threads && t < changes.size(); ++t) pool.emplace_back(run, t);
      run(0);
      for (auto& th : pool) th.join();
    } else {
      for (size_t i = 0; i < changes.size(); ++i)
        for (const auto& lang : work[i]->langs)
          written[i].push_back(write_checked_offline(changes[i], facts[i], lang, triage_for(i)));
    }
    std::vector<std::pair<std::int64_t, Guide>> guides;
    for (size_t i = 0; i < changes.size(); ++i)
      for (auto& g : written[i]) guides.emplace_back(changes[i].id, std::move(g));
    if (auto r = store.put_guides(guides); !r) return std::unexpected(r.error());
    for (const auto& [id, g] : guides) {
      (void)id;
      ++report.written;
      if (g.writer.kind == "llm")
        ++report.llm;
      else
        ++report.offline;
      if (g.writer.cached) ++report.cached;
      if (!g.writer.fallback_reason.empty()) {
        ++report.fallbacks;
        ++report.fallback_reasons[g.writer.fallback_reason];
      }
      report.removed_citations += g.writer.removed.size();
    }
    if (progress) progress->advance(guides_in_batch);
  }
  if (progress) progress->finish();

  auto& l = report.ledger;
  l.finished_at = static_cast<UnixSeconds>(std::time(nullptr));
  l.guides = static_cast<std::int64_t>(report.written);
  l.cached = static_cast<std::int64_t>(report.cached);
  l.fallbacks = static_cast<std::int64_t>(report.fallbacks);
  l.removed_citations = static_cast<std::int64_t>(report.removed_citations);
  if (llm_writer) llm_writer->fill_ledger(l);
  if (report.written > 0 || llm_writer)
    if (auto r = store.record_write_run(l); !r) return std::unexpected(r.error());
  return report;
}

}  // namespace mergelens
