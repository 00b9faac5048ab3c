// Facts read from the code of a change: the language of each file, the
// symbol enclosing each hunk, the definitions a change adds, removes or
// re-signs, line-level signals (guards, env vars, flags, dtype/device
// branches, concurrency, TODOs, changed constants, public API, dead code)
// and hunks whose lines were moved rather than written.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "mergelens/analysis/facts.h"
#include "mergelens/model/change.h"

namespace mergelens {

// Returns the content of `path` in the new tree (at the change's merge
// commit), or nullopt when it is deleted, binary or unavailable. Supplied by
// the pipeline; tests pass a lambda over a map. It may be empty (no reader),
// and an exception it throws is treated as nullopt.
using FileReader = std::function<std::optional<std::string>(const std::string& path)>;

struct CodeFacts {
  std::map<std::string, Language> languages;  // every file of the change, by path
  // One entry per hunk of every non-binary file, in file/hunk order, with
  // file, hunk, new_start, new_end, added, removed, symbol and moved filled
  // (score and reasons are left for the focus ranking).
  std::vector<HunkFacts> hunks;
  std::vector<Signal> signals;          // in file, then line order of detection
  std::vector<Definition> definitions;  // per file: added/removed/signature_changed, then modified
  // Comments and docstrings on added lines of code-language files, and
  // one-for-one line replacements (rationale.h), in file and line order;
  // `focus` is left at -1 for finish_rationale.
  std::vector<RationaleNote> rationale;
  std::vector<Replacement> replacements;
};

// Analyses the code of `change`. Reads new-file contents through
// `read_new_file` at most once per file, and only for modified or renamed
// files whose language has an outline (Python, C/C++/CUDA, Rust, Go, JS/TS,
// Markdown) or is unknown (for the shebang), with at most 20,000 changed
// lines; added files are whole in their hunks, deleted ones have no new
// content. Without content it falls back on the hunks themselves and git's
// hunk-header section text. Heuristic and total: never fails, never throws.
// Work per file is capped (signals and definitions come from the first 5,000
// changed lines of each file, at most 400 signals), so a generated 50k-line
// file stays fast. The result owns all its strings; `change` and the reader
// are not retained.
CodeFacts analyze_code(const Change& change, const FileReader& read_new_file);

}  // namespace mergelens
