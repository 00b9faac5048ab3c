// Consistency check of the offline writer over a whole store: writes every
// analysed change's offline guide (zh and en) with the current build, runs
// the writer's own citation checker on it before anything is removed, and
// looks for sentences that contradict another section or the facts. Prints
// one line per rule with its count and the first PRs it found, and exits 1
// when the citation checker failed anywhere.
//
//   mergelens_consistency_check --db FILE [--repo NAME] [--lang zh,en] [--examples 5]
//
// Rules (each counts guides, not sentences):
//   citations        the citation checker fails on the guide as written
//   main-path        a verdict or summary says the main path is untouched (or
//                    only docs/config/CI changed) while the change has code
//   single-figure    a caution calls one figure the only one while the facts
//                    give more than one
//   verdict-kind     the verdict sentence says another verdict than `verdict`
//   test-lesson      the lesson or a design decision is drawn from a test file
//   generic-question a focus question is a template that names nothing
//   untested-tested  a gap says a file has no test while a test covers it
//   skim-focus       a file is both a focus point and on the skim list
//   silent-fallback  operator advice about a silent fallback with no fallback
//                    outside tests
//   duplicate        the same sentence twice in the guide's lists
//   headline-width   the headline is longer than the seeds (about 30 Chinese
//                    characters or 80 Latin; width > 34)
//   headline-english a Chinese guide's headline has no Chinese (the PR title)
//   digest           the digest is empty or not two or three sentences
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "mergelens/guide/citations.h"
#include "mergelens/guide/markdown.h"
#include "mergelens/guide/offline.h"
#include "mergelens/guide/phrases.h"
#include "mergelens/guide/prose.h"
#include "mergelens/store/store.h"

using namespace mergelens;

namespace {

struct Tally {
  size_t count = 0;
  std::vector<std::string> examples;
};

bool contains(std::string_view text, std::string_view what) {
  return text.find(what) != std::string_view::npos;
}

std::string base_name(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool code_role(FileRole r) {
  return r == FileRole::kCore || r == FileRole::kKernel || r == FileRole::kModel;
}

bool has_code(const Change& c, const Facts& f) {
  for (const auto& file : c.files) {
    auto it = f.roles.find(file.path);
    if (it == f.roles.end() || code_role(it->second)) return true;
  }
  return false;
}

std::vector<std::string> lists_of(const Guide& g) {
  std::vector<std::string> all;
  for (const auto* v :
       {&g.design_decisions, &g.questions, &g.number_cautions, &g.body_vs_code, &g.gaps})
    all.insert(all.end(), v->begin(), v->end());
  for (const auto& f : g.focus)
    if (!f.question.empty()) all.push_back(f.question);
  for (const auto& a : g.advice) all.push_back(a.text);
  return all;
}

// The rules that fire on one guide.
std::vector<std::string> check(const Change& c, const Facts& f, const Guide& g) {
  std::vector<std::string> out;
  const bool zh = g.lang == "zh";
  const auto& p = phrases::get(g.lang);
  auto fire = [&](const char* rule) { out.push_back(rule); };

  if (has_code(c, f) &&
      (contains(g.verdict_text, zh ? "不影响主路径" : "nothing on the main path") ||
       contains(g.summary, zh ? "没有主路径代码" : "no code on the main path")))
    fire("main-path");

  std::set<std::string> figures;
  for (const auto& n : f.numbers)
    if (n.kind != "count") figures.insert(n.text);
  for (const auto& n : g.number_cautions)
    if ((contains(n, "只有一个数字") || contains(n, "A single figure")) && figures.size() > 1)
      fire("single-figure");

  static const std::map<std::string, std::pair<std::string_view, std::string_view>> kLead = {
      {"close_read", {"值得精读", "Worth a close read"}},
      {"selective_read", {"值得选读", "Worth a selective read"}},
      {"skim", {"浏览即可", "Skim"}},
      {"skip", {"可以跳过", "Skip"}}};
  if (!c.shallow && !c.open)
    if (auto it = kLead.find(g.verdict); it != kLead.end())
      if (!g.verdict_text.starts_with(zh ? it->second.first : it->second.second))
        fire("verdict-kind");

  std::set<std::string> test_names;
  for (const auto& [path, role] : f.roles)
    if (role == FileRole::kTest) test_names.insert("`" + base_name(path) + "`");
  std::set<std::string> code_defs;
  for (const auto& d : f.definitions) {
    auto it = f.roles.find(d.at.path);
    if (!(it != f.roles.end() && it->second == FileRole::kTest)) code_defs.insert(d.name);
  }
  for (const auto& d : f.definitions) {
    auto it = f.roles.find(d.at.path);
    if (it != f.roles.end() && it->second == FileRole::kTest && !code_defs.count(d.name))
      test_names.insert("`" + d.name);
  }
  auto from_tests = [&](const std::string& s) {
    return std::any_of(test_names.begin(), test_names.end(),
                       [&](const std::string& n) { return contains(s, n); });
  };
  bool test_lesson = from_tests(g.why);
  for (const auto& d : g.design_decisions) test_lesson |= from_tests(d);
  if (test_lesson) fire("test-lesson");

  for (const auto& fp : g.focus)
    if (fp.question == p.q_generic ||
        contains(fp.question, zh ? "的行为改变了什么？调用方是否依赖旧行为？"
                                 : "alter, and do callers rely on the old behaviour?") ||
        contains(fp.question, zh ? "承担什么职责？边界情况如何处理？"
                                 : "responsible for, and how does it handle edge cases?")) {
      fire("generic-question");
      break;
    }

  for (const auto& gap : f.gaps)
    if (gap.kind == "test" &&
        std::any_of(f.tests.begin(), f.tests.end(),
                    [&](const TestFact& t) { return t.covers == gap.subject; }) &&
        std::any_of(g.gaps.begin(), g.gaps.end(),
                    [&](const std::string& s) { return contains(s, base_name(gap.subject)); })) {
      fire("untested-tested");
      break;
    }

  for (const auto& s : g.skim)
    if (std::any_of(g.focus.begin(), g.focus.end(),
                    [&](const GuideFocus& fp) { return fp.path == s.path; })) {
      fire("skim-focus");
      break;
    }

  // (The "log which path was taken" advice is gone from the offline writer:
  // issue 31 item 4; nothing to check.)

  auto items = lists_of(g);
  std::sort(items.begin(), items.end());
  if (std::adjacent_find(items.begin(), items.end()) != items.end()) fire("duplicate");

  if (prose::width(g.headline) > 34) fire("headline-width");
  if (zh && !prose::has_cjk(g.headline)) fire("headline-english");
  // Sentences end with 。！？ or . ! ? before a space or the end (a "；" joins clauses).
  size_t sentences = 0;
  std::string plain = prose::without_code(g.digest);
  for (size_t open = plain.find("“"); open != std::string::npos; open = plain.find("“", open)) {
    const size_t close = plain.find("”", open);
    if (close == std::string::npos) break;
    plain.erase(open, close + 3 - open);  // a quote's own full stops are not the guide's
  }
  for (size_t i = 0; i < plain.size(); ++i) {
    if (plain.compare(i, 3, "。") == 0 || plain.compare(i, 3, "！") == 0 ||
        plain.compare(i, 3, "？") == 0)
      ++sentences;
    else if (plain[i] == '.' && (plain.compare(i >= 3 ? i - 3 : 0, 4, "e.g.") == 0 ||
                                 plain.compare(i >= 3 ? i - 3 : 0, 4, "i.e.") == 0 ||
                                 plain.compare(i >= 3 ? i - 3 : 0, 4, " etc") == 0 ||
                                 plain.compare(i >= 2 ? i - 2 : 0, 3, " vs") == 0))
      continue;
    else if ((plain[i] == '.' || plain[i] == '!' || plain[i] == '?') &&
             (i + 1 == plain.size() || plain[i + 1] == ' ') &&
             !(i >= 1 && std::isdigit(static_cast<unsigned char>(plain[i - 1])) &&
               i + 1 < plain.size() && std::isdigit(static_cast<unsigned char>(plain[i + 1]))))
      ++sentences;
  }
  if (g.digest.empty() || sentences < 2 || sentences > 3) fire("digest");
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"consistency of the offline guides over a store"};
  std::string db, repo_name, langs = "zh,en";
  size_t examples = 5;
  std::string show;
  bool stored = false;
  app.add_flag("--stored", stored,
               "Check the guides stored in the store (as an older build wrote them) instead of "
               "writing them; the writer's own failures are the citations it removed");
  app.add_option("--db", db)->required();
  app.add_option("--show", show, "Print the guides of this change (#N or a sha) and stop");
  app.add_option("--repo", repo_name);
  app.add_option("--lang", langs, "Languages, comma-separated")->capture_default_str();
  app.add_option("--examples", examples, "PRs listed per rule")->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  auto store = open_sqlite_store(db, StoreOptions{.create = false, .map_file = false});
  if (!store) {
    fmt::print(stderr, "{}\n", store.error().message);
    return 2;
  }
  auto repo = resolve_repo(**store, repo_name);
  if (!repo) {
    fmt::print(stderr, "{}\n", repo.error().message);
    return 2;
  }
  if (!show.empty()) {
    auto c = find_change(**store, *repo, show);
    if (!c) {
      fmt::print(stderr, "{}\n", c.error().message);
      return 2;
    }
    auto f = (*store)->get_facts(c->id);
    if (!f || !*f) return 2;
    CitationIndex index(*c, **f);
    for (const char* lang : {"zh", "en"}) {
      Guide g = write_offline_guide(*c, **f, lang);
      fmt::print("{}\n", guide_to_markdown(g));
      for (const auto& x : check_citations(g, index))
        fmt::print("citation: {}: {} ({})\n", x.field, x.citation, x.reason);
      for (const auto& rule : check(*c, **f, g)) fmt::print("rule: {}\n", rule);
    }
    return 0;
  }
  auto ids = (*store)->changes_needing_guide(repo->id, "zh", false, /*force=*/true);
  if (!ids) {
    fmt::print(stderr, "{}\n", ids.error().message);
    return 1;
  }
  std::vector<std::string> lang_list;
  for (size_t start = 0; start <= langs.size();) {
    size_t comma = langs.find(',', start);
    if (comma == std::string::npos) comma = langs.size();
    if (comma > start) lang_list.push_back(langs.substr(start, comma - start));
    start = comma + 1;
  }

  const auto t0 = std::chrono::steady_clock::now();
  std::map<std::string, Tally> tallies;
  size_t guides = 0, citation_failures = 0, changes = 0;
  std::map<std::string, size_t> failure_kinds;  // reason → count
  for (auto id : *ids) {
    auto c = (*store)->get_change_by_id(id);
    auto f = (*store)->get_facts(id);
    if (!c || !f || !*c || !*f) continue;
    auto back = (*store)->referenced_by(repo->id, **c);
    if (back) (*f)->referenced_by = std::move(*back);
    ++changes;
    CitationIndex index(**c, **f);
    for (const auto& lang : lang_list) {
      Guide g;
      if (stored) {
        auto s = (*store)->get_guide(id, lang);
        if (!s || !*s) continue;
        g = std::move(**s);
      } else {
        g = write_offline_guide(**c, **f, lang);
      }
      ++guides;
      auto failures = check_citations(g, index);
      for (const auto& removed : g.writer.removed) {  // what the writer's own check removed
        CitationFailure x;
        x.field = "removed";
        x.citation = removed;
        x.reason = "removed by the writer's check";
        failures.push_back(std::move(x));
      }
      std::vector<std::string> fired = check(**c, **f, g);
      if (!failures.empty()) {
        fired.insert(fired.begin(), "citations");
        citation_failures += failures.size();
        for (const auto& x : failures) {
          auto& k = failure_kinds[x.reason];
          if (k++ < examples)
            fmt::print(stderr, "citation: {} {} {}: {} ({})\n", (*c)->ref(), lang, x.field,
                       x.citation, x.reason);
        }
      }
      for (const auto& rule : fired) {
        auto& t = tallies[rule];
        ++t.count;
        std::string ref = fmt::format("{} {}", (*c)->ref(), lang);
        if (rule == "citations" && !failures.empty())
          ref += fmt::format(" ({}: {})", failures[0].field, failures[0].citation);
        if (t.examples.size() < examples) t.examples.push_back(ref);
      }
    }
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  fmt::print("{} changes, {} offline guides ({}) checked in {:.1f} s\n", changes, guides, langs,
             secs);
  fmt::print("citation checker failures: {} in {} guides\n", citation_failures,
             tallies["citations"].count);
  for (const auto& [reason, n] : failure_kinds) fmt::print("  {} × {}\n", n, reason);
  static const char* kRules[] = {
      "citations",        "main-path",        "single-figure", "verdict-kind",    "test-lesson",
      "generic-question", "untested-tested",  "skim-focus",    "silent-fallback", "duplicate",
      "headline-width",   "headline-english", "digest"};
  for (const char* rule : kRules) {
    const Tally& t = tallies[rule];
    fmt::print("{:<17} {:>6} guides ({:.2f} %){}{}\n", rule, t.count,
               guides ? 100.0 * static_cast<double>(t.count) / static_cast<double>(guides) : 0.0,
               t.examples.empty() ? "" : "  e.g. ", fmt::join(t.examples, ", "));
  }
  return tallies["citations"].count ? 1 : 0;
}
