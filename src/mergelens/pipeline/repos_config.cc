#include "mergelens/pipeline/repos_config.h"

#include <charconv>
#include <filesystem>

#include <toml++/toml.h>

#include "mergelens/model/repo_name.h"
#include "mergelens/util/toml_file.h"

namespace mergelens {

Result<std::int64_t> parse_schedule(std::string_view text) {
  if (text.empty()) return std::int64_t{0};
  std::int64_t n = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  const std::string_view unit(p, static_cast<size_t>(text.data() + text.size() - p));
  std::int64_t scale = 0;
  if (unit.empty() || unit == "s") scale = 1;
  if (unit == "m") scale = 60;
  if (unit == "h") scale = 3600;
  if (unit == "d") scale = 86400;
  if (ec != std::errc() || n <= 0 || scale == 0)
    return fail(ErrorKind::kInvalidInput,
                "schedule '{}' is not a period such as 90, 30s, 15m, 2h or 1d", text);
  // Checked before multiplying: "2562047788015216h" would overflow to a negative period.
  if (n > kMaxScheduleSeconds / scale)
    return fail(ErrorKind::kInvalidInput, "schedule '{}' is longer than a year ({} s)", text,
                kMaxScheduleSeconds);
  return n * scale;
}

namespace {

Result<std::vector<RepoSettings>> repo_tables_of(const toml::table& root, std::string_view origin) {
  std::vector<RepoSettings> out;
  const toml::node* node = root.get("repo");
  if (!node) return out;
  const toml::array* list = node->as_array();
  if (!list) return fail(ErrorKind::kInvalidInput, "{}: repo must be [[repo]] tables", origin);
  for (const toml::node& item : *list) {
    const toml::table* t = item.as_table();
    const auto line = item.source().begin.line;
    if (!t) return fail(ErrorKind::kInvalidInput, "{}:{}: repo must be a table", origin, line);
    RepoSettings s;
    auto str = [&](const char* key) { return (*t)[key].value_or(std::string()); };
    s.path = str("path");
    s.branch = str("branch");
    s.github = str("github");
    s.name = str("name");
    if (s.name.empty())
      s.name = !s.github.empty() ? s.github : std::filesystem::path(s.path).stem().string();
    for (const std::string* n : {&s.name, &s.github})
      if (!n->empty())
        if (auto r = check_repo_name(*n, fmt::format("{}:{}", origin, line)); !r)
          return std::unexpected(r.error());
    if (s.path.empty())
      return fail(ErrorKind::kInvalidInput, "{}:{}: repository '{}' needs a path (a local clone)",
                  origin, line, s.name);
    auto schedule = parse_schedule(str("schedule"));
    if (!schedule)
      return fail(ErrorKind::kInvalidInput, "{}:{}: {}", origin, line, schedule.error().message);
    s.schedule_seconds = *schedule;
    if (const toml::array* langs = (*t)["languages"].as_array()) {
      s.langs.clear();
      for (const auto& l : *langs) {
        const std::string lang = l.value_or(std::string());
        if (lang != "zh" && lang != "en")
          return fail(ErrorKind::kInvalidInput, "{}:{}: language '{}' is not zh or en", origin,
                      line, lang);
        s.langs.push_back(lang);
      }
    }
    s.llm = (*t)["llm"].value_or(false);
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace

Result<std::vector<RepoSettings>> parse_repo_tables(std::string_view text,
                                                    std::string_view origin) {
  auto root = parse_toml(text, origin);
  if (!root) return std::unexpected(root.error());
  return repo_tables_of(*root, origin);
}

Result<std::vector<RepoSettings>> read_repo_tables(const std::string& path) {
  auto root = read_toml_file(path);
  if (!root) return std::unexpected(root.error());
  if (!*root) return std::vector<RepoSettings>();
  return repo_tables_of(**root, path);
}

Result<std::vector<RepoSettings>> load_repo_tables(Store& store, const std::string& path) {
  auto repos = read_repo_tables(path);
  if (!repos) return std::unexpected(repos.error());
  for (const auto& r : *repos)
    if (auto put = store.put_repo_settings(r); !put) return std::unexpected(put.error());
  return repos;
}

}  // namespace mergelens
