#include <fmt/format.h>

#include "mergelens/cli/commands.h"
#include "mergelens/pipeline/ingest.h"

namespace mergelens::cli {

Runner setup_ingest(CLI::App& sub, const Globals& g) {
  struct Args {
    IngestOptions opt;
    std::string since, until;
  };
  auto a = std::make_shared<Args>();
  a->opt.repo_path = ".";
  sub.add_option("path", a->opt.repo_path, "Local clone (work tree or bare)")
      ->capture_default_str();
  sub.add_option("-b,--branch", a->opt.branch, "Branch to walk (default: the one HEAD names)");
  sub.add_option("--since", a->since, "Only changes merged on or after this date (YYYY-MM-DD)");
  sub.add_option("--until", a->until, "Only changes merged before this date (YYYY-MM-DD)");
  sub.add_option("-n,--limit", a->opt.limit, "At most N new changes, newest first")
      ->check(CLI::Range(0, 1000000000));
  sub.add_option("--url-base", a->opt.url_base,
                 "Web address of the repository for PR links (default: from the origin remote)");
  sub.add_option("-j,--threads", a->opt.threads, "Reader threads (default: one per core)")
      ->check(CLI::Range(0, 1024));
  sub.add_option("--batch", a->opt.batch_size, "Changes per database transaction")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
  return [a, &g]() -> Result<void> {
    if (auto r = parse_range_flags(a->since, a->until, a->opt.since, a->opt.until); !r) return r;
    a->opt.repo_name = g.repo;
    auto store = open_store(g, /*create=*/true);
    if (!store) return std::unexpected(store.error());
    Progress progress("ingest", 0);
    auto report = ingest(**store, a->opt, &progress);
    if (!report) return std::unexpected(report.error());
    fmt::print("{}: {} new change{} stored ({} commits walked) in {}\n", report->repo.name,
               report->stored, report->stored == 1 ? "" : "s", report->walked, g.db);
    for (const auto& note : shallow_notes(*report)) fmt::print("note: {}\n", note);
    return {};
  };
}

}  // namespace mergelens::cli
