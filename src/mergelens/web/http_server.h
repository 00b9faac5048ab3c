// HTTP/1.1 transport of the web server, over h2o's event loop (Debian's
// libh2o-evloop): a few event-loop threads own every connection and answer
// from memory without blocking; whatever may block (building a page on the
// store) is handed to a pool of worker threads and answered from the loop
// when it is done. This replaced cpp-httplib, whose thread per keep-alive
// connection capped the server at well under half of nginx's rate on the
// same pages (bench/README.md, "serve").
//
// The transport knows nothing of pages: it parses requests into HttpRequest,
// asks the handlers, and sends HttpResponse. HEAD is answered with the
// headers of GET and no body. h2o answers malformed requests (400) and
// oversized bodies (413) itself, with its own short text/plain responses
// (without the handlers' headers, such as the Content-Security-Policy).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "mergelens/util/error.h"

namespace mergelens::web {

using HeaderList = std::vector<std::pair<std::string, std::string>>;

struct HttpRequest {
  std::string method;  // "GET", "HEAD", ...
  std::string target;  // as sent: the path and query, still percent-encoded
  std::string path;    // the target's path, percent-decoded once
  HeaderList params;   // the query's parameters, decoded ('+' is a space), in order
  HeaderList headers;  // names lowercased, in order
  std::string body;    // the request's content (POST), at most HttpOptions::max_request_body
  std::string peer;    // the client's address ("127.0.0.1", "::1"), without port

  // The first value of header / parameter `name` (header names lowercase),
  // or an empty string.
  std::string header(std::string_view name) const;
  std::string param(std::string_view name) const;
};

struct HttpResponse {
  int status = 200;
  HeaderList headers;  // sent as given; Content-Length is added
  // The body: `body` points into bytes that `keep` owns (or into static
  // storage when `keep` is null). The transport holds `keep` until the
  // bytes are on the wire, so a cached page goes out without a copy.
  std::string_view body;
  std::shared_ptr<const void> keep;

  // Sets an owned copy of `text` as the body, with its Content-Type.
  void set_body(std::string text, std::string_view content_type);
};

struct HttpOptions {
  std::string host = "127.0.0.1";
  int port = 8080;      // 0: any free port
  size_t loops = 2;     // event-loop threads
  size_t workers = 16;  // threads running the slow handler
  size_t max_request_body = 64 * 1024;
};

class HttpServer {
 public:
  // Runs on an event-loop thread and must not block: returns the response,
  // or nullopt to have `Slow` answer the request on a worker thread. Both
  // may be called from several threads at once; an exception they throw is
  // answered with a 500.
  using Fast = std::function<std::optional<HttpResponse>(const HttpRequest&)>;
  using Slow = std::function<HttpResponse(const HttpRequest&)>;

  // Binds and listens (backlog SOMAXCONN, SO_REUSEADDR only, so a second
  // server on the same port fails). kIo naming host and port when the
  // address cannot be resolved or bound.
  static Result<std::unique_ptr<HttpServer>> bind(const HttpOptions& options, Fast fast, Slow slow);
  ~HttpServer();

  int port() const;
  // Serves until stop(): the calling thread runs one of the loops. On stop
  // it stops accepting, lets requests already handed to workers finish
  // (briefly), and returns. Sets SIGPIPE to be ignored, process-wide, so a
  // write to a connection the client closed fails instead of ending the
  // process.
  void run();
  // Safe from any thread, before or during run().
  void stop();

  struct Impl;

 private:
  explicit HttpServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Percent-decodes `s` once; with `plus_is_space`, '+' becomes ' ' (query
// strings). Malformed escapes are kept as they are.
std::string percent_decode(std::string_view s, bool plus_is_space);

}  // namespace mergelens::web
