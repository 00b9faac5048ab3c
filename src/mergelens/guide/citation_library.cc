// Names a guide may cite beyond the change's own: those of the libraries a
// change's files import (citations.h CitationIndex::from_library) and the
// dimension labels of a shape (shape_labels).
#include <algorithm>
#include <cctype>

#include "mergelens/analysis/code/import_graph.h"
#include "mergelens/guide/citations.h"

namespace mergelens {
namespace {

std::string top_package(std::string_view module) {
  return std::string(module.substr(0, module.find('.')));
}

bool word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

}  // namespace

void CitationIndex::note_libraries(const Change& change) {
  std::vector<std::string> imports = repo_.imports;
  // The import lines the diff writes or removes count without a clone.
  for (const auto& f : change.files) {
    if (!import_graph_tracks(f.path)) continue;
    std::string added, removed;
    for (const auto& h : f.hunks)
      for (const auto& l : h.lines)
        (l.origin == '-' ? removed : added).append(l.text).push_back('\n');
    for (const auto* text : {&added, &removed})
      for (auto& m : parse_imports(f.path, *text)) imports.push_back(std::move(m));
  }
  auto external = [&](const std::string& module) {
    if (module.empty() || module.starts_with('<') || module.find('/') != std::string::npos)
      return false;  // a C include
    const std::string top = top_package(module);
    for (const auto& p : {top, top + ".py", "src/" + top, "python/" + top})
      if (paths_.count(p) || folders_.count(p)) return false;
    if (repo_.has_path)
      for (const auto& p : {top, top + ".py", "src/" + top, "python/" + top})
        if (repo_.has_path(p)) return false;
    return true;
  };
  for (const auto& written : imports) {
    // "a.b|a": `from a import b`, where b is a module or a name of a.
    const auto bar = written.find('|');
    const std::string full = written.substr(0, bar);
    const std::string from = bar == std::string::npos ? std::string() : written.substr(bar + 1);
    if (!external(full)) continue;
    libraries_.insert(from.empty() ? full : from);
    libraries_.insert(top_package(full));
    if (!from.empty()) {
      libraries_.insert(full);  // b may be a module
      library_names_.insert(full.substr(full.rfind('.') + 1));
    }
  }
}

std::vector<std::string> CitationIndex::from_library(std::string_view span) const {
  // The leading dotted name: identifiers joined by '.'.
  std::vector<std::string> chain;
  size_t i = 0;
  while (i < span.size()) {
    size_t j = i;
    while (j < span.size() && word_char(span[j])) ++j;
    if (j == i || std::isdigit(static_cast<unsigned char>(span[i]))) break;
    chain.emplace_back(span.substr(i, j - i));
    if (j >= span.size() || span[j] != '.') break;
    i = j + 1;
  }
  if (chain.empty()) return {};
  if (library_names_.count(chain.front())) return chain;
  if (chain.size() >= 2 && libraries_.count(chain.front())) return chain;
  return {};
}

std::vector<std::string> CitationIndex::shape_labels(std::string_view span) const {
  if (span.size() < 5 || span.front() != '[' || span.back() != ']') return {};
  std::vector<std::string> dims, labels;
  bool anchored = false;
  for (size_t a = 1; a < span.size(); ++a) {
    size_t b = span.find(',', a);
    if (b == std::string_view::npos) b = span.size() - 1;
    std::string_view d = span.substr(a, b - a);
    while (!d.empty() && d.front() == ' ') d.remove_prefix(1);
    while (!d.empty() && d.back() == ' ') d.remove_suffix(1);
    if (d.empty() || std::isdigit(static_cast<unsigned char>(d.front())) ||
        !std::ranges::all_of(d, word_char))
      return {};  // code, not a list of names
    dims.emplace_back(d);
    a = b;
  }
  if (dims.size() < 2) return {};
  for (const auto& d : dims) {
    if (has_token(d)) {
      anchored = true;
      continue;
    }
    bool words = d.find('_') != std::string::npos;
    for (size_t a = 0, b; words && a <= d.size(); a = b + 1) {
      b = d.find('_', a);
      if (b == std::string::npos) b = d.size();
      const std::string w = d.substr(a, b - a);
      words = w.size() < 4 || corpus_.find(w) != std::string::npos;
    }
    if (!words) return {};
    labels.push_back(d);
  }
  return anchored ? labels : std::vector<std::string>{};
}

}  // namespace mergelens
