// Line-level signal detectors: guards, asserts, raises, try/except,
// fallbacks, preprocessor conditions, environment variables, CLI/config
// flags, dtype/device/platform branches, concurrency primitives, TODOs and
// changed numeric constants.
//
// Internal to the analysis module (used by code_facts.cc). The detectors see
// one side of a hunk at a time: the context lines plus the added lines (new
// side) or the context lines plus the removed lines (old side), in order, so
// a guard whose `if` is context and whose `raise` is added is still found.
// Signals are reported only on changed lines.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mergelens/analysis/facts.h"

namespace mergelens {

struct SideLine {
  std::string_view text;        // without the origin character and without '\r'
  bool changed = false;         // added (new side) or removed (old side)
  std::string_view class_body;  // name of the class whose body directly holds the line, if known
};

struct RawSignal {
  std::string kind;    // a Signal::kind
  std::string detail;  // see Signal::detail
  int index = 0;       // index of the line in the side
};

// Appends the signals found on the changed lines of `side` to `out`. `added`
// says which side this is: TODOs are reported only on the new side.
// `removed` (new side only; may be null) holds the hunk's removed lines,
// trimmed: an `else` after a new capability check is a checked "fallback"
// only when its block is code from before the change (context lines, or
// removed lines written again), else a "fallback_mention". Never fails;
// patterns that do not apply to `lang` are skipped. Kinds: see Signal::kind.
void detect_side_signals(Language lang, std::span<const SideLine> side, bool added,
                         std::vector<RawSignal>& out,
                         const std::vector<std::string_view>* removed = nullptr);

// Pairs removed and added lines of one hunk that are equal except for their
// numeric literals and appends one "numeric_constant" signal per changed
// number ("num_warps: 4 → 8"). `index` in the result is the index in `added`.
// Hash-based: linear in the number of lines.
void detect_numeric_changes(std::span<const std::string_view> removed,
                            std::span<const std::string_view> added, Language lang,
                            std::vector<RawSignal>& out);

// True when every regular expression of the detectors compiled (for tests).
bool signal_patterns_ok();

}  // namespace mergelens
