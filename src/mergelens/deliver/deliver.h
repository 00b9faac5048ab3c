// Delivering digests: a day to a target (`mergelens deliver --date D --to
// NAME`), and every day that has closed (`run`, once per pass).
//
// Never twice. A day is planned once per target: its parts (render.h) are
// recorded in the store (DeliveryStore) before the first request, and each
// part is marked sent as soon as the service accepts it, in its own
// transaction. A later run, after a failure, a restart or a crash, sends the
// parts still unsent, exactly as planned, and never a sent one again.
// What remains possible is the window between the service accepting a part
// and the store recording it (a crash, or an answer lost to a timeout):
// these services take no idempotency key, so such a part is sent again;
// e-mail keeps the same Message-ID on every attempt, so mail clients fold
// the copies into one.
#pragma once

#include <string>
#include <vector>

#include "mergelens/deliver/config.h"
#include "mergelens/deliver/transport.h"
#include "mergelens/store/store.h"

namespace mergelens::deliver {

struct DeliverOptions {
  bool force = false;    // forget what was recorded for the day and plan it again
  bool dry_run = false;  // render only: no request, nothing recorded
};

struct DayReport {
  std::string target, day;
  int parts = 0;       // parts the day was planned as
  int sent_now = 0;    // parts sent by this call
  int already = 0;     // parts sent before this call
  int requests = 0;    // requests made by this call (retries included)
  bool empty = false;  // no merged change that day (and not send_empty): nothing planned
  std::string error;   // why a part could not be sent; later parts wait for the next run
  std::vector<std::string> payloads;  // dry run: what would be sent
  bool done() const { return error.empty() && !empty && sent_now + already == parts; }
};

// Delivers local day `day` of `repo` to `target`. Fails (nothing sent) for
// a malformed day or time zone, and for store errors; a service that
// refuses or does not answer is a report with `error` set (what was sent is
// recorded).
Result<DayReport> deliver_day(Store& store, const RepoRecord& repo, const Target& target,
                              std::string_view day, Transport& transport,
                              const DeliverOptions& options = {});

// Delivers, for every target whose repository is `repo` (or that names
// none), each day that has closed: in the target's time zone, a day is due
// `delay_minutes` after its midnight. First the newest day recorded for the
// target, if part of it is unsent; then every later due day with merged
// changes (every day with send_empty), at most `catch_up_days`, the newest
// ones, oldest first. A target that has delivered nothing yet starts with
// the newest due day only, so configuring a target on a long history sends
// one digest, not years of them. One report per day tried; a failing
// target does not stop the others.
Result<std::vector<DayReport>> deliver_due(Store& store, const RepoRecord& repo,
                                           const std::vector<Target>& targets,
                                           Transport& transport);

// The days deliver_due would send to `target` (a target of `repo`) at `now`
// (Unix seconds), in the order it sends them: what the workers' deliver jobs
// are made of (cli/deliver_jobs.cc). Empty when nothing is due. Fails for a
// bad time zone and store errors.
Result<std::vector<std::string>> due_days(Store& store, const RepoRecord& repo,
                                          const Target& target, std::int64_t now);

// due_days for a target with schedule = "weekly": ISO weeks ("2026-W38",
// UTC) that ended at least `delay_minutes` before `now`, as due_days picks
// days (the newest unfinished one first, then later weeks with changes or
// every week with send_empty, at most `catch_up_days` of them; a new target
// starts with the newest due week). Store errors pass through.
Result<std::vector<std::string>> due_weeks(Store& store, const RepoRecord& repo,
                                           const Target& target, std::int64_t now);

// One line for the log: "sglang-feishu 2026-09-16: 2 parts sent (3 requests)".
std::string describe(const DayReport& r);

}  // namespace mergelens::deliver
