// Code the change moves rather than writes: hunks whose lines appear on the
// other side elsewhere in the change, and TODOs and comments it only carries
// along.
#include <unordered_map>
#include <unordered_set>

#include "mergelens/analysis/code/code_file.h"

namespace mergelens::code_internal {

using outline_internal::trim;

// A hunk is moved when >= 70% of its significant added (or removed) lines,
// at least 3, appear on the other side in another hunk of the change.
void mark_moved(const std::vector<FileState>& files, std::vector<HunkFacts>& hunks) {
  auto significant = [](std::string_view t) {
    t = trim(t);
    if (t.size() < 4) return false;
    int alnum = 0;
    for (char c : t) alnum += outline_internal::is_ident_char(c);
    if (alnum < 3) return false;
    static constexpr std::string_view kCommon[] = {
        "else:",       "pass",       "return",   "return;",  "break",    "break;",
        "continue",    "continue;",  "try:",     "finally:", "} else {", "else {",
        "return None", "return nil", "default:", "#endif",   "#else"};
    for (auto c : kCommon)
      if (t == c) return false;
    return true;
  };
  std::unordered_map<std::string_view, int> removed_count, added_count;
  for (const FileState& f : files)
    for (const HunkState& h : f.hunks) {
      for (const DiffLine& l : h.hunk->lines) {
        if ((l.origin != '+' && l.origin != '-') || !significant(l.text)) continue;
        ++(l.origin == '-' ? removed_count : added_count)[trim(l.text)];
      }
    }
  if (removed_count.empty() || added_count.empty()) return;
  size_t hf_index = 0;  // hunks holds the hunks in the same file/hunk order
  std::unordered_map<std::string_view, int> own_removed, own_added;
  for (const FileState& f : files) {
    for (const HunkState& h : f.hunks) {
      if (hf_index >= hunks.size()) return;
      HunkFacts& hf = hunks[hf_index++];
      own_removed.clear();
      own_added.clear();
      for (const DiffLine& l : h.hunk->lines) {
        if ((l.origin != '+' && l.origin != '-') || !significant(l.text)) continue;
        ++(l.origin == '-' ? own_removed : own_added)[trim(l.text)];
      }
      auto share = [&](const std::unordered_map<std::string_view, int>& own,
                       const std::unordered_map<std::string_view, int>& other_global,
                       const std::unordered_map<std::string_view, int>& other_own) {
        int total = 0, matched = 0;
        for (const auto& [line, n] : own) {
          total += n;
          auto g = other_global.find(line);
          if (g == other_global.end()) continue;
          auto o = other_own.find(line);
          const int elsewhere = g->second - (o == other_own.end() ? 0 : o->second);
          matched += std::min(n, std::max(0, elsewhere));
        }
        return total >= 3 && matched * 10 >= total * 7;
      };
      hf.moved = share(own_added, removed_count, own_removed) ||
                 share(own_removed, added_count, own_added);
    }
  }
}

void drop_moved_todos(const Change& change, std::vector<Signal>& signals) {
  if (std::none_of(signals.begin(), signals.end(),
                   [](const Signal& s) { return s.kind == "todo" && s.added; }))
    return;
  // The TODO comments of removed lines, from the tag on, whitespace trimmed.
  std::unordered_set<std::string> removed;
  auto from_tag = [](std::string_view t) -> std::string_view {
    for (std::string_view tag : {"TODO", "FIXME", "XXX", "HACK"})
      if (const size_t p = t.find(tag); p != std::string_view::npos) return trim(t.substr(p));
    return {};
  };
  for (const FileChange& fc : change.files)
    for (const Hunk& h : fc.hunks)
      for (const DiffLine& l : h.lines)
        if (l.origin == '-')
          if (auto t = from_tag(l.text); !t.empty()) removed.emplace(t);
  if (removed.empty()) return;
  std::unordered_map<std::string, std::unordered_set<std::int32_t>> todo_lines;  // path → lines
  for (const Signal& s : signals)
    if (s.kind == "todo" && s.added) todo_lines[s.at.path].insert(s.at.line);
  std::unordered_set<std::string> moved;  // "path:line" of TODOs written before
  for (const FileChange& fc : change.files) {
    auto it = todo_lines.find(fc.path);
    if (it == todo_lines.end()) continue;
    for (const Hunk& h : fc.hunks)
      for (const DiffLine& l : h.lines)
        if (l.origin == '+' && it->second.count(l.new_no))
          if (auto t = from_tag(l.text); !t.empty() && removed.count(std::string(t)))
            moved.insert(fc.path + ":" + std::to_string(l.new_no));
  }
  std::erase_if(signals, [&](const Signal& s) {
    return s.kind == "todo" && s.added && moved.count(s.at.path + ":" + std::to_string(s.at.line));
  });
}

void drop_moved_notes(const Change& change, std::vector<RationaleNote>& notes) {
  if (notes.empty()) return;
  std::unordered_map<std::string_view, int> removed;  // trimmed removed lines
  for (const FileChange& fc : change.files)
    for (const Hunk& h : fc.hunks)
      for (const DiffLine& l : h.lines)
        if (l.origin == '-' && !trim(l.text).empty()) ++removed[trim(l.text)];
  if (removed.empty()) return;
  std::erase_if(notes, [&](const RationaleNote& n) {
    int lines = 0, moved = 0;
    for (const FileChange& fc : change.files) {
      if (fc.path != n.path) continue;
      for (const Hunk& h : fc.hunks)
        for (const DiffLine& l : h.lines) {
          if (l.origin != '+' || l.new_no < n.start_line || l.new_no > n.end_line) continue;
          const std::string_view t = trim(l.text);
          if (t.empty()) continue;
          ++lines;
          moved += removed.count(t) > 0;
        }
    }
    return lines > 0 && moved == lines;
  });
}

}  // namespace mergelens::code_internal
