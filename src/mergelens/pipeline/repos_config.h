// Repositories for workers: the `[[repo]]` tables of mergelens.toml and the
// schedule syntax, turned into RepoSettings (store/jobs.h).
//
//   [[repo]]
//   name = "sgl-project/sglang"      # the store's name (default: github, else the folder)
//   path = "/srv/clones/sglang.git"  # a local clone, fetched from origin before each ingest
//   branch = "main"                  # default: HEAD's branch
//   github = "sgl-project/sglang"    # sync PR text from GitHub (with GITHUB_TOKEN)
//   schedule = "15m"                 # ingest again every 15 minutes ("30s", "2h", "1d"; "" =
//   never) languages = ["zh", "en"]         # guides to write llm = true                       #
//   write them with the model ([llm] table)
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "mergelens/store/store.h"
#include "mergelens/util/error.h"

namespace mergelens {

// The longest schedule accepted: a year (366 days).
inline constexpr std::int64_t kMaxScheduleSeconds = 366 * 86400;

// Parses "90", "30s", "15m", "2h", "1d" into seconds; "" is 0. kInvalidInput
// naming `text` otherwise, and for a period longer than kMaxScheduleSeconds.
Result<std::int64_t> parse_schedule(std::string_view text);

// The [[repo]] tables of a mergelens.toml text (`origin` names it in
// messages). kInvalidInput naming origin and line for a malformed table, a
// repository without a path, an unknown language or schedule.
Result<std::vector<RepoSettings>> parse_repo_tables(std::string_view text, std::string_view origin);

// Reads the file at `path` and parses it; a missing file holds no repository,
// an unreadable one is kIo naming it.
Result<std::vector<RepoSettings>> read_repo_tables(const std::string& path);

// Reads the [[repo]] tables of `path` (a missing file holds none) and stores
// them as worker settings. Returns the settings stored.
Result<std::vector<RepoSettings>> load_repo_tables(Store& store, const std::string& path);

}  // namespace mergelens
