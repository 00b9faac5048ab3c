// The MCP server's tools: a table of read-only tools over the store, each
// with the JSON Schema of its arguments and of its structured result, run
// through the /api/v1/ data functions (web/api_v1.h), so a model reads the
// same data, in the same fields, as an API client.
//
// Adding a tool is one entry in the table of tools.cc: name, description,
// input schema (with the common `repo` and `lang` arguments from
// `site_arguments`, and `limit`, `cursor`, `fields` from `page_arguments`
// for a tool returning lists), output schema and a function from the
// arguments to the JSON data, paged by `paged` (mcp/paging.h) so that one
// result stays within a model's budget.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mergelens/store/store.h"
#include "mergelens/util/error.h"
#include "mergelens/web/i18n.h"
#include "mergelens/web/tz.h"

namespace mergelens::mcp {

// What a tool call reads: a store connection (borrowed for the call; in one
// read transaction when served over HTTP), the day boundaries, the default
// language, whose data is at the root (a repository id or kAllRepos) and the
// base URL of the web server the results' page links start with (empty:
// those links are null).
struct ToolContext {
  Store& store;
  const web::TimeZone& tz;
  web::Lang default_lang = web::Lang::kZh;
  std::int64_t root = kAllRepos;
  std::string base_url;
};

struct Tool {
  std::string name;
  std::string title;
  std::string description;
  nlohmann::json input_schema;   // a JSON Schema of type object
  nlohmann::json output_schema;  // a JSON Schema of type object (the structuredContent)
  // The structured result for arguments that passed `input_schema`.
  // kInvalidInput / kNotFound are the caller's mistakes (a tool error the
  // model can correct); other kinds are the server's.
  std::function<Result<nlohmann::json>(const ToolContext&, const nlohmann::json& args)> run;
  // The short text block sent beside the structured result (what it holds,
  // what it left out and how to get the next page): the result is sent
  // once, as structuredContent.
  std::function<std::string(const nlohmann::json& result)> summary;
};

// The text block of `tool`'s `result`: its summary, or the JSON itself for a
// tool without one.
std::string result_text(const Tool& tool, const nlohmann::json& result);

// Every tool, in the order tools/list gives them. Built once; never empty.
const std::vector<Tool>& tools();

// The tool named `name`, or nullptr.
const Tool* find_tool(std::string_view name);

// Checks `args` against `schema`, within the subset of JSON Schema the
// table uses (type object with properties of type string, integer or
// boolean, enum, minimum, maximum, minLength, maxLength, required,
// additionalProperties false). Returns what is wrong, or an empty string.
std::string check_arguments(const nlohmann::json& schema, const nlohmann::json& args);

}  // namespace mergelens::mcp
