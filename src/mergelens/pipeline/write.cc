#include "mergelens/pipeline/write.h"

#include <algorithm>
#include <ctime>
#include <thread>

#include "mergelens/guide/citations.h"
#include "mergelens/guide/offline.h"
#include "mergelens/pipeline/write_llm.h"

namespace mergelens {

Result<WriteReport> write_guides(Store& store, const RepoRecord& repo, const WriteOptions& opt,
                                 Progress* progress) {
  WriteReport report;
  report.ledger.started_at = static_cast<UnixSeconds>(std::time(nullptr));
  report.ledger.writer = opt.client ? "llm" : "offline";
  LlmWriter* llm_writer = nullptr;
  std::unique_ptr<LlmWriter> owned;
  if (opt.client) {
    owned = std::make_unique<LlmWriter>(*opt.client, store, opt.budget_tokens);
    llm_writer = owned.get();
    report.ledger.model = llm_writer->model();
  }

  for (const auto& lang : opt.langs) {
    auto ids = store.changes_needing_guide(repo.id, lang, opt.client != nullptr, opt.force);
    if (!ids) return std::unexpected(ids.error());
    if (progress) progress->set_total(report.written + ids->size());
    const size_t batch = std::max<size_t>(1, opt.batch_size);
    for (size_t start = 0; start < ids->size(); start += batch) {
      const size_t n = std::min(batch, ids->size() - start);
      std::vector<Change> changes;
      std::vector<Facts> facts;
      for (size_t i = 0; i < n; ++i) {
        auto c = store.get_change_by_id((*ids)[start + i]);
        if (!c) return std::unexpected(c.error());
        auto f = store.get_facts((*ids)[start + i]);
        if (!f) return std::unexpected(f.error());
        if (!*c || !*f) continue;
        // Back-references as known now (facts may predate a later fix).
        auto back = store.referenced_by(repo.id, **c);
        if (!back) return std::unexpected(back.error());
        (*f)->referenced_by = std::move(*back);
        changes.push_back(std::move(**c));
        facts.push_back(std::move(**f));
      }
      std::vector<std::pair<std::int64_t, Guide>> guides(changes.size());
      std::vector<LlmOutcome> outcomes(changes.size());
      // The offline writer cites only facts; the checker still runs, so a
      // detector bug can never publish a citation the change lacks.
      auto offline = [&](size_t i) {
        Guide g = write_offline_guide(changes[i], facts[i], lang);
        CitationIndex index(changes[i], facts[i]);
        auto failures = check_citations(g, index);
        if (!failures.empty()) {
          Guide empty = g;
          remove_failed_citations(g, failures, g, index);
        }
        guides[i] = {changes[i].id, std::move(g)};
      };
      if (llm_writer) {
        // One thread per change in flight; the client bounds concurrent requests.
        // A shallow boundary has no diff to show a model: its guide is the
        // offline one, which says so.
        const unsigned threads = std::max(1u, std::min<unsigned>(llm_writer->concurrency(), 16));
        auto work = [&](unsigned t) {
          for (size_t i = t; i < changes.size(); i += threads)
            if (changes[i].shallow)
              offline(i);
            else
              guides[i] = {changes[i].id,
                           llm_writer->write(changes[i], facts[i], lang, &outcomes[i])};
        };
        std::vector<std::thread> pool;
        for (unsigned t = 1; t < threads && t < changes.size(); ++t) pool.emplace_back(work, t);
        work(0);
        for (auto& th : pool) th.join();
      } else {
        for (size_t i = 0; i < changes.size(); ++i) offline(i);
      }
      if (auto r = store.put_guides(guides); !r) return std::unexpected(r.error());
      for (size_t i = 0; i < guides.size(); ++i) {
        const Guide& g = guides[i].second;
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
      if (progress) progress->advance(n);
    }
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
