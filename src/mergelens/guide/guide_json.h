// The JSON form of a Guide (docs/guide.schema.json describes it).
#pragma once

#include <string_view>

#include <nlohmann/json.hpp>

#include "mergelens/guide/guide.h"
#include "mergelens/util/error.h"

namespace mergelens {

// The full guide, every field present (empty strings and arrays included).
nlohmann::json guide_to_json(const Guide& g);

// Reads a guide written by guide_to_json. Missing fields keep their defaults;
// a field of the wrong type fails with kCorrupt naming the field. Never throws.
Result<Guide> guide_from_json(const nlohmann::json& j);

// The content fields a model writes (no verdict, tags, source or writer),
// as a JSON schema for response_format, and the matching reader. The reader
// fails with kInvalidInput naming the first offending field.
const nlohmann::json& guide_answer_schema();
Result<Guide> guide_from_answer(const nlohmann::json& answer);

// The JSON schema (draft 2020-12) of a stored guide, as guide_to_json writes
// it: the answer fields plus lang, verdict, tags, source and writer. The copy
// in docs/guide.schema.json is generated from it (`mergelens schema`).
nlohmann::json guide_document_schema();

// A JSON schema of an object whose listed properties are all required and
// no other is allowed (what strict response formats want).
nlohmann::json strict_object_schema(
    std::initializer_list<std::pair<const char*, nlohmann::json>> props);

// All the guide's prose in one string (for search indexes and checks).
std::string guide_text(const Guide& g);

}  // namespace mergelens
