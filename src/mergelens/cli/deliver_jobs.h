// The workers' delivery hooks (pipeline/worker.h, DeliverHooks) over the
// delivery module: the due days from deliver::due_days, the sending with
// deliver::deliver_day. pipeline/ may not depend on deliver/, so cli, which
// knows both, joins them here (ARCHITECTURE.md).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "mergelens/deliver/config.h"
#include "mergelens/deliver/transport.h"
#include "mergelens/pipeline/worker.h"

namespace mergelens::cli {

// Hooks delivering to `targets` (read from the file `config`, named in
// errors) over `transport`; both empty when there is no target. `due`
// gives, for each target of a repository (a target naming no repository
// serves every one), the days deliver_due would send, with their bounds in
// the target's time zone. `deliver` sends one day; a service that refuses
// or does not answer fails with kIo (the job is retried, and the parts
// already sent stay sent), a target no longer configured with
// kInvalidInput.
DeliverHooks deliver_hooks(std::vector<deliver::Target> targets, std::string config,
                           std::shared_ptr<deliver::Transport> transport);

}  // namespace mergelens::cli
