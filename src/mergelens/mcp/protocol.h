// The Model Context Protocol (modelcontextprotocol.io/specification), server
// side, over JSON-RPC 2.0: lifecycle (initialize with protocol version
// negotiation, notifications/initialized, ping), tools/list and tools/call
// over the table of tools.h. Transports (stdio.h, http.h) hand it one
// message at a time; it keeps no per-client state, so one value serves
// every client of a streamable HTTP endpoint.
//
// Errors follow JSON-RPC 2.0 and the specification: -32700 unparsable JSON,
// -32600 not a request, -32601 unknown method, -32602 bad parameters (an
// unknown tool, arguments that are not an object), -32603 a store failure.
// Arguments that break a tool's input schema, an unknown repository, a PR
// that is not there, are tool results with isError true (the model can
// correct them), as specified since 2025-11-25.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "mergelens/mcp/tools.h"

namespace mergelens::mcp {

// Protocol versions this server speaks, newest first.
const std::vector<std::string>& supported_versions();

// The answer to one parsed JSON-RPC message (or a batch: an array of them):
// the response, or nullopt for a notification or a response (nothing to
// answer). Never throws.
std::optional<nlohmann::json> handle_message(const nlohmann::json& message,
                                             const ToolContext& context);

// The same for the text of one message: -32700 when it is not JSON.
std::optional<nlohmann::json> handle_text(std::string_view text, const ToolContext& context);

// True when `message` (or every element of a batch) carries no id: a
// notification or a response, which a streamable HTTP server answers with
// 202 and no body.
bool only_notifications(const nlohmann::json& message);

}  // namespace mergelens::mcp
