#include <iterator>

#include <fmt/format.h>

#include "mergelens/analysis/facts_json.h"
#include "mergelens/cli/commands.h"
#include "mergelens/guide/guide_json.h"
#include "mergelens/guide/markdown.h"
#include "mergelens/guide/prompt.h"
#include "mergelens/guide/triage_guide.h"
#include "mergelens/model/diff.h"
#include "mergelens/model/json.h"
#include "mergelens/pipeline/context_text.h"
#include "mergelens/pipeline/triage.h"
#include "mergelens/report/threads.h"
#include "mergelens/util/http.h"
#include "mergelens/util/strings.h"
#include "mergelens/util/utf8.h"

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

// The text forms below are written to `out` and printed through
// terminal_safe() once, so no byte of commit text reaches the terminal raw.
using Out = std::back_insert_iterator<std::string>;

void print_facts(Out out, const Facts& f, const std::vector<Backlink>& backlinks) {
  fmt::format_to(
      out, "\n  verdict     {}{}\n", to_string(f.verdict),
      f.verdict_scope.empty() ? "" : fmt::format(" — read {}", fmt::join(f.verdict_scope, ", ")));
  fmt::format_to(out, "  importance  {}  ({})\n", f.importance.value,
                 fmt::join(f.importance.reasons, "; "));
  fmt::format_to(out, "  insight     {}  ({})\n", f.insight.value,
                 fmt::join(f.insight.reasons, "; "));
  if (!f.tags.empty()) {
    std::vector<std::string> names;
    for (const auto& t : f.tags) names.push_back(t.name);
    fmt::format_to(out, "  tags        {}\n", fmt::join(names, ", "));
  }
  if (!f.focus.empty()) {
    fmt::format_to(out, "\n  focus ({} worth reading)\n", plural(f.lines_worth_reading, "line"));
    for (size_t i = 0; i < f.focus.size(); ++i) {
      const auto& r = f.focus[i];
      fmt::format_to(out, "   {}. {}:{}-{}{}  [{}]\n", i + 1, r.path, r.start_line, r.end_line,
                     r.symbol.empty() ? "" : "  " + r.symbol, fmt::join(r.reasons, "; "));
    }
  }
  if (!f.skim.empty()) {
    fmt::format_to(out, "\n  skim\n");
    for (const auto& s : f.skim) fmt::format_to(out, "   - {} ({})\n", s.path, s.reason);
  }
  for (const auto& g : f.gaps)
    fmt::format_to(out, "  {} gap: {} — {}\n", g.kind, g.subject, g.detail);
  for (const auto& m : f.body_mismatches)
    fmt::format_to(out, "  body vs code: {} {} — {}\n", m.kind, m.subject, m.detail);
  for (const auto& b : backlinks)
    fmt::format_to(out, "  referenced by {} ({}): {}\n", b.ref, b.relation, b.title);
}

void print_text(Out out, const Change& c, bool patch) {
  fmt::format_to(out, "{}  {}\n\n", c.ref(), terminal_safe(c.title, /*keep_newlines=*/false));
  fmt::format_to(out, "  repository  {}\n", c.repo);
  fmt::format_to(out, "  kind        {} {}\n", to_string(c.kind), c.sha);
  fmt::format_to(out, "  author      {} <{}>{}\n", c.author.name, c.author.email,
                 c.author.login.empty() ? "" : fmt::format(" (@{})", c.author.login));
  fmt::format_to(out, "  merged      {}\n", format_utc(c.merged_at));
  // Only an absolute http(s) link is printed (a javascript: html_url is not).
  if (const std::string url = http::safe_url(c.url); !url.empty())
    fmt::format_to(out, "  link        {}\n", url);
  if (!c.labels.empty()) fmt::format_to(out, "  labels      {}\n", fmt::join(c.labels, ", "));
  fmt::format_to(out, "  commits     {}\n", c.commits.size());
  fmt::format_to(out, "  files       {} (+{} -{}){}\n\n", c.files.size(), c.additions(),
                 c.deletions(), c.files_truncated ? ", list truncated" : "");
  for (const auto& f : c.files) {
    std::string name = f.old_path.empty() ? f.path : fmt::format("{} → {}", f.old_path, f.path);
    std::string note = f.binary ? "binary" : fmt::format("+{} -{}", f.additions, f.deletions);
    if (f.truncated) note += ", hunks capped";
    fmt::format_to(out, "  {}  {}  ({})\n", status_letter(f.status), name, note);
  }
  if (!c.body.empty()) fmt::format_to(out, "\n{}\n", c.body);
  if (patch) {
    for (const auto& f : c.files) {
      if (f.hunks.empty()) continue;
      fmt::format_to(out, "\n--- {}\n+++ {}\n{}", f.old_path.empty() ? f.path : f.old_path, f.path,
                     render_patch(f.hunks));
    }
  }
}

}  // namespace

Runner setup_show(CLI::App& sub, const Globals& g) {
  struct Args {
    std::string ref;
    bool json = false, patch = false, facts = false, prompt = false;
    int max_calls = 4;
    size_t budget = 12000;
    std::string lang = "zh";
  };
  auto a = std::make_shared<Args>();
  sub.add_option("ref", a->ref, "PR number, #N, or commit sha (7+ hex digits)")->required();
  sub.add_flag("--json", a->json, "Print the stored change as JSON");
  sub.add_flag("-p,--patch", a->patch, "Print the diff too");
  sub.add_flag("--facts", a->facts, "Print the analysis facts too (always when there is no guide)");
  sub.add_flag("--prompt", a->prompt, "Print the exact prompt the model writer would send");
  sub.add_option("--max-calls", a->max_calls, "Model calls a PR at most (with --prompt)")
      ->capture_default_str()
      ->check(CLI::Range(1, 16));
  sub.add_option("--budget", a->budget, "Prompt budget in estimated tokens (with --prompt)")
      ->capture_default_str()
      ->check(CLI::Range(1000, 1000000));
  sub.add_option("--lang", a->lang, "Language of the guide to show: zh (default) or en")
      ->capture_default_str();
  return [a, &g]() -> Result<void> {
    auto store = open_store(g, /*create=*/false);
    if (!store) return std::unexpected(store.error());
    auto repo = resolve_repo(**store, g.repo);
    if (!repo) return std::unexpected(repo.error());
    auto change = find_change(**store, *repo, a->ref);
    if (!change) return std::unexpected(change.error());
    if (change->number) {
      // A second "(#N)" commit: say which one this is and how to reach the others.
      auto same = (*store)->changes_with_number(repo->id, *change->number);
      if (!same) return std::unexpected(same.error());
      for (const auto& o : *same)
        if (o.id != change->id)
          fmt::print(stderr,
                     "note: {} \"{}\" (merged {}) also carries #{}; show it with `mergelens show "
                     "{}`\n",
                     o.sha.substr(0, 12), terminal_safe(o.title), format_utc(o.merged_at),
                     *change->number, o.sha.substr(0, 12));
    }
    auto facts = (*store)->get_facts(change->id);
    if (!facts) return std::unexpected(facts.error());
    auto backlinks = (*store)->referenced_by(repo->id, *change);
    if (!backlinks) return std::unexpected(backlinks.error());
    if (a->lang != "zh" && a->lang != "en")
      return fail(ErrorKind::kInvalidInput, "--lang must be zh or en, not \"{}\"", a->lang);
    if (a->prompt) {
      if (!*facts)
        return fail(ErrorKind::kInvalidInput, "{} is not analysed yet: run `mergelens analyze`",
                    change->ref());
      Facts f = **facts;
      // A guide starts from the day's triage when there is one (pipeline/write.cc).
      const std::int64_t id = change->id;
      auto triage = (*store)->triage_of(std::span(&id, 1));
      if (!triage) return std::unexpected(triage.error());
      std::optional<TriageJudgment> start;
      if (auto t = triage->find(id); t != triage->end()) start = triage_judgment_of(t->second);
      f.referenced_by = *backlinks;
      // The code around the change, read from the repository's clone when it is here.
      const auto context = read_context(repo->path, *change, f);
      Prompt p = build_prompt(*change, f, a->lang, a->budget, context, start ? &*start : nullptr);
      // How the writer would read a PR too large for one prompt.
      auto plan = plan_split(*change, f, a->budget, a->max_calls);
      nlohmann::json split = nullptr;
      if (plan) split = {{"notes_calls", plan->groups.size()}, {"regions", plan->regions_planned}};
      if (a->json) {
        fmt::print("{}\n",
                   dump_json(nlohmann::json{{"messages",
                                             {{{"role", "system"}, {"content", p.system}},
                                              {{"role", "user"}, {"content", p.user}}}},
                                            {"estimated_tokens", p.estimated_tokens},
                                            {"top3_share", p.coverage.top3_share},
                                            {"top_regions", p.coverage.top_regions},
                                            {"top_regions_shown", p.coverage.top_regions_shown},
                                            {"split", split},
                                            {"files_left_out", p.coverage.files_left_out}}));
      } else {
        fmt::print("{}", terminal_safe(fmt::format("=== system ===\n{}\n\n=== user ===\n{}\n",
                                                   p.system, p.user)));
        fmt::print("=== {} estimated tokens; {} of {} hunks; top-3 focus coverage {:.0f}% ===\n",
                   p.estimated_tokens, p.coverage.hunks_included, p.coverage.hunks_total,
                   p.coverage.top3_share * 100);
        if (plan)
          fmt::print(
              "=== too large for one prompt ({} of the top {} focus regions fit): the writer "
              "reads {} regions in {} notes calls, then writes the guide in one more ===\n",
              p.coverage.top_regions_shown, p.coverage.top_regions, plan->regions_planned,
              plan->groups.size());
      }
      return {};
    }
    auto guide = (*store)->get_guide(change->id, a->lang);
    if (!guide) return std::unexpected(guide.error());
    // The changes it belongs with, both ways (report/threads.h).
    const std::int64_t change_id = change->id;
    auto notes = report::thread_notes(**store, std::span(&change_id, 1));
    if (!notes) return std::unexpected(notes.error());
    const std::vector<report::ThreadNote>& thread = (*notes)[change_id];
    if (a->json) {
      nlohmann::json j = to_json(*change);
      if (*facts) {
        const nlohmann::json fj = facts_to_json(**facts);  // items() needs a live object
        for (const auto& [key, value] : fj.items()) j[key] = value;
      }
      j["id"] = change->id;
      j["analysed"] = facts->has_value();
      nlohmann::json back = nlohmann::json::array();
      for (const auto& b : *backlinks)
        back.push_back({{"ref", b.ref},
                        {"title", b.title},
                        {"relation", b.relation},
                        {"merged_at", format_utc(b.merged_at)}});
      j["referenced_by"] = std::move(back);
      // The thread both ways, with phrases (the facts' own "thread" lists
      // only the earlier changes this one links to).
      j["thread"] = report::thread_json(a->lang, change->title, change->merged_at, thread);
      if (*guide) j["guide"] = guide_to_json(**guide);
      // The model's triage of the day beside the analysis's judgment above.
      const std::int64_t id = change->id;
      auto triage = (*store)->triage_of(std::span(&id, 1));
      if (!triage) return std::unexpected(triage.error());
      j["triage"] = nullptr;
      if (auto t = triage->find(id); t != triage->end())
        j["triage"] = {{"day", t->second.day},
                       {"rank", t->second.rank},
                       {"importance", t->second.importance},
                       {"insight", t->second.insight},
                       {"verdict", t->second.verdict},
                       {"scope", t->second.scope},
                       {"scope_zh", t->second.scope_zh},
                       {"reason_zh", t->second.reason_zh},
                       {"reason_en", t->second.reason_en},
                       {"model", t->second.model}};
      fmt::print("{}\n", dump_json(j));
    } else {
      std::string text;
      if (*guide) {
        Guide shown = **guide;
        shown.source.url = http::safe_url(shown.source.url);  // the PR link: http(s) only
        text = guide_to_markdown(shown) + "\n";
      }
      // The day's triage: its judgment, scope and reason, in the language asked
      // (a guide written from it shows the same in its footer).
      const std::int64_t id = change->id;
      auto triage = (*store)->triage_of(std::span(&id, 1));
      if (!triage) return std::unexpected(triage.error());
      if (auto t = triage->find(id);
          t != triage->end() && *facts && (!*guide || (*guide)->triage.verdict.empty()))
        if (auto j = triage_judgment_of(t->second)) {
          Guide shown;
          shown.lang = a->lang;
          record_judgments(shown, **facts, &*j);
          text += triage_markdown(shown) + "\n";
        }
      if (!*guide || a->facts || a->patch) {
        print_text(std::back_inserter(text), *change, a->patch);
        if (*facts) print_facts(std::back_inserter(text), **facts, *backlinks);
      }
      const auto phrases =
          report::thread_phrases(a->lang, change->title, change->merged_at, thread);
      if (!phrases.empty())
        text += fmt::format("{}: {}\n", a->lang == "en" ? "Thread" : "关联",
                            fmt::join(phrases, a->lang == "en" ? "; " : "；"));
      fmt::print("{}", terminal_safe(text));
    }
    return {};
  };
}

}  // namespace mergelens::cli
