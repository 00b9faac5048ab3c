#include "mergelens/web/server_request.h"

#include <algorithm>
#include <cctype>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "mergelens/web/render.h"

namespace mergelens::web {

bool accepts_gzip(std::string_view header) {
  while (!header.empty()) {
    const size_t comma = header.find(',');
    std::string_view item = header.substr(0, comma);
    header = comma == std::string_view::npos ? "" : header.substr(comma + 1);
    const size_t semi = item.find(';');
    std::string_view name = item.substr(0, semi), params;
    if (semi != std::string_view::npos) params = item.substr(semi + 1);
    auto trim = [](std::string_view v) {
      while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
      while (!v.empty() && (v.back() == ' ' || v.back() == '\t')) v.remove_suffix(1);
      return v;
    };
    name = trim(name);
    params = trim(params);
    if (name != "gzip" && name != "*") continue;
    const bool refused =
        params.starts_with("q=0") && params.find_first_not_of("0.", 2) == std::string_view::npos;
    return !refused;
  }
  return false;
}

std::string api_error_body(int status, std::string_view message) {
  // 414 (a target past kMaxTarget) is the client's mistake: bad_request.
  const char* code = status == 400 || status == 414 ? "bad_request"
                     : status == 404                ? "not_found"
                     : status == 405                ? "method_not_allowed"
                     : status == 503                ? "unavailable"
                                                    : "server_error";
  return nlohmann::json{{"error", {{"status", status}, {"code", code}, {"message", message}}}}
      .dump();
}

Reply error_reply(int status, std::string body, bool api) {
  if (api) {
    while (!body.empty() && body.back() == '\n') body.pop_back();
    return Reply{status, "application/json; charset=utf-8", api_error_body(status, body), "", false,
                 ""};
  }
  return Reply{status, "text/plain; charset=utf-8", std::move(body), "", false, ""};
}

bool is_api(std::string_view path) {
  return path.starts_with("/api/");
}

bool too_deep(std::string_view path) {
  for (std::string_view family : {"/day/", "/week/", "/pr/"})
    if (path.starts_with(family)) return path.find('/', family.size()) != std::string_view::npos;
  return false;
}

std::string http_date(std::time_t t) {
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%a, %d %b %Y %H:%M:%S GMT", &tm);
  return buf;
}

std::string etag_of(int status, std::string_view body) {
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (unsigned char c : body) h = (h ^ c) * 1099511628211ull;
  return fmt::format("W/\"{:x}-{:016x}\"", status, h);
}

bool suspicious(std::string_view path, std::string_view target) {
  auto has_dotdot = [](std::string_view p) {
    size_t pos = 0;
    while ((pos = p.find("..", pos)) != std::string_view::npos) {
      const bool start = pos == 0 || p[pos - 1] == '/' || p[pos - 1] == '\\';
      const bool end = pos + 2 == p.size() || p[pos + 2] == '/' || p[pos + 2] == '\\';
      if (start && end) return true;
      pos += 2;
    }
    return false;
  };
  if (has_dotdot(path) || path.find('\\') != std::string_view::npos ||
      path.find('\0') != std::string_view::npos)
    return true;
  std::string low(target.substr(0, target.find('?')));
  for (char& c : low) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* bad : {"%2e", "%2f", "%5c", "%00", "%25"})
    if (low.find(bad) != std::string::npos && low.find("/static/") == 0) return true;
  return has_dotdot(low) || low.find("%2e%2e") != std::string::npos ||
         low.find("%252e") != std::string::npos || low.find("%5c") != std::string::npos ||
         low.find("%00") != std::string::npos;
}

std::shared_ptr<const Reply> static_asset(std::string_view path) {
  struct Asset {
    std::string_view path, file, type;
  };
  static constexpr Asset kAssets[] = {
      {"/static/style.css", "style.css", "text/css; charset=utf-8"},
      {"/favicon.ico", "favicon.ico", "image/x-icon"},
      {"/robots.txt", "robots.txt", "text/plain; charset=utf-8"},
      // The OpenAPI document of /api/v1/ (also at /api/v1/openapi.json).
      {"/api/openapi.json", "openapi.json", "application/json; charset=utf-8"},
  };
  static const std::vector<std::shared_ptr<const Reply>> replies = [] {
    std::vector<std::shared_ptr<const Reply>> out;
    for (const auto& a : kAssets) {
      const EmbeddedFile* f = embedded_file(a.file);
      auto r = std::make_shared<Reply>();
      r->type = a.type;
      r->body = f ? std::string(f->data) : std::string();
      r->etag = etag_of(200, r->body);
      r->modified = http_date(std::time(nullptr));
      out.push_back(std::move(r));
    }
    return out;
  }();
  if (path == "/api/v1/openapi.json") path = "/api/openapi.json";
  for (size_t i = 0; i < std::size(kAssets); ++i)
    if (path == kAssets[i].path) return replies[i];
  return nullptr;
}

std::optional<std::string> without_trailing_slash(std::string_view target) {
  const size_t q = target.find('?');
  std::string_view path = target.substr(0, q);
  if (path.size() < 2 || !path.ends_with('/')) return std::nullopt;
  if (path == "/all/" ||
      (path.starts_with("/r/") && std::count(path.begin(), path.end(), '/') == 4))
    return std::nullopt;
  while (path.size() > 1 && path.ends_with('/')) path.remove_suffix(1);
  if (path.starts_with("//")) return std::nullopt;  // never a redirect to another host
  return std::string(path) + std::string(q == std::string_view::npos ? "" : target.substr(q));
}

// The query parameters pages and /api/ answers read (report/filter.h's keys,
// the tag, search and API pages' own). Any other parameter is dropped before
// a page is looked up or built: it neither changes the page nor makes a
// cache entry of its own (utm_source=..., a unique string per request). A
// new parameter a page reads must be added here.
namespace {
constexpr std::string_view kPageParams[] = {
    "authors", "from", "highlights", "labels", "lang", "limit", "min",   "paths",
    "q",       "repo", "since",      "sort",   "tags", "to",    "until", "verdict"};
}  // namespace

HttpRequest page_request(const HttpRequest& req) {
  HttpRequest out;
  out.method = req.method;
  out.path = req.path;
  out.headers = req.headers;
  for (const auto& p : req.params)
    if (std::ranges::find(kPageParams, std::string_view(p.first)) != std::end(kPageParams))
      out.params.push_back(p);
  std::ranges::stable_sort(out.params, {}, [](const auto& p) { return std::string_view(p.first); });
  out.target = url_encode(req.path, true);
  for (size_t i = 0; i < out.params.size(); ++i)
    out.target += fmt::format("{}{}={}", i == 0 ? "?" : "&", url_encode(out.params[i].first),
                              url_encode(out.params[i].second));
  return out;
}

std::string base_path_of(std::string_view base_url) {
  const size_t scheme = base_url.find("://");
  if (scheme == std::string_view::npos) return "";
  const size_t slash = base_url.find('/', scheme + 3);
  if (slash == std::string_view::npos) return "";
  std::string path(base_url.substr(slash));
  while (path.ends_with('/')) path.pop_back();
  return path;
}

const HttpRequest& under_base(const HttpRequest& req, std::string_view base_path,
                              HttpRequest& scratch) {
  if (base_path.empty() || !req.path.starts_with(base_path)) return req;
  const std::string_view rest = std::string_view(req.path).substr(base_path.size());
  if (!rest.empty() && rest.front() != '/') return req;  // "/mlx" is not under "/ml"
  scratch = req;
  scratch.path = rest.empty() ? "/" : std::string(rest);
  // The target as sent, still encoded: its path starts with the same
  // characters when the base path needs no escaping (else rebuild it from
  // the decoded path; page_request() rebuilds pages' targets anyway).
  if (req.target.starts_with(base_path)) {
    const std::string_view t = std::string_view(req.target).substr(base_path.size());
    scratch.target = t.empty() || t.front() == '?' ? "/" + std::string(t) : std::string(t);
  } else {
    const size_t q = req.target.find('?');
    scratch.target = scratch.path + (q == std::string::npos ? "" : req.target.substr(q));
  }
  return scratch;
}

}  // namespace mergelens::web
