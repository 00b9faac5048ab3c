#include "mergelens/analysis/code/coverage.h"

#include <algorithm>
#include <cctype>
#include <set>

#include <fmt/format.h>

#include "mergelens/analysis/text/text_facts.h"

namespace mergelens {
namespace {

std::string stem_of(std::string_view path) {
  std::string_view name = path.substr(path.rfind('/') + 1);
  name = name.substr(0, name.find('.'));
  std::string s(name);
  for (std::string_view affix : {"test_", "tests_"})
    if (s.starts_with(affix)) s = s.substr(affix.size());
  for (std::string_view affix : {"_test", "_tests", "_unittest", "_spec", "Test", "Tests"})
    if (s.size() > affix.size() && s.ends_with(affix)) s.resize(s.size() - affix.size());
  return s;
}

std::vector<std::string_view> components(std::string_view path) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (start < path.size()) {
    size_t slash = path.find('/', start);
    if (slash == std::string_view::npos) slash = path.size();
    out.push_back(path.substr(start, slash - start));
    start = slash + 1;
  }
  return out;
}

// Identifier-like words of a file's added lines.
std::set<std::string, std::less<>> added_words(const FileChange& f) {
  std::set<std::string, std::less<>> words;
  for (const auto& h : f.hunks)
    for (const auto& l : h.lines) {
      if (l.origin != '+') continue;
      const std::string& t = l.text;
      for (size_t i = 0; i < t.size();) {
        auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
        if (!ident(t[i])) {
          ++i;
          continue;
        }
        size_t j = i;
        while (j < t.size() && ident(t[j])) ++j;
        if (j - i >= 4 && !std::isdigit(static_cast<unsigned char>(t[i])))
          words.insert(t.substr(i, j - i));
        i = j;
      }
    }
  return words;
}

// Names too common to say which file a test exercises.
bool generic_name(std::string_view n) {
  static const std::set<std::string_view> kGeneric = {
      "__init__", "utils", "util",  "common", "base",  "main", "config", "types", "constants",
      "helpers",  "setup", "index", "test",   "tests", "init", "core",   "model", "models",
      "server",   "api",   "args",  "data",   "self",  "none", "true",   "false"};
  return n.size() < 4 || kGeneric.count(n) > 0;
}

// The last component of a qualified name ("Foo::bar", "Foo.bar" -> "bar").
std::string_view last_name(std::string_view n) {
  const size_t cut = n.find_last_of(":.");
  return cut == std::string_view::npos ? n : n.substr(cut + 1);
}

bool is_code(FileRole r) {
  return r == FileRole::kCore || r == FileRole::kKernel || r == FileRole::kModel;
}

}  // namespace

void find_coverage(const Change& change, Facts& facts) {
  auto role_of = [&](const std::string& p) {
    auto it = facts.roles.find(p);
    return it == facts.roles.end() ? FileRole::kCore : it->second;
  };
  std::set<std::string> skimmed;
  for (const auto& s : facts.skim) skimmed.insert(s.path);

  std::vector<const FileChange*> code, tests;
  bool benchmark_changed = false;
  for (const auto& f : change.files) {
    const FileRole r = role_of(f.path);
    if (r == FileRole::kTest && f.status != FileStatus::kDeleted) tests.push_back(&f);
    if (r == FileRole::kBenchmark) benchmark_changed = true;
    if (is_code(r) && !skimmed.count(f.path)) code.push_back(&f);
  }

  // A test covers a code file whose name it shares, whose module it names
  // (an import, an include) or whose added or changed definitions it calls;
  // failing those, the code file it shares most folders with.
  std::set<std::string> covered;
  for (const FileChange* t : tests) {
    const std::string stem = stem_of(t->path);
    const auto words = added_words(*t);
    const FileChange* named = nullptr;
    for (const FileChange* c : code) {
      bool mentioned = false;
      if (const std::string cs = stem_of(c->path); !generic_name(cs) && words.count(cs))
        mentioned = true;
      for (const auto& d : facts.definitions) {
        if (mentioned) break;
        if (d.at.path != c->path || d.change == "removed") continue;
        const std::string_view n = last_name(d.name);
        mentioned = !generic_name(n) && words.count(n) > 0;
      }
      if (mentioned) {
        covered.insert(c->path);
        if (!named) named = c;
      }
    }
    const FileChange* best = nullptr;
    size_t best_shared = 0;
    for (const FileChange* c : code) {
      if (!stem.empty() && stem_of(c->path) == stem) {
        best = c;
        break;
      }
      auto tc = components(t->path), cc = components(c->path);
      size_t shared = 0;
      for (auto a : tc)
        if (a != "test" && a != "tests" && std::find(cc.begin(), cc.end(), a) != cc.end()) ++shared;
      if (shared > best_shared) {
        best_shared = shared;
        best = c;
      }
    }
    if (named && (!best || stem_of(best->path) != stem)) best = named;
    facts.tests.push_back({t->path, best ? best->path : ""});
    if (best) covered.insert(best->path);
  }

  // Substantive code files without a covering test, strongest first.
  struct Candidate {
    const FileChange* f;
    int weight;
    std::string why;
  };
  std::vector<Candidate> uncovered;
  for (const FileChange* c : code) {
    if (covered.count(c->path)) continue;
    int guards = 0;
    for (const auto& s : facts.signals)
      if (s.added && s.at.path == c->path &&
          (s.kind == "guard" || s.kind == "fallback" || s.kind == "dtype_branch" ||
           s.kind == "device_branch" || s.kind == "platform_branch" || s.kind == "raise"))
        ++guards;
    const int lines = c->additions + c->deletions;
    if (lines < 10 && guards == 0) continue;
    std::string why = guards > 0
                          ? fmt::format("{} changed lines with {} new branch{} or guard{}", lines,
                                        guards, guards == 1 ? "" : "es", guards == 1 ? "" : "s")
                          : fmt::format("{} changed lines", lines);
    uncovered.push_back({c, guards * 50 + lines, std::move(why)});
  }
  std::sort(uncovered.begin(), uncovered.end(),
            [](const Candidate& a, const Candidate& b) { return a.weight > b.weight; });
  for (size_t i = 0; i < uncovered.size() && i < 3; ++i)
    facts.gaps.push_back({"test", uncovered[i].f->path,
                          tests.empty() ? uncovered[i].why + "; the change adds or edits no test"
                                        : uncovered[i].why + "; no changed test covers it"});

  const bool perf_claim =
      std::any_of(facts.numbers.begin(), facts.numbers.end(), [](const auto& n) {
        return n.kind == "speedup" || n.kind == "latency" || n.kind == "throughput" ||
               n.kind == "memory" || n.kind == "percent";
      });
  if (perf_claim && !benchmark_changed) {
    // The claim itself (the change's key figure), else its strongest
    // performance figure, a bare percentage last.
    std::string claim = key_figure(facts.numbers);
    if (claim.empty()) {
      auto rank = [](const NumberFact& x) {
        return x.kind == "speedup"                                                   ? 0
               : x.kind == "throughput" || x.kind == "latency" || x.kind == "memory" ? 1
               : x.kind == "percent"                                                 ? 2
                                                                                     : 3;
      };
      claim = std::min_element(
                  facts.numbers.begin(), facts.numbers.end(),
                  [&](const NumberFact& a, const NumberFact& b) { return rank(a) < rank(b); })
                  ->text;
    }
    facts.gaps.push_back({"benchmark", claim,
                          fmt::format("the text claims {} but no benchmark file changed", claim)});
  }
}

}  // namespace mergelens
