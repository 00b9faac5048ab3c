// The "test" items of the context resolver (see context.h): existing tests,
// unchanged by the change, that call a definition it edits. A reader who
// asks "is this path tested at all?" finds the answer there; a writer who
// was not shown them would call the change untested.
#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <re2/re2.h>

#include "mergelens/analysis/code/code_text.h"
#include "mergelens/analysis/code/context.h"
#include "mergelens/analysis/code/import_graph.h"

namespace mergelens {
namespace {

constexpr size_t kMaxItems = 4;       // test items per change
constexpr size_t kPerDefinition = 2;  // tests shown per edited definition
constexpr size_t kMaxFiles = 12;      // test files read per edited file

// A test module by its name or folder: test_x.py, x_test.py, tests/..., test/...
bool test_file(std::string_view p) {
  if (!p.ends_with(".py")) return false;
  const size_t slash = p.rfind('/');
  const std::string_view name = slash == std::string_view::npos ? p : p.substr(slash + 1);
  if (name.starts_with("test_") || name.ends_with("_test.py") || name == "conftest.py") return true;
  return p.starts_with("tests/") || p.starts_with("test/") ||
         p.find("/tests/") != std::string_view::npos || p.find("/test/") != std::string_view::npos;
}

// A test function or method: `test_x`, or `testX` in a unittest class.
bool test_name(std::string_view n) {
  return n.starts_with("test");
}

// Names too common to mean one definition when called as `.name(` (a
// method of any object) or `name(`.
bool common_name(std::string_view n) {
  static const std::set<std::string_view> kCommon = {
      "__init__", "__call__", "forward", "run",  "apply",   "call",   "get",     "set",
      "update",   "build",    "load",    "save", "step",    "reset",  "init",    "setup",
      "start",    "stop",     "close",   "main", "process", "create", "execute", "to",
      "copy",     "clone",    "items",   "keys", "values",  "append", "extend",  "add"};
  return n.size() < 4 || kCommon.count(n) > 0;
}

// The lines a test sees its fixtures in: its test class's, when it is a
// method of one, else its own. 1-based, inclusive.
std::pair<std::int32_t, std::int32_t> scope_of(const SymbolIndex& index, const std::string& path,
                                               const CodeTag& test) {
  if (!test.scope.empty())
    if (const auto* tags = index.in_file(path))
      for (const auto& t : *tags)
        if (t.kind == "class" && t.qualified() == test.scope && t.line <= test.line)
          return {t.line, std::max(t.end, t.line)};
  return {test.line, std::max(test.end, test.line)};
}

// Whether lines [first, last] of `text` assign `var` an object of class
// `cls`: `var = Cls(...)`, `var = mod.Cls(...)` or `var = Cls.from_x(...)`.
bool made_in(const std::string& text, std::string_view var, std::string_view cls,
             std::pair<std::int32_t, std::int32_t> lines) {
  if (var.empty()) return false;
  const RE2 re(fmt::format(R"((?:^|[^\w.]){}\s*(?::[^=]*)?=\s*(?:\w+\.)*{}\s*[(.])",
                           RE2::QuoteMeta(var), RE2::QuoteMeta(cls)),
               signal_internal::latin1());
  std::int32_t no = 0;
  size_t pos = 0;
  while (pos < text.size() && no < lines.second) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    if (++no >= lines.first && RE2::PartialMatch(std::string_view(text).substr(pos, nl - pos), re))
      return true;
    pos = nl + 1;
  }
  return false;
}

}  // namespace

void ContextProbe::add_tests(std::vector<ContextItem>& out, const SymbolIndex& merge,
                             const ImportGraph& graph, const MergeReader& read,
                             std::map<std::string, std::optional<std::string>>& files_read) const {
  if (!read) return;
  // Lines the change adds or keeps in its hunks, per path at the merge: a
  // test holding one is in the diff (edited by the change, or shown there).
  std::map<std::string, std::vector<std::pair<std::int32_t, std::int32_t>>> shown;
  std::map<std::string, std::string> new_path;  // old path → path at the merge
  for (const auto& f : change_.files) {
    new_path[f.old_path.empty() ? f.path : f.old_path] = f.path;
    for (const auto& h : f.hunks)
      if (h.new_lines > 0) shown[f.path].emplace_back(h.new_start, h.new_start + h.new_lines - 1);
  }
  auto in_diff = [&](const std::string& path, const CodeTag& t) {
    auto it = shown.find(path);
    if (it == shown.end()) return false;
    const std::int32_t last = std::max(t.end, t.line);
    return std::any_of(it->second.begin(), it->second.end(),
                       [&](const auto& r) { return r.first <= last && t.line <= r.second; });
  };
  size_t added = 0;
  std::set<std::pair<std::string, std::int32_t>> seen;  // test definitions shown
  std::set<std::string> names_done;
  for (const auto& it : items_) {
    if (added >= kMaxItems) break;
    if (it.why != "changed" || !it.path.ends_with(".py") || test_file(it.path)) continue;
    // Functions and methods: a test that builds an edited class mostly
    // tests something else of it (a hand check: 6 of 8 such items).
    if (it.kind != "function" && it.kind != "method") continue;
    const std::string_view name = last_part(it.name);
    if (common_name(name) || name.starts_with("_") || !names_done.emplace(it.name).second) continue;
    auto np = new_path.find(it.path);
    if (np == new_path.end()) continue;
    const std::string& path = np->second;
    // The definition must still stand at the merge under its name: a test
    // of a removed or renamed one says nothing about the new code.
    const auto* now = merge.in_file(path);
    if (!now || std::none_of(now->begin(), now->end(), [&](const CodeTag& t) {
          return t.qualified() == it.name && t.kind == it.kind;
        }))
      continue;
    // Test files importing the module, or its package's __init__.py (a
    // package re-exports its modules' names).
    std::vector<std::string> files;
    for (const auto& p : graph.importers_of(path))
      if (test_file(p)) files.push_back(p);
    if (const size_t slash = path.rfind('/'); slash != std::string::npos)
      for (const auto& p : graph.importers_of(path.substr(0, slash) + "/__init__.py"))
        if (test_file(p) && std::find(files.begin(), files.end(), p) == files.end())
          files.push_back(p);
    if (files.size() > kMaxFiles) files.resize(kMaxFiles);
    // A method is called on an object (`recv.name(`, the receiver caught),
    // and only in a file that names its class; a function by its name
    // (`name(`, not `.name(` nor `def name(`).
    const bool method = it.kind == "method";
    const std::string cls = method ? std::string(last_part(std::string_view(it.name).substr(
                                         0, it.name.size() - name.size() - 1)))
                                   : std::string();
    const RE2 call(
        method ? fmt::format(R"(((?:\w+\.)*\w+(?:\(\))?)\s*\.{}\s*\()", RE2::QuoteMeta(name))
               : fmt::format(R"((?:^|[^\w.]){}\s*\()", RE2::QuoteMeta(name)),
        signal_internal::latin1());
    // A call heading a `with` is the test's setting, not what it checks.
    static const RE2 kWith(R"(^\s*(?:async\s+)?with\s)", signal_internal::latin1());
    size_t for_this = 0;
    for (const auto& p : files) {
      if (for_this >= kPerDefinition || added >= kMaxItems) break;
      auto fr = files_read.find(p);
      if (fr == files_read.end()) fr = files_read.emplace(p, read(p)).first;
      const auto& content = fr->second;
      if (!content || content->find(name) == std::string::npos) continue;
      if (method && content->find(cls) == std::string::npos) continue;
      std::int32_t no = 0;
      size_t pos = 0;
      while (pos < content->size() && for_this < kPerDefinition && added < kMaxItems) {
        size_t nl = content->find('\n', pos);
        if (nl == std::string::npos) nl = content->size();
        const std::string_view line = code_of(std::string_view(*content).substr(pos, nl - pos));
        pos = nl + 1;
        ++no;
        std::string recv;
        if (line.find(name) == std::string_view::npos ||
            !(method ? RE2::PartialMatch(line, call, &recv) : RE2::PartialMatch(line, call)) ||
            RE2::PartialMatch(line, kWith))
          continue;
        // The test holding the call: the innermost `test…` function or
        // method around it (a helper of the test module is not a test).
        const CodeTag* d = merge.enclosing(p, no);
        while (d && !test_name(d->name)) {
          const CodeTag* outer = nullptr;
          if (const auto* tags = merge.in_file(p))
            for (const auto& t : *tags)
              if ((t.kind == "function" || t.kind == "method") && t.line < d->line &&
                  std::max(t.end, t.line) >= std::max(d->end, d->line) &&
                  (!outer || t.line > outer->line))
                outer = &t;
          d = outer;
        }
        if (!d || in_diff(p, *d)) continue;
        // A method's receiver is its class (`Cls.name(`, `Cls().name(`), or
        // made from it where the test lives: in the test function, or in its
        // test class (`self.layer = Cls(...)` in setUp). A file testing two
        // classes with a method of one name calls each on its own objects;
        // a type hint naming the class makes nothing.
        if (method && recv != cls && recv != cls + "()" &&
            !made_in(*content, recv, cls, scope_of(merge, p, *d)))
          continue;
        if (!seen.emplace(p, d->line).second) continue;
        ContextItem item{"test",  d->qualified(), d->kind,
                         p,       d->line,        std::max(d->end, d->line),
                         "merge", d->signature,   fmt::format("{}:{}", p, no)};
        item.target = it.name;
        out.push_back(std::move(item));
        ++for_this;
        ++added;
        // One call per test is enough: go on past its end.
        const std::int32_t end = std::max(d->end, d->line);
        while (no < end && pos < content->size()) {
          size_t skip = content->find('\n', pos);
          pos = skip == std::string::npos ? content->size() : skip + 1;
          ++no;
        }
      }
    }
  }
}

}  // namespace mergelens
