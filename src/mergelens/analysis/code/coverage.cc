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

// Whether a test's added lines name `code_path` as a module: its dotted path
// ("observers.mse" for src/llmcompressor/observers/mse.py) or an import of
// its stem from its package ("from llmcompressor.observers import mse").
bool names_module(const FileChange& test, std::string_view code_path) {
  std::string_view p = code_path;
  const size_t dot = p.rfind('.');
  if (dot == std::string_view::npos || p.substr(dot) != ".py") return false;
  p = p.substr(0, dot);
  const size_t last = p.rfind('/');
  if (last == std::string_view::npos) return false;
  const std::string_view stem = p.substr(last + 1);
  const size_t prev = p.rfind('/', last - 1);
  const std::string_view parent = p.substr(prev == std::string_view::npos ? 0 : prev + 1,
                                           last - (prev == std::string_view::npos ? 0 : prev + 1));
  if (stem == "__init__" || parent.empty()) return false;
  const std::string dotted = std::string(parent) + "." + std::string(stem);
  const std::string from = std::string(parent) + " import";
  for (const auto& h : test.hunks)
    for (const auto& l : h.lines) {
      if (l.origin != '+') continue;
      const std::string& t = l.text;
      size_t at = t.find(dotted);
      while (at != std::string::npos) {
        const size_t e = at + dotted.size();
        const bool word_end =
            e == t.size() || !(std::isalnum(static_cast<unsigned char>(t[e])) || t[e] == '_');
        if (word_end) return true;
        at = t.find(dotted, at + 1);
      }
      if (t.find(from) != std::string::npos) {
        const size_t imp = t.find(from) + from.size();
        const std::string_view names = std::string_view(t).substr(imp);
        for (size_t q = names.find(stem); q != std::string_view::npos;
             q = names.find(stem, q + 1)) {
          const bool b = q == 0 || !(std::isalnum(static_cast<unsigned char>(names[q - 1])) ||
                                     names[q - 1] == '_');
          const size_t e = q + stem.size();
          const bool a = e == names.size() ||
                         !(std::isalnum(static_cast<unsigned char>(names[e])) || names[e] == '_');
          if (a && b) return true;
        }
      }
    }
  return false;
}

// Signals that open a new path a test can take: a guard, a fallback, a
// handled exception, a branch on dtype, device or platform, an early return,
// a raise or an added check (assert, TORCH_CHECK) a bad input trips.
bool opens_path(const Signal& s) {
  static constexpr std::string_view kKinds[] = {"guard",        "fallback",      "handler",
                                                "dtype_branch", "device_branch", "platform_branch",
                                                "early_return", "raise",         "assert"};
  if (!s.added || std::find(std::begin(kKinds), std::end(kKinds), s.kind) == std::end(kKinds))
    return false;
  // Rust's assert!/assert_eq! live mostly in a file's own #[cfg(test)]
  // module: a test, not a path for one to take.
  return !(s.kind == "assert" && s.detail.starts_with("assert") &&
           s.detail.find('!') < s.detail.find('('));
}

// An `assert NAME is not None` whose previous code line assigns NAME (`NAME
// = value`) narrows the type for a checker: it tests no input of its own, so
// it opens no path a test could take.
bool narrowing_assert(const Change& change, const Signal& s) {
  if (s.kind != "assert" || !s.detail.starts_with("assert ")) return false;
  std::string_view d = std::string_view(s.detail).substr(7);
  d = d.substr(0, d.find(','));
  while (!d.empty() && d.back() == ' ') d.remove_suffix(1);
  if (!d.ends_with(" is not None")) return false;
  const std::string_view name = d.substr(0, d.size() - 12);
  if (name.empty() || name.find_first_of(" ()[]") != std::string_view::npos) return false;
  for (const auto& fc : change.files) {
    if (fc.path != s.at.path) continue;
    for (const auto& h : fc.hunks) {
      const DiffLine* prev = nullptr;
      for (const auto& l : h.lines) {
        if (l.origin == '-' || l.origin == '\\') continue;
        if (l.new_no == s.at.line) {
          if (!prev) return false;
          std::string_view t = prev->text;
          while (!t.empty() && (t.front() == ' ' || t.front() == '\t')) t.remove_prefix(1);
          if (!t.starts_with(name)) return false;
          t.remove_prefix(name.size());
          while (!t.empty() && t.front() == ' ') t.remove_prefix(1);
          if (t.starts_with(":")) {  // an annotated assignment, `x: T = value`
            const size_t eq = t.find(" = ");
            if (eq == std::string_view::npos) return false;
            t.remove_prefix(eq + 1);
          }
          return t.starts_with("=") && !t.starts_with("==");
        }
        std::string_view t = l.text;
        while (!t.empty() && (t.front() == ' ' || t.front() == '\t')) t.remove_prefix(1);
        if (!t.empty() && !t.starts_with("#")) prev = &l;
      }
    }
  }
  return false;
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
      // An end-to-end test named for what the file implements ("test_minimax_m3"
      // runs the model of minimax_m3_vl.py) names it.
      if (const std::string cs = stem_of(c->path); !generic_name(stem) && cs.size() > stem.size() &&
                                                   cs.starts_with(stem) && cs[stem.size()] == '_')
        mentioned = true;
      for (const auto& d : facts.definitions) {
        if (mentioned) break;
        if (d.at.path != c->path || d.change == "removed") continue;
        const std::string_view n = last_name(d.name);
        mentioned = !generic_name(n) && words.count(n) > 0;
      }
      mentioned = mentioned || names_module(*t, c->path);
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

  // Code files with new paths no changed test reaches, strongest first. A
  // gap names what a test should take: without a new branch or guard (a
  // deletion, a rename, a table, moved code) there is none to name. Paths in
  // moved hunks were there before the change.
  auto in_moved_hunk = [&](const Signal& s) {
    for (const auto& h : facts.hunks)
      if (h.moved && h.file < change.files.size() && change.files[h.file].path == s.at.path &&
          s.at.line >= h.new_start && s.at.line <= h.new_end)
        return true;
    return false;
  };
  struct Candidate {
    const FileChange* f;
    int weight;
    std::string why;
    std::string symbol;  // the definition holding the first branch
  };
  // An `if` whose removed twin was an `if` (a condition narrowed or widened)
  // was a branch before the change: a test of it is no new gap.
  auto edited_branch = [&](const Signal& s) {
    return std::any_of(
        facts.replacements.begin(), facts.replacements.end(), [&](const Replacement& r) {
          if (r.path != s.at.path || r.new_line != s.at.line) return false;
          std::string_view t = r.old_text;
          while (!t.empty() && (t.front() == '}' || t.front() == ' ')) t.remove_prefix(1);
          return t.starts_with("if") || t.starts_with("elif") || t.starts_with("else if") ||
                 t.starts_with("except") || t.starts_with("catch");
        });
  };
  std::vector<Candidate> uncovered;
  for (const FileChange* c : code) {
    if (covered.count(c->path) || c->additions == 0) continue;
    int guards = 0;
    const Signal* first = nullptr;
    for (const auto& s : facts.signals)
      if (s.at.path == c->path && opens_path(s) && !in_moved_hunk(s) && !edited_branch(s) &&
          !narrowing_assert(change, s)) {
        ++guards;
        if (!first) first = &s;
      }
    if (guards == 0) continue;
    const int lines = c->additions + c->deletions;
    // A checked fallback's detail is its condition: name it as the `if` it is.
    const std::string what =
        first->kind == "fallback" ? "if " + first->detail + ":" : first->detail;
    std::string why =
        fmt::format("{} changed lines with {} new branch{} or guard{}; first: {}", lines, guards,
                    guards == 1 ? "" : "es", guards == 1 ? "" : "s", what);
    uncovered.push_back({c, guards * 50 + lines, std::move(why), first->at.symbol});
  }
  std::sort(uncovered.begin(), uncovered.end(),
            [](const Candidate& a, const Candidate& b) { return a.weight > b.weight; });
  for (size_t i = 0; i < uncovered.size() && i < 3; ++i)
    facts.gaps.push_back({"test", uncovered[i].f->path,
                          tests.empty() ? uncovered[i].why + "; the change adds or edits no test"
                                        : uncovered[i].why + "; no changed test covers it",
                          uncovered[i].symbol});

  // A benchmark gap needs a claim: the figure that sums the change up
  // (key_figure: a speed-up, a before/after pair, or a figure whose sentence
  // says what improved), not any number the text holds.
  if (const std::string claim = key_figure(facts.numbers); !claim.empty() && !benchmark_changed)
    facts.gaps.push_back({"benchmark", claim,
                          fmt::format("the text claims {} but no benchmark file changed", claim)});
}

}  // namespace mergelens
