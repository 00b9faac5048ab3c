// Themes: a model groups a window's most important changes (a week, a
// release) into ranked themes, as maintainers write a release's Highlights.
//
// One listwise prompt carries the window's candidates (pipeline/themes.h
// picks them: each day's highest-ranked PRs and the PRs threaded to them),
// each as a few lines: title, day, author, tags, the judgment shown (the
// day's triage, else the analysis), size and its thread links. Everything
// the authors wrote is fenced as untrusted data, as in the triage. The
// answer is a ranked list of themes, each with a title and a one-line
// highlight in Chinese and English and the PRs it groups. No I/O.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "mergelens/guide/prompt.h"
#include "mergelens/util/error.h"

namespace mergelens {

// Part of the theme cache key: bump when the prompt's wording or layout changes.
inline constexpr std::string_view kThemePromptVersion = "themes-1";
// The prompt's budget in estimated tokens: candidates past it are left out
// (and the prompt says how many).
inline constexpr size_t kThemePromptBudget = 30000;

// One candidate as the prompt shows it. `ref` is unique in a request.
struct ThemeCandidate {
  std::int64_t change_id = 0;
  std::string ref;  // "#123", else a short sha
  std::string title, author, day;
  std::vector<std::string> tags;
  std::string judgment;  // "triage: importance 7, insight 6, close_read: <reason>"
  std::string size;      // "5 files +120 −30; largest: path/a.py"
  std::string thread;    // "part 2/3 with #120; reverted by #130 on the same day"
};

// The window a request covers.
struct ThemeWindow {
  std::string repo;
  std::string label;  // "week 2026-W25 (2026-06-15 – 2026-06-21)", "v0.9.0 → v0.10.0 (…)"
  size_t merged = 0;  // changes merged in the window
};

// The request for `candidates` (in priority order): as many as fit in
// `budget` estimated tokens, the rest counted in the prompt as left out.
// `shown` receives how many were shown. Never fails.
Prompt build_theme_prompt(const ThemeWindow& window, std::span<const ThemeCandidate> candidates,
                          size_t max_themes, size_t budget, size_t& shown);

// The JSON schema of a theme answer (for response_format json_schema).
nlohmann::json theme_answer_schema();

// One theme of an answer, in rank order.
struct ThemeItem {
  std::string title_zh, title_en;
  std::string highlight_zh, highlight_en;  // may be empty (dropped by the check)
  std::vector<std::int64_t> change_ids;    // its PRs, in the answer's order
  std::vector<std::string> refs;
};

struct ThemeAnswer {
  std::vector<ThemeItem> themes;
  // What could not be used, one line each: a PR that is not a candidate, a
  // PR named by two themes (kept in the first), a theme with no usable PR or
  // no title, a highlight citing a backticked name its PRs' entries do not
  // show (the highlight is dropped, the theme kept).
  std::vector<std::string> dropped;
};

// Reads the model's answer against the candidates the prompt showed.
// Failure: kCorrupt when the answer is not an object with a "themes" list,
// or no theme is usable.
Result<ThemeAnswer> parse_theme_answer(const nlohmann::json& answer,
                                       std::span<const ThemeCandidate> shown);

// The stored form of an answer (store: ThemeSet::doc) and back. `candidates`
// are the ids shown, `left_out` how many candidates the budget cut.
nlohmann::json themes_doc(const ThemeAnswer& answer, std::span<const std::int64_t> candidates,
                          size_t left_out, size_t estimated_tokens);
// kCorrupt when `doc` is not such a document.
Result<ThemeAnswer> themes_from_doc(const nlohmann::json& doc);

// The window keys under which themes are stored (ThemeSet::span): a week
// ("week:2026-W25"), merge times [since, until) ("time:SINCE..UNTIL", Unix
// seconds, empty for an open bound), or a revision range ("revs:FROM..TO",
// full shas, FROM empty for none).
std::string week_span(std::string_view week);
std::string time_span(std::optional<std::int64_t> since, std::optional<std::int64_t> until);
std::string revs_span(std::string_view from_sha, std::string_view to_sha);

}  // namespace mergelens
