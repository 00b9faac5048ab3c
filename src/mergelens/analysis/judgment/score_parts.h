// The parts of score_change (scores.cc): what both scores read about the
// change's code, the insight scorer (insight.cc) and the importance scorer
// (importance.cc). Internal to the analysis module; the weights are in
// score_weights.h.
#pragma once

#include <map>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mergelens/analysis/facts.h"
#include "mergelens/model/change.h"

namespace mergelens::score_internal {

bool is_code(FileRole r);

// The role of `path` in facts.roles (core when unknown).
FileRole role_of(const Facts& facts, const std::string& path);

// The added files whose whole diff is the same as an earlier added file's
// (the same content copied into several places), in the order of
// change.files; each first copy is not among them.
std::set<std::string> copied_files(const Change& change);

// The change's code on the main path: files of code roles not on the skim
// list, and not copies of another added file (copied_files).
struct CodeStats {
  int code_lines = 0;             // added + removed lines in those files
  int prose_lines = 0;            // ... of which blank or comment-only lines
  int bulk_lines = 0;             // ... of which in added model files or very large added files
  size_t code_files = 0;          // files of code roles (skimmed ones excluded)
  size_t copies = 0;              // added code files left out as copies
  bool kernel = false;            // a kernel file changed
  std::set<std::string> modules;  // folders of the code files, at most four levels deep
  bool perf_claim = false;        // claims_performance(facts.numbers)
};

CodeStats code_stats(const Change& change, const Facts& facts);

// Added signals of one of `kinds`.
bool has_signal(const Facts& facts, std::initializer_list<std::string_view> kinds);

// The place of `raw` on the calibrated 1–10 scale: 1 + the number of cut
// points at or below it (cuts ascending, fitted by bench/judgment/fit_scale.py).
int scale_level(double raw, std::span<const double, 9> cuts);

// Insight: raw = the density of reusable decisions in the regions a reader
// reads, value = its level on the scale, with reasons. `argued` receives the
// argued decisions there ("path:line"; not in mechanical bulk).
Score score_insight(const Change& change, const Facts& facts, const CodeStats& stats,
                    std::vector<std::string>& argued);

// Whether `path` is a project's changelog or release notes (CHANGELOG.md,
// HISTORY.md, whats-new.rst, a news fragment): process, not documentation.
bool release_notes_file(std::string_view path);

// The title's words: lower case, ASCII letters and digits starting with a
// letter, 2-24 characters, each once, sorted; a trailing "(#N)" left out.
std::vector<std::string> title_words(std::string_view title);

// The importance features of importance_more.cc (title words "w:WORD", the
// shares of the changed lines by file role, added code files and
// definitions, a series part, a re-land, a follow-up, later changes naming
// it): `values` and `reasons` receive them by name.
void more_importance_features(const Change& change, const Facts& facts,
                              std::map<std::string, double>& values,
                              std::map<std::string, std::string>& reasons);

// Importance: `features` receives each rule that holds (name → value); raw =
// the fitted weighted sum, value = its level on the scale (at most 8 without
// highlight evidence), reasons = the features that raise it, strongest first.
Score score_importance(const Change& change, const Facts& facts, const CodeStats& stats,
                       std::map<std::string, double>& features);

}  // namespace mergelens::score_internal
