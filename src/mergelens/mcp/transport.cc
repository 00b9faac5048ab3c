#include "mergelens/mcp/transport.h"

#include <algorithm>
#include <string>

#include "mergelens/mcp/protocol.h"

namespace mergelens::mcp {

namespace {

using nlohmann::json;

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// The host of an origin ("http://localhost:3000" → "localhost").
std::string origin_host(std::string_view origin) {
  const size_t scheme = origin.find("://");
  if (scheme == std::string_view::npos) return "";
  std::string_view rest = origin.substr(scheme + 3);
  if (rest.starts_with("[")) return std::string(rest.substr(0, rest.find(']') + 1));
  return std::string(rest.substr(0, rest.find(':')));
}

std::string host_only(std::string_view host) {
  if (host.starts_with("[")) return std::string(host.substr(0, host.find(']') + 1));
  return std::string(host.substr(0, host.find(':')));
}

bool origin_allowed(const web::HttpRequest& req) {
  const std::string origin = lower(req.header("origin"));
  if (origin.empty()) return true;  // not a browser
  const std::string host = origin_host(origin);
  if (host == "localhost" || host == "127.0.0.1" || host == "[::1]") return true;
  return !host.empty() && host == host_only(lower(req.header("host")));
}

web::HttpResponse json_response(int status, const json& body) {
  web::HttpResponse res;
  res.status = status;
  res.set_body(body.dump(-1, ' ', false, json::error_handler_t::replace),
               "application/json; charset=utf-8");
  return res;
}

web::HttpResponse rpc_error(int status, int code, std::string message) {
  return json_response(status, {{"jsonrpc", "2.0"},
                                {"id", nullptr},
                                {"error", {{"code", code}, {"message", std::move(message)}}}});
}

}  // namespace

Result<void> serve_stdio(std::istream& in, std::ostream& out, const ToolContext& context) {
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    std::optional<json> reply;
    auto read = context.store.read_snapshot([&] { reply = handle_text(line, context); });
    if (!read) return std::unexpected(read.error());
    if (reply) {
      out << reply->dump(-1, ' ', false, json::error_handler_t::replace) << '\n';
      out.flush();
    }
  }
  return {};
}

web::HttpResponse serve_http(const web::HttpRequest& req, const ToolContext& context) {
  if (!origin_allowed(req)) return rpc_error(403, -32600, "Forbidden: origin not allowed");
  if (req.method != "POST") {
    web::HttpResponse res =
        rpc_error(405, -32600, "Method not allowed: this MCP endpoint takes POST only");
    res.headers.emplace_back("Allow", "POST");
    return res;
  }
  const std::string accept = lower(req.header("accept"));
  if (accept.find("application/json") == std::string::npos ||
      accept.find("text/event-stream") == std::string::npos)
    return rpc_error(406, -32600,
                     "Not Acceptable: Accept must list application/json and text/event-stream");
  if (!lower(req.header("content-type")).starts_with("application/json"))
    return rpc_error(415, -32600, "Unsupported Media Type: send application/json");
  const std::string version = req.header("mcp-protocol-version");
  const auto& versions = supported_versions();
  if (!version.empty() && std::find(versions.begin(), versions.end(), version) == versions.end())
    return rpc_error(400, -32600, "Unsupported MCP-Protocol-Version: " + version);
  json message = json::parse(req.body, nullptr, /*allow_exceptions=*/false);
  if (message.is_discarded()) return rpc_error(400, -32700, "Parse error");
  if (only_notifications(message)) {
    web::HttpResponse res;
    res.status = 202;
    return res;
  }
  auto reply = handle_message(message, context);
  if (!reply) {
    web::HttpResponse res;
    res.status = 202;
    return res;
  }
  return json_response(200, *reply);
}

}  // namespace mergelens::mcp
