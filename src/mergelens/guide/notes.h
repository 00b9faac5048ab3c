// Notes on one part of a large PR: what a notes call of the map-reduce
// writer answers (see guide/prompt.h), checked against the change before the
// final call reads them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mergelens/guide/citations.h"
#include "mergelens/guide/guide.h"
#include "mergelens/util/error.h"

namespace mergelens {

struct RegionNote {
  std::string path;
  std::int32_t start_line = 0, end_line = 0;
  std::string symbol;
  std::string what;      // what changed there
  std::string lesson;    // the reusable lesson, may be empty
  std::string question;  // what a reader should hold there
  std::string risk;      // the risk or the missing test, may be empty
};

struct PartNotes {
  std::vector<RegionNote> notes;
  std::vector<GuideSkim> skim;
};

// The response_format schema of a notes answer, and its reader (kInvalidInput
// naming the first offending field; never throws).
const nlohmann::json& notes_answer_schema();
Result<PartNotes> notes_from_answer(const nlohmann::json& answer);

// Checks every note against the change and removes what fails, as
// remove_failed_citations does for a guide (a note on a file the change
// lacks goes; a wrong range is cleared; a failing sentence is cut). Each
// field keeps its place (what, lesson, question, risk), so an edited note
// keeps its labels. Appends what was removed to `removed`, naming the call
// (`call`, "notes-2"), the note and its exact field ("notes-2 notes[3]
// (`x.py`).risk: …"). Returns the number of failures.
size_t check_notes(PartNotes& notes, const CitationIndex& index, std::vector<std::string>& removed,
                   std::string_view call = "notes");

// The notes of every part as the final prompt shows them, one line a note:
// "- `path`:10-20 `symbol`: what … Lesson: … Ask: … Risk: …".
std::string render_notes(const std::vector<PartNotes>& parts);

}  // namespace mergelens
