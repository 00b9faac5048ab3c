// The versioned data API (/api/v1/, described by the OpenAPI document
// web/templates/openapi.json) and the same data for the MCP tools (mcp/).
//
// Unlike the unversioned /api/ paths, which send a page's view model, v1
// sends data: numbers, verdict codes, ISO 8601 UTC times, absolute URLs, and
// field names that only change with the version. Each function reads the
// store through the page functions' own reads (day_digest, find_change,
// guide_for, aggregate_query, parse_query/expand_terms and the store's page
// queries); none writes. Each returns the JSON body of one answer, or an
// Error: kInvalidInput for a bad argument (400), kNotFound (404), the store's
// errors otherwise (500).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "mergelens/store/store.h"
#include "mergelens/util/error.h"
#include "mergelens/web/pages.h"

namespace mergelens::web {

// Where an answer is read: the site of one repository (or of every one),
// and the absolute base URL of the server ("http://127.0.0.1:8080", no
// trailing slash) that the answer's page and API links start with; empty
// base: those links are null (an MCP server on stdio that was given none).
using ApiParams = std::vector<std::pair<std::string, std::string>>;

struct ApiContext {
  const Site& site;
  std::string base_url;
};

// The site of repository `name` in `store`, in language `lang` (page links
// carry ?lang= when it is not `default_lang`, the server's): "" the root
// (`root`: a repository id or kAllRepos), "all" every repository. kNotFound
// naming the repositories the store holds for an unknown name. The Site
// refers to `store` and `tz`, which must outlive it.
Result<Site> api_site(Store& store, const TimeZone& tz, Lang lang, Lang default_lang,
                      std::int64_t root, std::string_view name);

// Whose pages are at the root of a server on `store`: the repository named
// `name`, else the only one, else kAllRepos. Errors as resolve_repo.
Result<std::int64_t> root_repo(Store& store, std::string_view name);

// {"repos": [{"name", "web_url", "api_url"}]}.
Result<nlohmann::json> v1_repos(const ApiContext& c);
// The digest of local day `date` ("" the newest day with changes).
Result<nlohmann::json> v1_day(const ApiContext& c, std::string_view date);
// A PR (number, "#N" or a sha prefix) with its guide in the site's
// language (else the other one) and its facts' figures.
Result<nlohmann::json> v1_pr(const ApiContext& c, std::string_view ref);
// Every tag with its counts and its weekly counts.
Result<nlohmann::json> v1_tags(const ApiContext& c);
// The aggregation of one tag or several ("quantization,moe"), filtered.
// `limit` caps the listed changes (1-200).
Result<nlohmann::json> v1_tag(const ApiContext& c, const AggregateParams& params, size_t limit);
// Search results, best first, at most `limit` (1-50).
Result<nlohmann::json> v1_search(const ApiContext& c, std::string_view q, size_t limit);

// The ISO week `week` ("" the newest) as report::week_json gives it, with
// `repo` and `page_url`; `params` may hold a reader's filter (tags, paths,
// min). kNotFound for an empty store.
Result<nlohmann::json> v1_week(const ApiContext& c, std::string_view week, const ApiParams& params);
// The release-notes draft of the changes merged in [since, until) (days or
// ISO 8601 instants; `until` empty: now) as report::notes_json gives it;
// kInvalidInput on the site of every repository, for a missing or malformed
// bound or a reversed range.
Result<nlohmann::json> v1_notes(const ApiContext& c, std::string_view since, std::string_view until,
                                size_t highlights);

// An error body: {"error": {"status", "code", "message"}}; `status` is the
// HTTP status of `kind` (400, 404 or 500).
int v1_status(ErrorKind kind);
nlohmann::json v1_error(const Error& e);

// One request to /api/v1/...: `path` after "/api/v1" ("/day/2026-09-10"),
// its query parameters, the server's base URL. Answers the documented paths
// (status and JSON body); 404 for others. `repo` and `lang` parameters choose
// the site (default: `root`, `default_lang`). Never throws.
struct ApiAnswer {
  int status = 200;
  nlohmann::json body;
};
// Paths of /api/v1/ answered by a module above web/ (the week and the
// release notes of report/), which cli registers in ServerOptions::api_routes:
// nullopt when `path` is not one of its own, else its answer.
using ApiRoute = std::function<std::optional<Result<nlohmann::json>>(
    const ApiContext& context, std::string_view path, const ApiParams& params)>;
ApiAnswer answer_v1(Store& store, const TimeZone& tz, Lang default_lang, std::int64_t root,
                    std::string_view path, const ApiParams& params, const std::string& base_url,
                    const ApiRoute& more = nullptr);

}  // namespace mergelens::web
