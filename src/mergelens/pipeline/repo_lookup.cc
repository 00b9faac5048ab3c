#include "mergelens/pipeline/repo_lookup.h"

#include "mergelens/analysis/code/import_graph.h"

namespace mergelens {

RepoLookup repo_lookup(TreeLookup* tree, const Change& change) {
  RepoLookup lookup;
  if (!tree) return lookup;
  std::vector<std::string> paths;
  for (const auto& fc : change.files) paths.push_back(fc.path);
  lookup.has_path = [tree](std::string_view p) { return tree->has_path(p); };
  lookup.has_identifier = [tree, paths](std::string_view t) {
    return tree->has_identifier(t, paths) || tree->in_tree(t);
  };
  for (const auto& fc : change.files) {
    if (!import_graph_tracks(fc.path)) continue;
    std::string removed;
    for (const auto& h : fc.hunks)
      for (const auto& l : h.lines)
        if (l.origin == '-') removed.append(l.text).push_back('\n');
    for (auto& m : parse_imports(fc.path, removed)) lookup.imports.push_back(std::move(m));
    if (fc.status == FileStatus::kDeleted) continue;
    if (auto text = tree->read_file(fc.path))
      for (auto& m : parse_imports(fc.path, *text)) lookup.imports.push_back(std::move(m));
  }
  return lookup;
}

}  // namespace mergelens
