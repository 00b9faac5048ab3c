// The import graph of a repository at one commit: which files import which,
// from Python `import`/`from ... import` statements and C/C++/CUDA
// `#include` lines, so a change's reach can be measured as the modules that
// depend on the files it touches.
//
// Pure: the pipeline reads the files (a whole tree once, then each change's
// changed files along the first-parent order) and feeds their contents here.
// Edits are incremental: setting or removing a file re-resolves only the
// imports that could name it, so updating the graph costs what the change
// touches, not the size of the tree. Not thread-safe; a const graph may be
// queried from one thread while no one edits it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "mergelens/analysis/facts.h"
#include "mergelens/analysis/repo_config.h"
#include "mergelens/model/change.h"

namespace mergelens {

// True for the files the graph reads: Python (.py, .pyi) and C/C++/CUDA
// sources and headers.
bool import_graph_tracks(std::string_view path);

// What a file imports, as written: Python module names made absolute
// ("pkg.sub.mod"; relative imports resolved against `path`; for `from a import
// b` both "a.b" and "a" in that order, joined by '|'), C-family include paths
// ("a/b.h", prefixed with '<' for angle-bracket includes). Never fails.
std::vector<std::string> parse_imports(std::string_view path, std::string_view content);

class ImportGraph {
 public:
  ImportGraph();
  ~ImportGraph();
  ImportGraph(ImportGraph&&) noexcept;
  ImportGraph& operator=(ImportGraph&&) noexcept;

  // The repository's role overrides (mergelens.toml): which importers count
  // as code. Call before adding files.
  void set_config(RepoConfig config);

  // Adds `path` with `content` (replacing what it held), or removes it.
  // Paths the graph does not track are ignored.
  void set_file(const std::string& path, std::string_view content);
  void remove_file(const std::string& path);
  void clear();

  // Between these, set_file only records files and their imports; end_bulk()
  // resolves every import once (for loading a whole tree).
  void begin_bulk();
  void end_bulk();

  size_t files() const;
  size_t edges() const;  // resolved imports

  // The files that import `path` directly (resolved imports), sorted.
  std::vector<std::string> importers_of(const std::string& path) const;
  // The files `path` imports (resolved imports), sorted.
  std::vector<std::string> imports_of(const std::string& path) const;

  // The reach of `change`: the files of code roles it adds or modifies
  // (classify_role with `config`; tests, docs, configs and generated files
  // do not count). `direct`: the code files importing one of them, seeing
  // through package __init__.py files (a module re-exported by its package is
  // imported by the package's importers outside that package: a module of the
  // package importing the package takes other names from it, and so does
  // one importing a touched __init__.py of its package); `importers`: every code file that
  // reaches one of them through imports; `hub`: the touched file with the
  // most direct importers. `known` is set. `importers` stops counting at
  // exactly 500 (transitive reach saturates; the walk is bounded): the result
  // depends on the files and their contents only, not on the order in which
  // they were set, edited or removed.
  Reach reach(const Change& change, const RepoConfig& config) const;

  // The commit whose tree the graph holds, as the caller set it.
  std::string commit;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace mergelens
