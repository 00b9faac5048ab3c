#include <fmt/format.h>

#include "mergelens/cli/commands.h"
#include "mergelens/web/export.h"

namespace mergelens::cli {

Runner setup_export(CLI::App& sub, const Globals& g) {
  struct Args {
    web::ExportOptions options;
    std::string lang = "both";
  };
  auto a = std::make_shared<Args>();
  sub.add_option("--out", a->options.out, "Folder to write the site into")->required();
  sub.add_option("--tz", a->options.tz, "Time zone of day boundaries")->capture_default_str();
  sub.add_option("--lang", a->lang, "zh, en or both")->capture_default_str();
  sub.add_option("--since", a->options.since, "Only days on or after this date (YYYY-MM-DD)");
  sub.add_option("--base-url", a->options.base_url,
                 "Public address the site will have (https://host/path): absolute feed links");
  return [a, &g]() -> Result<void> {
    if (a->lang == "both")
      a->options.langs = {"zh", "en"};
    else if (a->lang == "zh" || a->lang == "en")
      a->options.langs = {a->lang};
    else
      return fail(ErrorKind::kInvalidInput, "--lang must be zh, en or both");
    auto store = open_store(g, /*create=*/false);
    if (!store) return std::unexpected(store.error());
    // Every repository of the store; --repo names the one at the root.
    a->options.repo = g.repo;
    auto stats = web::export_site(**store, a->options);
    if (!stats) return std::unexpected(stats.error());
    fmt::print("exported {} pages and {} feeds to {}\n", stats->pages, stats->feeds,
               a->options.out);
    if (a->options.base_url.empty())
      fmt::print(stderr,
                 "mergelens: without --base-url the feeds' links are relative; feed readers "
                 "handed the file cannot follow them\n");
    return {};
  };
}

}  // namespace mergelens::cli
