// `mergelens jobs`: the queue at a glance (counts by kind and state), the
// jobs of one state with their last error (dead ones by default: why they
// were dead-lettered), and two repairs: --retry-dead and --prune.
#include <ctime>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "mergelens/cli/commands.h"
#include "mergelens/util/time.h"

namespace mergelens::cli {

Runner setup_jobs(CLI::App& sub, const Globals& g) {
  struct Args {
    std::string state = "dead";
    std::string kind;
    size_t limit = 20;
    bool json = false;
    bool retry_dead = false;
    double prune_days = -1;
  };
  auto a = std::make_shared<Args>();
  sub.add_option("--state", a->state, "List jobs in this state: queued, running, done, dead")
      ->capture_default_str();
  sub.add_option("--kind", a->kind, "Only jobs of this kind");
  sub.add_option("--limit", a->limit, "Jobs listed, newest first")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000000));
  sub.add_flag("--json", a->json, "Print the counts and the jobs as JSON");
  sub.add_flag("--retry-dead", a->retry_dead, "Queue the dead jobs (of --kind) again");
  sub.add_option("--prune", a->prune_days, "Delete done jobs older than N days")
      ->check(CLI::Range(0.0, 36500.0));
  return [a, &g]() -> Result<void> {
    std::optional<JobState> state;
    for (auto s : {JobState::kQueued, JobState::kRunning, JobState::kDone, JobState::kDead})
      if (a->state == to_string(s)) state = s;
    if (!state)
      return fail(ErrorKind::kInvalidInput,
                  "--state must be queued, running, done or dead, not \"{}\"", a->state);
    auto store = open_store(g, /*create=*/false);
    if (!store) return std::unexpected(store.error());
    const auto now = static_cast<UnixSeconds>(std::time(nullptr));
    if (a->retry_dead) {
      auto n = (*store)->retry_dead_jobs(a->kind, now);
      if (!n) return std::unexpected(n.error());
      fmt::print("{} dead job{} queued again\n", *n, *n == 1 ? "" : "s");
    }
    if (a->prune_days >= 0) {
      auto n = (*store)->prune_jobs(now - static_cast<UnixSeconds>(a->prune_days * 86400));
      if (!n) return std::unexpected(n.error());
      fmt::print("{} done job{} deleted\n", *n, *n == 1 ? "" : "s");
    }
    auto counts = (*store)->job_counts();
    if (!counts) return std::unexpected(counts.error());
    JobQuery q;
    q.state = state;
    q.kind = a->kind;
    q.limit = a->limit;
    auto jobs = (*store)->list_jobs(q);
    if (!jobs) return std::unexpected(jobs.error());
    if (a->json) {
      nlohmann::json out = {{"counts", nlohmann::json::array()}, {"jobs", nlohmann::json::array()}};
      for (const auto& c : *counts)
        out["counts"].push_back(
            {{"kind", c.kind}, {"state", to_string(c.state)}, {"count", c.count}});
      for (const auto& j : *jobs)
        out["jobs"].push_back({{"id", j.id},
                               {"kind", j.spec.kind},
                               {"key", j.spec.key},
                               {"state", to_string(j.state)},
                               {"attempts", j.attempts},
                               {"max_attempts", j.spec.max_attempts},
                               {"owner", j.owner},
                               {"not_before", j.spec.not_before},
                               {"updated_at", j.updated_at},
                               {"last_error", j.last_error}});
      fmt::print("{}\n", out.dump(2));
      return {};
    }
    // kind → state → count
    std::map<std::string, std::map<std::string, std::int64_t>> table;
    for (const auto& c : *counts) table[c.kind][to_string(c.state)] = c.count;
    fmt::print("{:<10} {:>8} {:>8} {:>8} {:>8}\n", "kind", "queued", "running", "done", "dead");
    for (const auto& [kind, by] : table) {
      auto n = [&](const char* s) { return by.count(s) ? by.at(s) : 0; };
      fmt::print("{:<10} {:>8} {:>8} {:>8} {:>8}\n", kind, n("queued"), n("running"), n("done"),
                 n("dead"));
    }
    if (table.empty()) fmt::print("(no jobs)\n");
    if (!jobs->empty()) fmt::print("\n{} jobs, newest first:\n", a->state);
    for (const auto& j : *jobs) {
      fmt::print("  #{} {} {} — attempt {}/{}, updated {}{}{}\n", j.id, j.spec.kind, j.spec.key,
                 j.attempts, j.spec.max_attempts, format_utc(j.updated_at),
                 j.owner.empty() ? "" : ", by " + j.owner,
                 j.state == JobState::kQueued && j.spec.not_before > now
                     ? ", due " + format_utc(j.spec.not_before)
                     : "");
      if (!j.last_error.empty()) fmt::print("      {}\n", j.last_error);
    }
    return {};
  };
}

}  // namespace mergelens::cli
