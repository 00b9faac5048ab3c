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

// The version a client that has not said is taken to speak (the streamable
// HTTP transport's rule for a request without MCP-Protocol-Version).
inline constexpr std::string_view kAssumedVersion = "2025-03-26";

// Limits on what one message may cost (docs/limits.md).
// A JSON-RPC batch holds at most this many messages. Batches exist in
// 2025-03-26 alone: 2025-06-18 removed them, and 2024-11-05 never had them
// in MCP; in those versions a batch is refused whole (-32600).
inline constexpr size_t kMaxBatch = 8;
// A tool's result is at most ToolContext::max_result_bytes (kMaxResultBytes
// of tools.h, 1 MiB); a larger one is a tool error asking for less (a
// shorter range, a smaller limit). All the results of one batch together:
// this many times that (4 MiB).
inline constexpr size_t kBatchResultShares = 4;

// The answer to one parsed JSON-RPC message (or a batch: an array of them),
// for a client speaking protocol `version` ("" : kAssumedVersion): the
// response, or nullopt for a notification or a response (nothing to
// answer). Never throws. What a client is not told of a failure (util/error.h,
// public_message) goes to the log (util/log.h).
std::optional<nlohmann::json> handle_message(const nlohmann::json& message,
                                             const ToolContext& context,
                                             std::string_view version = "");

// Why `message` (a batch) is refused for a client speaking `version` ("":
// kAssumedVersion): batches outside 2025-03-26, an empty batch, more than
// kMaxBatch messages; nullopt when it is taken (or is not a batch).
std::optional<std::string> batch_refusal(const nlohmann::json& message, std::string_view version);

// The same for the text of one message: -32700 when it is not JSON.
std::optional<nlohmann::json> handle_text(std::string_view text, const ToolContext& context,
                                          std::string_view version = "");

// The version an answer to `initialize` settled on, or "" when `reply` is
// not one.
std::string negotiated_version(const nlohmann::json& reply);

// True when `message` (or every element of a batch) carries no id: a
// notification or a response, which a streamable HTTP server answers with
// 202 and no body.
bool only_notifications(const nlohmann::json& message);

}  // namespace mergelens::mcp
