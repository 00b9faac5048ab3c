// Turning a model's answer that should be one JSON object into that object.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "mergelens/util/error.h"

namespace mergelens::llm {

// Names of the repair steps, as appended to `steps` by parse_json_answer.
inline constexpr const char* kStepUtf8 = "replace invalid UTF-8";
inline constexpr const char* kStepFence = "strip code fence";
inline constexpr const char* kStepProse = "strip prose";
inline constexpr const char* kStepBalanced = "first balanced object";
inline constexpr const char* kStepSyntax = "fix syntax";  // trailing commas, comments, quotes
inline constexpr const char* kStepClose = "close truncated answer";

// The repair ladder. Tries, in order, until one yields a JSON object:
//  (1) parse as is;
//  (2) replace invalid UTF-8 with U+FFFD; strip a Markdown code fence (```json ... ```, the
//      first fenced block holding a '{'); then strip the prose around the outermost {...};
//  (3) take the first balanced {...} that parses (string-aware, so braces in strings count
//      for nothing);
//  (4) from the first '{' on: remove // and /* */ comments and trailing commas, turn smart
//      double quotes and single quotes outside strings into '"';
//  (5) close a truncated answer: end an unterminated string (dropping a half escape), or else
//      drop a dangling key or partial value back to the last complete member, then close the
//      open arrays and objects (an empty object closed from a lone '{' does not count).
// Success: the object; the names of the steps that were needed (kStep*) are appended to
// `steps` when it is not null (nothing is appended when the content parsed as is, nor on
// failure). `steps` is the caller's; `content` is only read during the call.
// Failure: kCorrupt, with the first characters of the content, when nothing yields an object,
// or when brackets nest deeper than 256 levels.
// Never throws; any bytes are accepted.
Result<nlohmann::json> parse_json_answer(std::string_view content, std::vector<std::string>* steps);

}  // namespace mergelens::llm
