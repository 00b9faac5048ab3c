// Shared by the listwise prompts (triage.h, themes.h): one-line clipping of
// authors' text, and the check that a model's free text cites only names the
// prompt showed. No I/O.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace mergelens::answer_check {

// One line, at most `chars` bytes (cut at a UTF-8 boundary, "…" added),
// newlines and tabs folded to spaces, trimmed.
std::string one_line(std::string_view text, size_t chars);

// The names a text field cites in backticks, trimmed, in order.
std::vector<std::string> backticked(std::string_view text);

// Whether a backticked name is shown in `entry`: as written, or its core
// without call parentheses and member dots (`.to()` → "to"), or, for a
// pattern such as `NAME_*`, its prefix.
bool shown_in(std::string_view name, std::string_view entry);

// The first backticked name of `text` that `entry` does not show; empty when
// every one is shown.
std::string first_unshown(std::string_view text, std::string_view entry);

}  // namespace mergelens::answer_check
