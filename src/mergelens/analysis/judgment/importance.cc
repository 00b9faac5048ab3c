// Importance: how much of the running system and its users a change reaches
// (the rules' thresholds: score_weights.h; their fitted weights and the
// scale: score_fitted.h, written by bench/judgment/fit_scale.py).
//
// Reach is measured, not guessed from size: the modules that import the
// touched code at the merge commit (Facts::reach, from the pipeline's import
// graph); defaults and user-visible behaviour the change moves (a flag's or
// an environment variable's default, a new switch, public API, a request or
// response format); new model or hardware support; and history (later
// reverts and follow-ups). Each rule is a feature; the raw importance is the
// fitted weighted sum of the features (the log-odds that a release's
// highlights name the change, fitted on other repositories' release notes),
// and the score is its place on the calibrated scale. Every feature that
// counts keeps its reason.
#include <re2/re2.h>
#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "mergelens/util/strings.h"

#include "mergelens/analysis/code/code_text.h"
#include "mergelens/analysis/judgment/score_fitted.h"
#include "mergelens/analysis/judgment/score_parts.h"
#include "mergelens/analysis/judgment/score_weights.h"

namespace mergelens::score_internal {
namespace {

namespace w = score_weights;

// The features of one change: each rule below sets a feature (name → value,
// usually 1) with the reason a reader sees when its fitted weight counts.
struct Features {
  std::map<std::string, double>& values;
  std::map<std::string, std::string> reasons;
  void add(std::string_view name, std::string reason, double value = 1) {
    values[std::string(name)] = value;
    reasons[std::string(name)] = std::move(reason);
  }
};

std::string first_detail(const Facts& f, std::string_view kind) {
  for (const auto& s : f.signals)
    if (s.added && s.kind == kind) return s.detail;
  return {};
}

bool has_tag(const Facts& f, std::string_view name) {
  return std::any_of(f.tags.begin(), f.tags.end(), [&](const Tag& t) { return t.name == name; });
}

ML_PATTERN(kwarg_default, R"re(\bdefault\s*=\s*([^,)]+))re")
ML_PATTERN(env_default, R"re(["']([A-Z][A-Z0-9_]{2,})["']\s*,\s*([^,)]+))re")
ML_PATTERN(env_class_default, R"re(^([A-Z][A-Z0-9_]{2,})\s*=\s*Env\w*\(\s*([^,)]*))re")
ML_PATTERN(field_default, R"re(^(\w+)\s*(?::\s*[^=]+)?=\s*(.+?)\s*,?\s*$)re")
ML_PATTERN(flag_name, R"re(["'](--[\w-]+)["'])re")

bool config_like(const Replacement& r) {
  auto has = [&](std::string_view hay, std::initializer_list<std::string_view> ws) {
    std::string l(hay);
    for (char& c : l)
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return std::any_of(ws.begin(), ws.end(),
                       [&](std::string_view x) { return l.find(x) != std::string::npos; });
  };
  const size_t slash = r.path.rfind('/');
  const std::string_view base = slash == std::string::npos
                                    ? std::string_view(r.path)
                                    : std::string_view(r.path).substr(slash + 1);
  return has(r.symbol, {"args", "config", "settings", "options", "envs", "flags"}) ||
         has(base,
             {"args", "config", "envs", "environ", "settings", "flags", "defaults", "constants"});
}

// A replacement that moves a default: "--x default=1 → default=2", an
// environment variable read with another fallback, or a config field with
// another initial value. Returns "NAME: OLD → NEW" or nothing.
std::optional<std::string> default_change(const Replacement& r) {
  std::string a, b, name;
  signal_internal::Cap ca, cb, na, nb;
  if (RE2::PartialMatch(r.old_text, kwarg_default(), &ca) &&
      RE2::PartialMatch(r.new_text, kwarg_default(), &cb)) {
    a = std::string(ca), b = std::string(cb);
    signal_internal::Cap f;
    if (RE2::PartialMatch(r.new_text, flag_name(), &f)) name = std::string(f);
  } else if ((RE2::PartialMatch(r.old_text, env_default(), &na, &ca) &&
              RE2::PartialMatch(r.new_text, env_default(), &nb, &cb)) ||
             (RE2::PartialMatch(r.old_text, env_class_default(), &na, &ca) &&
              RE2::PartialMatch(r.new_text, env_class_default(), &nb, &cb))) {
    if (na != nb) return std::nullopt;
    name = std::string(na), a = std::string(ca), b = std::string(cb);
  } else if (config_like(r) && RE2::FullMatch(r.old_text, field_default(), &na, &ca) &&
             RE2::FullMatch(r.new_text, field_default(), &nb, &cb)) {
    if (na != nb) return std::nullopt;
    name = std::string(na), a = std::string(ca), b = std::string(cb);
  } else {
    return std::nullopt;
  }
  auto clean = [](std::string s) {
    while (!s.empty() && (s.back() == ' ' || s.back() == ',')) s.pop_back();
    return signal_internal::short_text(s, 40);
  };
  a = clean(a), b = clean(b);
  if (a.empty() || b.empty() || a == b) return std::nullopt;
  if (name.empty())
    name = r.symbol.substr(r.symbol.rfind('.') == std::string::npos ? 0 : r.symbol.rfind('.') + 1);
  return fmt::format("{}: {} → {}", name, a, b);
}

// Files whose fields are a request or response format.
bool format_file(std::string_view path) {
  for (std::string_view w : {"protocol", "io_struct", "openai", "schema", "api_types", "serving_"})
    if (path.find(w) != std::string_view::npos) return true;
  return false;
}

ML_PATTERN(adds_words,
           R"re((?i)\b(?:add|adds|added|adding|support|supports|introduce|introduces|implement|)re"
           R"re(implements|enable|enables|new)\b)re")

// The title, past its [Tag] and type(scope): prefixes, says something is added.
bool says_adds(std::string_view title) {
  while (!title.empty() && (title.front() == ' ' || title.front() == '[')) {
    const size_t close = title.find(']');
    if (title.front() != '[' || close == std::string_view::npos) break;
    title.remove_prefix(close + 1);
  }
  return RE2::PartialMatch(title, adds_words());
}

ML_PATTERN(field_line, R"re(^\s+[a-z_]\w*\s*:\s*[\w\[\], .|"']+(?:=.*)?$)re")

bool format_changed(const Change& change, const Facts& facts) {
  for (const auto& f : change.files) {
    if (!format_file(f.path) || !is_code(role_of(facts, f.path))) continue;
    for (const auto& h : f.hunks)
      for (const auto& l : h.lines)
        if ((l.origin == '+' || l.origin == '-') && RE2::FullMatch(l.text, field_line()))
          return true;
  }
  return false;
}

// The fitted weight of a feature (0 for a feature the fit did not see); the
// table is sorted by name.
double fitted_weight(std::string_view name) {
  const auto& table = score_fitted::kImportanceWeights;
  const auto* it =
      std::lower_bound(std::begin(table), std::end(table), name,
                       [](const auto& w, std::string_view n) { return w.feature < n; });
  return it != std::end(table) && it->feature == name ? it->weight : 0;
}

// A title word worth naming in a reason: "support", "backend", not "the" or
// "for" (those count in the score all the same).
bool shown_word(std::string_view w) {
  static constexpr std::string_view kQuiet[] = {"also", "from", "into", "more", "only", "some",
                                                "than", "that", "then", "this", "when", "with"};
  return w.size() >= 4 && std::find(std::begin(kQuiet), std::end(kQuiet), w) == std::end(kQuiet);
}

}  // namespace

Score score_importance(const Change& change, const Facts& facts, const CodeStats& st,
                       std::map<std::string, double>& features) {
  features.clear();
  Features ft{features};
  if (st.code_lines > 0) ft.add("main_path", "changes code on the main path");
  // Reach in the import graph.
  if (facts.reach.known && facts.reach.direct > 0) {
    const int r = facts.reach.direct;
    const char* name = r >= w::kReachCore   ? "reach_core"
                       : r >= w::kReachWide ? "reach_wide"
                       : r >= w::kReachSome ? "reach_some"
                                            : nullptr;
    if (name) ft.add(name, fmt::format("{} modules import the touched code", r));
  }
  // Size, sublinear: lines of code, not the blank and comment-only lines
  // among them, and a copy of an added file once.
  if (const int code = st.code_lines - st.prose_lines; code > 0) {
    const std::string lines = plural(code, "line") + " of code changed";
    ft.add("size_log", lines, std::log10(1.0 + code));
    if (code >= w::kCodeLinesMany)
      ft.add("size_many", lines);
    else if (code >= w::kCodeLinesSome)
      ft.add("size_some", lines);
  }
  if (st.modules.size() >= static_cast<size_t>(w::kModulesBroad))
    ft.add("modules_broad", fmt::format("{} modules touched", st.modules.size()));
  if (st.kernel) ft.add("kernel", "kernel code");

  // Defaults and user-visible behaviour.
  for (const auto& r : facts.replacements)
    if (auto d = default_change(r)) {
      ft.add("default_change", fmt::format("changes a default ({})", *d));
      break;
    }
  if (has_signal(facts, {"env_var", "cli_flag"})) {
    std::string what = first_detail(facts, "cli_flag");
    if (what.empty()) what = first_detail(facts, "env_var");
    ft.add("user_switch", fmt::format("user-visible switch {}", what));
  }
  const bool public_api =
      has_signal(facts, {"public_api"}) ||
      std::any_of(facts.definitions.begin(), facts.definitions.end(), [&](const Definition& d) {
        return d.change == "signature_changed" && is_code(role_of(facts, d.at.path));
      });
  if (public_api) ft.add("public_api", "public API changes");
  if (format_changed(change, facts))
    ft.add("format_change", "changes a request or response format");

  // New model or hardware support.
  int new_models = 0;
  for (const auto& f : change.files)
    if (f.status == FileStatus::kAdded && role_of(facts, f.path) == FileRole::kModel &&
        f.additions >= 50)
      ++new_models;
  if (new_models > 0)
    ft.add("model_support", fmt::format("adds model support ({} new model files)", new_models));
  // New hardware support: the title says the change adds or supports
  // something, beside the hardware tag and new code. A refactor of code for
  // a platform (every change of a vendor's plugin carries its tag) is not
  // new support.
  for (const char* hw : {"amd", "npu", "intel", "tpu", "cpu", "blackwell", "hopper"}) {
    if (!has_tag(facts, hw) || st.code_lines < 50 || !says_adds(change.title)) continue;
    const bool adds =
        std::any_of(change.files.begin(), change.files.end(), [&](const FileChange& f) {
          return f.status == FileStatus::kAdded && is_code(role_of(facts, f.path)) &&
                 f.additions >= 30;
        });
    if (adds) {
      ft.add("hardware_support", fmt::format("new hardware support ({})", hw));
      break;
    }
  }

  // A new capability: the title says the change adds, supports or enables
  // something (or its authors tag it a feature) and the code has new
  // definitions to show for it. Release highlights are mostly these.
  const int new_defs = static_cast<int>(
      std::count_if(facts.definitions.begin(), facts.definitions.end(), [&](const Definition& d) {
        return d.change == "added" && is_code(role_of(facts, d.at.path));
      }));
  if (new_defs >= w::kCapabilityDefs && (has_tag(facts, "feature") || says_adds(change.title)))
    ft.add("capability", fmt::format("adds a capability ({} new definitions)", new_defs));

  // What comes with a user-facing change: the title says something is added,
  // the authors call it a feature, documentation or tests come with the code.
  if (says_adds(change.title)) ft.add("title_adds", "the title says something is added");
  if (has_tag(facts, "feature")) ft.add("feature_tag", "a new feature");
  auto with_code = [&](FileRole role) {
    return st.code_lines > 0 &&
           std::any_of(change.files.begin(), change.files.end(), [&](const FileChange& f) {
             return role_of(facts, f.path) == role && !release_notes_file(f.path);
           });
  };
  if (with_code(FileRole::kDocs)) ft.add("docs_with_code", "documented with the code");
  if (with_code(FileRole::kTest)) ft.add("tests_with_code", "tested with the code");

  if (st.perf_claim) ft.add("perf_claim", "performance numbers claimed");
  // A fix in code, and one that names the reported problem it fixes.
  if (has_tag(facts, "bugfix") && st.code_lines > 0) {
    ft.add("bugfix", "fixes a defect in code");
    for (const auto& r : facts.references)
      if ((r.relation == "fixes" || r.relation == "follow_up") && r.repo.empty()) {
        ft.add("fixes_reported", fmt::format("fixes a reported problem ({})", r.text));
        break;
      }
  }
  if (has_signal(facts, {"concurrency", "dtype_branch", "device_branch"}))
    ft.add("correctness_paths",
           "touches correctness-critical paths (concurrency, dtype or device)");
  if (std::any_of(facts.references.begin(), facts.references.end(),
                  [](const Reference& r) { return r.relation == "reverts"; }))
    ft.add("reverts", "reverts an earlier change");
  // History: a change later reverted or fixed mattered (it broke something).
  for (const auto& b : facts.referenced_by)
    if (b.relation == "reverts") {
      ft.add("reverted_later", fmt::format("reverted later by {}", b.ref));
      break;
    }
  for (const auto& b : facts.referenced_by)
    if (b.relation == "fixes" || b.relation == "follow_up") {
      ft.add("follow_up_later", fmt::format("needed a follow-up ({})", b.ref));
      break;
    }

  more_importance_features(change, facts, features, ft.reasons);

  // The raw importance: the fitted weighted sum. The reasons are the
  // features that raise it, the strongest first, each said once; the
  // title's words that raise it are one reason.
  Score imp{1, {}, score_fitted::kImportanceIntercept};
  std::vector<std::pair<double, std::string>> counted;
  std::vector<std::string> words;
  double words_part = 0;
  for (const auto& [name, value] : features) {
    const double part = fitted_weight(name) * value;
    imp.raw += part;
    if (part <= 0) continue;
    if (name.starts_with("w:")) {
      words_part += part;
      if (shown_word(std::string_view(name).substr(2)))
        words.push_back(fmt::format("“{}”", name.substr(2)));
    } else {
      counted.emplace_back(part, ft.reasons[name]);
    }
  }
  if (!words.empty())
    // Only what the title says: that such words often go with highlighted
    // changes is the fitted weight's evidence, not something the change shows.
    counted.emplace_back(words_part, fmt::format("the title's words ({})", fmt::join(words, ", ")));
  std::stable_sort(counted.begin(), counted.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  for (auto& [part, reason] : counted)
    if (std::find(imp.reasons.begin(), imp.reasons.end(), reason) == imp.reasons.end())
      imp.reasons.push_back(std::move(reason));
  imp.value = scale_level(imp.raw, score_fitted::kImportanceCuts);
  // 9–10 is what a release's highlights name: a new capability, model or
  // hardware, a moved default or format, or a claimed gain on code most of
  // the repository imports. Without such evidence the scale stops at 8.
  const bool highlight = features.contains("capability") || features.contains("model_support") ||
                         features.contains("hardware_support") ||
                         features.contains("default_change") ||
                         features.contains("format_change") ||
                         (features.contains("perf_claim") && features.contains("reach_core"));
  if (imp.value > w::kNoHighlightCap && !highlight) {
    imp.value = w::kNoHighlightCap;
    imp.reasons.push_back(
        "no new capability, model, hardware, default or format: 9–10 is for release highlights");
  }
  return imp;
}

}  // namespace mergelens::score_internal
