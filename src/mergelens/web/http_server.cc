#include "mergelens/web/http_server.h"

#define H2O_USE_LIBUV 0
#include <h2o.h>

#include <arpa/inet.h>
#include <netdb.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <new>
#include <thread>

namespace mergelens::web {

std::string HttpRequest::header(std::string_view name) const {
  for (const auto& [k, v] : headers)
    if (k == name) return v;
  return "";
}

std::string HttpRequest::param(std::string_view name) const {
  for (const auto& [k, v] : params)
    if (k == name) return v;
  return "";
}

void HttpResponse::set_body(std::string text, std::string_view content_type) {
  auto owned = std::make_shared<const std::string>(std::move(text));
  body = *owned;
  keep = std::move(owned);
  headers.emplace_back("Content-Type", std::string(content_type));
}

std::string percent_decode(std::string_view s, bool plus_is_space) {
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && hex(s[i + 1]) >= 0 && hex(s[i + 2]) >= 0) {
      out += static_cast<char>(hex(s[i + 1]) * 16 + hex(s[i + 2]));
      i += 2;
    } else if (s[i] == '+' && plus_is_space) {
      out += ' ';
    } else {
      out += s[i];
    }
  }
  return out;
}

namespace {

// A small FIFO of tasks run by a fixed set of threads.
class WorkerPool {
 public:
  explicit WorkerPool(size_t n) {
    for (size_t i = 0; i < n; ++i) threads_.emplace_back([this] { work(); });
  }
  ~WorkerPool() {
    {
      std::lock_guard lock(mu_);
      done_ = true;
    }
    cv_.notify_all();
    for (auto& t : threads_) t.join();
  }
  void submit(std::function<void()> task) {
    {
      std::lock_guard lock(mu_);
      tasks_.push_back(std::move(task));
    }
    cv_.notify_one();
  }

 private:
  void work() {
    for (;;) {
      std::function<void()> task;
      {
        std::unique_lock lock(mu_);
        cv_.wait(lock, [this] { return done_ || !tasks_.empty(); });
        if (done_) return;  // what is still queued has nobody to answer it
        task = std::move(tasks_.front());
        tasks_.pop_front();
      }
      task();
    }
  }
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> tasks_;
  bool done_ = false;
  std::vector<std::thread> threads_;
};

std::string ascii_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

const char* reason_of(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 301:
      return "Moved Permanently";
    case 304:
      return "Not Modified";
    case 400:
      return "Bad Request";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 500:
      return "Internal Server Error";
    case 503:
      return "Service Unavailable";
    default:
      return status < 400 ? "OK" : status < 500 ? "Bad Request" : "Internal Server Error";
  }
}

HttpResponse internal_error() {
  HttpResponse r;
  r.status = 500;
  r.set_body("internal error\n", "text/plain; charset=utf-8");
  return r;
}

struct Pending;

// Answers finished by workers, waiting for their loop. Workers add to
// `done` and write to the loop's eventfd; the loop takes them all.
struct Mailbox {
  std::mutex mu;
  std::vector<std::shared_ptr<Pending>> done;
  bool open = false;  // false once the loop has shut down: answers are dropped
};

// One event loop and its context; `ctx` comes first so the context h2o
// hands back (req->conn->ctx) leads to its Loop.
struct Loop {
  h2o_context_t ctx;
  h2o_accept_ctx_t accept;
  h2o_socket_t* listener;
  h2o_socket_t* wake;  // the eventfd workers write to
  int wake_fd;
  Mailbox* mailbox;
  HttpServer::Impl* impl;
};

// A request handed to a worker. `req` belongs to the loop thread, which
// clears it when h2o disposes of the request (the client went away).
struct Pending {
  Loop* loop = nullptr;
  h2o_req_t* req = nullptr;
  HttpRequest request;
  HttpResponse response;
};

// Held in a request's memory pool; destroyed with it.
template <typename T>
struct PoolRef {
  std::shared_ptr<T> ptr;
};

template <typename T>
void hold_in_pool(h2o_req_t* req, std::shared_ptr<T> ptr, void (*dispose)(void*)) {
  void* mem = h2o_mem_alloc_shared(&req->pool, sizeof(PoolRef<T>), dispose);
  new (mem) PoolRef<T>{std::move(ptr)};
}

void dispose_keep(void* p) {
  static_cast<PoolRef<const void>*>(p)->~PoolRef();
}

void dispose_pending(void* p) {
  auto* ref = static_cast<PoolRef<Pending>*>(p);
  ref->ptr->req = nullptr;
  ref->~PoolRef();
}

h2o_generator_t kGenerator = {nullptr, nullptr};

void send(h2o_req_t* req, HttpResponse&& res) {
  req->res.status = res.status;
  req->res.reason = reason_of(res.status);
  for (const auto& [name, value] : res.headers) {
    const std::string lower = ascii_lower(name);
    h2o_iovec_t n = h2o_strdup(&req->pool, lower.data(), lower.size());
    h2o_iovec_t orig = h2o_strdup(&req->pool, name.data(), name.size());
    h2o_iovec_t v = h2o_strdup(&req->pool, value.data(), value.size());
    h2o_add_header_by_str(&req->pool, &req->res.headers, n.base, n.len, 1, orig.base, v.base,
                          v.len);
  }
  const bool head = h2o_memis(req->method.base, req->method.len, H2O_STRLIT("HEAD"));
  const bool bodyless = res.status == 304 || res.status == 204;
  req->res.content_length = bodyless ? SIZE_MAX : res.body.size();
  h2o_start_response(req, &kGenerator);
  if (head || bodyless || res.body.empty()) {
    h2o_send(req, nullptr, 0, H2O_SEND_STATE_FINAL);
    return;
  }
  if (res.keep) hold_in_pool(req, std::move(res.keep), dispose_keep);
  h2o_iovec_t buf = h2o_iovec_init(res.body.data(), res.body.size());
  h2o_send(req, &buf, 1, H2O_SEND_STATE_FINAL);
}

HttpRequest parse(h2o_req_t* req) {
  HttpRequest r;
  r.method.assign(req->method.base, req->method.len);
  r.target.assign(req->path.base, req->path.len);
  const std::string_view target = r.target;
  const size_t q = req->query_at == SIZE_MAX ? target.size() : req->query_at;
  r.path = percent_decode(target.substr(0, q), false);
  std::string_view query = q < target.size() ? target.substr(q + 1) : "";
  while (!query.empty()) {
    const size_t amp = query.find('&');
    std::string_view item = query.substr(0, amp);
    query = amp == std::string_view::npos ? "" : query.substr(amp + 1);
    if (item.empty()) continue;
    const size_t eq = item.find('=');
    r.params.emplace_back(
        percent_decode(item.substr(0, eq), true),
        eq == std::string_view::npos ? "" : percent_decode(item.substr(eq + 1), true));
  }
  // h2o moves the Host header into the authority, and fills a missing one
  // in with the host configuration's name (not a Host the client sent).
  const bool supplied = req->hostconf == nullptr ||
                        req->input.authority.base != req->hostconf->authority.hostport.base;
  if (req->input.authority.len > 0 && supplied)
    r.headers.emplace_back("host",
                           std::string(req->input.authority.base, req->input.authority.len));
  for (size_t i = 0; i < req->headers.size; ++i) {
    const h2o_header_t& h = req->headers.entries[i];
    r.headers.emplace_back(ascii_lower({h.name->base, h.name->len}),
                           std::string(h.value.base, h.value.len));
  }
  if (req->entity.base != nullptr) r.body.assign(req->entity.base, req->entity.len);
  sockaddr_storage ss{};
  if (req->conn->callbacks->get_peername != nullptr &&
      req->conn->callbacks->get_peername(req->conn, reinterpret_cast<sockaddr*>(&ss)) > 0) {
    char buf[INET6_ADDRSTRLEN] = "";
    if (ss.ss_family == AF_INET)
      inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(&ss)->sin_addr, buf, sizeof buf);
    else if (ss.ss_family == AF_INET6)
      inet_ntop(AF_INET6, &reinterpret_cast<sockaddr_in6*>(&ss)->sin6_addr, buf, sizeof buf);
    r.peer = buf;
  }
  return r;
}

}  // namespace

struct HttpServer::Impl {
  HttpOptions options;
  Fast fast;
  Slow slow;
  int fd = -1;
  int port = 0;
  h2o_globalconf_t config{};
  std::atomic<bool> stopping{false};
  std::atomic<int> in_flight{0};  // requests handed to workers, not yet sent
  std::unique_ptr<WorkerPool> workers;

  ~Impl() {
    if (fd >= 0) ::close(fd);
    h2o_config_dispose(&config);
  }

  static int on_req(h2o_handler_t* self, h2o_req_t* req);
  static void on_accept(h2o_socket_t* listener, const char* err);
  static void on_wake(h2o_socket_t* sock, const char* err);
  void run_loop(Loop& loop, Mailbox& mailbox);
};

struct Handler {
  h2o_handler_t super;
  HttpServer::Impl* impl;
};

int HttpServer::Impl::on_req(h2o_handler_t* self, h2o_req_t* req) {
  Impl* impl = reinterpret_cast<Handler*>(self)->impl;
  Loop* loop = reinterpret_cast<Loop*>(req->conn->ctx);
  std::optional<HttpResponse> res;
  HttpRequest request;
  try {
    request = parse(req);
    res = impl->fast(request);
  } catch (...) {
    res = internal_error();
  }
  if (res) {
    send(req, std::move(*res));
    return 0;
  }
  auto pending = std::make_shared<Pending>();
  pending->loop = loop;
  pending->req = req;
  pending->request = std::move(request);
  hold_in_pool(req, pending, dispose_pending);
  ++impl->in_flight;
  impl->workers->submit([impl, pending] {
    try {
      pending->response = impl->slow(pending->request);
    } catch (...) {
      pending->response = internal_error();
    }
    Loop* loop = pending->loop;
    std::lock_guard lock(loop->mailbox->mu);
    if (!loop->mailbox->open) {  // the loop has shut down: nobody to answer
      --impl->in_flight;
      return;
    }
    loop->mailbox->done.push_back(std::move(pending));
    const std::uint64_t one = 1;
    (void)!::write(loop->wake_fd, &one, sizeof one);
  });
  return 0;
}

void HttpServer::Impl::on_wake(h2o_socket_t* sock, const char* err) {
  Loop* loop = static_cast<Loop*>(sock->data);
  if (err == nullptr) h2o_buffer_consume(&sock->input, sock->input->size);
  std::vector<std::shared_ptr<Pending>> done;
  {
    std::lock_guard lock(loop->mailbox->mu);
    done.swap(loop->mailbox->done);
  }
  for (auto& p : done) {
    if (p->req != nullptr) send(p->req, std::move(p->response));
    --loop->impl->in_flight;
  }
}

void HttpServer::Impl::on_accept(h2o_socket_t* listener, const char* err) {
  if (err != nullptr) return;
  h2o_socket_t* sock = h2o_evloop_socket_accept(listener);
  if (sock == nullptr) return;
  h2o_accept(&static_cast<Loop*>(listener->data)->accept, sock);
}

void HttpServer::Impl::run_loop(Loop& loop, Mailbox& mailbox) {
  std::memset(&loop, 0, sizeof loop);
  loop.impl = this;
  h2o_context_init(&loop.ctx, h2o_evloop_create(), &config);
  loop.accept.ctx = &loop.ctx;
  loop.accept.hosts = config.hosts;
  mailbox.open = true;
  loop.mailbox = &mailbox;
  loop.wake_fd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  loop.wake = h2o_evloop_socket_create(loop.ctx.loop, loop.wake_fd, 0);
  loop.wake->data = &loop;
  h2o_socket_read_start(loop.wake, on_wake);
  loop.listener = h2o_evloop_socket_create(loop.ctx.loop, ::dup(fd), H2O_SOCKET_FLAG_DONT_READ);
  loop.listener->data = &loop;
  h2o_socket_read_start(loop.listener, on_accept);
  while (!stopping.load(std::memory_order_relaxed)) h2o_evloop_run(loop.ctx.loop, 100);
  h2o_socket_read_stop(loop.listener);
  h2o_socket_close(loop.listener);
  // Answer what the workers are still building, and let open connections
  // finish, for a moment.
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(500);
  while ((in_flight.load() > 0 || !h2o_linklist_is_empty(&loop.ctx.http1._conns)) &&
         std::chrono::steady_clock::now() < until)
    h2o_evloop_run(loop.ctx.loop, 10);
  {
    std::lock_guard lock(mailbox.mu);
    mailbox.open = false;
  }
  h2o_socket_read_stop(loop.wake);
  h2o_socket_close(loop.wake);  // closes the eventfd
  // A loop with connections still open is left as it is (the process is
  // ending); disposing of it would free memory they still point to.
  if (h2o_linklist_is_empty(&loop.ctx.http1._conns)) {
    h2o_evloop_t* ev = loop.ctx.loop;
    h2o_context_dispose(&loop.ctx);
    h2o_evloop_destroy(ev);
  }
}

HttpServer::HttpServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
HttpServer::~HttpServer() = default;

Result<std::unique_ptr<HttpServer>> HttpServer::bind(const HttpOptions& options, Fast fast,
                                                     Slow slow) {
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  impl->fast = std::move(fast);
  impl->slow = std::move(slow);
  h2o_config_init(&impl->config);
  impl->config.server_name = h2o_iovec_init(H2O_STRLIT("mergelens"));
  impl->config.max_request_entity_size = options.max_request_body;
  impl->config.http1.upgrade_to_http2 = 0;
  h2o_hostconf_t* host =
      h2o_config_register_host(&impl->config, h2o_iovec_init(H2O_STRLIT("default")), 65535);
  h2o_pathconf_t* path = h2o_config_register_path(host, "/", 0);
  auto* handler = reinterpret_cast<Handler*>(h2o_create_handler(path, sizeof(Handler)));
  handler->super.on_req = Impl::on_req;
  handler->impl = impl.get();

  auto cannot = [&](const char* why) {
    return fail(ErrorKind::kIo, "cannot listen on {}:{} ({})", options.host, options.port, why);
  };
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string port = std::to_string(options.port);
  if (getaddrinfo(options.host.c_str(), port.c_str(), &hints, &found) != 0 || found == nullptr)
    return cannot("not an address of this host");
  for (addrinfo* a = found; a != nullptr && impl->fd < 0; a = a->ai_next) {
    const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    int yes = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    if (::bind(fd, a->ai_addr, a->ai_addrlen) == 0 && ::listen(fd, SOMAXCONN) == 0)
      impl->fd = fd;
    else
      ::close(fd);
  }
  freeaddrinfo(found);
  if (impl->fd < 0) return cannot("in use, or not an address of this host");
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  getsockname(impl->fd, reinterpret_cast<sockaddr*>(&addr), &len);
  impl->port = ntohs(addr.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port
                                                : reinterpret_cast<sockaddr_in*>(&addr)->sin_port);
  return std::unique_ptr<HttpServer>(new HttpServer(std::move(impl)));
}

int HttpServer::port() const {
  return impl_->port;
}

void HttpServer::run() {
  Impl& im = *impl_;
  // h2o writes with writev(), which raises SIGPIPE on a connection the peer
  // has closed; the write should just fail.
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &ignore, nullptr);
  im.workers = std::make_unique<WorkerPool>(std::max<size_t>(im.options.workers, 1));
  const size_t n = std::max<size_t>(im.options.loops, 1);
  // Loops and mailboxes outlive the workers, which may still hold them.
  std::vector<std::unique_ptr<Loop>> loops;
  std::vector<std::unique_ptr<Mailbox>> mailboxes;
  for (size_t i = 0; i < n; ++i) {
    loops.push_back(std::make_unique<Loop>());
    mailboxes.push_back(std::make_unique<Mailbox>());
  }
  std::vector<std::thread> threads;
  for (size_t i = 1; i < n; ++i)
    threads.emplace_back(
        [&im, l = loops[i].get(), m = mailboxes[i].get()] { im.run_loop(*l, *m); });
  im.run_loop(*loops[0], *mailboxes[0]);
  for (auto& t : threads) t.join();
  im.workers.reset();  // before the loops it would answer on are freed
}

void HttpServer::stop() {
  impl_->stopping = true;
}

}  // namespace mergelens::web
