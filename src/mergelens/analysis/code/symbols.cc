// Definitions a change adds, removes or re-signs; public API; dead code.
//
// A definition is "touched" on a side of a hunk when a changed line falls in
// its header (from its name to the ':' or '{' that ends it). Touched
// definitions of the old and new sides of one file are paired by name, in
// order: a pair whose parameter text differs is a signature change, one
// whose name line differs otherwise is modified, an identical pair is moved
// or untouched and is dropped; unpaired ones are added or removed. A changed
// parameter line of a definition whose name is above the hunk (the content's
// outline, or git's section text with an open parenthesis) is a signature
// change too. Every symbol a hunk changes inside that is not otherwise listed
// is "modified". A removed definition is dead code when nothing in the change
// defines its name again, names it on an added line, or is added in its place.
#include <algorithm>
#include <unordered_set>

#include "mergelens/analysis/code/code_file.h"
#include "mergelens/analysis/code/code_text.h"
#include "mergelens/analysis/code/language.h"

namespace mergelens::code_internal {
namespace {

using outline_internal::is_ident_char;
using outline_internal::strip_cr;
using outline_internal::trim;

struct Touched {
  std::string name;     // as in the header, for pairing
  std::string display;  // qualified when known
  std::string kind, params, line_text;
  bool exported = false;
  size_t hunk = 0;
  int k = 0;  // hunk line holding the name
};

// The nearest class-like definition of the content around 1-based `line`
// whose indentation is less than `indent`, or -1.
int enclosing_container(const FileState& f, int line, int indent) {
  int d = innermost_def(f.outline, line - 1);
  while (d >= 0 && !(f.outline.defs[d].container && f.outline.defs[d].indent < indent))
    d = f.outline.defs[d].parent;
  return d;
}

std::vector<Touched> touched_defs(const FileState& f, bool old_side) {
  std::vector<Touched> out;
  const bool cpp = f.lang == Language::kCpp || f.lang == Language::kCuda;
  for (size_t hi = 0; hi < f.hunks.size(); ++hi) {
    const HunkState& h = f.hunks[hi];
    if (!h.analysed) continue;
    const Outline& o = old_side ? h.frag_old : h.frag_new;
    const std::vector<char>& touched = old_side ? h.touched_old : h.touched_new;
    const std::vector<int>& to_hunk = old_side ? h.sides.old_line : h.sides.new_line;
    for (size_t d = 0; d < o.defs.size(); ++d) {
      if (!touched[d]) continue;
      const OutlineDef& def = o.defs[d];
      Touched t;
      t.name = def.name;
      t.params = def.params;
      t.hunk = hi;
      t.k = to_hunk[def.name_line];
      t.line_text = std::string(trim(strip_cr(h.hunk->lines[t.k].text)));
      const Sym s = fragment_symbol(f, h, old_side, static_cast<int>(d));
      t.display = s.name;
      t.kind = s.kind;
      // Fragments cannot see an enclosing C++ class: only unindented ones count.
      t.exported = def.exported && !(cpp && def.indent > 0);
      const int line = h.pos[t.k];
      if (!old_side && f.has_content) {
        auto it = f.def_at_name_line.find(line - 1);
        if (it != f.def_at_name_line.end() && f.outline.defs[it->second].name == def.name) {
          const OutlineDef& cd = f.outline.defs[it->second];
          t.display = cd.qualified;
          t.kind = cd.kind;
          t.exported = cd.exported;
        }
      } else if (old_side && f.has_content && def.parent < 0 && t.display == def.qualified &&
                 f.lang != Language::kMarkdown) {
        const int c = enclosing_container(f, line > 1 ? line - 1 : line, def.indent);
        if (c >= 0) {
          t.display = f.outline.defs[c].qualified + separator(f.lang) + def.name;
          if (t.kind == "function") t.kind = "method";
        }
      }
      out.push_back(std::move(t));
    }
  }
  return out;
}

std::string_view last_component(std::string_view name) {
  const size_t p = name.find_last_of(":.");
  return p == std::string_view::npos ? name : name.substr(p + 1);
}

struct Found {
  std::string name, kind, change;
  Place at;
  bool exported = false;
};

// Parameter lists that start before a hunk: a changed line inside the header
// of a definition whose name line is above the hunk ("@@ ... @@ def f(" then
// "+    new_arg: int = 0,") changes that definition's signature. Found from
// the content's outline, or else from git's section text and the hunk lines.
void continued_signatures(const FileState& f, std::vector<Found>& found) {
  std::unordered_set<std::string> seen;
  for (const Found& x : found) seen.insert(x.name);
  for (const HunkState& h : f.hunks) {
    if (!h.analysed) continue;
    if (f.has_content) {
      for (size_t k = 0; k < h.hunk->lines.size(); ++k) {
        const char o = h.hunk->lines[k].origin;
        if (o != '+' && o != '-') continue;
        const int line0 = h.pos[k] - 1;
        const int d = innermost_def(f.outline, line0);
        if (d < 0) continue;
        const OutlineDef& def = f.outline.defs[d];
        if (line0 <= def.name_line || line0 > def.header_end ||
            def.name_line + 1 >= h.hunk->new_start || def.kind == "section")
          continue;
        if (!seen.insert(def.qualified).second) continue;
        found.push_back({def.qualified, def.kind, "signature_changed",
                         Place{f.file->path, def.name_line + 1, def.qualified}, def.exported});
      }
      continue;
    }
    if (!h.section || h.section->kind == "section") continue;
    const int open = signal_internal::bracket_balance(h.hunk->section);
    if (open <= 0) continue;
    bool changed = false;
    for (bool old_side : {false, true}) {
      const auto& side = old_side ? h.sides.old_side : h.sides.new_side;
      int depth = open;
      for (size_t i = 0; i < side.size() && depth > 0 && !changed; ++i) {
        depth += signal_internal::bracket_balance(side[i].text);
        changed = side[i].changed;
      }
    }
    const OutlineDef& def = *h.section;
    if (!changed || !seen.insert(def.name).second) continue;
    const bool exported =
        f.lang == Language::kPython && def.indent == 0 && !def.name.starts_with("_");
    found.push_back({def.name, def.kind, "signature_changed",
                     Place{f.file->path, h.hunk->new_start, def.name}, exported});
  }
}

}  // namespace

void collect_definitions(const FileState& f, CodeFacts& out) {
  if (!is_code_language(f.lang) && f.lang != Language::kMarkdown) return;
  const std::vector<Touched> olds = touched_defs(f, true);
  const std::vector<Touched> news = touched_defs(f, false);
  // Pair by name, in order of appearance.
  std::vector<std::string> keys;
  std::unordered_map<std::string, std::pair<std::vector<int>, std::vector<int>>> groups;
  for (int side = 0; side < 2; ++side) {
    const auto& list = side == 0 ? olds : news;
    for (int i = 0; i < static_cast<int>(list.size()); ++i) {
      auto [it, inserted] = groups.try_emplace(list[i].name);
      if (inserted) keys.push_back(list[i].name);
      (side == 0 ? it->second.first : it->second.second).push_back(i);
    }
  }
  std::vector<Found> found;
  auto add = [&](const Touched& t, const char* change) {
    const HunkState& h = f.hunks[t.hunk];
    found.push_back({t.display, t.kind, change,
                     Place{f.file->path, h.pos[t.k], resolve_symbol(f, h, t.k).name}, t.exported});
  };
  for (const std::string& key : keys) {
    const auto& [o, n] = groups[key];
    const size_t m = std::min(o.size(), n.size());
    for (size_t i = 0; i < m; ++i) {
      const Touched& before = olds[o[i]];
      const Touched& after = news[n[i]];
      if (before.params != after.params)
        add(after, "signature_changed");
      else if (before.line_text != after.line_text)
        add(after, "modified");
    }
    for (size_t i = m; i < n.size(); ++i) add(news[n[i]], "added");
    for (size_t i = m; i < o.size(); ++i) add(olds[o[i]], "removed");
  }
  if (f.lang != Language::kMarkdown) continued_signatures(f, found);
  std::stable_sort(found.begin(), found.end(),
                   [](const Found& a, const Found& b) { return a.at.line < b.at.line; });
  std::unordered_set<std::string> listed;
  for (Found& r : found) {
    listed.insert(r.name);
    if ((r.change == "added" || r.change == "signature_changed") && r.exported && !f.test &&
        !f.tooling && f.lang != Language::kMarkdown)
      out.signals.push_back(Signal{"public_api", r.name, r.at, true});
    out.definitions.push_back(
        Definition{std::move(r.name), std::move(r.kind), std::move(r.change), std::move(r.at)});
  }
  // The symbols the hunks change inside: the hunk's own, then (within the
  // cap) those of its other changed code lines, in order.
  auto modified = [&](const HunkState& h, int k) {
    const Sym s = resolve_symbol(f, h, k);
    if (s.name.empty() || !listed.insert(s.name).second) return;
    out.definitions.push_back(Definition{s.name, s.kind.empty() ? "function" : s.kind, "modified",
                                         Place{f.file->path, h.pos[k], s.name}});
  };
  for (const HunkState& h : f.hunks) {
    const int first = symbol_line(h, f.lang);
    if (first < 0) continue;
    modified(h, first);
    if (!h.analysed) continue;
    for (size_t k = static_cast<size_t>(first) + 1; k < h.hunk->lines.size(); ++k) {
      const DiffLine& l = h.hunk->lines[k];
      const int side_index = l.origin == '+'   ? h.sides.new_of[k]
                             : l.origin == '-' ? h.sides.old_of[k]
                                               : -1;
      if (side_index < 0 || side_index >= (l.origin == '+' ? h.new_cut : h.old_cut)) continue;
      if (!trim(strip_cr(l.text)).empty()) modified(h, static_cast<int>(k));
    }
  }
}

void detect_dead_code(const Change& change, CodeFacts& out) {
  bool any_removed = false;
  for (const Definition& d : out.definitions) any_removed = any_removed || d.change == "removed";
  if (!any_removed) return;
  // Identifiers on added lines, and names the change (re)defines.
  std::unordered_set<std::string_view> referenced;
  for (const FileChange& fc : change.files)
    for (const Hunk& h : fc.hunks)
      for (const DiffLine& l : h.lines) {
        if (l.origin != '+') continue;
        const std::string_view t = l.text;
        for (size_t i = 0; i < t.size();) {
          if (!is_ident_char(t[i])) {
            ++i;
            continue;
          }
          size_t e = i;
          while (e < t.size() && is_ident_char(t[e])) ++e;
          if (!(t[i] >= '0' && t[i] <= '9') && e - i >= 2) referenced.insert(t.substr(i, e - i));
          i = e;
        }
      }
  std::unordered_set<std::string_view> defined;
  for (const Definition& d : out.definitions)
    if (d.change != "removed") defined.insert(last_component(d.name));
  std::unordered_set<std::string> added_at;  // "path:line:kind" of added definitions
  for (const Definition& a : out.definitions)
    if (a.change == "added")
      added_at.insert(a.at.path + ":" + std::to_string(a.at.line) + ":" + a.kind);
  std::vector<Signal> found;
  for (const Definition& d : out.definitions) {
    if (d.change != "removed" || d.kind == "section" || d.name.find('(') != std::string::npos)
      continue;
    auto lang = out.languages.find(d.at.path);
    if (lang == out.languages.end() || !is_code_language(lang->second)) continue;
    const std::string_view simple = last_component(d.name);
    if (simple.empty() || defined.count(simple) || referenced.count(simple)) continue;
    // A definition of the same kind added where this one was removed is a
    // rename, not dead code.
    bool renamed = false;
    for (int delta = -1; delta <= 1 && !renamed; ++delta)
      renamed = added_at.count(d.at.path + ":" + std::to_string(d.at.line + delta) + ":" + d.kind);
    if (renamed) continue;
    found.push_back(Signal{"dead_code_removed", d.name, d.at, false});
  }
  out.signals.insert(out.signals.end(), found.begin(), found.end());
}

}  // namespace mergelens::code_internal
