// JSON form of the model, as printed by `show --json` and read by publishers.
#pragma once

#include <nlohmann/json.hpp>

#include "mergelens/model/change.h"

namespace mergelens {

// Full JSON of a change. `with_hunks` = false leaves out the hunk lines (files
// keep their counts). Strings are raw bytes: dump with
// nlohmann::json::error_handler_t::replace to emit valid UTF-8.
nlohmann::json to_json(const Change& change, bool with_hunks = true);

// Serialises JSON to text, replacing invalid UTF-8 with U+FFFD.
std::string dump_json(const nlohmann::json& j, int indent = 2);

}  // namespace mergelens
