#include "mergelens/util/http.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <ctime>
#include <mutex>

namespace mergelens::http {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

void global_init() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

struct Sink {
  Response* response;
  size_t limit;
  bool too_large = false;
};

size_t on_body(char* data, size_t size, size_t n, void* user) {
  auto* sink = static_cast<Sink*>(user);
  size_t bytes = size * n;
  if (sink->response->body.size() + bytes > sink->limit) {
    sink->too_large = true;
    return 0;  // aborts the transfer
  }
  sink->response->body.append(data, bytes);
  return bytes;
}

size_t on_header(char* data, size_t size, size_t n, void* user) {
  auto* sink = static_cast<Sink*>(user);
  size_t bytes = size * n;
  std::string_view line(data, bytes);
  if (line.starts_with("HTTP/")) {
    sink->response->headers.clear();  // a new response (redirect or 100-continue)
    return bytes;
  }
  auto colon = line.find(':');
  if (colon != std::string_view::npos) {
    sink->response->headers.emplace_back(lower(trim(line.substr(0, colon))),
                                         std::string(trim(line.substr(colon + 1))));
  }
  return bytes;
}

}  // namespace

const std::string* Response::header(std::string_view name) const {
  std::string key = lower(name);
  for (const auto& [k, v] : headers) {
    if (k == key) return &v;
  }
  return nullptr;
}

std::string redact_url(std::string_view url) {
  return redact_userinfo(url.substr(0, url.find_first_of("?#")));
}

std::string safe_url(std::string_view url) {
  if (origin(url).empty()) return "";
  for (unsigned char c : url)
    if (c < 0x21 || c == 0x7f || c == '"' || c == '<' || c == '>' || c == '`' || c == '\\')
      return "";
  return std::string(url);
}

std::string redact_userinfo(std::string_view text) {
  std::string out;
  size_t pos = 0;
  for (size_t s; (s = text.find("://", pos)) != std::string_view::npos;) {
    const size_t host = s + 3;
    size_t end = text.find_first_of("/?# \t\r\n\"'<>", host);
    if (end == std::string_view::npos) end = text.size();
    const size_t at = text.substr(host, end - host).rfind('@');
    out.append(text.substr(pos, host - pos));
    pos = at == std::string_view::npos ? host : host + at + 1;
  }
  out.append(text.substr(pos));
  return out;
}

std::string origin(std::string_view url) {
  const auto colon = url.find("://");
  if (colon == std::string_view::npos) return {};
  const std::string scheme = lower(url.substr(0, colon));
  if (scheme != "http" && scheme != "https") return {};
  std::string_view authority = url.substr(colon + 3);
  authority = authority.substr(0, authority.find_first_of("/?#"));
  if (auto at = authority.rfind('@'); at != std::string_view::npos) authority.remove_prefix(at + 1);
  std::string_view host = authority, port;
  // "[::1]:8080": the port follows the closing bracket of an IPv6 literal.
  const auto bracket = authority.rfind(']');
  const auto last_colon = authority.rfind(':');
  if (last_colon != std::string_view::npos &&
      (bracket == std::string_view::npos || last_colon > bracket)) {
    host = authority.substr(0, last_colon);
    port = authority.substr(last_colon + 1);
  }
  if (host.empty()) return {};
  if (port.empty()) port = scheme == "https" ? "443" : "80";
  if (!std::all_of(port.begin(), port.end(), [](unsigned char c) { return std::isdigit(c); }))
    return {};
  while (port.size() > 1 && port.front() == '0') port.remove_prefix(1);
  return scheme + "://" + lower(host) + ":" + std::string(port);
}

Result<Response> perform(const Request& request, Failure* failure) {
  global_init();
  if (failure) *failure = Failure::kNone;
  CURL* curl = curl_easy_init();
  if (!curl) return fail(ErrorKind::kInternal, "cannot create an HTTP handle");
  Response response;
  Sink sink{&response, request.max_body_bytes};
  curl_slist* headers = nullptr;
  for (const auto& [k, v] : request.headers) {
    headers = curl_slist_append(headers, (k + ": " + v).c_str());
  }
  // libcurl adds "Expect: 100-continue" for large POSTs; servers answer faster without it.
  headers = curl_slist_append(headers, "Expect:");
  curl_easy_setopt(curl, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, request.method.c_str());
  if (!request.body.empty() || request.method == "POST") {
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, request.body.data());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE,
                     static_cast<curl_off_t>(request.body.size()));
  }
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, request.timeout_ms);
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, request.connect_timeout_ms);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(curl, CURLOPT_MAXREDIRS, 5L);
  curl_easy_setopt(curl, CURLOPT_ACCEPT_ENCODING, "");  // gzip/deflate when offered
  curl_easy_setopt(curl, CURLOPT_USERAGENT, "mergelens/0.1");
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &sink);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &sink);
  CURLcode rc = curl_easy_perform(curl);
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &response.status);
  long sent_bytes = 0;  // of the request, headers and body: 0 when it never left
  curl_easy_getinfo(curl, CURLINFO_REQUEST_SIZE, &sent_bytes);
  curl_slist_free_all(headers);
  curl_easy_cleanup(curl);
  if (rc != CURLE_OK) {
    Failure kind = Failure::kOther;
    if (sink.too_large) {
      kind = Failure::kTooLarge;
    } else if (rc == CURLE_OPERATION_TIMEDOUT) {
      kind = sent_bytes > 0 ? Failure::kTimeout : Failure::kConnect;
    } else if (rc == CURLE_COULDNT_CONNECT || rc == CURLE_COULDNT_RESOLVE_HOST) {
      kind = Failure::kConnect;
    }
    if (failure) *failure = kind;
    std::string why = sink.too_large
                          ? fmt::format("response larger than {} bytes", request.max_body_bytes)
                          : curl_easy_strerror(rc);
    return fail(ErrorKind::kIo, "{} {} failed: {}", request.method, redact_url(request.url), why);
  }
  return response;
}

std::string link_url(std::string_view link_header, std::string_view rel) {
  // <https://api.github.com/...&page=2>; rel="next", <...>; rel="last"
  // Each link-value is <URI> followed by ;-separated parameters. The rel
  // parameter may be quoted and may hold several space-separated relations.
  const std::string want = lower(rel);
  size_t pos = 0;
  while (pos < link_header.size()) {
    auto open = link_header.find('<', pos);
    if (open == std::string_view::npos) break;
    auto close = link_header.find('>', open);
    if (close == std::string_view::npos) break;
    auto next = link_header.find('<', close);
    std::string_view params = link_header.substr(
        close + 1, next == std::string_view::npos ? std::string_view::npos : next - close - 1);
    while (!params.empty()) {
      auto semi = params.find(';');
      std::string_view param = trim(params.substr(0, semi));
      params = semi == std::string_view::npos ? std::string_view() : params.substr(semi + 1);
      auto eq = param.find('=');
      if (eq == std::string_view::npos || lower(trim(param.substr(0, eq))) != "rel") continue;
      std::string_view value = trim(param.substr(eq + 1));
      while (!value.empty() && (value.back() == ',' || value.back() == ' ')) value.remove_suffix(1);
      if (value.size() >= 2 && value.front() == '"' && value.back() == '"')
        value = value.substr(1, value.size() - 2);
      const std::string v = lower(value);
      size_t at = 0;
      while (at < v.size()) {
        auto sp = v.find(' ', at);
        if (v.substr(at, sp == std::string::npos ? std::string::npos : sp - at) == want)
          return std::string(link_header.substr(open + 1, close - open - 1));
        if (sp == std::string::npos) break;
        at = sp + 1;
      }
    }
    if (next == std::string_view::npos) break;
    pos = next;
  }
  return {};
}

long retry_after_seconds(std::string_view value, long long now_unix) {
  value = trim(value);
  if (value.empty()) return -1;
  if (std::all_of(value.begin(), value.end(), [](unsigned char c) { return std::isdigit(c); })) {
    if (value.size() > 9) return -1;
    return std::stol(std::string(value));
  }
  std::time_t t = curl_getdate(std::string(value).c_str(), nullptr);
  if (t < 0) return -1;
  return std::max<long long>(0, static_cast<long long>(t) - now_unix);
}

}  // namespace mergelens::http
