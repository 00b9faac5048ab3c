// The MCP transports: stdio (newline-delimited JSON-RPC messages on stdin,
// answers on stdout, nothing else written there) and streamable HTTP (one
// endpoint taking POST; mergelens serves it at /mcp beside the pages).
#pragma once

#include <chrono>
#include <functional>
#include <istream>
#include <map>
#include <mutex>
#include <ostream>
#include <string>

#include "mergelens/mcp/tools.h"
#include "mergelens/util/error.h"
#include "mergelens/web/http_server.h"

namespace mergelens::mcp {

// Reads messages from `in` until end of file, answering each on `out` as one
// line, flushed. Every message is handled inside one read transaction of
// `context.store`, within `timeout` (zero: none; a tool still running then
// gives up with a tool error). A batch is answered only when the protocol
// version `initialize` settled on has batches (mcp/protocol.h). kIo when the
// store cannot start a transaction; a malformed line is answered with a
// JSON-RPC error and the loop goes on.
Result<void> serve_stdio(std::istream& in, std::ostream& out, const ToolContext& context,
                         std::chrono::seconds timeout = std::chrono::seconds(0));

// Who may call the HTTP endpoint, and how much at once.
struct HttpPolicy {
  // The host of the server's public address (`--base-url`), lowercase,
  // without port: a Host or Origin naming it is the server itself. Empty:
  // only loopback names and IP addresses are.
  std::string public_host;
  // Requests of one client (one peer address) answered at once; more get
  // 429 with Retry-After.
  int max_concurrent_per_client = 4;
};

// Counts each client's requests in progress (shared by every request of one
// endpoint; thread-safe).
class ClientGate {
 public:
  // Takes a slot for `peer`; false when it already holds `limit`.
  bool enter(const std::string& peer, int limit);
  void leave(const std::string& peer);

 private:
  std::mutex mu_;
  std::map<std::string, int> busy_;
};

// True when `host` (a Host header value, or the host of an Origin, with or
// without port) names this server in a way DNS rebinding cannot forge: a
// loopback name (localhost, 127.0.0.1, [::1]), an IP address, or
// `public_host`. A rebinding attack always arrives under the attacker's own
// DNS name, in Host and Origin alike, so comparing the two proves nothing.
bool trusted_host(std::string_view host, std::string_view public_host);

// One HTTP request to the MCP endpoint, per the streamable HTTP transport:
//  - a Host that trusted_host() refuses, or an Origin header whose host it
//    refuses (DNS rebinding; an IP-address Origin must be loopback): 403;
//  - more than policy.max_concurrent_per_client requests of one peer at
//    once: 429;
//  - POST of one JSON-RPC message (or, in protocol 2025-03-26 alone, a batch
//    of at most kMaxBatch), with an Accept header whose media ranges accept
//    both application/json and text/event-stream (406 otherwise) and a
//    Content-Type of application/json, charset utf-8 if any (415
//    otherwise): 200 with the JSON response, or 202 and no body when it held
//    only notifications or responses; 400 with a JSON-RPC error for
//    unparsable JSON or an MCP-Protocol-Version header this server does not
//    speak;
//  - GET and DELETE: 405 (no server-initiated stream, no sessions: the
//    server issues no Mcp-Session-Id).
// The caller holds the store connection of `context` (in a read transaction).
web::HttpResponse serve_http(const web::HttpRequest& req, const ToolContext& context,
                             const HttpPolicy& policy, ClientGate& gate);

// The host of an http(s) URL, lowercase, without port ("https://Digest.Example:8443/x"
// → "digest.example"; "[::1]" keeps its brackets); empty for an empty URL.
std::string url_host(std::string_view url);

// True when the Accept value `accept` accepts `type` ("application/json"):
// a media range equal to it, "application/*" or "*/*", with q above 0.
bool accepts(std::string_view accept, std::string_view type);

// True when the Content-Type value is application/json, with no parameter
// but charset=utf-8.
bool is_json_content_type(std::string_view content_type);

}  // namespace mergelens::mcp
