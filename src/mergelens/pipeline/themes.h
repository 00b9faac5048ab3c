// The theme pass: one model call over a window (a week, a release range)
// groups its most important changes into ranked themes (guide/themes.h),
// stored under the window's key (store: ThemeSet) for the week page, the
// release notes and the week's delivery to show.
//
// Candidates: each day's highest-ranked changes (the day's triage order when
// the model triaged it, else the analysis's judgment; skips never lead),
// taken a place at a time across the days, each with the changes threaded to
// it in the window, until the prompt's budget (~30k estimated tokens) is
// used. Links to changes merged after the window are not shown: a window's
// request is what was known when it closed. Answers are cached by the request (an unchanged window
// makes no request on a re-run), and the call goes through the same client, ledger and limits as
// the triage. An answer naming a change that is not a candidate loses that change; an unusable
// answer is asked once more, and if it is still unusable nothing is stored: the pages keep the
// offline themes (report/themes.h) and say so.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mergelens/guide/themes.h"
#include "mergelens/store/store.h"

namespace mergelens {
namespace llm {
class Client;
}

struct ThemeOptions {
  std::string span;   // the key the themes are stored under (guide/themes.h: week_span, ...)
  std::string label;  // how the prompt names the window
  // The window: the changes whose merge sha is in `shas` when given, else
  // those merged in [since, until).
  std::optional<std::vector<std::string>> shas;
  std::optional<UnixSeconds> since, until;
  size_t per_day = 8;  // places taken from each day at most
  size_t budget = kThemePromptBudget;
  size_t max_themes = 12;
  bool force = false;  // ask again even when the answer is cached
  std::string
      dump_dir;  // when set, ask nothing: write the request to DIR/themes-LABEL.request.json
};

struct ThemeReport {
  size_t merged = 0;      // changes merged in the window
  size_t candidates = 0;  // picked as candidates
  size_t shown = 0;       // of them, within the prompt's budget
  size_t estimated_tokens = 0;
  size_t calls = 0;
  bool cached = false;  // answered from the cache: no request
  bool stored = false;  // themes stored for the window
  size_t themes = 0;
  long prompt_tokens = 0, completion_tokens = 0;
  std::vector<std::string> problems;  // dropped items, a failed call, an unusable answer
};

// The window's candidates in the order the prompt lists them (see above),
// and how many changes the window holds (`merged`). Store errors pass through.
Result<std::vector<ThemeCandidate>> theme_candidates(Store& store, const RepoRecord& repo,
                                                     const ThemeOptions& options, size_t& merged);

// Runs the theme pass for one window. `client` is not owned. Fails only on
// store errors; a model failure is in the report and stores nothing. A
// window without changes asks nothing.
Result<ThemeReport> theme_window(Store& store, const RepoRecord& repo, llm::Client& client,
                                 const ThemeOptions& options);

}  // namespace mergelens
