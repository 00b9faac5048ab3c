// collect_rationale: runs the comment and replacement scanners of
// rationale.h over the analysed hunks of one file and places what they find
// (new-file lines, enclosing symbols).
//
// The comment lexer needs to know whether a hunk starts inside a docstring or
// a block comment: with the new file's content it scans the lines before each
// hunk (once per file, hunks in order); without it, an added file starts at
// line 1 and other hunks are guessed from their own lines.
#include <algorithm>

#include "mergelens/analysis/code/code_file.h"
#include "mergelens/analysis/code/language.h"
#include "mergelens/analysis/code/rationale.h"

namespace mergelens::code_internal {
namespace {

constexpr size_t kPerFileCap = 200;

std::string trimmed(std::string_view s) {
  return std::string(outline_internal::trim(outline_internal::strip_cr(s)));
}

}  // namespace

void collect_rationale(const FileState& f, CodeFacts& out) {
  if (!is_code_language(f.lang) || f.file->binary) return;
  const bool added_file = f.file->status == FileStatus::kAdded;
  // No added line could hold a comment or docstring: only replacements to find.
  bool any_comment = false;
  for (const HunkState& h : f.hunks)
    for (const SideLine& l : h.sides.new_side)
      if (l.changed && (l.text.find('#') != std::string_view::npos ||
                        l.text.find("//") != std::string_view::npos ||
                        l.text.find("/*") != std::string_view::npos ||
                        l.text.find("*") != std::string_view::npos ||
                        l.text.find("\"\"\"") != std::string_view::npos ||
                        l.text.find("'''") != std::string_view::npos)) {
        any_comment = true;
        break;
      }
  CommentLexer file_lexer(f.lang, true);
  size_t scanned = 0;  // content lines the file lexer has read
  size_t notes = 0, pairs = 0;
  for (const HunkState& h : f.hunks) {
    if (!h.analysed) continue;
    const Hunk& hunk = *h.hunk;
    const auto& side = h.sides.new_side;
    if (any_comment && !side.empty() && notes < kPerFileCap) {
      const size_t first_line = hunk.new_start > 0 ? static_cast<size_t>(hunk.new_start - 1) : 0;
      CommentLexer lexer(f.lang, added_file || first_line == 0);
      if (f.has_content) {
        while (scanned < first_line && scanned < f.lines.size())
          file_lexer.scan(f.lines[scanned++]);
        lexer = file_lexer;
      } else if (!added_file) {
        lexer.guess_from(h.sides.new_text);
      }
      std::vector<NoteLine> lines;
      lines.reserve(side.size());
      const size_t cut = std::min(side.size(), static_cast<size_t>(h.new_cut));
      for (size_t i = 0; i < cut; ++i) lines.push_back({side[i].text, side[i].changed});
      for (const RawNote& n : find_notes(lines, lexer)) {
        if (notes >= kPerFileCap) break;
        const int k_first = h.sides.new_line[n.first], k_last = h.sides.new_line[n.last];
        RationaleNote note;
        note.path = f.file->path;
        note.start_line = h.pos[k_first];
        note.end_line = std::max(note.start_line, h.pos[k_last]);
        note.kind = n.kind;
        note.text = n.text;
        note.symbol = resolve_symbol(f, h, k_first).name;
        out.rationale.push_back(std::move(note));
        ++notes;
      }
      if (f.has_content) {
        // The hunk's new side is the content from its first line on.
        file_lexer = lexer;
        for (size_t i = cut; i < side.size(); ++i) file_lexer.scan(side[i].text);
        scanned = first_line + side.size();
      }
    }
    if (pairs >= kPerFileCap) continue;
    for (const RawReplacement& r : find_replacements(f.lang, hunk)) {
      if (pairs >= kPerFileCap) break;
      if (h.sides.old_of[r.removed] >= h.old_cut || h.sides.new_of[r.added] >= h.new_cut) continue;
      const DiffLine& old_line = hunk.lines[r.removed];
      const DiffLine& new_line = hunk.lines[r.added];
      Replacement rep;
      rep.path = f.file->path;
      rep.old_line = old_line.old_no;
      rep.new_line = new_line.new_no;
      rep.old_text = trimmed(old_line.text);
      rep.new_text = trimmed(new_line.text);
      rep.symbol = resolve_symbol(f, h, r.added).name;
      out.replacements.push_back(std::move(rep));
      ++pairs;
    }
  }
}

}  // namespace mergelens::code_internal
