// Per-file and per-hunk working state of analyze_code (code_facts.cc,
// symbols.cc). Internal to the analysis module.
#pragma once

#include <climits>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "mergelens/analysis/code/code_facts.h"
#include "mergelens/analysis/code/code_outline.h"
#include "mergelens/analysis/code/code_signals.h"

namespace mergelens::code_internal {

// Changed lines per file that get fragment outlines, definitions and signals.
inline constexpr int kChangedLineCap = 5000;
inline constexpr size_t kSignalCapPerFile = 400;

// One hunk seen from both sides: the old side is context + removed lines,
// the new side context + added lines, both in order.
struct Sides {
  std::vector<SideLine> old_side, new_side;
  std::vector<std::string_view> old_text, new_text;
  std::vector<int> old_of, new_of;      // hunk line -> side index, -1 when absent
  std::vector<int> old_line, new_line;  // side index -> hunk line
};

// A symbol as resolved for a line.
struct Sym {
  std::string name, kind;
  int indent = -1;
  bool container = false;
};

struct HunkState {
  const Hunk* hunk = nullptr;
  Sides sides;
  std::vector<std::int32_t> pos;  // per hunk line: its new-file line (removed: where it used to be)
  bool analysed = false;          // under the cap: fragment outlines built
  // Side lines from these indexes on are past the file's cap of changed
  // lines: no signals or definitions are read there.
  int old_cut = 0, new_cut = 0;
  Outline frag_old, frag_new;
  std::vector<char> touched_old, touched_new;  // per fragment definition: header changed
  std::optional<OutlineDef> section;           // the definition git named in the header
  int section_closed_old = INT_MAX, section_closed_new = INT_MAX;  // side index where it ends
};

struct FileState {
  const FileChange* file = nullptr;
  size_t index = 0;
  Language lang = Language::kUnknown;
  bool test = false;        // a test file (no public API there)
  bool tooling = false;     // scripts, benchmarks, examples, docs (no public API either)
  bool cpp_header = false;  // a C/C++ header
  bool has_content = false;
  std::string content;
  std::vector<std::string_view> lines;            // of content, '\r' stripped
  Outline outline;                                // of content
  std::unordered_map<int, int> def_at_name_line;  // content outline: name line -> def
  std::vector<HunkState> hunks;
};

// A line of code: not blank, not a comment (Markdown: not blank).
bool code_line(std::string_view text, Language lang);

// The hunk line whose symbol is the hunk's: its first changed line that is
// code (not blank, not a comment), else its first changed line; -1 if none.
int symbol_line(const HunkState& h, Language lang);

// Symbol enclosing hunk line `k` (see code_facts.cc).
Sym resolve_symbol(const FileState& f, const HunkState& h, int k);

// Symbol of fragment definition `d` of one side, qualified with the class git
// named in the hunk header when the fragment does not show it.
Sym fragment_symbol(const FileState& f, const HunkState& h, bool old_side, int d);

// Innermost definition of the new file's content at 1-based `line`.
Sym content_symbol(const FileState& f, int line);

// Appends the definitions of file `f` (added, removed, signature_changed,
// then modified for the hunks' symbols) and its public-API signals.
void collect_definitions(const FileState& f, CodeFacts& out);

// Appends the comments, docstrings and replacements of file `f`'s analysed
// hunks (code languages only; at most 200 of each per file) (code_rationale.cc).
void collect_rationale(const FileState& f, CodeFacts& out);

// Appends "dead_code_removed" signals for removed definitions that the change
// neither redefines nor references on an added line.
void detect_dead_code(const Change& change, CodeFacts& out);

const char* separator(Language l);

// Marks `hunks` (one per analysed hunk of `files`, in the same order) moved
// when >= 70% of a hunk's significant added (or removed) lines, at least 3,
// appear on the other side in another hunk of the change (moved_code.cc).
void mark_moved(const std::vector<FileState>& files, std::vector<HunkFacts>& hunks);

// Drops the "todo" signals of added lines whose TODO text (from the tag on)
// a removed line of the change also holds: carried along, not left by it.
void drop_moved_todos(const Change& change, std::vector<Signal>& signals);

// Drops the "guard" and "early_return" signals of added lines whose
// condition, names aside ("x is None"), a removed `if` of the same hunk
// had: the branch existed at the parent (kept_branches.cc).
void drop_kept_branches(const Change& change, std::vector<Signal>& signals);

// Drops the "raise" and "guard" signals of an AttributeError raised in a
// Python `__getattr__`/`__getattribute__`: the protocol every such hook must
// follow for unknown names, not a new path to test or ask about.
void drop_protocol_raises(const Change& change, std::vector<Signal>& signals);

// Drops the comments and docstrings of `notes` every line of which a removed
// line of the change also holds: the code's own words from before, carried
// along (moved or re-indented), are not this change's rationale.
void drop_moved_notes(const Change& change, std::vector<RationaleNote>& notes);

}  // namespace mergelens::code_internal
