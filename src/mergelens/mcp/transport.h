// The MCP transports: stdio (newline-delimited JSON-RPC messages on stdin,
// answers on stdout, nothing else written there) and streamable HTTP (one
// endpoint taking POST; mergelens serves it at /mcp beside the pages).
#pragma once

#include <functional>
#include <istream>
#include <ostream>

#include "mergelens/mcp/tools.h"
#include "mergelens/util/error.h"
#include "mergelens/web/http_server.h"

namespace mergelens::mcp {

// Reads messages from `in` until end of file, answering each on `out` as one
// line, flushed. Every message is handled inside one read transaction of
// `context.store`. kIo when the store cannot start a transaction; a
// malformed line is answered with a JSON-RPC error and the loop goes on.
Result<void> serve_stdio(std::istream& in, std::ostream& out, const ToolContext& context);

// One HTTP request to the MCP endpoint, per the streamable HTTP transport:
//  - an Origin header naming another host than the request's Host or a
//    loopback host: 403 (DNS rebinding);
//  - POST of one JSON-RPC message or a batch, with Accept listing
//    application/json and text/event-stream (406 otherwise) and
//    Content-Type application/json (415 otherwise): 200 with the JSON
//    response, or 202 and no body when it held only notifications or
//    responses; 400 with a JSON-RPC error for unparsable JSON or an
//    MCP-Protocol-Version header this server does not speak;
//  - GET and DELETE: 405 (no server-initiated stream, no sessions: the
//    server issues no Mcp-Session-Id).
// The caller holds the store connection of `context` (in a read transaction).
web::HttpResponse serve_http(const web::HttpRequest& req, const ToolContext& context);

}  // namespace mergelens::mcp
