// Conditional requests (RFC 9110 section 13) and CORS for the read-only API:
// small pure helpers the server (server.cc) calls on each response.
#pragma once

#include <ctime>
#include <optional>
#include <string>
#include <string_view>

#include "mergelens/web/http_server.h"

namespace mergelens::web {

// True when a GET or HEAD of a representation with entity tag `etag` and
// Last-Modified `last_modified` (an IMF-fixdate; may be empty) is to be
// answered with 304: If-None-Match, when present, decides alone ("*" or a
// list of entity tags, compared weakly: W/"x" matches "x"); otherwise
// If-Modified-Since, when it is a valid HTTP-date not earlier than
// `last_modified`. A malformed If-None-Match matches nothing; a malformed
// If-Modified-Since is ignored (section 13.1.3).
bool not_modified(const HttpRequest& req, std::string_view etag, std::string_view last_modified);

// An HTTP-date (RFC 9110 section 5.6.7) in any of its three forms: the
// IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT"), the obsolete RFC 850 form
// ("Sunday, 06-Nov-94 08:49:37 GMT", its two-digit year read as the most
// recent such year no more than 50 years after `now`) and C's asctime
// ("Sun Nov  6 08:49:37 1994"); nullopt for anything else.
std::optional<std::time_t> parse_http_date(std::string_view text, std::time_t now);

// Whether one entity tag of the If-None-Match value `list` matches `etag`
// by weak comparison ("*" matches any). Exposed for tests.
bool etag_list_matches(std::string_view list, std::string_view etag);

// CORS of the read-only API (/api/...): `allow_origin` "*" (the default:
// any page may read the API, without credentials), a comma-separated list of
// origins ("https://a.example, https://b.example") answered only to those,
// or empty: no CORS headers at all.
struct CorsOptions {
  std::string allow_origin = "*";
};

// Adds Access-Control-Allow-Origin (and Expose-Headers; Vary: Origin for a
// list) to an API response when `options` allow the request's Origin.
void add_cors(HttpResponse& res, const HttpRequest& req, const CorsOptions& options);

// The answer to an OPTIONS request on the API: a preflight (Origin and
// Access-Control-Request-Method present) gets 204 with the allowed methods
// (GET, HEAD, OPTIONS) and the request headers it asked for, when the
// origin and method are allowed; otherwise 204 with Allow and no CORS
// headers (the browser then refuses the request).
HttpResponse api_options(const HttpRequest& req, const CorsOptions& options);

}  // namespace mergelens::web
