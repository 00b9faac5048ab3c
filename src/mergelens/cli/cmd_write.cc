#include <fmt/format.h>

#include "mergelens/cli/commands.h"
#include "mergelens/pipeline/write.h"

namespace mergelens::cli {

Result<std::vector<std::string>> parse_langs(const std::string& lang) {
  if (lang == "zh" || lang == "en") return std::vector<std::string>{lang};
  if (lang == "both") return std::vector<std::string>{"zh", "en"};
  return fail(ErrorKind::kInvalidInput, "--lang must be zh, en or both, not \"{}\"", lang);
}

Runner setup_write(CLI::App& sub, const Globals& g) {
  struct Args {
    std::string lang = "zh";
    bool force = false;
    size_t budget = 12000;
    size_t batch = 16;
    bool offline = false;
  };
  auto a = std::make_shared<Args>();
  sub.add_option("--lang", a->lang, "Output language: zh (default), en or both")
      ->capture_default_str();
  sub.add_flag("--offline", a->offline,
               "Write from the analysis facts alone, no network (default)");
  sub.add_flag("--force", a->force, "Rewrite guides that are current");
  sub.add_option("--budget", a->budget, "Prompt budget in estimated tokens (model writer)")
      ->capture_default_str();
  sub.add_option("--batch", a->batch, "Guides stored per transaction")->capture_default_str();
  return [a, &g]() -> Result<void> {
    auto langs = parse_langs(a->lang);
    if (!langs) return std::unexpected(langs.error());
    auto store = open_store(g, /*create=*/false);
    if (!store) return std::unexpected(store.error());
    auto repo = resolve_repo(**store, g.repo);
    if (!repo) return std::unexpected(repo.error());
    WriteOptions opt;
    opt.langs = *langs;
    opt.force = a->force;
    opt.budget_tokens = a->budget;
    opt.batch_size = a->batch;
    Progress progress("write", 0);
    auto report = write_guides(**store, *repo, opt, &progress);
    if (!report) return std::unexpected(report.error());
    fmt::print(
        "{}: {} guide{} written ({} offline, {} by a model, {} from the cache); {} "
        "citation{} removed\n",
        repo->name, report->written, report->written == 1 ? "" : "s", report->offline, report->llm,
        report->cached, report->removed_citations, report->removed_citations == 1 ? "" : "s");
    for (const auto& [reason, n] : report->fallback_reasons)
      fmt::print("  offline fallback ×{}: {}\n", n, reason);
    return {};
  };
}

}  // namespace mergelens::cli
