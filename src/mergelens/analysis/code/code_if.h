// The reading of an `if` and of the lines around a changed line, for the
// line-level signal detectors (signals.cc). Internal to the analysis module.
// Every function is pure: it reads the side it is given and owns nothing.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include <re2/re2.h>

#include "mergelens/analysis/code/code_signals.h"
#include "mergelens/analysis/code/language.h"

namespace mergelens::if_internal {

// The patterns of an `if` line (Python, C-family, Rust/Go) and of a guard's
// body (a raise, throw, panic or exit; a return, continue or break), compiled
// once and kept for the life of the program.
const RE2& py_if();
const RE2& c_if();
const RE2& rs_go_if();
const RE2& raise_like();
const RE2& return_like();

// C++ or CUDA.
bool c_family(Language l);

// True when `s` holds code: not blank and not a comment line.
bool is_code_line(Language lang, std::string_view s);

// The index of the nearest code line after (before) `i` in `side`, at most
// `limit` lines away, or -1 when there is none.
int next_code(Language lang, std::span<const SideLine> side, int i, int limit = 4);
int prev_code(Language lang, std::span<const SideLine> side, int i, int limit = 4);

// The identifier `code` starts with ("" when it starts otherwise).
std::string_view first_word(std::string_view code);

// "if ...", "elif ...", "else if ...", "} else if ...": a cheap test before
// parse_if.
bool starts_if(std::string_view code);

// An `if` read from the side: its condition as written (a condition over
// several lines joined, cut at a token boundary), and its body statement,
// inline (body_index -1) or the next code line.
struct IfInfo {
  std::string cond;
  std::string body;     // the body statement (inline or on body_index)
  int body_index = -1;  // -1 when the body is inline
};

// The `if` on line `i` of `side`, or nullopt when that line is not an `if`
// the reader understands (no condition end within four lines, no body, a
// Python body not indented under it).
std::optional<IfInfo> parse_if(Language lang, std::span<const SideLine> side, int i);

// "guard" when `body` raises or exits, "early_return" when it returns,
// continues or breaks, else "".
std::string guard_kind(std::string_view body);

}  // namespace mergelens::if_internal
