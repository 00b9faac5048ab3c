#pragma once
// Request shaping and small replies for web/server.cc: which targets are
// refused or redirected, which query parameters a page reads, static assets,
// error bodies, validators (ETag, HTTP dates). Pure functions of their
// arguments; nothing here reads the store or keeps state beyond the static
// assets' replies, made once and shared (never freed before exit).

#include <cstddef>
#include <ctime>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "mergelens/web/http_server.h"
#include "mergelens/web/page_cache.h"

namespace mergelens::web {

// True when an Accept-Encoding value accepts gzip ("gzip", "gzip;q=0.5" or
// "*", but not "gzip;q=0").
bool accepts_gzip(std::string_view header);

// The JSON error body of the API ({"error": {"status", "code", "message"}},
// docs/api.md): every error under /api/ is one, whatever its status.
std::string api_error_body(int status, std::string_view message);

// An uncached error reply: JSON for an API path, else plain text.
Reply error_reply(int status, std::string body, bool api);

// True for a path under /api/.
bool is_api(std::string_view path);

// "/pr/1242/INVALID/PATH": true for a path one segment deeper than the page
// family its prefix names (no page: 404, not the family's 400 for a bad
// value). Tags are left out: a repository's label may hold a '/'.
bool too_deep(std::string_view path);

// `t` as an HTTP date ("Sun, 06 Nov 1994 08:49:37 GMT").
std::string http_date(std::time_t t);

// A weak ETag of a reply's status and body.
std::string etag_of(int status, std::string_view body);

// True for paths that try to leave their folder, however encoded: ".."
// segments, backslashes, NUL, and percent-encoded dots or slashes left after
// the transport's one decoding pass (double encoding).
bool suspicious(std::string_view path, std::string_view target);

// The embedded file served at `path` (/static/NAME.css, /favicon.ico,
// /robots.txt, /api/openapi.json) as a reply made once; nullptr for any other
// path.
std::shared_ptr<const Reply> static_asset(std::string_view path);

// The target without the trailing slashes of its path ("/day/x/?lang=en" ->
// "/day/x?lang=en"); nullopt when its path has none, or is "/" or a scope's
// home ("/all/", "/r/o/r/"), whose pages live there.
std::optional<std::string> without_trailing_slash(std::string_view target);

// The path of a site's public address ("https://host/ml" -> "/ml"), empty when
// it is the host's root or `base_url` is empty.
std::string base_path_of(std::string_view base_url);

// `req` with `base_path` taken off the front of its path and target, when its
// path is that path or lies below it ("/ml/day/x" -> "/day/x", "/ml" -> "/"):
// a proxy that publishes the server under a path may pass the path on or take
// it off, and both reach the same page. Returns `req` itself otherwise (no
// copy); `scratch` holds the shortened copy.
const HttpRequest& under_base(const HttpRequest& req, std::string_view base_path,
                              HttpRequest& scratch);

// Longest request target (path and query) answered; longer ones are 414.
inline constexpr size_t kMaxTarget = 4096;

// `req` as a page reads it: the query parameters pages and /api/ answers read
// alone (report/filter.h's keys, the tag, search and API pages' own), ordered
// by name (values of one name keep their order), and the target rebuilt from
// the decoded path and them, so that every spelling of one page has one
// target (the cache key and the feeds' self links). Any other parameter
// (utm_source=..., a unique string per request) is dropped: it neither
// changes the page nor makes a cache entry of its own.
HttpRequest page_request(const HttpRequest& req);

}  // namespace mergelens::web
