#include "mergelens/web/conditional.h"

#include <algorithm>
#include <ctime>
#include <optional>

namespace mergelens::web {

namespace {

std::string_view trim(std::string_view v) {
  while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
  while (!v.empty() && (v.back() == ' ' || v.back() == '\t')) v.remove_suffix(1);
  return v;
}

// The opaque tag of an entity tag, without its weakness prefix (weak
// comparison); nullopt when malformed.
std::optional<std::string_view> opaque(std::string_view tag) {
  tag = trim(tag);
  if (tag.starts_with("W/")) tag.remove_prefix(2);
  if (tag.size() < 2 || tag.front() != '"' || tag.back() != '"') return std::nullopt;
  tag = tag.substr(1, tag.size() - 2);
  if (tag.find('"') != std::string_view::npos) return std::nullopt;
  return tag;
}

}  // namespace

std::optional<std::time_t> parse_http_date(std::string_view text, std::time_t now) {
  const std::string s(trim(text));
  auto parse = [&](const char* format) -> std::optional<std::tm> {
    std::tm tm{};
    const char* end = strptime(s.c_str(), format, &tm);
    if (end == nullptr || *end != '\0') return std::nullopt;
    return tm;
  };
  // IMF-fixdate, then the two obsolete forms RFC 9110 (5.6.7) requires a
  // recipient to accept: RFC 850 and C's asctime().
  if (auto tm = parse("%a, %d %b %Y %H:%M:%S GMT")) return timegm(&*tm);
  if (auto tm = parse("%A, %d-%b-%y %H:%M:%S GMT")) {
    // A two-digit year more than 50 years ahead is the last such year past.
    std::tm now_tm{};
    gmtime_r(&now, &now_tm);
    const int yy = (tm->tm_year + 1900) % 100;
    int year = (now_tm.tm_year + 1900) / 100 * 100 + yy;
    if (year > now_tm.tm_year + 1900 + 50) year -= 100;
    tm->tm_year = year - 1900;
    return timegm(&*tm);
  }
  if (auto tm = parse("%a %b %e %H:%M:%S %Y")) return timegm(&*tm);
  return std::nullopt;
}

namespace {

bool origin_allowed(std::string_view origin, std::string_view allowed) {
  if (allowed == "*") return true;
  while (!allowed.empty()) {
    const size_t comma = allowed.find(',');
    if (trim(allowed.substr(0, comma)) == origin) return true;
    allowed = comma == std::string_view::npos ? "" : allowed.substr(comma + 1);
  }
  return false;
}

}  // namespace

bool etag_list_matches(std::string_view list, std::string_view etag) {
  if (trim(list) == "*") return true;
  const auto mine = opaque(etag);
  if (!mine) return false;
  // Entity tags are quoted and hold no quote, so a comma outside quotes
  // separates them.
  size_t i = 0;
  while (i < list.size()) {
    size_t j = i;
    bool quoted = false;
    while (j < list.size() && (quoted || list[j] != ',')) {
      if (list[j] == '"') quoted = !quoted;
      ++j;
    }
    if (auto theirs = opaque(list.substr(i, j - i)); theirs && *theirs == *mine) return true;
    i = j + 1;
  }
  return false;
}

bool not_modified(const HttpRequest& req, std::string_view etag, std::string_view last_modified) {
  if (req.method != "GET" && req.method != "HEAD") return false;
  bool has_inm = false;
  for (const auto& [name, value] : req.headers) {
    if (name != "if-none-match") continue;
    has_inm = true;
    if (etag_list_matches(value, etag)) return true;
  }
  if (has_inm) return false;
  const std::string ims = req.header("if-modified-since");
  if (ims.empty() || last_modified.empty()) return false;
  const std::time_t now = std::time(nullptr);
  const auto since = parse_http_date(ims, now);
  const auto modified = parse_http_date(last_modified, now);
  return since && modified && *modified <= *since;
}

void add_cors(HttpResponse& res, const HttpRequest& req, const CorsOptions& options) {
  if (options.allow_origin.empty()) return;
  if (options.allow_origin == "*") {
    res.headers.emplace_back("Access-Control-Allow-Origin", "*");
  } else {
    res.headers.emplace_back("Vary", "Origin");
    const std::string origin = req.header("origin");
    if (origin.empty() || !origin_allowed(origin, options.allow_origin)) return;
    res.headers.emplace_back("Access-Control-Allow-Origin", origin);
  }
  res.headers.emplace_back("Access-Control-Expose-Headers", "ETag, Last-Modified");
}

HttpResponse api_options(const HttpRequest& req, const CorsOptions& options) {
  HttpResponse res;
  res.status = 204;
  res.headers.emplace_back("Allow", "GET, HEAD, OPTIONS");
  const std::string origin = req.header("origin");
  const std::string method = req.header("access-control-request-method");
  if (options.allow_origin.empty() || origin.empty() || method.empty()) return res;
  if (options.allow_origin != "*") res.headers.emplace_back("Vary", "Origin");
  if (!origin_allowed(origin, options.allow_origin) || (method != "GET" && method != "HEAD"))
    return res;
  res.headers.emplace_back("Access-Control-Allow-Origin",
                           options.allow_origin == "*" ? "*" : origin);
  res.headers.emplace_back("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS");
  // Only the request headers a reader of a read-only API sends are allowed,
  // whatever the preflight asks (it once echoed any list, 8 KB included).
  static constexpr std::string_view kAllowed[] = {"accept",        "accept-language",
                                                  "cache-control", "if-modified-since",
                                                  "if-none-match", "content-language"};
  std::string allowed;
  const std::string asked_header = req.header("access-control-request-headers");
  std::string_view asked = asked_header;  // a view of the copy above, not of a temporary
  for (size_t n = 0; !asked.empty() && n < 16; ++n) {
    const size_t comma = asked.find(',');
    std::string name(asked.substr(0, comma));
    asked = comma == std::string_view::npos ? "" : asked.substr(comma + 1);
    std::erase_if(name, [](unsigned char c) { return c == ' ' || c == '\t'; });
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (std::ranges::find(kAllowed, std::string_view(name)) != std::end(kAllowed) &&
        allowed.find(name) == std::string::npos)
      allowed += (allowed.empty() ? "" : ", ") + name;
  }
  if (!allowed.empty()) res.headers.emplace_back("Access-Control-Allow-Headers", allowed);
  res.headers.emplace_back("Access-Control-Max-Age", "86400");
  return res;
}

}  // namespace mergelens::web
