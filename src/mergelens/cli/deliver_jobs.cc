// The workers' delivery hooks (deliver_jobs.h).
#include "mergelens/cli/deliver_jobs.h"

#include "mergelens/deliver/deliver.h"
#include "mergelens/web/tz.h"

namespace mergelens::cli {

DeliverHooks deliver_hooks(std::vector<deliver::Target> targets_in, std::string config,
                           std::shared_ptr<deliver::Transport> transport) {
  DeliverHooks hooks;
  if (targets_in.empty()) return hooks;
  auto targets = std::make_shared<const std::vector<deliver::Target>>(std::move(targets_in));
  hooks.due = [targets](Store& store, const RepoRecord& repo,
                        UnixSeconds now) -> Result<std::vector<DeliveryDay>> {
    std::vector<DeliveryDay> out;
    for (const auto& t : *targets) {
      if (!t.repo.empty() && t.repo != repo.name) continue;
      auto tz = web::TimeZone::named(t.tz);
      if (!tz) return std::unexpected(tz.error());
      auto days = deliver::due_days(store, repo, t, now);
      if (!days) return std::unexpected(days.error());
      for (const auto& d : *days) {
        auto bounds = tz->day_bounds(d);
        if (!bounds) return std::unexpected(bounds.error());
        out.push_back(DeliveryDay{t.name, d, bounds->first, bounds->second});
      }
    }
    return out;
  };
  hooks.deliver = [targets, config = std::move(config), transport](
                      Store& store, const RepoRecord& repo,
                      const DeliveryDay& day) -> Result<std::string> {
    auto t = deliver::find_target(*targets, day.target, config);
    if (!t) return std::unexpected(t.error());
    auto r = deliver::deliver_day(store, repo, **t, day.day, *transport);
    if (!r) return std::unexpected(r.error());
    if (!r->error.empty()) return fail(ErrorKind::kIo, "{}", deliver::describe(*r));
    return deliver::describe(*r);
  };
  return hooks;
}

}  // namespace mergelens::cli
