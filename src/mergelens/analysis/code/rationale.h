// The code's own rationale: comments and docstrings a change adds, and lines
// it replaces one for one.
//
// A reader learns most from what the author wrote beside the code ("index_fill_
// passes the 0 as a kernel argument; mapping[idx] = 0 copies a host-resident
// scalar") and from the line an edit replaced. code_facts.cc runs the scanners
// below over each hunk of a code file (it knows the new file's content and the
// enclosing symbols); finish_rationale() then keeps what belongs to code files
// and links each item to its focus region.
//
// Internal to the analysis module, except finish_rationale (called by the
// analyzer). Heuristic and total: never fails, never throws.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mergelens/analysis/facts.h"
#include "mergelens/model/change.h"

namespace mergelens {

// Carries comment and string state from one line of a source file to the
// next (Python triple-quoted strings and `#`; C-family `//` and `/* */`),
// enough to tell comments, docstrings and code apart line by line.
class CommentLexer {
 public:
  // `at_file_start`: the first line scanned is line 1 (a Python module
  // docstring may follow).
  CommentLexer(Language lang, bool at_file_start);

  // What one line holds.
  struct Line {
    bool code = false;       // code outside comments and docstrings
    bool in_block = false;   // the line began inside a block comment or docstring
    bool opens = false;      // a block comment or docstring opens on this line
    bool docstring = false;  // the line opens, continues or closes a docstring
    bool line_doc = false;   // a `///` or `//!` comment
    std::string comment;     // line or block comment text, markers stripped, trimmed
    bool block = false;      // `comment` comes from a /* */ block
    bool block_doc = false;  // ... a /** or /*! block
    std::string doc;         // docstring text on this line, trimmed
  };

  // Scans the next line (without its newline).
  Line scan(std::string_view line);

  // True when the next line starts inside a block comment or docstring.
  bool inside() const { return state_ != kCode; }

  // Guesses the state at a hunk's first line when the file before it is not
  // known: a C-family hunk whose first "*/" comes before any "/*" starts
  // inside a block comment.
  void guess_from(std::span<const std::string_view> lines);

 private:
  enum State { kCode, kBlock, kTriple };
  bool python_;
  State state_ = kCode;
  bool doc_ = false;        // the open block or string is documentation
  char quote_ = 0;          // Python: the quote character of the open triple string
  int depth_ = 0;           // Python: open brackets
  bool continued_ = false;  // Python: backslash continuation
  bool code_seen_ = false;  // Python: a statement was seen (no module docstring after it)
  bool header_ = false;     // Python: the last statement was a def/class header
  bool stmt_header_ = false;
  bool stmt_started_ = false;
};

// One new-side line of a hunk as the note finder sees it.
struct NoteLine {
  std::string_view text;
  bool added = false;
};

// A comment or docstring found on added lines: `first`..`last` index the
// lines passed to find_notes.
struct RawNote {
  int first = 0, last = 0;
  std::string kind;  // "comment" or "docstring"
  std::string text;  // markers stripped; lines joined by ' ', paragraphs by '\n'
};

// Scans `lines` (a hunk's new side, in order) with `lexer` and returns the
// comments and docstrings that sit on added lines, skipping licence headers,
// commented-out code, linter pragmas (`# noqa`, `# type: ignore`,
// `// NOLINT`, `# fmt: off`, ...), TODO/FIXME notes, separators and comments
// of fewer than two words. A note longer than ~1,500 bytes ends at the last
// whole line within that length.
std::vector<RawNote> find_notes(std::span<const NoteLine> lines, CommentLexer& lexer);

// A removed and an added line of one hunk that are one edit: indexes into
// Hunk::lines.
struct RawReplacement {
  int removed = 0, added = 0;
};

// Pairs the removed and added lines of each run of changed lines in `hunk`
// (runs of at most 24 lines a side) that are similar (line_similarity ≥ 0.5)
// but differ beyond whitespace, each line at most once, most similar first.
// Blank, comment, bracket-only and import lines are never paired, nor an
// added line nested under a branch the run adds around it (an arm of new
// control flow, not a one-line edit).
std::vector<RawReplacement> find_replacements(Language lang, const Hunk& hunk);

// Dice coefficient of the two lines' word pieces (identifiers split at '_'
// and case changes, lower-cased; numbers kept): 1 for the same pieces, 0 for
// none shared.
double line_similarity(std::string_view a, std::string_view b);

// Keeps the rationale and replacements of code files (core, kernel and model
// roles in facts.roles), sets each one's `focus` to the index of the focus
// region holding it (facts.focus must be ranked), orders those in focus
// first (by region, then position) and keeps at most 48 notes and 48
// replacements.
void finish_rationale(Facts& facts);

}  // namespace mergelens
