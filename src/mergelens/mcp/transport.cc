#include "mergelens/mcp/transport.h"

#include <arpa/inet.h>

#include <algorithm>
#include <string>

#include "mergelens/mcp/protocol.h"
#include "mergelens/util/deadline.h"

namespace mergelens::mcp {

namespace {

using nlohmann::json;

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string_view trim(std::string_view v) {
  while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
  while (!v.empty() && (v.back() == ' ' || v.back() == '\t')) v.remove_suffix(1);
  return v;
}

// "host", "host:port", "[v6]" or "[v6]:port" → the host, brackets kept.
std::string_view host_part(std::string_view hostport) {
  if (hostport.starts_with("[")) {
    const size_t close = hostport.find(']');
    return close == std::string_view::npos ? std::string_view() : hostport.substr(0, close + 1);
  }
  return hostport.substr(0, hostport.find(':'));
}

bool is_ip_address(std::string_view host) {
  unsigned char buf[16];
  if (host.starts_with("[") && host.ends_with("]")) {
    const std::string v6(host.substr(1, host.size() - 2));
    return inet_pton(AF_INET6, v6.c_str(), buf) == 1;
  }
  const std::string v4(host);
  return inet_pton(AF_INET, v4.c_str(), buf) == 1;
}

bool is_loopback(std::string_view host) {
  if (host == "localhost" || host.ends_with(".localhost") || host == "[::1]") return true;
  unsigned char buf[4];
  const std::string v4(host);
  return inet_pton(AF_INET, v4.c_str(), buf) == 1 && buf[0] == 127;
}

// The host of an origin ("http://localhost:3000" → "localhost"); empty when
// it is not scheme://host[:port].
std::string origin_host(std::string_view origin) {
  const size_t scheme = origin.find("://");
  if (scheme == std::string_view::npos) return "";
  std::string_view rest = origin.substr(scheme + 3);
  if (rest.find('/') != std::string_view::npos || rest.find('@') != std::string_view::npos)
    return "";
  return std::string(host_part(rest));
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

// Frees a client's slot when the request is answered.
struct Slot {
  ClientGate& gate;
  const std::string& peer;
  ~Slot() { gate.leave(peer); }
};

}  // namespace

bool ClientGate::enter(const std::string& peer, int limit) {
  std::lock_guard lock(mu_);
  int& n = busy_[peer];
  if (n >= limit) return false;
  ++n;
  return true;
}

void ClientGate::leave(const std::string& peer) {
  std::lock_guard lock(mu_);
  auto it = busy_.find(peer);
  if (it != busy_.end() && --it->second <= 0) busy_.erase(it);
}

std::string url_host(std::string_view url) {
  const size_t scheme = url.find("://");
  if (scheme == std::string_view::npos) return "";
  std::string_view rest = url.substr(scheme + 3);
  rest = rest.substr(0, rest.find_first_of("/?#"));
  if (const size_t at = rest.rfind('@'); at != std::string_view::npos) rest = rest.substr(at + 1);
  return lower(host_part(rest));
}

bool trusted_host(std::string_view hostport, std::string_view public_host) {
  const std::string host = lower(host_part(trim(hostport)));
  if (host.empty()) return false;
  return is_loopback(host) || is_ip_address(host) || (!public_host.empty() && host == public_host);
}

bool accepts(std::string_view accept, std::string_view type) {
  const std::string want = lower(type);
  const std::string family = want.substr(0, want.find('/')) + "/*";
  while (!accept.empty()) {
    const size_t comma = accept.find(',');
    std::string_view item = accept.substr(0, comma);
    accept = comma == std::string_view::npos ? "" : accept.substr(comma + 1);
    const size_t semi = item.find(';');
    const std::string range = lower(trim(item.substr(0, semi)));
    if (range != want && range != family && range != "*/*") continue;
    // Parameters: q=0 (or 0.0, 0.00, 0.000) refuses the type.
    bool refused = false;
    for (std::string_view params = semi == std::string_view::npos ? "" : item.substr(semi + 1);
         !params.empty();) {
      const size_t next = params.find(';');
      const std::string p = lower(trim(params.substr(0, next)));
      params = next == std::string_view::npos ? "" : params.substr(next + 1);
      if (p.starts_with("q="))
        refused = p.size() > 2 && p.find_first_not_of("0.", 2) == std::string::npos;
    }
    if (!refused) return true;
  }
  return false;
}

bool is_json_content_type(std::string_view content_type) {
  const size_t semi = content_type.find(';');
  if (lower(trim(content_type.substr(0, semi))) != "application/json") return false;
  for (std::string_view params = semi == std::string_view::npos ? ""
                                                                : content_type.substr(semi + 1);
       !params.empty();) {
    const size_t next = params.find(';');
    std::string p = lower(trim(params.substr(0, next)));
    params = next == std::string_view::npos ? "" : params.substr(next + 1);
    p.erase(std::remove(p.begin(), p.end(), '"'), p.end());
    if (!p.empty() && p != "charset=utf-8") return false;
  }
  return true;
}

Result<void> serve_stdio(std::istream& in, std::ostream& out, const ToolContext& context,
                         std::chrono::seconds timeout) {
  std::string line;
  std::string version;  // settled by initialize
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    std::optional<json> reply;
    const Deadline deadline(timeout, nullptr);
    const DeadlineScope scope(deadline);
    auto read = context.store.read_snapshot([&] { reply = handle_text(line, context, version); });
    if (!read) return std::unexpected(read.error());
    if (reply) {
      if (std::string v = negotiated_version(*reply); !v.empty()) version = std::move(v);
      out << reply->dump(-1, ' ', false, json::error_handler_t::replace) << '\n';
      out.flush();
    }
  }
  return {};
}

web::HttpResponse serve_http(const web::HttpRequest& req, const ToolContext& context,
                             const HttpPolicy& policy, ClientGate& gate) {
  if (!trusted_host(req.header("host"), policy.public_host))
    return rpc_error(403, -32600,
                     "Forbidden: the Host header names neither this machine (localhost, an IP "
                     "address) nor the server's --base-url");
  if (const std::string origin = lower(trim(req.header("origin"))); !origin.empty()) {
    const std::string host = origin_host(origin);
    const bool ok = !host.empty() && (is_loopback(host) ||
                                      (!policy.public_host.empty() && host == policy.public_host));
    if (!ok) return rpc_error(403, -32600, "Forbidden: origin not allowed");
  }
  if (req.method != "POST") {
    web::HttpResponse res =
        rpc_error(405, -32600, "Method not allowed: this MCP endpoint takes POST only");
    res.headers.emplace_back("Allow", "POST");
    return res;
  }
  if (!accepts(req.header("accept"), "application/json") ||
      !accepts(req.header("accept"), "text/event-stream"))
    return rpc_error(406, -32600,
                     "Not Acceptable: Accept must list application/json and text/event-stream");
  if (!is_json_content_type(req.header("content-type")))
    return rpc_error(415, -32600, "Unsupported Media Type: send application/json");
  const std::string version = req.header("mcp-protocol-version");
  const auto& versions = supported_versions();
  if (!version.empty() && std::find(versions.begin(), versions.end(), version) == versions.end())
    return rpc_error(400, -32600, "Unsupported MCP-Protocol-Version: " + version);
  if (!gate.enter(req.peer, policy.max_concurrent_per_client)) {
    web::HttpResponse res =
        rpc_error(429, -32600,
                  "Too Many Requests: at most " + std::to_string(policy.max_concurrent_per_client) +
                      " requests of one client at once");
    res.headers.emplace_back("Retry-After", "1");
    return res;
  }
  const Slot slot{gate, req.peer};
  json message = json::parse(req.body, nullptr, /*allow_exceptions=*/false);
  if (message.is_discarded()) return rpc_error(400, -32700, "Parse error");
  if (auto why = batch_refusal(message, version))
    return rpc_error(400, -32600, "Invalid Request: " + *why);
  if (only_notifications(message)) {
    web::HttpResponse res;
    res.status = 202;
    return res;
  }
  auto reply = handle_message(message, context, version);
  if (!reply) {
    web::HttpResponse res;
    res.status = 202;
    return res;
  }
  return json_response(200, *reply);
}

}  // namespace mergelens::mcp
