#include <fmt/format.h>

#include "mergelens/cli/commands.h"
#include "mergelens/web/export.h"

namespace mergelens::cli {

Runner setup_digest(CLI::App& sub, const Globals& g) {
  struct Args {
    std::string date, format = "md", tz = "UTC", lang = "zh";
  };
  auto a = std::make_shared<Args>();
  sub.add_option("--date", a->date, "The day (YYYY-MM-DD)")->required();
  sub.add_option("--format", a->format, "md or json")->capture_default_str();
  sub.add_option("--tz", a->tz, "Time zone of day boundaries")->capture_default_str();
  sub.add_option("--lang", a->lang, "zh or en")->capture_default_str();
  return [a, &g]() -> Result<void> {
    auto store = open_store(g, /*create=*/false);
    if (!store) return std::unexpected(store.error());
    auto repo = resolve_repo(**store, g.repo);
    if (!repo) return std::unexpected(repo.error());
    auto text = web::digest(**store, *repo, a->tz, a->lang, a->date, a->format);
    if (!text) return std::unexpected(text.error());
    fmt::print("{}", *text);
    return {};
  };
}

}  // namespace mergelens::cli
