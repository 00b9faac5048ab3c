// `mergelens mcp`: the MCP server on stdio, and the MCP endpoint that
// `serve` puts at /mcp (mcp/transport.h).
#include <iostream>

#include "mergelens/cli/commands.h"
#include "mergelens/mcp/transport.h"
#include "mergelens/web/api_v1.h"
#include "mergelens/web/pages.h"

namespace mergelens::cli {

namespace {

struct McpOptions {
  std::string tz = "UTC";
  std::string lang = "zh";
  std::string base_url;
  int timeout = 15;
};

}  // namespace

Runner setup_mcp(CLI::App& sub, const Globals& g) {
  auto o = std::make_shared<McpOptions>();
  sub.add_option("--tz", o->tz, "Time zone of day boundaries (tz database name)")
      ->capture_default_str();
  sub.add_option("--lang", o->lang, "Default language of the results: zh or en")
      ->capture_default_str();
  sub.add_option("--base-url", o->base_url,
                 "Base URL of a `mergelens serve` of this store (\"https://digest.example\"): "
                 "results then link its pages; without it those links are null");
  sub.add_option("--timeout", o->timeout, "Seconds one message may take (0: no limit)")
      ->capture_default_str()
      ->check(CLI::Range(0, 86400));
  return [o, &g]() -> Result<void> {
    if (o->lang != "zh" && o->lang != "en")
      return fail(ErrorKind::kInvalidInput, "--lang must be zh or en, not \"{}\"", o->lang);
    auto tz = web::TimeZone::named(o->tz);
    if (!tz) return std::unexpected(tz.error());
    auto store = open_store(g, /*create=*/false);
    if (!store) return std::unexpected(store.error());
    auto root = web::root_repo(**store, g.repo);
    if (!root) return std::unexpected(root.error());
    // Checked as serve and export check it: an http(s) URL, nothing else
    // reaches an assistant as a link.
    auto base = web::site_base_url(o->base_url);
    if (!base) return std::unexpected(base.error());
    std::ios::sync_with_stdio(false);
    const mcp::ToolContext context{**store, *tz, web::lang_from(o->lang), *root, *base};
    return mcp::serve_stdio(std::cin, std::cout, context, std::chrono::seconds(o->timeout));
  };
}

std::function<web::HttpResponse(const web::HttpRequest&, Store&)> mcp_endpoint(
    const web::ServerOptions& options, const std::string& repo) {
  auto tz = std::make_shared<web::TimeZone>(
      web::TimeZone::named(options.tz).value_or(web::TimeZone::named("UTC").value()));
  const web::Lang lang = web::lang_from(options.lang);
  const std::string public_url = web::site_base_url(options.base_url).value_or("");
  mcp::HttpPolicy policy;
  policy.public_host = mcp::url_host(public_url);
  auto gate = std::make_shared<mcp::ClientGate>();
  return [tz, lang, public_url, repo, policy, gate](const web::HttpRequest& req, Store& store) {
    auto root = web::root_repo(store, repo);
    // Without --base-url, links start with the Host asked for, which
    // serve_http has checked names this machine.
    const std::string host = req.header("host");
    const std::string base = !public_url.empty()                           ? public_url
                             : mcp::trusted_host(host, policy.public_host) ? "http://" + host
                                                                           : std::string();
    const mcp::ToolContext context{store, *tz, lang, root.value_or(kAllRepos), base};
    return mcp::serve_http(req, context, policy, *gate);
  };
}

}  // namespace mergelens::cli
