// A web server of a test store, in-process on a free loopback port, with a
// GET helper: shared by the server suites (web_server_test, web_repos_test).
#pragma once

#include <memory>
#include <string>
#include <thread>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "mergelens/store/store.h"
#include "mergelens/util/http.h"
#include "mergelens/web/server.h"

namespace mergelens::testing {

struct Serving {
  std::unique_ptr<web::Server> server;
  std::thread thread;
  int port = 0;

  // Serves the store at `db` (a file or a PostgreSQL URL) with `o` (its
  // port replaced by a free one). A failure fails the test.
  void start(const std::string& db, web::ServerOptions o) {
    o.port = 0;
    auto s = web::Server::create([db] { return open_store_at(db); }, o);
    ASSERT_TRUE(s) << s.error().message;
    server = std::move(*s);
    auto p = server->bind();
    ASSERT_TRUE(p) << p.error().message;
    port = *p;
    thread = std::thread([this] { server->run(); });
  }
  void stop() {
    if (server) server->stop();
    if (thread.joinable()) thread.join();
  }
  ~Serving() { stop(); }

  // GET `target` ("/day/2026-09-16"); a transport failure fails the test
  // and returns an empty response.
  http::Response get(const std::string& target, http::Headers headers = {}) const {
    http::Request r;
    r.url = fmt::format("http://127.0.0.1:{}{}", port, target);
    r.headers = std::move(headers);
    r.timeout_ms = 10000;
    auto resp = http::perform(r);
    EXPECT_TRUE(resp) << target << ": " << (resp ? "" : resp.error().message);
    return resp ? *resp : http::Response{};
  }
};

}  // namespace mergelens::testing
