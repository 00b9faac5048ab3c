// What a change changes for its users, from its stored facts: command-line
// flags and environment variables it adds or removes, and public API it
// changes. The week's "changed defaults and behaviour" and the release
// notes' "changed defaults and flags" both list this.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "mergelens/store/store.h"
#include "mergelens/util/error.h"

namespace mergelens::report {

struct Visible {
  std::vector<std::string> flags_added, flags_removed;  // "--max-num-seqs"
  std::vector<std::string> env_added, env_removed;      // "VLLM_ASCEND_ENABLE_X"
  std::vector<std::string> api_changed;                 // public names changed ("Scheduler.step")
  bool empty() const {
    return flags_added.empty() && flags_removed.empty() && env_added.empty() &&
           env_removed.empty() && api_changed.empty();
  }
  // "flags: +--a, -b; env: +X; API: Y" (names only, no language).
  std::string summary() const;
};

// The user-visible changes of change `id` from its facts (signals outside
// tests, at most 8 names per list, each once); nullopt when it has none or is
// not analysed. Store errors pass through.
Result<std::optional<Visible>> visible_changes(Store& store, std::int64_t id);

// The same for each of `ids` in one store read; ids without user-visible
// changes (or facts) are absent.
Result<std::map<std::int64_t, Visible>> visible_changes(Store& store,
                                                        std::span<const std::int64_t> ids);

// The user-visible changes among `signals` (a change's facts' signals).
std::optional<Visible> visible_of(const std::vector<Signal>& signals);

}  // namespace mergelens::report
