// `mergelens repos add|remove|list|load|enqueue`: the repositories workers
// keep current (store/jobs.h RepoSettings), kept in the store so every
// worker on every machine sees the same list.
#include <ctime>

#include <fmt/format.h>

#include "mergelens/cli/commands.h"
#include "mergelens/model/repo_name.h"
#include "mergelens/pipeline/repos_config.h"
#include "mergelens/pipeline/worker.h"

namespace mergelens::cli {

Result<void> enqueue_run(const Globals& g, const IngestOptions& ingest,
                         const std::vector<std::string>& langs, bool llm) {
  if (g.repo.empty())
    return fail(ErrorKind::kInvalidInput,
                "run --enqueue needs --repo NAME (the repository's name)");
  RepoSettings r;
  r.name = g.repo;
  r.path = ingest.repo_path;
  r.branch = ingest.branch;
  r.langs = langs;
  r.llm = llm;
  auto store = open_store(g, /*create=*/true);
  if (!store) return std::unexpected(store.error());
  auto all = (*store)->list_repo_settings();
  if (!all) return std::unexpected(all.error());
  for (const auto& old : *all)  // keep what `repos add` set that run has no flag for
    if (old.name == r.name) {
      r.github = old.github;
      r.schedule_seconds = old.schedule_seconds;
    }
  if (auto put = (*store)->put_repo_settings(r); !put) return put;
  const std::vector<RepoSettings> one{r};
  auto n = enqueue_ingests(**store, one, static_cast<UnixSeconds>(std::time(nullptr)));
  if (!n) return std::unexpected(n.error());
  fmt::print("{}: {} for the workers\n", r.name,
             *n ? "ingest queued" : "an ingest is already queued");
  return {};
}

Runner setup_repos(CLI::App& sub, const Globals& g) {
  struct Args {
    RepoSettings repo;
    std::string schedule;
    std::string lang = "zh";
    std::string name;
    std::string config = "mergelens.toml";
  };
  auto a = std::make_shared<Args>();
  sub.require_subcommand(1);
  CLI::App* add = sub.add_subcommand("add", "Add a repository (or change its settings)");
  add->add_option("name", a->repo.name, "Its name in the store (owner/repo)")->required();
  add->add_option("--path", a->repo.path, "Local clone, fetched from origin before each ingest")
      ->required();
  add->add_option("-b,--branch", a->repo.branch, "Branch (default: HEAD's)");
  add->add_option("--github", a->repo.github, "owner/repo on GitHub to sync PR text from");
  add->add_option("--schedule", a->schedule, "Ingest again every period: 30s, 15m, 2h, 1d");
  add->add_option("--lang", a->lang, "Guide languages: zh, en or both")->capture_default_str();
  add->add_flag("--llm", a->repo.llm, "Write guides with the model");
  CLI::App* remove = sub.add_subcommand(
      "remove", "Stop working on a repository (its stored changes and guides stay)");
  remove->add_option("name", a->name, "Repository name")->required();
  CLI::App* list = sub.add_subcommand("list", "List the repositories workers keep current");
  CLI::App* load = sub.add_subcommand("load", "Add the [[repo]] tables of a mergelens.toml");
  load->add_option("--config", a->config, "The file")
      ->capture_default_str()
      ->check(CLI::ExistingFile);
  CLI::App* enqueue = sub.add_subcommand("enqueue", "Queue an ingest of one or every repository");
  enqueue->add_option("name", a->name, "Repository name (default: every one)");
  return [=, &g]() -> Result<void> {
    auto store = open_store(g, /*create=*/true);
    if (!store) return std::unexpected(store.error());
    const auto now = static_cast<UnixSeconds>(std::time(nullptr));
    if (add->parsed()) {
      if (auto r = check_repo_name(a->repo.name, "repos add"); !r) return r;
      if (!a->repo.github.empty())
        if (auto r = check_repo_name(a->repo.github, "repos add --github"); !r) return r;
      auto schedule = parse_schedule(a->schedule);
      if (!schedule) return std::unexpected(schedule.error());
      a->repo.schedule_seconds = *schedule;
      auto langs = parse_langs(a->lang);
      if (!langs) return std::unexpected(langs.error());
      a->repo.langs = *langs;
      if (auto r = (*store)->put_repo_settings(a->repo); !r) return r;
      const std::vector<RepoSettings> one{a->repo};
      if (auto r = enqueue_ingests(**store, one, now); !r) return std::unexpected(r.error());
      fmt::print("{}: added; an ingest is queued\n", a->repo.name);
      return {};
    }
    if (remove->parsed()) {
      auto r = (*store)->remove_repo_settings(a->name);
      if (!r) return std::unexpected(r.error());
      if (!*r)
        return fail(ErrorKind::kNotFound, "no repository named '{}' in the worker list", a->name);
      fmt::print("{}: removed from the worker list (its guides stay in the store)\n", a->name);
      return {};
    }
    if (load->parsed()) {
      auto loaded = load_repo_tables(**store, a->config);
      if (!loaded) return std::unexpected(loaded.error());
      if (auto r = enqueue_ingests(**store, *loaded, now); !r) return std::unexpected(r.error());
      fmt::print("{} repositor{} loaded from {}; ingests queued\n", loaded->size(),
                 loaded->size() == 1 ? "y" : "ies", a->config);
      return {};
    }
    auto all = (*store)->list_repo_settings();
    if (!all) return std::unexpected(all.error());
    if (enqueue->parsed()) {
      std::vector<RepoSettings> chosen;
      for (const auto& r : *all)
        if (a->name.empty() || r.name == a->name) chosen.push_back(r);
      if (chosen.empty())
        return fail(ErrorKind::kNotFound, "no repository named '{}' in the worker list", a->name);
      auto n = enqueue_ingests(**store, chosen, now);
      if (!n) return std::unexpected(n.error());
      fmt::print("{} ingest{} queued\n", *n, *n == 1 ? "" : "s");
      return {};
    }
    (void)list;
    for (const auto& r : *all) {
      std::string langs;
      for (const auto& l : r.langs) langs += (langs.empty() ? "" : ",") + l;
      fmt::print("{}\n  path {}{}{}\n  schedule {}, languages {}, {}\n", r.name, r.path,
                 r.branch.empty() ? "" : ", branch " + r.branch,
                 r.github.empty() ? "" : ", github " + r.github,
                 r.schedule_seconds ? fmt::format("every {} s", r.schedule_seconds) : "none", langs,
                 r.llm ? "model writer" : "offline writer");
    }
    if (all->empty()) fmt::print("(no repositories: add one with `mergelens repos add`)\n");
    return {};
  };
}

}  // namespace mergelens::cli
