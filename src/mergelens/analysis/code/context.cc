// The context resolver (see context.h): an index of a parser's tags and the
// probe that reads a change against it at the parent and the merge.
#include "mergelens/analysis/code/context.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <re2/re2.h>

#include "mergelens/analysis/code/code_text.h"
#include "mergelens/analysis/code/import_graph.h"

namespace mergelens {
namespace {

// Whether the lines of definition `t` overlap one of `path`'s [first, last]
// line ranges in `ranges`.
bool overlaps(
    const std::map<std::string, std::vector<std::pair<std::int32_t, std::int32_t>>>& ranges,
    const std::string& path, const CodeTag& t) {
  auto it = ranges.find(path);
  if (it == ranges.end()) return false;
  for (auto [a, b] : it->second)
    if (t.line <= b && a <= t.end) return true;
  return false;
}

using signal_internal::Cap;

const RE2& call_pattern() {
  static const RE2* re =
      new RE2(R"re((?:(\w+)\s*\.\s*)?\b([A-Za-z_]\w*)\s*\()re", signal_internal::latin1());
  return *re;
}
const RE2& constant_pattern() {
  static const RE2* re =
      new RE2(R"re(\b(_{0,2}[A-Z][A-Z0-9]*_[A-Z0-9_]*[A-Z0-9])\b)re", signal_internal::latin1());
  return *re;
}

bool skipped_name(std::string_view n) {
  static const std::set<std::string_view> kSkip = {
      // Python keywords and builtins
      "if", "elif", "while", "for", "return", "not", "and", "or", "in", "is", "print", "len",
      "isinstance", "issubclass", "super", "range", "int", "str", "float", "bool", "dict", "list",
      "set", "tuple", "getattr", "setattr", "hasattr", "min", "max", "sum", "any", "all", "zip",
      "enumerate", "sorted", "reversed", "type", "open", "repr", "iter", "next", "map", "filter",
      "abs", "round", "id", "hash", "callable", "vars", "format", "object", "property", "assert",
      "lambda", "yield", "await", "with", "except", "raise", "del", "def", "class", "import",
      "from", "as", "pass", "staticmethod", "classmethod", "frozenset", "bytes", "divmod", "pow",
      "ord", "chr", "slice", "globals", "locals", "dataclass", "field", "append", "extend", "get",
      "items", "keys", "values", "pop", "update", "join", "split", "strip", "startswith",
      "endswith", "replace", "lower", "upper", "copy", "clone", "to", "view", "reshape", "size",
      "format", "item", "tolist", "contiguous", "__init__", "forward", "cuda", "cpu", "numel",
      "dim", "shape", "add", "remove", "insert", "index", "count", "sort", "clear", "setdefault",
      "info", "debug", "warning", "error", "exception", "critical", "log",
      // C and C++
      "switch", "sizeof", "static_cast", "reinterpret_cast", "const_cast", "dynamic_cast",
      "decltype", "alignof", "static_assert", "defined", "TORCH_CHECK", "AT_ERROR", "assert",
      "printf", "std", "make_tuple", "make_pair", "move", "forward", "begin", "end", "data",
      "push_back", "emplace_back", "at", "empty", "resize", "reserve"};
  return kSkip.count(n) > 0;
}

bool is_definition_kind(std::string_view k) {
  return k == "function" || k == "method" || k == "class" || k == "struct";
}

bool code_file(std::string_view p) {
  for (std::string_view ext :
       {".py", ".pyi", ".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".hxx", ".cu", ".cuh"})
    if (p.ends_with(ext)) return true;
  return false;
}

bool test_path(std::string_view p) {
  return p.find("test") != std::string_view::npos;
}

std::string squeeze(std::string_view s) {
  std::string out;
  for (char c : s)
    if (c != ' ' && c != '\t' && c != '\n') out += c;
  return out;
}

ContextItem item_of(const std::string& why, const std::string& path, const CodeTag& t,
                    const char* revision, std::string at) {
  return {why,      t.qualified(), t.kind,        path, t.line, std::max(t.end, t.line),
          revision, t.signature,   std::move(at), {}};
}

// The innermost function, method or class of `path` in `index` holding both
// lines `first` and `last`; nullptr when none.
const CodeTag* enclosing_both(const SymbolIndex& index, const std::string& path, std::int32_t first,
                              std::int32_t last) {
  const auto* tags = index.in_file(path);
  if (!tags) return nullptr;
  const CodeTag* best = nullptr;
  for (const auto& t : *tags)
    if (is_definition_kind(t.kind) && t.line <= first && last <= t.end &&
        (!best || t.end - t.line < best->end - best->line))
      best = &t;
  return best;
}

// The definition of `path` in `index` whose first line is the first at or
// after `line`; nullptr when none.
const CodeTag* next_definition(const SymbolIndex& index, const std::string& path,
                               std::int32_t line) {
  const auto* tags = index.in_file(path);
  if (!tags) return nullptr;
  const CodeTag* best = nullptr;
  for (const auto& t : *tags)
    if (is_definition_kind(t.kind) && t.line >= line && (!best || t.line < best->line)) best = &t;
  return best;
}

// The distinct names of `tags`, sorted (views into the tags).
std::vector<std::string_view> names_of(const std::vector<CodeTag>& tags) {
  std::vector<std::string_view> names;
  names.reserve(tags.size());
  for (const auto& t : tags) names.emplace_back(t.name);
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

}  // namespace

void SymbolIndex::set_file(const std::string& path, std::vector<CodeTag> tags) {
  remove_file(path);
  if (tags.empty()) return;
  tag_count_ += tags.size();
  const auto& [key, stored] = *by_path_.emplace(path, std::move(tags)).first;
  for (std::uint32_t i = 0; i < stored.size(); ++i) {
    auto& refs = by_name_[stored[i].name];
    // After every tag of an earlier path or of an earlier place here.
    auto at = std::partition_point(refs.begin(), refs.end(), [&](const TagRef& r) {
      return *r.path < key || (r.path == &key && r.index < i);
    });
    refs.insert(at, TagRef{&key, &stored, i});
  }
}

void SymbolIndex::remove_file(const std::string& path) {
  auto it = by_path_.find(path);
  if (it == by_path_.end()) return;
  const std::string* key = &it->first;
  for (const auto n : names_of(it->second)) {
    auto v = by_name_.find(std::string(n));
    if (v == by_name_.end()) continue;
    std::erase_if(v->second, [&](const TagRef& r) { return r.path == key; });
    if (v->second.empty()) by_name_.erase(v);
  }
  tag_count_ -= it->second.size();
  by_path_.erase(it);
}

void SymbolIndex::clear() {
  by_path_.clear();
  by_name_.clear();
  tag_count_ = 0;
  commit.clear();
}

const std::vector<CodeTag>* SymbolIndex::in_file(const std::string& path) const {
  auto it = by_path_.find(path);
  return it == by_path_.end() ? nullptr : &it->second;
}

std::vector<std::pair<const std::string*, const CodeTag*>> SymbolIndex::lookup(
    std::string_view name) const {
  std::vector<std::pair<const std::string*, const CodeTag*>> out;
  auto it = by_name_.find(std::string(name));
  if (it == by_name_.end()) return out;
  out.reserve(it->second.size());
  for (const auto& r : it->second) out.emplace_back(r.path, &(*r.file)[r.index]);
  return out;
}

const CodeTag* SymbolIndex::enclosing(const std::string& path, std::int32_t line) const {
  const auto* tags = in_file(path);
  if (!tags) return nullptr;
  const CodeTag* best = nullptr;
  for (const auto& t : *tags)
    if (is_definition_kind(t.kind) && t.line <= line && line <= t.end &&
        (!best || t.end - t.line < best->end - best->line))
      best = &t;
  return best;
}

const DefinitionRef* definition_meant(
    const std::vector<DefinitionRef>& defs, const std::string& path,
    const std::function<const std::vector<std::string>&()>& imports) {
  if (defs.empty()) return nullptr;
  for (const auto& d : defs)
    if (*d.first == path) return &d;
  const auto& imported = imports();
  const DefinitionRef* only = nullptr;
  size_t hits = 0;
  for (const auto& d : defs)
    if (std::binary_search(imported.begin(), imported.end(), *d.first)) ++hits, only = &d;
  if (hits == 1) return only;
  only = nullptr;
  hits = 0;
  for (const auto& d : defs)
    if (!test_path(*d.first)) ++hits, only = &d;
  return hits == 1 ? only : nullptr;
}

void called_names(std::string_view text, std::vector<CalledName>& out) {
  if (text.find('(') == std::string_view::npos) return;  // every call holds one
  // A call written inside a string literal ("use `oneshot(model)`") calls
  // nothing: the literals of the line are blanked first (on a copy, made
  // only when the line has a quote).
  std::string blanked;
  if (text.find_first_of("\"'") != std::string_view::npos) blanked = text;
  char quote = 0;
  for (size_t i = 0; i < blanked.size(); ++i) {
    const char ch = blanked[i];
    if (quote) {
      if (ch == '\\') {
        blanked[i] = ' ';
        if (i + 1 < blanked.size()) blanked[++i] = ' ';
      } else if (ch == quote) {
        quote = 0;
      } else {
        blanked[i] = ' ';
      }
    } else if (ch == '"' || ch == '\'') {
      quote = ch;
    }
  }
  const std::string_view line = blanked.empty() ? text : std::string_view(blanked);
  re2::StringPiece in(line.data(), line.size());
  Cap receiver, name;
  while (RE2::FindAndConsume(&in, call_pattern(), &receiver, &name)) {
    if (skipped_name(name) || name.size() < 3) continue;
    // "def name(" and "class name(" define, they do not call.
    const size_t at = static_cast<size_t>(name.data() - line.data());
    std::string_view before = line.substr(0, at);
    while (!before.empty() && before.back() == ' ') before.remove_suffix(1);
    if (before.ends_with("def") || before.ends_with("class")) continue;
    CalledName c{std::string(name), std::string(receiver)};
    if (std::none_of(out.begin(), out.end(), [&](const CalledName& o) {
          return o.name == c.name && o.receiver == c.receiver;
        }))
      out.push_back(std::move(c));
  }
}

ContextProbe::ContextProbe(const SymbolIndex& parent, const ImportGraph& graph,
                           const Change& change)
    : change_(change) {
  std::vector<ContextItem> changed, called, constants;
  std::set<std::pair<std::string, std::int32_t>> seen;  // (path, line) of items at the parent
  std::map<std::string, int> mentions;                  // "path\nline" → count, for ranking
  // Hunk spans at the parent, per old path: definitions inside them are
  // the change's own and are shown by the diff.
  std::map<std::string, std::vector<std::pair<std::int32_t, std::int32_t>>> spans;
  for (const auto& f : change.files) {
    if (f.binary || !code_file(f.path) || f.status == FileStatus::kAdded) continue;
    const std::string& old = f.old_path.empty() ? f.path : f.old_path;
    if (const auto* tags = parent.in_file(old))
      for (const auto& t : *tags)
        if (is_definition_kind(t.kind)) parent_defs_[f.path].emplace(t.qualified(), t);
    for (const auto& h : f.hunks) {
      std::int32_t first = 0, last = 0, at = h.old_start > 0 ? h.old_start - 1 : 0;
      for (const auto& l : h.lines) {  // the changed lines' span at the parent, no context
        if (l.old_no > 0) at = l.old_no;
        if (l.origin != '+' && l.origin != '-') continue;
        const std::int32_t pos = l.origin == '-' ? at : at + 1;
        if (!first) first = pos;
        last = pos;
      }
      if (first) spans[old].emplace_back(first, last);
      std::int32_t old_no = h.old_start > 0 ? h.old_start - 1 : 0, new_no = h.new_start;
      const bool py = old.ends_with(".py");
      for (size_t k = 0; k < h.lines.size(); ++k) {
        const auto& l = h.lines[k];
        if (l.old_no > 0) old_no = l.old_no;
        if (l.new_no > 0) new_no = l.new_no;
        if (l.origin != '+' && l.origin != '-') continue;
        // A removed line is in the definition holding it; added lines sit
        // between old lines old_no and old_no + 1, so only a definition
        // holding both holds them (not one whose first line is old_no + 1:
        // lines added just before a definition, or between its decorators
        // and its line as the diff may align them, do not edit it). The
        // parser's ranges start at `def`: a decorator removed (in a run that
        // removes no definition), or added in a
        // run of decorators only right above a kept line, edits the
        // definition after it.
        const CodeTag* d = nullptr;
        if (py && decorator_line(l.text) &&
            (l.origin == '-' ? !removes_a_definition(h.lines, k) : decorators_only_run(h.lines, k)))
          d = next_definition(parent, old, old_no + 1);
        if (!d)
          d = l.origin == '-' ? parent.enclosing(old, std::max(old_no, 1))
                              : enclosing_both(parent, old, old_no, old_no + 1);
        if (d)
          if (seen.emplace(old, d->line).second)
            changed.push_back(item_of("changed", old, *d, "parent",
                                      fmt::format("{}:{}", f.path, std::max(new_no, 1))));
      }
    }
  }
  auto inside_hunk = [&](const std::string& path, const CodeTag& t) {
    return overlaps(spans, path, t);
  };
  std::map<std::string, std::vector<std::string>> imports;  // per file, read once
  // Resolves a name used in `path` to one definition at the parent: in the
  // same file, else in a file it imports, else the only one outside tests.
  auto resolve = [&](const std::string& path, std::string_view name, bool method,
                     bool constant) -> std::pair<const std::string*, const CodeTag*> {
    auto all = parent.lookup(name);
    std::erase_if(all, [&](const auto& pt) {
      const CodeTag& t = *pt.second;
      if (constant) return !(t.scope.empty() && (t.kind == "variable" || t.kind == "macro"));
      if (!is_definition_kind(t.kind)) return true;
      return method ? t.kind != "method" : t.kind == "method";
    });
    const DefinitionRef* pick = definition_meant(
        all, path, [&]() -> const auto& {
          auto cached = imports.find(path);
          if (cached == imports.end()) cached = imports.emplace(path, graph.imports_of(path)).first;
          return cached->second;
        });
    return pick ? *pick : DefinitionRef{nullptr, nullptr};
  };
  for (const auto& f : change.files) {
    if (f.binary || !code_file(f.path)) continue;
    const std::string& old = f.old_path.empty() ? f.path : f.old_path;
    for (const auto& h : f.hunks)
      for (const auto& l : h.lines) {
        if (l.origin != '+' && l.origin != '-') continue;
        const std::string_view code = old.ends_with(".py") ? code_of(l.text) : l.text;
        const bool calls = code.find('(') != std::string_view::npos;
        const bool upper = code.find('_') != std::string_view::npos;  // constants hold one
        if (!calls && !upper) continue;
        const std::string at = fmt::format("{}:{}", f.path, l.new_no > 0 ? l.new_no : h.new_start);
        std::vector<CalledName> names;
        if (calls) called_names(code, names);
        for (const auto& n : names) {
          const bool self = n.receiver == "self" || n.receiver == "cls";
          std::pair<const std::string*, const CodeTag*> r{nullptr, nullptr};
          if (n.receiver.empty()) {
            r = resolve(old, n.name, false, false);
          } else {
            r = resolve(old, n.name, true, false);
            if (!r.second && !self) r = resolve(old, n.name, false, false);  // module.func(
          }
          auto [p, t] = r;
          if (!t || inside_hunk(*p, *t)) continue;
          ++mentions[*p + '\n' + std::to_string(t->line)];
          if (seen.emplace(*p, t->line).second)
            called.push_back(item_of("called", *p, *t, "parent", at));
        }
        re2::StringPiece in(code.data(), code.size());
        Cap c;
        while (upper && RE2::FindAndConsume(&in, constant_pattern(), &c)) {
          auto [p, t] = resolve(old, c, false, true);
          if (!t || inside_hunk(*p, *t)) continue;
          if (seen.emplace(*p, t->line).second)
            constants.push_back(item_of("constant", *p, *t, "parent", at));
        }
      }
  }
  std::stable_sort(called.begin(), called.end(), [&](const ContextItem& a, const ContextItem& b) {
    return mentions[a.path + '\n' + std::to_string(a.start_line)] >
           mentions[b.path + '\n' + std::to_string(b.start_line)];
  });
  if (changed.size() > 8) changed.resize(8);
  if (called.size() > 8) called.resize(8);
  if (constants.size() > 4) constants.resize(4);
  for (auto* v : {&changed, &called, &constants}) items_.insert(items_.end(), v->begin(), v->end());
  note_definitions(parent);
}

std::vector<ContextItem> ContextProbe::finish(const SymbolIndex& merge, const ImportGraph& graph,
                                              const MergeReader& read) const {
  std::vector<ContextItem> out = items_;
  std::vector<ContextItem> callers;
  std::map<std::string, std::optional<std::string>> files_read;  // each file read once
  for (const auto& f : change_.files) {
    auto was = parent_defs_.find(f.path);
    const auto* now = merge.in_file(f.path);
    if (was == parent_defs_.end() || !now) continue;
    for (const auto& t : *now) {
      if (t.kind != "function" && t.kind != "method") continue;
      auto old = was->second.find(t.qualified());
      if (old == was->second.end() || squeeze(old->second.signature) == squeeze(t.signature))
        continue;
      if (t.name.size() < 3 || t.name.starts_with("__") || !read) continue;
      // Callers: the file itself and the files importing it, at the merge.
      std::vector<std::string> files = graph.importers_of(f.path);
      files.insert(files.begin(), f.path);
      if (files.size() > 12) files.resize(12);
      const RE2 call(fmt::format(R"((?:^|[^\w]){}\s*\()", RE2::QuoteMeta(t.name)),
                     signal_internal::latin1());
      const std::string def = "def " + t.name;
      for (const auto& p : files) {
        if (callers.size() >= 6) break;  // full: no file can add one
        auto it = files_read.find(p);
        if (it == files_read.end()) it = files_read.emplace(p, read(p)).first;
        const auto& content = it->second;
        if (!content) continue;
        std::int32_t no = 0;
        size_t pos = 0;
        while (pos <= content->size() && callers.size() < 6) {
          size_t nl = content->find('\n', pos);
          std::string_view line(content->data() + pos,
                                (nl == std::string::npos ? content->size() : nl) - pos);
          ++no;
          // Only a line holding the name can call it.
          if (line.find(t.name) != std::string_view::npos && RE2::PartialMatch(line, call) &&
              line.find(def) == std::string_view::npos)
            if (const CodeTag* d = merge.enclosing(p, no))
              if (!(p == f.path && d->line == t.line))
                callers.push_back(item_of("caller", p, *d, "merge", fmt::format("{}:{}", p, no)));
          if (nl == std::string::npos) break;
          pos = nl + 1;
        }
      }
    }
  }
  // One caller item per definition.
  std::set<std::pair<std::string, std::int32_t>> seen;
  for (auto& c : callers)
    if (seen.emplace(c.path, c.start_line).second) out.push_back(std::move(c));
  add_attributes(out, merge, graph, read, files_read);
  add_callees(out, merge, graph, read, files_read);
  add_tests(out, merge, graph, read, files_read);
  return out;
}

// What the definitions the change edits call on their unchanged lines (at
// the merge): where the edited code's results go, which a reviewer opens
// next ("autowrap_forward" hands the new source to `AutoWrapper.auto_wrap`).
// At most 4, the most called first, after every other item; none the diff
// shows or the items already hold.
void ContextProbe::add_callees(
    std::vector<ContextItem>& out, const SymbolIndex& merge, const ImportGraph& graph,
    const MergeReader& read, std::map<std::string, std::optional<std::string>>& files_read) const {
  if (!read) return;
  std::map<std::string, std::string> new_path;  // parent path → merge path
  std::map<std::string, std::vector<std::pair<std::int32_t, std::int32_t>>> added;  // at merge
  for (const auto& f : change_.files) {
    new_path[f.old_path.empty() ? f.path : f.old_path] = f.path;
    for (const auto& h : f.hunks)
      for (const auto& l : h.lines)
        if (l.origin == '+' && l.new_no > 0) added[f.path].emplace_back(l.new_no, l.new_no);
  }
  auto in_diff = [&](const std::string& path, const CodeTag& t) {
    return overlaps(added, path, t);
  };
  std::set<std::string> held;  // "path\nname" of the items already given
  for (const auto& it : out) held.insert(it.path + '\n' + it.name);
  struct Found {
    std::string path;
    const CodeTag* tag;
    std::string at;
    int calls;
  };
  std::vector<Found> found;
  std::map<std::string, std::vector<std::string>> imports;
  for (const auto& item : items_) {
    if (item.why != "changed" || (item.kind != "function" && item.kind != "method")) continue;
    auto np = new_path.find(item.path);
    const std::string path = np == new_path.end() ? item.path : np->second;
    const auto* tags = merge.in_file(path);
    if (!tags) continue;
    const CodeTag* def = nullptr;
    for (const auto& t : *tags)
      if (t.qualified() == item.name && (t.kind == "function" || t.kind == "method")) def = &t;
    if (!def || def->end - def->line > 400) continue;
    auto file = files_read.find(path);
    if (file == files_read.end()) file = files_read.emplace(path, read(path)).first;
    if (!file->second) continue;
    const std::string& text = *file->second;
    std::map<std::string, std::string> made;  // variable → the class that made it
    // The names this file's `from X import a, b as c` lines bring in.
    std::set<std::string> imported_names;
    if (path.ends_with(".py")) {
      static const RE2 kFrom(R"re((?m)^\s*from\s+\S+\s+import\s+(\([^)]*\)|[^\n#]*))re",
                             signal_internal::latin1());
      static const RE2 kWord(R"re((\w+)(?:\s+as\s+(\w+))?)re");
      re2::StringPiece in(text.data(), text.size());
      std::string list;
      while (RE2::FindAndConsume(&in, kFrom, &list)) {
        re2::StringPiece words(list);
        std::string word, alias;
        while (RE2::FindAndConsume(&words, kWord, &word, &alias))
          imported_names.insert(alias.empty() ? word : alias);
      }
    }
    std::int32_t no = 0;
    size_t pos = 0;
    while (pos < text.size()) {
      size_t nl = text.find('\n', pos);
      std::string_view line(text.data() + pos, (nl == std::string::npos ? text.size() : nl) - pos);
      pos = nl == std::string::npos ? text.size() : nl + 1;
      if (++no <= def->line) continue;
      if (no > def->end) break;
      if (path.ends_with(".py")) line = code_of(line);
      // `var = ClassName(` in the body: a later `var.m(` calls ClassName.m.
      static const RE2 kMade(R"re(^\s*(\w+)\s*=\s*([A-Z]\w*)\s*\()re", signal_internal::latin1());
      std::string var, cls;
      if (RE2::PartialMatch(line, kMade, &var, &cls)) made[var] = cls;
      std::vector<CalledName> names;
      called_names(line, names);
      for (const auto& n : names) {
        // Only what the call names for certain is resolved: a plain call to
        // a function or class (this file, then the one imported file, then
        // the only one); `self.m(` to the method of the edited method's own
        // class; `var.m(` when `var` was made by `ClassName(` here; and
        // `module.f(` to a function of an imported file of that name. A
        // method called on anything else (an attribute, a tensor, a queue)
        // may be any class's, or the standard library's.
        auto all = merge.lookup(n.name);
        const bool self = n.receiver == "self" || n.receiver == "cls";
        auto made_it = made.find(n.receiver);
        std::erase_if(all, [&](const auto& pt) {
          const CodeTag& t = *pt.second;
          if (!is_definition_kind(t.kind)) return true;
          if (n.receiver.empty()) return t.kind == "method";
          if (self) return t.kind != "method" || *pt.first != path || t.scope != def->scope;
          if (made_it != made.end())
            return t.kind != "method" ||
                   (t.scope != made_it->second && !t.scope.ends_with("." + made_it->second));
          if (t.kind == "method") return true;
          const std::string& file = *pt.first;  // module.f: the module is the file's stem
          const size_t slash = file.rfind('/') + 1, dot = file.rfind('.');
          return file.substr(slash, dot == std::string::npos ? dot : dot - slash) != n.receiver;
        });
        if (self && def->scope.empty()) all.clear();
        const std::pair<const std::string*, const CodeTag*>* pick = nullptr;
        for (const auto& pt : all)
          if (*pt.first == path && !pick && n.receiver.empty()) pick = &pt;
        if (self && all.size() == 1) pick = &all.front();
        if (!pick) {
          auto cached = imports.find(path);
          if (cached == imports.end()) cached = imports.emplace(path, graph.imports_of(path)).first;
          std::vector<const std::pair<const std::string*, const CodeTag*>*> imported;
          for (const auto& pt : all)
            if (*pt.first == path ||
                std::binary_search(cached->second.begin(), cached->second.end(), *pt.first))
              imported.push_back(&pt);
          if (imported.size() == 1) pick = imported.front();
        }
        // The only definition of the name in the repository is no answer
        // when this file imports the name from elsewhere (`from transformers
        // import set_seed`): that import is what the call reaches.
        if (!pick && (n.receiver.empty() || made_it != made.end()) &&
            !imported_names.count(n.receiver.empty() ? n.name : made_it->second)) {
          std::erase_if(all, [](const auto& pt) { return test_path(*pt.first); });
          if (all.size() == 1) pick = &all.front();
        }
        if (!pick) continue;
        const auto [p, t] = *pick;
        if (t == def || in_diff(*p, *t) || held.count(*p + '\n' + t->qualified())) continue;
        auto same = std::find_if(found.begin(), found.end(),
                                 [&](const Found& x) { return x.path == *p && x.tag == t; });
        if (same != found.end())
          ++same->calls;
        else
          found.push_back({*p, t, fmt::format("{}:{}", path, no), 1});
      }
    }
  }
  std::stable_sort(found.begin(), found.end(),
                   [](const Found& a, const Found& b) { return a.calls > b.calls; });
  if (found.size() > 4) found.resize(4);
  for (const auto& x : found) out.push_back(item_of("callee", x.path, *x.tag, "merge", x.at));
}

}  // namespace mergelens
