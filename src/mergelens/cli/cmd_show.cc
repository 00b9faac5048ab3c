#include <fmt/format.h>

#include "mergelens/cli/commands.h"
#include "mergelens/model/diff.h"
#include "mergelens/model/json.h"

namespace mergelens::cli {
namespace {

char status_letter(FileStatus s) {
  switch (s) {
    case FileStatus::kAdded:
      return 'A';
    case FileStatus::kDeleted:
      return 'D';
    case FileStatus::kRenamed:
      return 'R';
    case FileStatus::kCopied:
      return 'C';
    case FileStatus::kTypeChange:
      return 'T';
    case FileStatus::kModified:
      return 'M';
  }
  return 'M';
}

void print_text(const Change& c, bool patch) {
  fmt::print("{}  {}\n\n", c.ref(), c.title);
  fmt::print("  repository  {}\n", c.repo);
  fmt::print("  kind        {} {}\n", to_string(c.kind), c.sha);
  fmt::print("  author      {} <{}>{}\n", c.author.name, c.author.email,
             c.author.login.empty() ? "" : fmt::format(" (@{})", c.author.login));
  fmt::print("  merged      {}\n", format_utc(c.merged_at));
  if (!c.url.empty()) fmt::print("  link        {}\n", c.url);
  if (!c.labels.empty()) fmt::print("  labels      {}\n", fmt::join(c.labels, ", "));
  fmt::print("  commits     {}\n", c.commits.size());
  fmt::print("  files       {} (+{} -{}){}\n\n", c.files.size(), c.additions(), c.deletions(),
             c.files_truncated ? ", list truncated" : "");
  for (const auto& f : c.files) {
    std::string name = f.old_path.empty() ? f.path : fmt::format("{} → {}", f.old_path, f.path);
    std::string note = f.binary ? "binary" : fmt::format("+{} -{}", f.additions, f.deletions);
    if (f.truncated) note += ", hunks capped";
    fmt::print("  {}  {}  ({})\n", status_letter(f.status), name, note);
  }
  if (!c.body.empty()) fmt::print("\n{}\n", c.body);
  if (patch) {
    for (const auto& f : c.files) {
      if (f.hunks.empty()) continue;
      fmt::print("\n--- {}\n+++ {}\n{}", f.old_path.empty() ? f.path : f.old_path, f.path,
                 render_patch(f.hunks));
    }
  }
}

}  // namespace

Runner setup_show(CLI::App& sub, const Globals& g) {
  struct Args {
    std::string ref;
    bool json = false, patch = false;
  };
  auto a = std::make_shared<Args>();
  sub.add_option("ref", a->ref, "PR number, #N, or commit sha (7+ hex digits)")->required();
  sub.add_flag("--json", a->json, "Print the stored change as JSON");
  sub.add_flag("-p,--patch", a->patch, "Print the diff too");
  return [a, &g]() -> Result<void> {
    auto store = open_store(g, /*create=*/false);
    if (!store) return std::unexpected(store.error());
    auto repo = resolve_repo(**store, g.repo);
    if (!repo) return std::unexpected(repo.error());
    auto change = find_change(**store, *repo, a->ref);
    if (!change) return std::unexpected(change.error());
    if (a->json) {
      fmt::print("{}\n", dump_json(to_json(*change)));
    } else {
      print_text(*change, a->patch);
    }
    return {};
  };
}

}  // namespace mergelens::cli
