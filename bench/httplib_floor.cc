// The floor of the web server's transport: cpp-httplib configured as
// `mergelens serve` configures it (thread pool, keep-alive, TCP_NODELAY, a
// fixed-length content provider over bytes held in memory), answering every
// GET with the bytes of one file and the same headers, with no store, routing
// or cache. bench/serve.sh runs it beside mergelens and nginx, so the gap to
// nginx can be split into what httplib costs and what mergelens adds.
//
//   mergelens_httplib_floor FILE PORT
#include <httplib.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s FILE PORT\n", argv[0]);
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", argv[1]);
    return 1;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string body = ss.str();
  httplib::Server http;
  http.new_task_queue = [] { return new httplib::ThreadPool(512); };
  http.set_keep_alive_max_count(100000);
  http.set_tcp_nodelay(true);
  http.Get(".*", [&body](const httplib::Request&, httplib::Response& res) {
    res.set_header("Content-Security-Policy", "default-src 'none'");
    res.set_header("X-Content-Type-Options", "nosniff");
    res.set_header("ETag", "W/\"c8-0000000000000000\"");
    res.set_header("Cache-Control", "no-cache");
    res.set_content_provider(body.size(), "text/html; charset=utf-8",
                             [&body](size_t offset, size_t length, httplib::DataSink& sink) {
                               return sink.write(body.data() + offset, length);
                             });
  });
  if (!http.listen("127.0.0.1", std::stoi(argv[2]))) {
    std::fprintf(stderr, "cannot listen on port %s\n", argv[2]);
    return 1;
  }
  return 0;
}
