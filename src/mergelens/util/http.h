// Outbound HTTP over libcurl: one blocking request at a time per call, safe to
// call from several threads at once (each call owns its own curl handle).
//
// Secrets: request header values are never copied into errors or logs. The
// URL named in an error has its query string removed, so tokens passed as
// query parameters do not leak either.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "mergelens/util/error.h"

namespace mergelens::http {

using Headers = std::vector<std::pair<std::string, std::string>>;

struct Request {
  std::string method = "GET";  // "GET", "POST", ...
  std::string url;
  Headers headers;          // sent as given ("Authorization", "Bearer ...")
  std::string body;         // sent when non-empty (or when method is POST)
  long timeout_ms = 60000;  // whole transfer
  long connect_timeout_ms = 10000;
  size_t max_body_bytes = 64u << 20;  // larger responses fail with kIo
};

struct Response {
  long status = 0;
  Headers headers;  // names lowercased, in arrival order (last response of redirects)
  std::string body;

  // Value of the first header named `name` (case-insensitive), or nullptr.
  const std::string* header(std::string_view name) const;
};

// Kinds of transport failure, so callers can decide whether to retry:
// kConnect, the request never reached the server (refused, DNS, or a timeout
// before it was sent); kTimeout, it was sent and no answer came in time (the
// server may have acted on it).
enum class Failure { kNone, kConnect, kTimeout, kTooLarge, kOther };

// Performs the request. Any HTTP status, 4xx and 5xx included, is a Response.
// Transport failures (refused connection, DNS, TLS, timeout, oversized body)
// are Errors of kind kIo naming the method and the URL without its query;
// `failure` (when given) says which kind it was.
Result<Response> perform(const Request& request, Failure* failure = nullptr);

// "https://host/path?x=1" -> "https://host/path" (for messages).
std::string redact_url(std::string_view url);

// `url` when it is an absolute http(s) URL with a host and without control
// characters, spaces or the characters that end an HTML attribute (" < > ` \),
// otherwise "" (so javascript:, data: and relative links are never printed or
// emitted).
std::string safe_url(std::string_view url);

// `text` (an error message, free text) with the userinfo ("user:password@")
// of every URL in it removed: after each "scheme://", up to the last '@'
// before the host ends (at '/', '?', '#', whitespace, a quote or '<' '>').
// Everything else is kept; plain e-mail addresses are not URLs and stay.
std::string redact_userinfo(std::string_view text);

// The origin of an absolute http(s) URL, "scheme://host:port" with scheme and
// host lowercased, any user:password@ dropped and the default port (80, 443)
// written out, so two URLs are on the same origin exactly when their origins
// compare equal. Returns "" for anything else (a relative path, another scheme,
// no host); "" never equals a real origin.
std::string origin(std::string_view url);

// Parses an RFC 8288 Link header and returns the URL whose rel is `rel`
// ("next", "last"), or an empty string.
std::string link_url(std::string_view link_header, std::string_view rel);

// Seconds to wait from a Retry-After header value: delta-seconds or an
// HTTP-date (relative to `now_unix`). -1 when the value is unusable.
long retry_after_seconds(std::string_view value, long long now_unix);

}  // namespace mergelens::http
