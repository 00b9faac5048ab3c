#include "mergelens/mcp/protocol.h"

#include <algorithm>

namespace mergelens::mcp {

namespace {

using nlohmann::json;

constexpr const char* kServerVersion = "1.0.0";

json error_response(const json& id, int code, std::string message) {
  return {
      {"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", std::move(message)}}}};
}

json result_response(const json& id, json result) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}

json initialize(const json& params) {
  const auto& versions = supported_versions();
  std::string version = versions.front();
  if (params.is_object() && params.contains("protocolVersion") &&
      params["protocolVersion"].is_string()) {
    const std::string asked = params["protocolVersion"].get<std::string>();
    if (std::find(versions.begin(), versions.end(), asked) != versions.end()) version = asked;
  }
  return {
      {"protocolVersion", version},
      {"capabilities", {{"tools", {{"listChanged", false}}}}},
      {"serverInfo",
       {{"name", "mergelens"}, {"title", "mergelens reading guides"}, {"version", kServerVersion}}},
      {"instructions",
       "Read-only tools over a mergelens store: merged pull requests of the repositories it "
       "follows, each with a verdict (close_read, selective_read, skim, skip), importance and "
       "insight scores (1-10) and a reading guide in Chinese (zh) or English (en). Start with "
       "`day` for what was merged, `search` or `tag` for an area, `pr` for one PR's guide."}};
}

json list_tools() {
  json out = json::array();
  for (const auto& t : tools()) {
    json tool = {{"name", t.name},
                 {"title", t.title},
                 {"description", t.description},
                 {"inputSchema", t.input_schema},
                 {"annotations",
                  {{"title", t.title},
                   {"readOnlyHint", true},
                   {"destructiveHint", false},
                   {"idempotentHint", true},
                   {"openWorldHint", false}}}};
    if (!t.output_schema.is_null()) tool["outputSchema"] = t.output_schema;
    out.push_back(std::move(tool));
  }
  return {{"tools", out}};
}

json tool_error(std::string text) {
  return {{"content", json::array({{{"type", "text"}, {"text", std::move(text)}}})},
          {"isError", true}};
}

// tools/call: a result, or a JSON-RPC error (as the response's "error").
json call_tool(const json& id, const json& params, const ToolContext& context) {
  if (!params.is_object() || !params.contains("name") || !params["name"].is_string())
    return error_response(id, -32602, "tools/call needs params.name, a string");
  const std::string name = params["name"].get<std::string>();
  const Tool* tool = find_tool(name);
  if (!tool) return error_response(id, -32602, "Unknown tool: " + name);
  json args = params.value("arguments", json::object());
  if (args.is_null()) args = json::object();
  if (!args.is_object()) return error_response(id, -32602, "params.arguments must be an object");
  if (std::string wrong = check_arguments(tool->input_schema, args); !wrong.empty())
    return result_response(id, tool_error("Invalid arguments for tool " + name + ": " + wrong));
  auto out = tool->run(context, args);
  if (!out) {
    const ErrorKind k = out.error().kind;
    if (k == ErrorKind::kInvalidInput || k == ErrorKind::kNotFound)
      return result_response(id, tool_error(out.error().message));
    return error_response(id, -32603, "the store could not be read: " + out.error().message);
  }
  // One copy of the result: structuredContent, with a short text summary.
  json text = {{"type", "text"}, {"text", result_text(*tool, *out)}};
  return result_response(id, {{"content", json::array({text})},
                              {"structuredContent", std::move(*out)},
                              {"isError", false}});
}

std::optional<json> handle_one(const json& m, const ToolContext& context) {
  if (!m.is_object()) return error_response(nullptr, -32600, "Invalid Request: not an object");
  const bool has_id = m.contains("id");
  const json id = has_id ? m["id"] : json(nullptr);
  if (has_id && !id.is_string() && !id.is_number_integer() && !id.is_null())
    return error_response(nullptr, -32600, "Invalid Request: id must be a string or an integer");
  if (!m.contains("method")) {
    // A response to a request of ours (we send none), or garbage.
    if (m.contains("result") || m.contains("error")) return std::nullopt;
    return error_response(id, -32600, "Invalid Request: no method");
  }
  if (m.value("jsonrpc", json()) != "2.0" || !m["method"].is_string())
    return has_id ? std::optional(error_response(id, -32600,
                                                 "Invalid Request: jsonrpc must be \"2.0\" and "
                                                 "method a string"))
                  : std::nullopt;
  const std::string method = m["method"].get<std::string>();
  const json params = m.value("params", json::object());
  if (!has_id) return std::nullopt;  // notifications/initialized, cancelled, ...: nothing to say
  try {
    if (method == "initialize") return result_response(id, initialize(params));
    if (method == "ping") return result_response(id, json::object());
    if (method == "tools/list") return result_response(id, list_tools());
    if (method == "tools/call") return call_tool(id, params, context);
    return error_response(id, -32601, "Method not found: " + method);
  } catch (const std::exception& e) {
    return error_response(id, -32603, std::string("Internal error: ") + e.what());
  }
}

}  // namespace

const std::vector<std::string>& supported_versions() {
  static const std::vector<std::string> v = {"2025-11-25", "2025-06-18", "2025-03-26",
                                             "2024-11-05"};
  return v;
}

std::optional<json> handle_message(const json& message, const ToolContext& context) {
  if (!message.is_array()) return handle_one(message, context);
  if (message.empty()) return error_response(nullptr, -32600, "Invalid Request: empty batch");
  json out = json::array();
  for (const auto& m : message)
    if (auto r = handle_one(m, context)) out.push_back(std::move(*r));
  if (out.empty()) return std::nullopt;
  return out;
}

std::optional<json> handle_text(std::string_view text, const ToolContext& context) {
  json message = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (message.is_discarded()) return error_response(nullptr, -32700, "Parse error");
  return handle_message(message, context);
}

bool only_notifications(const json& message) {
  auto one = [](const json& m) { return m.is_object() && !m.contains("id"); };
  if (!message.is_array()) return one(message);
  return !message.empty() && std::all_of(message.begin(), message.end(), one);
}

}  // namespace mergelens::mcp
