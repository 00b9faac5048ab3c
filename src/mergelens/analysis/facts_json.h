// JSON form of Facts: stored by the store (as an opaque document) and merged
// into `show --json`. Key names are part of the CLI contract:
//   focus, skim, tags, scores{importance, insight, importance_reasons,
//   insight_reasons}, verdict, numbers, test_gaps, body_mismatches, roles,
//   references (and referenced_by, added by the caller from the store),
//   rationale, replacements.
#pragma once

#include <nlohmann/json.hpp>

#include "mergelens/analysis/facts.h"
#include "mergelens/util/error.h"

namespace mergelens {

nlohmann::json facts_to_json(const Facts& facts);

// Reads what facts_to_json wrote. kCorrupt when required keys are missing or
// of the wrong type.
Result<Facts> facts_from_json(const nlohmann::json& j);

std::optional<Verdict> verdict_from_string(std::string_view s);
std::optional<FileRole> role_from_string(std::string_view s);
std::optional<Language> language_from_string(std::string_view s);

}  // namespace mergelens
