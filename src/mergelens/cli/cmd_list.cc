#include <fmt/format.h>

#include "mergelens/cli/commands.h"
#include "mergelens/model/json.h"
#include "mergelens/util/utf8.h"

namespace mergelens::cli {

Runner setup_list(CLI::App& sub, const Globals& g) {
  struct Args {
    std::string since, until;
    size_t limit = 0;
    bool json = false;
  };
  auto a = std::make_shared<Args>();
  sub.add_option("--since", a->since, "Only changes merged on or after this date");
  sub.add_option("--until", a->until, "Only changes merged before this date");
  sub.add_option("-n,--limit", a->limit, "At most N changes")->check(CLI::Range(0, 1000000000));
  sub.add_flag("--json", a->json, "Print JSON");
  return [a, &g]() -> Result<void> {
    ListQuery q;
    q.limit = a->limit;
    if (auto r = parse_range_flags(a->since, a->until, q.since, q.until); !r) return r;
    auto store = open_store(g, /*create=*/false);
    if (!store) return std::unexpected(store.error());
    auto repo = resolve_repo(**store, g.repo);
    if (!repo) return std::unexpected(repo.error());
    auto rows = (*store)->list_changes(repo->id, q);
    if (!rows) return std::unexpected(rows.error());
    if (a->json) {
      nlohmann::json out = nlohmann::json::array();
      for (const auto& s : *rows) {
        out.push_back(
            {{"ref",
              s.number && !s.number_reused ? fmt::format("#{}", *s.number) : s.sha.substr(0, 12)},
             {"number", s.number ? nlohmann::json(*s.number) : nlohmann::json(nullptr)},
             {"kind", to_string(s.kind)},
             {"open", s.open},
             {"sha", s.sha},
             {"title", s.title},
             {"author", s.author.login.empty() ? s.author.name : s.author.login},
             {"merged_at", format_utc(s.merged_at)},
             {"day", format_day(s.merged_at)},
             {"url", s.url},
             {"files", s.file_count},
             {"additions", s.additions},
             {"deletions", s.deletions},
             {"verdict", s.verdict.empty() ? nlohmann::json(nullptr) : nlohmann::json(s.verdict)},
             {"importance",
              s.verdict.empty() ? nlohmann::json(nullptr) : nlohmann::json(s.importance)},
             {"insight", s.verdict.empty() ? nlohmann::json(nullptr) : nlohmann::json(s.insight)}});
      }
      fmt::print("{}\n", dump_json(out));
      return {};
    }
    std::string day;
    for (size_t i = 0; i < rows->size(); ++i) {
      const auto& s = (*rows)[i];
      const std::string d = format_day(s.merged_at);
      if (d != day) {
        size_t count = 0;
        for (size_t j = i; j < rows->size() && format_day((*rows)[j].merged_at) == d; ++j) ++count;
        fmt::print("{}{}  {} change{}\n", day.empty() ? "" : "\n", d, count, count == 1 ? "" : "s");
        day = d;
      }
      // The reference `show` takes: a number a newer change also carries
      // names that one, so this one is listed by its sha.
      const std::string ref =
          s.number && !s.number_reused ? fmt::format("#{}", *s.number) : s.sha.substr(0, 9);
      const std::string who = s.author.login.empty() ? s.author.name : s.author.login;
      const std::string badge =
          s.verdict.empty() ? "" : fmt::format("[{} {}/{}] ", s.verdict, s.importance, s.insight);
      // Commit text is escaped for the terminal (no ESC, OSC, CR reaches it).
      fmt::print("  {:<9} {}  {}{}  {} · +{} -{} in {} file{}\n", ref,
                 format_utc(s.merged_at).substr(11, 5), badge,
                 terminal_safe(s.title, /*keep_newlines=*/false),
                 terminal_safe(who, /*keep_newlines=*/false), s.additions, s.deletions,
                 s.file_count, s.file_count == 1 ? "" : "s");
    }
    if (rows->empty())
      fmt::print("no changes stored for {}\n", terminal_safe(repo->name, /*keep_newlines=*/false));
    return {};
  };
}

}  // namespace mergelens::cli
