// `mergelens triage`: a model compares each day's analysed changes and
// stores their order, verdicts and calibrated scores (pipeline/triage.h).
#include <fmt/format.h>

#include "mergelens/cli/commands.h"
#include "mergelens/llm/client.h"
#include "mergelens/pipeline/write_llm.h"
#include "mergelens/util/time.h"
#include "mergelens/util/utf8.h"

namespace mergelens::cli {

void print_triage_report(const TriageReport& r) {
  fmt::print(
      "  triage: {} day{}, {} batch{} ({} from the cache, {} failed), {} model call{}, {} "
      "change{} judged, {} left out; largest prompt ~{} tokens\n",
      r.days, r.days == 1 ? "" : "s", r.batches, r.batches == 1 ? "" : "es", r.cached, r.failed,
      r.calls, r.calls == 1 ? "" : "s", r.judged, r.judged == 1 ? "" : "s", r.missing,
      r.max_prompt_tokens);
  // A problem may quote the model's answer: control characters are shown, not run.
  for (const auto& p : r.problems) fmt::print("  triage: {}\n", terminal_safe(p));
}

Runner setup_triage(CLI::App& sub, const Globals& g) {
  struct Args {
    std::string since, until, date;
    size_t batch = 60;
    bool force = false;
    std::string config = "mergelens.toml";
    llm::Settings llm;
    std::string dump;
  };
  auto a = std::make_shared<Args>();
  sub.add_option("--date", a->date, "Only this UTC day (YYYY-MM-DD)");
  sub.add_option("--since", a->since, "Only changes merged at or after (YYYY-MM-DD or an instant)");
  sub.add_option("--until", a->until, "Only changes merged before");
  sub.add_option("--batch", a->batch, "Changes per model call at most (a busy day is split)")
      ->capture_default_str()
      ->check(CLI::Range(1, 200));
  sub.add_flag("--force", a->force, "Ask again even when a cached answer exists");
  sub.add_option(
      "--dump-requests", a->dump,
      "Ask no model: write each batch's request to this folder (DAY-BATCH.request.json)");
  add_llm_options(sub, a->llm);
  sub.add_option("--config", a->config, "mergelens.toml with an [llm] table")
      ->capture_default_str()
      ->check(CLI::ExistingFile);
  return [a, &g]() -> Result<void> {
    TriageOptions opt;
    if (auto r = parse_range_flags(a->since, a->until, opt.since, opt.until); !r)
      return std::unexpected(r.error());
    if (!a->date.empty()) {
      std::optional<UnixSeconds> day;
      if (auto r = parse_date_flag(a->date, "--date", day); !r) return std::unexpected(r.error());
      opt.days = {format_day(*day)};
    }
    opt.batch_size = a->batch;
    opt.force = a->force;
    opt.dump_dir = a->dump;
    if (!a->dump.empty()) {  // no model is asked: any endpoint will do
      if (a->llm.base_url.empty()) a->llm.base_url = "http://127.0.0.1:9";
      if (a->llm.model.empty()) a->llm.model = "none";
    }
    auto store = open_store(g, /*create=*/false);
    if (!store) return std::unexpected(store.error());
    auto repo = resolve_repo(**store, g.repo);
    if (!repo) return std::unexpected(repo.error());
    auto settings = llm::resolve_settings(a->llm, a->config);
    if (!settings) return std::unexpected(settings.error());
    llm::Client client(*settings);
    WriteRunRecord ledger;
    ledger.started_at = static_cast<UnixSeconds>(std::time(nullptr));
    auto report = triage_days(**store, *repo, client, opt);
    if (!report) return std::unexpected(report.error());
    // The calls go in the store's ledger beside the guide calls.
    ledger.finished_at = static_cast<UnixSeconds>(std::time(nullptr));
    ledger.writer = "triage";
    ledger.model = settings->model;
    fill_ledger_from(client, ledger);
    if (auto r = (*store)->record_write_run(ledger); !r) return std::unexpected(r.error());
    fmt::print("{}:\n", repo->name);
    print_triage_report(*report);
    return {};
  };
}

}  // namespace mergelens::cli
