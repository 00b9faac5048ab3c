// `mergelens migrate-store --to URL`: copies the store named by --db (the
// SQLite file by default) into an empty store at URL (pipeline/migrate.h),
// then checks that every repository has as many changes on both sides.
#include <fmt/format.h>

#include "mergelens/cli/commands.h"
#include "mergelens/pipeline/migrate.h"

namespace mergelens::cli {

Runner setup_migrate(CLI::App& sub, const Globals& g) {
  auto to = std::make_shared<std::string>();
  sub.add_option("--to", *to, "The target store: a postgresql:// URL (or a new SQLite file)")
      ->required();
  return [to, &g]() -> Result<void> {
    auto from = open_store(g, /*create=*/false);
    if (!from) return std::unexpected(from.error());
    auto target = open_store_at(*to, StoreOptions{.create = true});
    if (!target) return std::unexpected(target.error());
    Progress progress("migrate", 0);
    auto r = migrate_store(**from, **target, &progress);
    if (!r) return std::unexpected(r.error());
    auto repos = (*from)->list_repos();
    if (!repos) return std::unexpected(repos.error());
    for (const auto& repo : *repos) {
      auto there = (*target)->find_repo(repo.name);
      if (!there) return std::unexpected(there.error());
      auto a = (*from)->count_changes(repo.id);
      auto b = *there ? (*target)->count_changes((*there)->id) : Result<size_t>(0);
      if (!a || !b) return std::unexpected(!a ? a.error() : b.error());
      if (*a != *b)
        return fail(ErrorKind::kInternal, "{}: {} changes in the source but {} in the target",
                    repo.name, *a, *b);
    }
    fmt::print(
        "copied {} repositor{}, {} changes, {} facts, {} guides, {} cached answers, {} write "
        "runs to {}\n",
        r->repos, r->repos == 1 ? "y" : "ies", r->changes, r->facts, r->guides, r->cache, r->runs,
        *to);
    return {};
  };
}

}  // namespace mergelens::cli
