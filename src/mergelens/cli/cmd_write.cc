#include <fmt/format.h>

#include "mergelens/cli/commands.h"
#include "mergelens/llm/client.h"
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
    int max_calls = 4;
    bool one_lang_per_call = false;
    size_t batch = 16;
    bool offline = false;
    bool use_llm = false;
    std::string config = "mergelens.toml";
    llm::Settings llm;
    std::vector<std::string> refs;
    bool no_triage = false;
    size_t triage_batch = 60;
  };
  auto a = std::make_shared<Args>();
  sub.add_option("--lang", a->lang, "Output language: zh (default), en or both")
      ->capture_default_str();
  sub.add_flag("--offline", a->offline,
               "Write from the analysis facts alone, no network (default)");
  sub.add_flag("--force", a->force, "Rewrite guides that are current");
  sub.add_option("--budget", a->budget, "Prompt budget in estimated tokens (model writer)")
      ->capture_default_str()
      ->check(CLI::Range(1000, 1000000));
  sub.add_option("--max-calls", a->max_calls,
                 "Model calls a PR at most (a PR too large for one prompt is read in several: "
                 "notes on its parts, then the guide; retries count)")
      ->capture_default_str()
      ->check(CLI::Range(1, 16));
  sub.add_flag("--one-language-per-call", a->one_lang_per_call,
               "With --lang both, ask for each language in its own call (default: one call "
               "answers both)");
  sub.add_option("--batch", a->batch, "Guides stored per transaction")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
  sub.add_flag("--llm", a->use_llm,
               "Ask a model (OpenAI-compatible API; settings from flags, OPENAI_BASE_URL / "
               "OPENAI_API_KEY / OPENAI_MODEL, or the [llm] table of --config)");
  add_llm_options(sub, a->llm);
  sub.add_option("--config", a->config, "mergelens.toml with an [llm] table")
      ->capture_default_str()
      ->check(CLI::ExistingFile);
  sub.add_flag("--no-triage", a->no_triage,
               "With --llm, do not ask the model to triage each day first (guides then start "
               "from the analysis's judgment)");
  sub.add_option("--triage-batch", a->triage_batch, "Changes per triage call at most")
      ->capture_default_str()
      ->check(CLI::Range(1, 200));
  sub.add_option("refs", a->refs,
                 "Write only these changes (1234, #1234 or a sha); each still only when it needs "
                 "a guide, unless --force");
  return [a, &g]() -> Result<void> {
    auto langs = parse_langs(a->lang);
    if (!langs) return std::unexpected(langs.error());
    auto store = open_store(g, /*create=*/false);
    if (!store) return std::unexpected(store.error());
    auto repo = resolve_repo(**store, g.repo);
    if (!repo) return std::unexpected(repo.error());
    if (a->use_llm && a->offline)
      return fail(ErrorKind::kInvalidInput, "--llm and --offline exclude each other");
    std::unique_ptr<llm::Client> client;
    if (a->use_llm) {
      auto settings = llm::resolve_settings(a->llm, a->config);
      if (!settings) return std::unexpected(settings.error());
      client = std::make_unique<llm::Client>(*settings);
    }
    WriteOptions opt;
    for (const auto& ref : a->refs) {
      auto change = find_change(**store, *repo, ref);
      if (!change) return std::unexpected(change.error());
      opt.only.push_back(change->id);
    }
    opt.client = client.get();
    opt.langs = *langs;
    opt.force = a->force;
    opt.budget_tokens = a->budget;
    opt.max_calls = a->max_calls;
    opt.bilingual = !a->one_lang_per_call;
    opt.batch_size = a->batch;
    opt.triage = !a->no_triage;
    opt.triage_batch = a->triage_batch;
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
    if (report->triage) print_triage_report(*report->triage);
    if (client) {
      const auto& l = report->ledger;
      fmt::print(
          "  model {}: {} requests ({} retries, {} failed calls), {} prompt + {} completion "
          "tokens{}\n",
          l.model, l.requests, l.retries, l.failures, l.prompt_tokens, l.completion_tokens,
          l.usd > 0 ? fmt::format(", ${:.4f}", l.usd) : "");
    }
    return {};
  };
}

}  // namespace mergelens::cli
