#include "mergelens/analysis/analyzer.h"

#include <algorithm>

#include "mergelens/analysis/code/cleanup.h"
#include "mergelens/analysis/code/coverage.h"
#include "mergelens/analysis/code/rationale.h"
#include "mergelens/analysis/code/roles.h"
#include "mergelens/analysis/code/switches.h"
#include "mergelens/analysis/judgment/focus.h"
#include "mergelens/analysis/judgment/tags.h"
#include "mergelens/analysis/text/review_facts.h"
#include "mergelens/analysis/text/text_facts.h"

namespace mergelens {
namespace {

// Added files this large are generated tables or vendored code whatever their path says.
constexpr int kGeneratedAddedLines = 5000;

// Two references name the same thing across texts: "#123" read as a PR in the
// title and as an issue in the body (GitHub numbers both alike), or a sha
// written short in one place and long in another.
bool same_target(const Reference& a, const Reference& b) {
  if (a.repo != b.repo) return false;
  const bool a_num = a.kind == "pr" || a.kind == "issue";
  const bool b_num = b.kind == "pr" || b.kind == "issue";
  if (a_num || b_num) return a_num && b_num && a.number == b.number;
  if (a.kind == "commit" && b.kind == "commit" && a.sha.size() >= 7 && b.sha.size() >= 7) {
    const size_t n = std::min(a.sha.size(), b.sha.size());
    return a.sha.compare(0, n, b.sha, 0, n) == 0;
  }
  return a.kind == b.kind && a.number == b.number && a.sha == b.sha && a.text == b.text;
}

void add_text_facts(const Change& change, const AnalysisContext& ctx, Facts& facts) {
  struct Text {
    std::string_view text;
    const char* source;
  };
  std::vector<Text> texts = {{change.title, "title"}, {change.body, "body"}};
  // A squash commit's message is the title and body again; merge commits and
  // plain commits list their own commits.
  if (change.kind != ChangeKind::kSquash)
    for (const auto& c : change.commits) texts.push_back({c.message, "commit"});
  for (const auto& t : texts) {
    auto nums = extract_numbers(t.text, t.source);
    facts.numbers.insert(facts.numbers.end(), nums.begin(), nums.end());
    for (auto& r : extract_references(t.text, t.source, ctx.repo_name)) {
      auto same = std::find_if(facts.references.begin(), facts.references.end(),
                               [&](const Reference& o) { return same_target(o, r); });
      if (same == facts.references.end()) {
        facts.references.push_back(std::move(r));
        continue;
      }
      if (same->relation == "mentions") same->relation = r.relation;
      if (r.sha.size() > same->sha.size()) same->sha = r.sha;  // keep the longest spelling
      if (same->kind == "issue" && r.kind == "pr") same->kind = "pr";
    }
  }
  // A change never references itself.
  std::erase_if(facts.references, [&](const Reference& r) {
    return (r.kind == "pr" || r.kind == "issue") && r.repo.empty() && change.number &&
           r.number == *change.number;
  });
  facts.body_mismatches = body_vs_code(change);
}

// An identifier the body names is no mismatch when the change's own files
// contain it: the body is explaining code around the change (the enclosing
// function, a class the fix calls into). Paths stay: a file the body names
// and the diff does not touch is the mismatch worth reporting.
void drop_identifiers_found_in_files(const Change& change, const AnalysisContext& ctx,
                                     Facts& facts) {
  auto is_identifier = [](const std::string& s) {
    return s.find('/') == std::string::npos && s.find('.') == std::string::npos;
  };
  if (std::none_of(facts.body_mismatches.begin(), facts.body_mismatches.end(),
                   [&](const BodyMismatch& m) {
                     return m.kind == "named_not_touched" && is_identifier(m.subject);
                   }))
    return;
  std::vector<std::string> texts;
  for (const auto& h : facts.hunks) texts.push_back(h.symbol);
  for (const auto& d : facts.definitions) texts.push_back(d.name);
  if (ctx.read_new_file) {
    size_t read = 0;
    for (const auto& f : change.files) {
      if (f.binary || f.status == FileStatus::kDeleted || ++read > 40) continue;
      if (auto content = ctx.read_new_file(f.path)) texts.push_back(std::move(*content));
    }
  }
  std::erase_if(facts.body_mismatches, [&](const BodyMismatch& m) {
    if (m.kind != "named_not_touched" || !is_identifier(m.subject)) return false;
    return std::any_of(texts.begin(), texts.end(), [&](const std::string& t) {
      return t.find(m.subject) != std::string::npos;
    });
  });
}

}  // namespace

Result<AnalysisContext> make_context(std::string repo_name, std::string_view mergelens_toml,
                                     std::string_view labeler_yml) {
  AnalysisContext ctx;
  ctx.repo_name = std::move(repo_name);
  if (!mergelens_toml.empty()) {
    auto cfg = parse_mergelens_toml(mergelens_toml, "mergelens.toml");
    if (!cfg) return std::unexpected(cfg.error());
    ctx.config = std::move(*cfg);
  }
  std::vector<TagRule> labeler;
  if (!labeler_yml.empty()) {
    auto rules = parse_labeler_yml(labeler_yml, ".github/labeler.yml");
    if (!rules) return std::unexpected(rules.error());
    labeler = std::move(*rules);
  }
  ctx.rules = effective_rules(labeler_yml.empty() ? nullptr : &labeler, &ctx.config);
  return ctx;
}

Facts analyze_change(const Change& change, const AnalysisContext& ctx) {
  Facts facts;
  facts.referenced_by = ctx.referenced_by;
  facts.reach = ctx.reach;
  facts.switches = ctx.switches;
  facts.switches_known = ctx.switches_known;
  mark_unread_switches(facts.switches, ctx.read_new_file);
  facts.context = ctx.context;
  facts.context_known = ctx.context_known;
  for (const auto& f : change.files) {
    FileRole role = classify_role(f.path, ctx.config);
    if (f.status == FileStatus::kAdded && (f.truncated || f.additions >= kGeneratedAddedLines) &&
        role != FileRole::kTest)
      role = FileRole::kGenerated;
    facts.roles[f.path] = role;
    if (!f.unavailable.empty()) facts.unread_files.push_back(f.path + ": " + f.unavailable);
  }

  CodeFacts code = analyze_code(change, ctx.read_new_file);
  facts.languages = std::move(code.languages);
  facts.hunks = std::move(code.hunks);
  facts.signals = std::move(code.signals);
  facts.definitions = std::move(code.definitions);
  if (ctx.context_known)
    apply_definition_fates(ctx.definition_fates, facts.definitions, facts.signals);
  mark_extracted_helpers(facts.definitions, facts.signals);
  mark_replaced_tests(facts.definitions, facts.roles);
  facts.rationale = std::move(code.rationale);
  facts.replacements = std::move(code.replacements);

  CleanupResult cleanup = detect_cleanup(change, facts.roles, facts.languages);
  facts.skim = std::move(cleanup.skim);
  facts.cleanup = std::move(cleanup.cleanup);

  add_text_facts(change, ctx, facts);
  add_review_facts(change, ctx.repo_name, facts);
  facts.open = change.open;
  drop_identifiers_found_in_files(change, ctx, facts);
  find_coverage(change, facts);
  const bool benchmark_changed =
      std::any_of(facts.roles.begin(), facts.roles.end(),
                  [](const auto& r) { return r.second == FileRole::kBenchmark; });
  facts.number_cautions =
      number_cautions(facts.numbers, benchmark_changed, change.title + "\n" + change.body);
  TagHints hints;
  hints.perf_claim = key_figure(facts.numbers);  // a claim, not any figure the text holds
  for (const auto& r : facts.references)
    if (r.relation == "fixes" && r.repo.empty() && (r.kind == "issue" || r.kind == "pr")) {
      hints.fixes = r.text;
      break;
    }
  facts.tags = assign_tags(change, facts.roles, ctx.rules, hints);
  if (ctx.threads)
    facts.thread = find_thread_links(change, facts.references, facts.roles, *ctx.threads);
  rank_focus(change, facts);
  finish_rationale(facts);
  score_change(change, facts, ctx.thresholds);
  return facts;
}

}  // namespace mergelens
