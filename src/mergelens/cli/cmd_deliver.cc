// `mergelens deliver --date D --to NAME`: sends one day's digest to the
// targets named (the [[deliver]] tables of mergelens.toml), or with --due
// every day that has closed for every target (what `run` does each pass).
#include <fmt/format.h>

#include "mergelens/cli/commands.h"
#include "mergelens/deliver/config.h"
#include "mergelens/deliver/deliver.h"

namespace mergelens::cli {

Runner setup_deliver(CLI::App& sub, const Globals& g) {
  struct Args {
    std::string date, config = "mergelens.toml";
    std::vector<std::string> to;
    bool due = false, force = false, dry_run = false;
  };
  auto a = std::make_shared<Args>();
  sub.add_option("--date", a->date, "The day (YYYY-MM-DD, in the target's time zone)");
  sub.add_option("--to", a->to, "Target names (repeat, or comma-separated)")->delimiter(',');
  sub.add_flag("--due", a->due, "Deliver every closed day not yet delivered, to every target");
  sub.add_option("--config", a->config, "mergelens.toml with [[deliver]] tables")
      ->capture_default_str()
      ->check(CLI::ExistingFile);
  sub.add_flag("--force", a->force, "Send the day again even when it was delivered");
  sub.add_flag("--dry-run", a->dry_run, "Print the messages instead of sending them");
  return [a, &g]() -> Result<void> {
    if (a->due == !a->date.empty())
      return fail(ErrorKind::kInvalidInput, "give either --date D --to NAME or --due");
    if (!a->due && a->to.empty())
      return fail(ErrorKind::kInvalidInput, "--to is required with --date");
    auto targets = deliver::read_targets(a->config);
    if (!targets) return std::unexpected(targets.error());
    if (a->due && targets->empty())
      return fail(ErrorKind::kInvalidInput, "{} has no [[deliver]] table", a->config);
    std::vector<deliver::Target> chosen;
    for (const auto& name : a->to) {
      auto t = deliver::find_target(*targets, name, a->config);
      if (!t) return std::unexpected(t.error());
      chosen.push_back(**t);
    }
    auto store = open_store(g, /*create=*/false);
    if (!store) return std::unexpected(store.error());
    auto transport = deliver::real_transport();
    std::vector<deliver::DayReport> reports;
    if (a->due) {
      auto repo = resolve_repo(**store, g.repo);
      if (!repo) return std::unexpected(repo.error());
      auto r = deliver::deliver_due(**store, *repo, chosen.empty() ? *targets : chosen, *transport);
      if (!r) return std::unexpected(r.error());
      reports = std::move(*r);
    } else {
      for (const auto& t : chosen) {
        auto repo = resolve_repo(**store, t.repo.empty() ? g.repo : t.repo);
        if (!repo) return std::unexpected(repo.error());
        deliver::DeliverOptions o;
        o.force = a->force;
        o.dry_run = a->dry_run;
        auto r = deliver::deliver_day(**store, *repo, t, a->date, *transport, o);
        if (!r) return std::unexpected(r.error());
        reports.push_back(std::move(*r));
      }
    }
    size_t failed = 0;
    for (const auto& r : reports) {
      for (size_t i = 0; i < r.payloads.size(); ++i)
        fmt::print("--- {} {} part {}/{}\n{}\n", r.target, r.day, i + 1, r.payloads.size(),
                   r.payloads[i]);
      fmt::print("{}\n", deliver::describe(r));
      failed += !r.error.empty();
    }
    if (failed)
      return fail(ErrorKind::kIo,
                  "{} deliver{} failed; what was sent is recorded, the rest is "
                  "sent by the next run",
                  failed, failed == 1 ? "y" : "ies");
    return {};
  };
}

}  // namespace mergelens::cli
