// The web server: read-only pages and their JSON mirror under /api/, Atom
// feeds and the stylesheet, over h2o's event loop (web/http_server.h).
//
// Every response carries a Content-Security-Policy that forbids scripts,
// X-Content-Type-Options: nosniff, a weak ETag (304 on If-None-Match) and a
// Last-Modified; pages are gzip-compressed once when the client accepts it.
// Every page is built in one read transaction, so a reader never sees a
// change half-written. Rendered responses are cached in memory until another
// process commits to the store (PRAGMA data_version, checked at most every
// 200 ms), so an `ingest` or `write` running beside the server shows up
// without a restart; while it runs, recent pages are served stale and rebuilt
// in the background (web/page_cache.h). Each worker thread borrows its own
// store connection.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>

#include "mergelens/report/filter.h"
#include "mergelens/store/store.h"
#include "mergelens/util/error.h"
#include "mergelens/web/api_v1.h"
#include "mergelens/web/conditional.h"
#include "mergelens/web/http_server.h"

namespace mergelens::web {

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 8080;  // 0: any free port
  std::string tz = "UTC";
  std::string lang = "zh";  // default UI and guide language
  // The repository whose pages are at "/" (today's URLs); empty: the only
  // one, or with several every repository together (the cross-repository
  // pages). Every repository's pages are also under /r/NAME/, and the
  // cross-repository ones under /all/ (web/pages.h, Links).
  std::string repo;
  size_t loops = 2;       // event-loop threads: own the connections, answer cached pages
  size_t workers = 16;    // threads building pages (at most 4 build at once, see page_cache.h)
  size_t cache_mb = 256;  // rendered pages kept in memory (their keys counted too)
  size_t cache_entries = 16384;  // ... and at most this many of them
  // A page or an MCP call still building after this many seconds is given
  // up (503; util/deadline.h); so is every one when the server stops.
  int request_timeout = 15;
  // Named reader filters ([subscriptions.NAME] in mergelens.toml, see
  // docs/subscriptions.md): /s/NAME/ (its day), /s/NAME/day/D,
  // /s/NAME/week/W, /s/NAME/feed.xml and /s/NAME/week.xml show only what
  // passes it; any page also takes a filter in its query (?tags=...).
  std::map<std::string, report::Filter> subscriptions;
  // The site's public address ("https://example.org/digest", no trailing
  // '/'), for the absolute links of feeds, /api/v1/ and /mcp answers; empty:
  // http:// and the Host the client asked for.
  std::string base_url;
  int max_stale_seconds = 30;  // while a job commits, pages this young are served stale
                               // and rebuilt in the background (see page_cache.h)
  // CORS of the read-only API (/api/...); on for any origin by default.
  CorsOptions cors;
  // Another endpoint at `extra_path` (`mergelens serve` puts the MCP server
  // at "/mcp"; web/ knows nothing of it): every method there is answered by
  // `extra` on a worker thread, with a store connection held in one read
  // transaction. Security headers are added to what it returns.
  std::string extra_path;
  // More /api/v1/ paths, from modules above web/ (web/api_v1.h, ApiRoute).
  ApiRoute api_routes;
  std::function<HttpResponse(const HttpRequest&, Store&)> extra;
};

// Content-Security-Policy of every response.
inline constexpr const char* kContentSecurityPolicy =
    "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; "
    "base-uri 'none'; frame-ancestors 'none'";

class Server {
 public:
  using StoreFactory = std::function<Result<std::unique_ptr<Store>>()>;

  // Opens one store to check the repository and bring the search index up
  // to date. kInvalidInput for a bad time zone or language, the store's
  // errors otherwise.
  static Result<std::unique_ptr<Server>> create(StoreFactory open, const ServerOptions& options);
  ~Server();

  // Binds the listening socket; returns the port. kIo when it cannot bind.
  Result<int> bind();
  // Serves until stop() (from another thread or a signal handler thread).
  void run();
  void stop();

 private:
  Server();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace mergelens::web
