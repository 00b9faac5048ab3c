// `mergelens themes`: a model groups a window's most important changes (a
// week, a release range) into ranked themes (pipeline/themes.h), stored for
// the week page, the release notes and the weekly delivery.
#include <fmt/format.h>

#include "mergelens/cli/commands.h"
#include "mergelens/llm/client.h"
#include "mergelens/pipeline/themes.h"
#include "mergelens/pipeline/write_llm.h"
#include "mergelens/report/week.h"
#include "mergelens/util/time.h"
#include "mergelens/util/utf8.h"

namespace mergelens::cli {

Runner setup_themes(CLI::App& sub, const Globals& g) {
  struct Args {
    std::string week, since, until, from, to, git;
    size_t per_day = 8, max_themes = 12, budget = kThemePromptBudget;
    bool force = false;
    std::string config = "mergelens.toml";
    llm::Settings llm;
    std::string dump;
  };
  auto a = std::make_shared<Args>();
  sub.add_option("--week", a->week, "An ISO week (2026-W25)");
  sub.add_option("--since", a->since, "Merged at or after (YYYY-MM-DD or an ISO time)");
  sub.add_option("--until", a->until, "Merged before (YYYY-MM-DD or an ISO time)");
  sub.add_option("--from", a->from, "The previous release (a revision), as for `notes`");
  sub.add_option("--to", a->to, "The release (a revision; default HEAD when --from is given)");
  sub.add_option("--git", a->git, "The clone to read revisions in (default: the ingested one)");
  sub.add_option("--per-day", a->per_day, "Candidates taken from each day at most")
      ->capture_default_str()
      ->check(CLI::Range(1, 60));
  sub.add_option("--max-themes", a->max_themes, "Themes the model may name at most")
      ->capture_default_str()
      ->check(CLI::Range(1, 30));
  sub.add_option("--budget", a->budget, "The prompt's budget in estimated tokens")
      ->capture_default_str()
      ->check(CLI::Range(2000, 120000));
  sub.add_flag("--force", a->force, "Ask again even when a cached answer exists");
  sub.add_option("--dump-requests", a->dump,
                 "Ask no model: write the request to this folder (themes-LABEL.request.json)");
  add_llm_options(sub, a->llm);
  sub.add_option("--config", a->config, "mergelens.toml with an [llm] table")
      ->capture_default_str()
      ->check(CLI::ExistingFile);
  return [a, &g]() -> Result<void> {
    const int forms = !a->week.empty() + (!a->since.empty() || !a->until.empty()) +
                      (!a->from.empty() || !a->to.empty());
    if (forms != 1)
      return fail(
          ErrorKind::kInvalidInput,
          "give one window: --week W, --since DATE [--until DATE], or --from REV [--to REV]");
    auto store = open_store(g, /*create=*/false);
    if (!store) return std::unexpected(store.error());
    auto repo = resolve_repo(**store, g.repo);
    if (!repo) return std::unexpected(repo.error());
    ThemeOptions opt;
    if (!a->week.empty()) {
      auto start = report::iso_week_start(a->week);
      if (!start) return std::unexpected(start.error());
      const std::string week = report::iso_week_of(*start);
      opt.since = *start;
      opt.until = *start + 7 * 86400;
      opt.span = week_span(week);
      opt.label = fmt::format("week {} ({} – {})", week, format_day(*opt.since),
                              format_day(*opt.until - 1));
    } else if (!a->from.empty() || !a->to.empty()) {
      const std::string to = a->to.empty() ? "HEAD" : a->to;
      auto range = first_parent_range(a->git.empty() ? repo->path : a->git, a->from, to);
      if (!range) return std::unexpected(range.error());
      opt.span = revs_span(range->from, range->to);
      auto short_rev = [](const std::string& rev) {
        const bool sha =
            rev.size() == 40 && rev.find_first_not_of("0123456789abcdef") == std::string::npos;
        return sha ? rev.substr(0, 12) : rev;
      };
      opt.label = fmt::format("release {} → {}", a->from.empty() ? "(start)" : short_rev(a->from),
                              short_rev(to));
      opt.shas = std::move(range->shas);
    } else {
      if (auto r = parse_date_flag(a->since, "--since", opt.since); !r) return r;
      if (auto r = parse_date_flag(a->until, "--until", opt.until); !r) return r;
      if (opt.since && opt.until && *opt.since > *opt.until)
        return fail(ErrorKind::kInvalidInput, "--until {} is before --since {}", a->until,
                    a->since);
      opt.span = time_span(opt.since, opt.until);
      opt.label = fmt::format("changes merged {} – {}", a->since.empty() ? "(start)" : a->since,
                              a->until.empty() ? "now" : a->until);
    }
    opt.per_day = a->per_day;
    opt.max_themes = a->max_themes;
    opt.budget = a->budget;
    opt.force = a->force;
    opt.dump_dir = a->dump;
    if (!a->dump.empty()) {  // no model is asked: any endpoint will do
      if (a->llm.base_url.empty()) a->llm.base_url = "http://127.0.0.1:9";
      if (a->llm.model.empty()) a->llm.model = "none";
    }
    auto settings = llm::resolve_settings(a->llm, a->config);
    if (!settings) return std::unexpected(settings.error());
    llm::Client client(*settings);
    WriteRunRecord ledger;
    ledger.started_at = static_cast<UnixSeconds>(std::time(nullptr));
    auto report = theme_window(**store, *repo, client, opt);
    if (!report) return std::unexpected(report.error());
    if (a->dump.empty()) {
      ledger.finished_at = static_cast<UnixSeconds>(std::time(nullptr));
      ledger.writer = "themes";
      ledger.model = settings->model;
      fill_ledger_from(client, ledger);
      if (auto r = (*store)->record_write_run(ledger); !r) return std::unexpected(r.error());
    }
    fmt::print(
        "{}: {}\n  themes: {} merged, {} candidates, {} shown (~{} tokens); {} call{}{}; {} "
        "theme{} stored{}\n",
        repo->name, opt.label, report->merged, report->candidates, report->shown,
        report->estimated_tokens, report->calls, report->calls == 1 ? "" : "s",
        report->cached ? " (from the cache)" : "", report->themes, report->themes == 1 ? "" : "s",
        !a->dump.empty() ? fmt::format(" (request written to {})", a->dump)
        : report->stored ? ""
                         : " (none: the pages keep the analysis's themes)");
    for (const auto& p : report->problems) fmt::print("  themes: {}\n", terminal_safe(p));
    return {};
  };
}

}  // namespace mergelens::cli
