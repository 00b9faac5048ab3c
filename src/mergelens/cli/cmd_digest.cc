#include <fmt/format.h>

#include "mergelens/cli/commands.h"
#include "mergelens/report/filter.h"
#include "mergelens/web/export.h"

namespace mergelens::cli {

Runner setup_digest(CLI::App& sub, const Globals& g) {
  struct Args {
    std::string date, week, filter, format = "md", tz = "UTC", lang = "zh";
  };
  auto a = std::make_shared<Args>();
  auto* date = sub.add_option("--date", a->date, "The day (YYYY-MM-DD)");
  auto* week = sub.add_option("--week", a->week, "The ISO week (YYYY-Www, UTC weeks)");
  date->excludes(week);
  sub.add_option("--filter", a->filter,
                 "A reader's filter as a URL query: tags=a,b&paths=GLOB&labels=..&authors=..&"
                 "min=VERDICT|1-10 (docs/subscriptions.md)");
  sub.add_option("--format", a->format, "md or json")->capture_default_str();
  sub.add_option("--tz", a->tz, "Time zone of day boundaries")->capture_default_str();
  sub.add_option("--lang", a->lang, "zh or en")->capture_default_str();
  return [a, &g]() -> Result<void> {
    if (a->date.empty() && a->week.empty())
      return fail(ErrorKind::kInvalidInput, "--date or --week is required");
    auto filter = report::parse_filter_query(a->filter);
    if (!filter) return fail(ErrorKind::kInvalidInput, "--filter: {}", filter.error().message);
    if (!filter->lang.empty()) a->lang = filter->lang;
    auto store = open_store(g, /*create=*/false);
    if (!store) return std::unexpected(store.error());
    auto repo = resolve_repo(**store, g.repo);
    if (!repo) return std::unexpected(repo.error());
    const report::Filter* f = filter->empty() ? nullptr : &*filter;
    auto text = a->week.empty() ? web::digest(**store, *repo, a->tz, a->lang, a->date, a->format, f)
                                : web::week_digest(**store, *repo, a->lang, a->week, a->format, f);
    if (!text) return std::unexpected(text.error());
    fmt::print("{}", *text);
    return {};
  };
}

}  // namespace mergelens::cli
