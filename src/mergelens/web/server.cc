#include "mergelens/web/server.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <ctime>
#include <future>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>

#include <fmt/format.h>

#include "mergelens/util/deadline.h"
#include "mergelens/util/log.h"
#include "mergelens/web/api_v1.h"
#include "mergelens/web/http_server.h"
#include "mergelens/web/page_cache.h"
#include "mergelens/web/pages.h"
#include "mergelens/web/render.h"
#include "mergelens/web/server_request.h"

namespace mergelens::web {

struct Server::Impl {
  StoreFactory open;
  ServerOptions options;
  TimeZone tz;
  Lang default_lang = Lang::kZh;
  // Whose pages are at the root: the repository --repo names (or the only
  // one), or with several and none named kAllRepos (see pages.h, Links).
  std::int64_t root = kAllRepos;
  // The path of --base-url ("/ml"): pages link under it, and requests under it
  // are answered as the same pages at the root (see under_base).
  std::string base_path;
  std::unique_ptr<HttpServer> http;
  std::atomic<bool> stopped{false};
  // Set by stop(): every page and MCP call being built gives up at its next
  // check (util/deadline.h), so the server stops within seconds.
  std::atomic<bool> cancel{false};

  // Store connections lent to worker threads.
  std::mutex pool_mu;
  std::vector<std::unique_ptr<Store>> pool;

  std::unique_ptr<PageCache> cache;
  // The probe connection and the data version last seen on it.
  std::mutex probe_mu;
  std::unique_ptr<Store> probe;
  std::int64_t version = -1;
  std::atomic<std::int64_t> next_check{0};  // steady-clock ns

  Result<std::unique_ptr<Store>> borrow() {
    {
      std::lock_guard lock(pool_mu);
      if (!pool.empty()) {
        auto s = std::move(pool.back());
        pool.pop_back();
        return s;
      }
    }
    return open();
  }
  void give_back(std::unique_ptr<Store> s) {
    std::lock_guard lock(pool_mu);
    pool.push_back(std::move(s));
  }

  // Drops the cache when another connection committed since the last look
  // (one thread looks, at most every 200 ms; the others go on).
  void refresh() {
    const std::int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                 std::chrono::steady_clock::now().time_since_epoch())
                                 .count();
    if (now < next_check.load(std::memory_order_relaxed)) return;
    std::unique_lock probe_lock(probe_mu, std::try_to_lock);
    if (!probe_lock || now < next_check.load()) return;
    next_check = now + 200'000'000;
    auto v = probe->data_version();
    if (!v || *v == version) return;
    const bool first = version < 0;
    version = *v;
    if (first)
      cache->set_modified(http_date(std::time(nullptr)));
    else
      cache->invalidate(http_date(std::time(nullptr)));
  }

  Reply page_reply(const Site& site, Result<Page> page, std::string_view self,
                   std::string_view query, bool api) {
    Reply r;
    if (!page) {
      // The client reads what concerns its request; the log keeps the rest
      // (paths, SQL, a library's words: util/error.h, public_message).
      const Error e = page.error();
      log_hidden("serve", e);
      r.status = v1_status(e.kind);
      const char* key = r.status == 400 ? (self.ends_with("/search") ? "bad_query" : "bad_request")
                        : r.status == 404 ? "not_found"
                                          : "server_error";
      const std::string message = public_message(e);
      if (api) {
        r.type = "application/json; charset=utf-8";
        r.body = nlohmann::json{{"error",
                                 {{"status", r.status},
                                  {"code", r.status == 400   ? "bad_request"
                                           : r.status == 404 ? "not_found"
                                           : r.status == 503 ? "unavailable"
                                                             : "server_error"},
                                  {"title", tr(site.lang, key)},
                                  {"message", clean_text(message)}}}}
                     .dump();
        return r;
      }
      page = message_page(site, key, message);
    }
    if (api) {
      r.type = "application/json; charset=utf-8";
      r.body = page->model.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      return r;
    }
    auto html = render_page(site, *page, self, query);
    if (!html) {
      r.status = 500;
      r.type = "text/plain; charset=utf-8";
      r.body = "internal error while rendering the page\n";
      return r;
    }
    r.type = "text/html; charset=utf-8";
    r.body = std::move(*html);
    return r;
  }

  Reply route(Store& store, const HttpRequest& req, Lang lang) {
    if (req.path.starts_with("/api/v1/")) {
      ApiAnswer a = answer_v1(store, tz, default_lang, root, std::string_view(req.path).substr(7),
                              req.params, base_url_of(req), options.api_routes);
      return Reply{a.status,
                   "application/json; charset=utf-8",
                   a.body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
                   "",
                   true,
                   ""};
    }
    std::string path = req.path;
    const bool api = path.starts_with("/api/");
    if (api) path = path.substr(4);
    // The scope: "/r/NAME/..." one repository, "/all/..." every one, else
    // the root's. The list is read in the page's snapshot, so a repository
    // added meanwhile has its pages at once.
    auto repos = store.list_repos();
    if (!repos) return error_reply(500, "internal error\n", api);
    Scopes scopes{std::move(*repos), root};
    std::int64_t scope_id = root;
    std::string prefix;
    if (auto m = scopes.match(path)) {
      scope_id = m->repo_id;
      prefix = m->prefix;
      path = m->rest;
    }
    const RepoRecord* found = scopes.find(scope_id);
    const RepoRecord repo = found ? *found : all_repos_record(lang);
    // Pages, and the page models under /api/, link under the site's path;
    // feeds make their links absolute from --base-url, which holds it already.
    const bool feed = !api && path.ends_with(".xml");
    const Links links =
        Links::server(lang, default_lang, feed ? "" : base_path).at(scopes.scope_of(scope_id));
    // One repository alone needs no switcher and no repository labels.
    if (scopes.repos.size() < 2 && scope_id != kAllRepos) scopes.repos.clear();
    Site site{store, repo, tz, lang, links, std::move(scopes), base_url_of(req)};
    // A reader's filter: a named subscription (/s/NAME/...) or the query's.
    std::optional<report::Filter> filter;
    std::string sub_prefix;
    if (path.starts_with("/s/")) {
      const size_t slash = path.find('/', 3);
      const std::string name = path.substr(3, slash == std::string::npos ? slash : slash - 3);
      auto it = options.subscriptions.find(name);
      if (it == options.subscriptions.end())
        return page_reply(site, fail(ErrorKind::kNotFound, "no subscription named {}", name),
                          url_encode(prefix + path, true), "", api);
      filter = it->second;
      site.filter_name = name;
      sub_prefix = "/s/" + name;
      path = slash == std::string::npos ? "/" : path.substr(slash);
    } else {
      auto f = report::parse_filter(req.params);
      if (!f)
        return page_reply(site, std::unexpected(f.error()), url_encode(prefix + path, true), "",
                          api);
      // A tag no change carries is 404, as on the tag pages.
      if (!f->tags.empty())
        if (auto known = known_tags(site, f->tags); !known)
          return page_reply(site, std::unexpected(known.error()), url_encode(prefix + path, true),
                            "", api);
      if (!f->empty()) filter = std::move(*f);
    }
    if (filter) site.filter = &*filter;
    prefix += sub_prefix;
    // The query without lang, for the language switch.
    std::string query;
    for (const auto& [k, v] : req.params) {
      if (k == "lang") continue;
      query += fmt::format("{}{}={}", query.empty() ? "" : "&", url_encode(k), url_encode(v));
    }
    const std::string self = url_encode(prefix + path, true);
    const std::string home = url_encode(prefix + "/", true);
    if (too_deep(path))
      return page_reply(site, fail(ErrorKind::kNotFound, "no page at {}", clean_text(req.path)),
                        self, query, api);
    auto param = [&](const char* name) { return req.param(name); };
    if (path == "/" || path == "/day" || path == "/day/")
      return page_reply(site, day_page(site, ""), home, query, api);
    if (path.starts_with("/day/"))
      return page_reply(site, day_page(site, path.substr(5)), self, query, api);
    if (path == "/week" || path == "/week/")
      return page_reply(site, week_page(site, ""), url_encode(prefix + "/week", true), query, api);
    if (path.starts_with("/week/"))
      return page_reply(site, week_page(site, path.substr(6)), self, query, api);
    if (!api && path == "/week.xml") {
      auto feed = atom_feed(site, FeedKind::kWeeks, "", req.target);
      if (!feed) return page_reply(site, std::unexpected(feed.error()), self, query, false);
      return Reply{200, "application/atom+xml; charset=utf-8", std::move(*feed), "", true, ""};
    }
    if (path.starts_with("/pr/") && path.size() > 4)
      return page_reply(site, pr_page(site, path.substr(4)), self, query, api);
    if (path == "/tags" || path == "/tags/")
      return page_reply(site, tags_page(site, param("sort")), url_encode(prefix + "/tags", true),
                        query, api);
    if (path.starts_with("/tags/")) {
      AggregateParams p{path.substr(6), param("from"), param("to"), param("verdict"), param("min")};
      return page_reply(site, tag_page(site, p), self, query, api);
    }
    if (path == "/search")
      return page_reply(site, search_page(site, param("q")), url_encode(prefix + "/search", true),
                        query, api);
    if (!api && (path == "/feed.xml" || path == "/feed/close.xml" ||
                 (path.starts_with("/feed/tags/") && path.ends_with(".xml")))) {
      const FeedKind kind = path == "/feed.xml"         ? FeedKind::kAll
                            : path == "/feed/close.xml" ? FeedKind::kCloseReads
                                                        : FeedKind::kTag;
      const std::string tag = kind == FeedKind::kTag ? path.substr(11, path.size() - 15) : "";
      auto feed = atom_feed(site, kind, tag, req.target);
      if (!feed) return page_reply(site, std::unexpected(feed.error()), self, query, false);
      return Reply{200, "application/atom+xml; charset=utf-8", std::move(*feed), "", true, ""};
    }
    return page_reply(site, fail(ErrorKind::kNotFound, "no page at {}", clean_text(req.path)), self,
                      query, api);
  }

  // Renders one page on a borrowed store connection, in one read
  // transaction: a writer committing meanwhile shows whole on a later
  // request, never half-way through this one.
  std::shared_ptr<const Reply> build(const HttpRequest& req, Lang lang, std::string modified) {
    const bool api = is_api(req.path);
    Reply r = error_reply(503, "the store cannot be opened\n", api);
    const Deadline deadline(std::chrono::seconds(options.request_timeout), &cancel);
    const DeadlineScope scope(deadline);
    if (auto store = borrow(); store) {
      r = error_reply(500, "internal error\n", api);
      auto read = (*store)->read_snapshot([&] {
        try {
          r = route(**store, req, lang);
        } catch (const std::exception& e) {
          r = error_reply(500, "internal error\n", api);
        }
      });
      if (!read) r = error_reply(503, "the store is busy\n", api);
      give_back(std::move(*store));
    }
    r.etag = etag_of(r.status, r.body);
    r.modified = std::move(modified);
    return std::make_shared<const Reply>(std::move(r));
  }

  static void add_common_headers(HttpResponse& res) {
    res.headers.emplace_back("Content-Security-Policy", kContentSecurityPolicy);
    res.headers.emplace_back("X-Content-Type-Options", "nosniff");
    res.headers.emplace_back("X-Frame-Options", "DENY");
    res.headers.emplace_back("Referrer-Policy", "no-referrer");
    res.headers.emplace_back("Vary", "Accept-Encoding");
  }

  static HttpResponse text_response(int status, std::string text) {
    HttpResponse res;
    res.status = status;
    add_common_headers(res);
    res.set_body(std::move(text), "text/plain; charset=utf-8");
    return res;
  }

  // An error answered at once: JSON under /api/ (with CORS, so a page that
  // may read the API may read its errors), else plain text.
  HttpResponse error_response(const HttpRequest& req, int status, std::string text) const {
    if (!is_api(req.path)) return text_response(status, std::move(text));
    HttpResponse res;
    res.status = status;
    add_common_headers(res);
    add_cors(res, req, options.cors);
    while (!text.empty() && text.back() == '\n') text.pop_back();
    res.set_body(api_error_body(status, text), "application/json; charset=utf-8");
    return res;
  }

  static Lang lang_of(const HttpRequest& req, Lang fallback) {
    const std::string p = req.param("lang");
    return p.empty() ? fallback : lang_from(p);
  }

  // The site's public address: --base-url, else the Host the client asked
  // for (a name or address with an optional port; anything else is not used).
  std::string base_url_of(const HttpRequest& req) const {
    if (!options.base_url.empty()) return options.base_url;
    const std::string host = req.header("host");
    const bool plain = !host.empty() && host.size() < 256 &&
                       host.find_first_not_of(
                           "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                           "0123456789.-:[]") == std::string::npos;
    if (plain) return "http://" + host;
    return "http://" + options.host + ":" + std::to_string(http ? http->port() : options.port);
  }

  // Feeds and /api/v1/ answers carry absolute links: without --base-url, one
  // copy per Host.
  std::string key_of(const HttpRequest& req, Lang lang) const {
    std::string key = std::string(lang_code(lang)) + "|" + req.target;
    if (options.base_url.empty() &&
        (req.path.find("/feed") != std::string::npos || req.path.starts_with("/api/v1/")))
      key += "|" + base_url_of(req);
    return key;
  }

  // The extra endpoint (options.extra at options.extra_path) on a worker
  // thread, in one read transaction on a borrowed connection.
  HttpResponse extra(const HttpRequest& req) {
    HttpResponse res = text_response(503, "the store cannot be opened\n");
    const Deadline deadline(std::chrono::seconds(options.request_timeout), &cancel);
    const DeadlineScope scope(deadline);
    if (auto store = borrow(); store) {
      auto read = (*store)->read_snapshot([&] {
        try {
          res = options.extra(req, **store);
        } catch (const std::exception&) {
          res = text_response(500, "internal error\n");
        }
      });
      if (!read) res = text_response(503, "the store is busy\n");
      give_back(std::move(*store));
    }
    add_common_headers(res);
    return res;
  }

  // Answers what needs no store: refusals, the stylesheet, and pages in the
  // cache (fresh ones; gzip already made when the client takes it). Runs on
  // an event-loop thread; nullopt sends the request to `slow`.
  std::optional<HttpResponse> fast(const HttpRequest& sent) {
    HttpRequest scratch;
    const HttpRequest& req = under_base(sent, base_path, scratch);
    if (options.extra && !options.extra_path.empty() && req.path == options.extra_path)
      return std::nullopt;
    const bool api = req.path.starts_with("/api/");
    if (api && req.method == "OPTIONS") {
      HttpResponse res = api_options(req, options.cors);
      add_common_headers(res);
      return res;
    }
    if (req.method != "GET" && req.method != "HEAD") {
      HttpResponse res = error_response(req, 405, "this server is read-only\n");
      res.headers.emplace_back("Allow", api ? "GET, HEAD, OPTIONS" : "GET, HEAD");
      return res;
    }
    if (suspicious(req.path, req.target))
      return error_response(req, 400, "bad request: path not allowed\n");
    if (req.target.size() > kMaxTarget)
      return error_response(req, 414,
                            fmt::format("the address is longer than {} bytes\n", kMaxTarget));
    if (auto asset = static_asset(req.path)) {
      // Assets are the same for every page: gzipped like pages, and cached an
      // hour (the OpenAPI document is revalidated: it changes with the server).
      HttpResponse res =
          respond(req, std::move(asset), accepts_gzip(req.header("accept-encoding")));
      if (!api)
        for (auto& [k, v] : res.headers)
          if (k == "Cache-Control") v = "public, max-age=3600";
      return res;
    }
    if (req.path.starts_with("/static/")) return text_response(404, "not found\n");
    if (auto to = without_trailing_slash(req.target)) {
      // "/day/2026-09-07/" is the page "/day/2026-09-07": one address per page.
      HttpResponse res;
      res.status = 301;
      add_common_headers(res);
      res.headers.emplace_back("Location", base_path + *to);
      res.set_body("moved to " + base_path + *to + "\n", "text/plain; charset=utf-8");
      return res;
    }
    refresh();
    const HttpRequest page = page_request(req);
    std::shared_ptr<const Reply> reply = cache->fresh(key_of(page, lang_of(page, default_lang)));
    if (!reply) return std::nullopt;
    const bool gz = accepts_gzip(req.header("accept-encoding"));
    if (gz && !gzip_ready(*reply)) return std::nullopt;  // compressing may take a while
    return respond(req, std::move(reply), gz);
  }

  // Answers the rest, building the page when needed (on a worker thread).
  HttpResponse slow(const HttpRequest& sent) {
    HttpRequest scratch;
    const HttpRequest& req = under_base(sent, base_path, scratch);
    if (options.extra && req.path == options.extra_path) return extra(req);
    HttpRequest page = page_request(req);
    const Lang lang = lang_of(page, default_lang);  // fast() has just refreshed
    const std::string key = key_of(page, lang);
    std::shared_ptr<const Reply> reply =
        cache->get(key, [this, r = std::move(page), lang](std::string modified) {
          return build(r, lang, std::move(modified));
        });
    if (!reply) return error_response(req, 503, "the server is stopping\n");
    return respond(req, std::move(reply), accepts_gzip(req.header("accept-encoding")));
  }

  HttpResponse respond(const HttpRequest& req, std::shared_ptr<const Reply> reply, bool gz) const {
    HttpResponse res;
    add_common_headers(res);
    if (req.path.starts_with("/api/")) add_cors(res, req, options.cors);
    res.headers.emplace_back("Cache-Control", "no-cache");
    res.headers.emplace_back("ETag", reply->etag);
    res.headers.emplace_back("Last-Modified", reply->modified);
    if (reply->status == 200 && not_modified(req, reply->etag, reply->modified)) {
      res.status = 304;
      return res;
    }
    res.status = reply->status;
    gz = gz && !gzip_of(*reply).empty();
    if (gz) res.headers.emplace_back("Content-Encoding", "gzip");
    res.headers.emplace_back("Content-Type", reply->type);
    res.body = gz ? std::string_view(gzip_of(*reply)) : std::string_view(reply->body);
    res.keep = std::move(reply);
    return res;
  }
};

Server::Server() : impl_(std::make_unique<Impl>()) {}
Server::~Server() = default;

Result<std::unique_ptr<Server>> Server::create(StoreFactory open, const ServerOptions& options) {
  if (options.lang != "zh" && options.lang != "en")
    return fail(ErrorKind::kInvalidInput, "--lang must be zh or en, not \"{}\"", options.lang);
  auto tz = TimeZone::named(options.tz);
  if (!tz) return std::unexpected(tz.error());
  auto base_url = site_base_url(options.base_url);
  if (!base_url) return std::unexpected(base_url.error());
  auto probe = open();
  if (!probe) return std::unexpected(probe.error());
  std::int64_t root = kAllRepos;
  auto repos = (*probe)->list_repos();
  if (!repos) return std::unexpected(repos.error());
  if (!options.repo.empty() || repos->size() < 2) {
    auto repo = resolve_repo(**probe, options.repo);
    if (!repo) return std::unexpected(repo.error());
    root = repo->id;
  }
  if (auto r = (*probe)->refresh_search_index(); !r) return std::unexpected(r.error());
  // Briefs of facts and guides stored before they existed (once per store).
  if (auto r = (*probe)->fill_page_rows(); !r) return std::unexpected(r.error());
  std::unique_ptr<Server> s(new Server());
  Impl& im = *s->impl_;
  im.open = std::move(open);
  im.options = options;
  im.options.base_url = std::move(*base_url);
  im.base_path = base_path_of(im.options.base_url);
  im.tz = std::move(*tz);
  im.default_lang = lang_from(options.lang);
  im.root = root;
  im.probe = std::move(*probe);
  im.cache = std::make_unique<PageCache>(options.cache_mb << 20, options.cache_entries,
                                         std::chrono::seconds(options.max_stale_seconds),
                                         /*workers=*/2);
  im.refresh();
  return s;
}

Result<int> Server::bind() {
  Impl& im = *impl_;
  HttpOptions o;
  o.host = im.options.host;
  o.port = im.options.port;
  o.loops = im.options.loops;
  o.workers = im.options.workers;
  auto http = HttpServer::bind(
      o, [&im](const HttpRequest& req) { return im.fast(req); },
      [&im](const HttpRequest& req) { return im.slow(req); });
  if (!http) return std::unexpected(http.error());
  im.http = std::move(*http);
  if (im.stopped) im.http->stop();
  return im.http->port();
}

void Server::run() {
  if (impl_->http) impl_->http->run();
}

void Server::stop() {
  impl_->stopped = true;
  impl_->cancel = true;
  if (impl_->http) impl_->http->stop();
}

}  // namespace mergelens::web
