// The import graph (see import_graph.h).
//
// Resolution. A Python module name resolves to the file whose dotted path
// ("python/pkg/a.py" → "python.pkg.a", packages by their __init__.py) ends
// with it, where the name starts at a source root: a folder that is not a
// package itself ("python/" above "python/pkg/"), so `import triton` never
// resolves to some package's triton.py. An include resolves to the file
// beside the includer, else to a file whose path ends with it. When several
// files fit, the one sharing the longest folder prefix with the importer
// wins; a tie leaves the import unresolved (a third-party name, most often).
//
// Incremental edits. Every import is registered under each name it could be
// resolved by; a file added or removed re-resolves the imports registered
// under its suffixes (the only ones whose answer can change). Adding or
// removing an __init__.py changes which folders are roots, so it re-resolves
// every Python import.
#include "mergelens/analysis/code/import_graph.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "mergelens/analysis/code/roles.h"

namespace mergelens {
namespace {

bool ends_with_any(std::string_view s, std::initializer_list<std::string_view> xs) {
  return std::any_of(xs.begin(), xs.end(), [&](std::string_view x) { return s.ends_with(x); });
}

bool is_python(std::string_view path) {
  return ends_with_any(path, {".py", ".pyi"});
}

std::string_view trim_view(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

// The next line of `content` from `pos` (trimmed), moving `pos` past it;
// false at the end.
bool next_line(std::string_view content, size_t& pos, std::string_view& line) {
  if (pos >= content.size()) return false;
  size_t end = content.find('\n', pos);
  if (end == std::string_view::npos) end = content.size();
  line = trim_view(content.substr(pos, end - pos));
  pos = end + 1;
  return true;
}

std::string dir_of(std::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? std::string() : std::string(path.substr(0, slash));
}

// "python/pkg/a.py" → "python.pkg.a"; "python/pkg/__init__.py" → "python.pkg".
std::string dotted_path(std::string_view path) {
  std::string_view p = path;
  p.remove_suffix(p.ends_with(".pyi") ? 4 : 3);
  std::string out(p);
  for (char& c : out)
    if (c == '/') c = '.';
  if (out == "__init__") return {};
  if (out.ends_with(".__init__")) out.resize(out.size() - 9);
  return out;
}

bool ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// A dotted name at the start of `s` ("a.b.c"), possibly empty.
std::string_view dotted_at(std::string_view s) {
  size_t e = 0;
  while (e < s.size() && (ident_char(s[e]) || s[e] == '.')) ++e;
  return s.substr(0, e);
}

// "a/./b/../c.h" → "a/c.h"; empty when it climbs above the root.
std::string normalise(std::string_view p) {
  std::vector<std::string_view> parts;
  while (!p.empty()) {
    const size_t slash = p.find('/');
    const std::string_view part = p.substr(0, slash);
    if (part == "..") {
      if (parts.empty()) return {};
      parts.pop_back();
    } else if (!part.empty() && part != ".") {
      parts.push_back(part);
    }
    if (slash == std::string_view::npos) break;
    p.remove_prefix(slash + 1);
  }
  std::string out;
  for (auto part : parts) {
    if (!out.empty()) out += '/';
    out += part;
  }
  return out;
}

void python_imports(std::string_view path, std::string_view content,
                    std::vector<std::string>& out) {
  // The package a relative import starts from.
  std::string package = dotted_path(path);
  if (!path.ends_with("__init__.py")) {
    const size_t dot = package.rfind('.');
    package = dot == std::string::npos ? std::string() : package.substr(0, dot);
  }
  size_t pos = 0;
  std::string_view line;
  while (next_line(content, pos, line)) {
    if (line.starts_with("import ")) {
      std::string_view rest = line.substr(7);
      while (!rest.empty()) {
        rest = trim_view(rest);
        const std::string_view name = dotted_at(rest);
        if (name.empty()) break;
        out.emplace_back(name);
        const size_t comma = rest.find(',');
        if (comma == std::string_view::npos) break;
        rest.remove_prefix(comma + 1);
      }
    } else if (line.starts_with("from ")) {
      std::string_view rest = trim_view(line.substr(5));
      size_t level = 0;
      while (level < rest.size() && rest[level] == '.') ++level;
      const std::string_view mod = dotted_at(rest.substr(level));
      rest = trim_view(rest.substr(level + mod.size()));
      if (!rest.starts_with("import")) continue;
      std::string base;
      if (level > 0) {
        std::string pkg = package;
        for (size_t l = 1; l < level && !pkg.empty(); ++l) {
          const size_t dot = pkg.rfind('.');
          pkg = dot == std::string::npos ? std::string() : pkg.substr(0, dot);
        }
        base = pkg;
        if (!mod.empty()) base += (base.empty() ? "" : ".") + std::string(mod);
      } else {
        base = std::string(mod);
      }
      if (base.empty()) continue;
      // The imported names, across lines when parenthesised.
      auto uncommented = [](std::string_view t) { return t.substr(0, t.find('#')); };
      std::string names(uncommented(rest.substr(6)));
      if (names.find('(') != std::string::npos && names.find(')') == std::string::npos) {
        while (pos < content.size()) {
          size_t e = content.find('\n', pos);
          if (e == std::string_view::npos) e = content.size();
          const std::string_view more = uncommented(content.substr(pos, e - pos));
          pos = e + 1;
          names += ' ';
          names += more;
          if (more.find(')') != std::string_view::npos) break;
        }
      }
      bool any = false;
      std::string_view n = names;
      while (!n.empty()) {
        while (!n.empty() && !ident_char(n.front()) && n.front() != '*') n.remove_prefix(1);
        if (n.empty() || n.front() == '*') break;
        size_t e = 0;
        while (e < n.size() && ident_char(n[e])) ++e;
        const std::string_view word = n.substr(0, e);
        n.remove_prefix(e);
        if (word == "as") {  // skip the alias
          while (!n.empty() && !ident_char(n.front())) n.remove_prefix(1);
          while (!n.empty() && ident_char(n.front())) n.remove_prefix(1);
          continue;
        }
        out.push_back(base + "." + std::string(word) + "|" + base);
        any = true;
      }
      if (!any) out.push_back(base);
    }
  }
}

void include_lines(std::string_view content, std::vector<std::string>& out) {
  size_t pos = 0;
  std::string_view line;
  while (next_line(content, pos, line)) {
    if (!line.starts_with("#")) continue;
    line = trim_view(line.substr(1));
    if (!line.starts_with("include")) continue;
    line = trim_view(line.substr(7));
    if (line.empty() || (line.front() != '"' && line.front() != '<')) continue;
    const char close = line.front() == '"' ? '"' : '>';
    const size_t e = line.find(close, 1);
    if (e == std::string_view::npos || e == 1) continue;
    out.push_back((close == '>' ? "<" : "") + std::string(line.substr(1, e - 1)));
  }
}

}  // namespace

bool import_graph_tracks(std::string_view path) {
  return ends_with_any(path, {".py", ".pyi", ".h", ".hh", ".hpp", ".hxx", ".cuh", ".inl", ".cu",
                              ".cc", ".cpp", ".cxx", ".c"});
}

std::vector<std::string> parse_imports(std::string_view path, std::string_view content) {
  std::vector<std::string> out;
  if (is_python(path))
    python_imports(path, content, out);
  else if (import_graph_tracks(path))
    include_lines(content, out);
  return out;
}

struct ImportGraph::Impl {
  struct Import {
    std::vector<std::string> names;  // candidate keys, best first
    int target = -1;
  };
  struct Node {
    std::string path, dir;
    bool live = false, python = false, counts = false;  // counts: a code role
    std::vector<Import> imports;
    // parse_imports() of the content, each followed by '\n' (no import holds
    // one), to notice an edit that changes no import: one string, not a
    // vector of small ones, for the tens of thousands of files a tree holds.
    std::string raw;
    std::vector<std::string> suffixes;
  };
  std::vector<Node> nodes;
  std::unordered_map<std::string, int> by_path;
  std::unordered_map<std::string, std::vector<int>> by_suffix;  // dotted or path suffix → nodes
  // key → imports registered under it, as node << 32 | import index
  std::unordered_map<std::string, std::unordered_set<std::int64_t>> waiting;
  std::vector<std::unordered_map<int, int>> rev;  // target → importer → edges
  std::unordered_set<std::string> packages;       // folders holding an __init__.py
  size_t edge_count = 0;
  bool bulk = false;
  RepoConfig no_overrides;

  static std::vector<std::string> suffixes_of(const Node& n) {
    std::vector<std::string> out;
    if (n.python) {
      const std::string d = dotted_path(n.path);
      if (d.empty()) return out;
      for (size_t p = 0;;) {
        out.push_back(d.substr(p));
        const size_t dot = d.find('.', p);
        if (dot == std::string::npos) break;
        p = dot + 1;
      }
    } else {
      for (size_t p = 0;;) {
        out.push_back(n.path.substr(p));
        const size_t slash = n.path.find('/', p);
        if (slash == std::string::npos) break;
        p = slash + 1;
      }
    }
    return out;
  }

  // The folder a Python name matching `d` (dotted path of a node) starts in is a root.
  bool at_root(const Node& n, std::string_view name) const {
    const std::string d = dotted_path(n.path);
    if (d.size() == name.size()) return true;
    std::string folder = d.substr(0, d.size() - name.size() - 1);
    for (char& c : folder)
      if (c == '.') c = '/';
    return !packages.contains(folder);
  }

  static size_t common_prefix(std::string_view a, std::string_view b) {
    size_t n = 0;
    while (n < a.size() && n < b.size() && a[n] == b[n]) ++n;
    return n;
  }

  int resolve(const Node& from, const Import& imp) const {
    for (const std::string& key : imp.names) {
      auto it = by_suffix.find(key);
      if (it == by_suffix.end()) continue;
      int best = -1;
      size_t best_len = 0;
      bool tie = false;
      for (int id : it->second) {
        const Node& n = nodes[id];
        if (n.python != from.python || &n == &from) continue;
        if (n.python && !at_root(n, key)) continue;
        const size_t len = common_prefix(n.dir, from.dir);
        if (best < 0 || len > best_len) {
          best = id, best_len = len, tie = false;
        } else if (len == best_len) {
          tie = true;
        }
      }
      if (best >= 0 && !tie) return best;
    }
    return -1;
  }

  void link(int from, size_t i) {
    Import& imp = nodes[from].imports[i];
    const int t = resolve(nodes[from], imp);
    if (t == imp.target) return;
    if (imp.target >= 0) unlink_edge(from, imp.target);
    imp.target = t;
    if (t >= 0) {
      ++rev[t][from];
      ++edge_count;
    }
  }

  void unlink_edge(int from, int target) {
    auto& m = rev[target];
    auto it = m.find(from);
    if (it != m.end() && --it->second == 0) m.erase(it);
    --edge_count;
  }

  void drop_imports(int id) {
    Node& n = nodes[id];
    for (size_t i = 0; i < n.imports.size(); ++i) {
      if (n.imports[i].target >= 0) unlink_edge(id, n.imports[i].target);
      for (const auto& key : n.imports[i].names) {
        auto it = waiting.find(key);
        if (it == waiting.end()) continue;
        it->second.erase(slot(id, i));
        if (it->second.empty()) waiting.erase(it);
      }
    }
    n.imports.clear();
  }

  static std::int64_t slot(int node, size_t i) {
    return (static_cast<std::int64_t>(node) << 32) | static_cast<std::int64_t>(i);
  }

  void relink_waiting(const std::vector<std::string>& keys) {
    std::vector<std::int64_t> todo;
    for (const auto& k : keys)
      if (auto it = waiting.find(k); it != waiting.end())
        todo.insert(todo.end(), it->second.begin(), it->second.end());
    for (std::int64_t t : todo) {
      const int node = static_cast<int>(t >> 32);
      const size_t i = static_cast<size_t>(t & 0xffffffff);
      if (nodes[node].live && i < nodes[node].imports.size()) link(node, i);
    }
  }

  // Folder `dir` became a package or stopped being one: the names that can
  // change their answer are those of the files below it.
  void relink_below(const std::string& dir) {
    const std::string prefix = dir.empty() ? std::string() : dir + "/";
    std::vector<std::string> keys;
    for (const Node& n : nodes)
      if (n.live && n.python && n.path.starts_with(prefix))
        keys.insert(keys.end(), n.suffixes.begin(), n.suffixes.end());
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    relink_waiting(keys);
  }

  static bool is_init(std::string_view path) {
    return path == "__init__.py" || path.ends_with("/__init__.py");
  }
};

ImportGraph::ImportGraph() : impl_(std::make_unique<Impl>()) {}
ImportGraph::~ImportGraph() = default;
ImportGraph::ImportGraph(ImportGraph&&) noexcept = default;
ImportGraph& ImportGraph::operator=(ImportGraph&&) noexcept = default;

void ImportGraph::set_config(RepoConfig config) {
  impl_->no_overrides = std::move(config);
}

void ImportGraph::set_file(const std::string& path, std::string_view content) {
  if (!import_graph_tracks(path)) return;
  Impl& g = *impl_;
  auto [it, fresh] = g.by_path.try_emplace(path, static_cast<int>(g.nodes.size()));
  const int id = it->second;
  bool added = fresh;
  if (fresh) {
    g.nodes.emplace_back();
    g.rev.emplace_back();
  }
  Impl::Node& n = g.nodes[id];
  if (!n.live) added = true;
  std::string raw;
  for (const std::string& imp : parse_imports(path, content)) (raw += imp) += '\n';
  if (!added && raw == n.raw) return;  // an edit that imports nothing new: nothing to do
  g.drop_imports(id);
  n.path = path;
  n.dir = dir_of(path);
  n.live = true;
  n.python = is_python(path);
  const FileRole role = classify_role(path, g.no_overrides);
  n.counts = role == FileRole::kCore || role == FileRole::kKernel || role == FileRole::kModel;
  n.raw = std::move(raw);
  for (size_t at = 0, end; (end = n.raw.find('\n', at)) != std::string::npos; at = end + 1) {
    const std::string raw = n.raw.substr(at, end - at);
    Impl::Import imp;
    if (n.python) {
      for (size_t p = 0;;) {
        const size_t bar = raw.find('|', p);
        imp.names.push_back(raw.substr(p, bar == std::string::npos ? std::string::npos : bar - p));
        if (bar == std::string::npos) break;
        p = bar + 1;
      }
    } else if (raw.front() == '<') {
      imp.names.push_back(normalise(raw.substr(1)));
    } else {
      const std::string beside = normalise(n.dir.empty() ? raw : n.dir + "/" + raw);
      if (!beside.empty()) imp.names.push_back(beside);
      imp.names.push_back(normalise(raw));
    }
    std::erase_if(imp.names, [](const std::string& s) { return s.empty(); });
    if (!imp.names.empty()) n.imports.push_back(std::move(imp));
  }
  for (size_t i = 0; i < n.imports.size(); ++i)
    for (const auto& key : n.imports[i].names) g.waiting[key].insert(Impl::slot(id, i));
  if (added) {
    n.suffixes = Impl::suffixes_of(n);
    for (const auto& s : n.suffixes) g.by_suffix[s].push_back(id);
  }
  if (added && n.python && Impl::is_init(path)) g.packages.insert(n.dir);
  if (g.bulk) return;
  for (size_t i = 0; i < n.imports.size(); ++i) g.link(id, i);
  if (added) {
    if (n.python && Impl::is_init(path))
      g.relink_below(n.dir);
    else
      g.relink_waiting(n.suffixes);
  }
}

void ImportGraph::remove_file(const std::string& path) {
  Impl& g = *impl_;
  auto it = g.by_path.find(path);
  if (it == g.by_path.end() || !g.nodes[it->second].live) return;
  const int id = it->second;
  g.drop_imports(id);
  Impl::Node& n = g.nodes[id];
  n.live = false;
  std::string().swap(n.raw);
  for (const auto& s : n.suffixes) {
    auto& v = g.by_suffix[s];
    std::erase(v, id);
    if (v.empty()) g.by_suffix.erase(s);
  }
  const std::vector<std::string> keys = std::move(n.suffixes);
  n.suffixes.clear();
  if (n.python && Impl::is_init(path)) g.packages.erase(n.dir);
  if (g.bulk) return;
  if (n.python && Impl::is_init(path)) g.relink_below(n.dir);
  g.relink_waiting(keys);
}

void ImportGraph::begin_bulk() {
  impl_->bulk = true;
}

void ImportGraph::end_bulk() {
  Impl& g = *impl_;
  g.bulk = false;
  for (size_t id = 0; id < g.nodes.size(); ++id)
    if (g.nodes[id].live)
      for (size_t i = 0; i < g.nodes[id].imports.size(); ++i) g.link(static_cast<int>(id), i);
}

void ImportGraph::clear() {
  RepoConfig config = std::move(impl_->no_overrides);
  impl_ = std::make_unique<Impl>();
  impl_->no_overrides = std::move(config);
  commit.clear();
}

size_t ImportGraph::files() const {
  return static_cast<size_t>(std::count_if(impl_->nodes.begin(), impl_->nodes.end(),
                                           [](const Impl::Node& n) { return n.live; }));
}

size_t ImportGraph::edges() const {
  return impl_->edge_count;
}

std::vector<std::string> ImportGraph::importers_of(const std::string& path) const {
  std::vector<std::string> out;
  auto it = impl_->by_path.find(path);
  if (it == impl_->by_path.end()) return out;
  for (const auto& [from, _] : impl_->rev[it->second]) out.push_back(impl_->nodes[from].path);
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> ImportGraph::imports_of(const std::string& path) const {
  std::vector<std::string> out;
  auto it = impl_->by_path.find(path);
  if (it == impl_->by_path.end() || !impl_->nodes[it->second].live) return out;
  for (const auto& imp : impl_->nodes[it->second].imports)
    if (imp.target >= 0) out.push_back(impl_->nodes[imp.target].path);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// Transitive reach saturates in a package with re-exports (almost every file
// reaches almost every other), so counting stops here: it bounds the walk.
constexpr std::int32_t kTransitiveCap = 500;

Reach ImportGraph::reach(const Change& change, const RepoConfig& config) const {
  const Impl& g = *impl_;
  Reach r;
  r.known = true;
  std::vector<int> start;
  for (const auto& f : change.files) {
    if (f.status == FileStatus::kDeleted) continue;
    auto it = g.by_path.find(f.path);
    if (it == g.by_path.end() || !g.nodes[it->second].live) continue;
    const FileRole role = classify_role(f.path, config);
    if (role != FileRole::kCore && role != FileRole::kKernel && role != FileRole::kModel) continue;
    start.push_back(it->second);
  }
  if (start.empty()) return r;
  std::vector<char> seen(g.nodes.size(), 0);
  for (int s : start) seen[s] = 1;
  std::vector<int> queue = start;
  // Direct importers; a package's __init__.py that imports a file passes it
  // on to the modules importing the package (re-exports are the usual way a
  // module is reached), so it is seen through rather than counted. A module
  // inside that package importing the package itself takes other names from
  // it (a base class, a registry): it would import the file were it using it,
  // so it is no importer of the file. The same holds for a touched
  // __init__.py: its own modules import it for other names.
  std::unordered_set<int> direct;
  auto direct_of = [&](int s) {
    std::unordered_set<int> out, through;
    std::vector<int> todo = {s};
    while (!todo.empty()) {
      const int t = todo.back();
      todo.pop_back();
      const bool package = g.nodes[t].python && Impl::is_init(g.nodes[t].path);
      const std::string inside = package ? dir_of(g.nodes[t].path) + "/" : std::string();
      for (const auto& [from, _] : g.rev[t]) {
        const Impl::Node& n = g.nodes[from];
        if (package && inside.size() > 1 && n.path.starts_with(inside)) continue;
        if (n.python && Impl::is_init(n.path)) {
          if (through.insert(from).second) todo.push_back(from);
        } else if (n.counts && !seen[from]) {
          out.insert(from);
        }
      }
    }
    return out;
  };
  for (int s : start) {
    const auto own = direct_of(s);
    direct.insert(own.begin(), own.end());
    if (static_cast<std::int32_t>(own.size()) > r.hub_importers || r.hub.empty()) {
      r.hub = g.nodes[s].path;
      r.hub_importers = static_cast<std::int32_t>(own.size());
    }
  }
  // The set of files reached does not depend on the walk's order (that of
  // the hash maps, hence of the graph's edit history); a count that stops
  // the moment it meets the cap does not either.
  for (size_t q = 0; q < queue.size() && r.importers < kTransitiveCap; ++q)
    for (const auto& [from, _] : g.rev[queue[q]]) {
      if (seen[from]) continue;
      seen[from] = 1;
      if (!g.nodes[from].counts) continue;  // a test or a script: counted out, not followed
      queue.push_back(from);
      if (++r.importers == kTransitiveCap) break;
    }
  r.direct = static_cast<std::int32_t>(direct.size());
  return r;
}

}  // namespace mergelens
