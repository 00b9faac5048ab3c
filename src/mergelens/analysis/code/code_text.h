// Helpers shared by the signal detectors (signals.cc, code_env_flags.cc,
// code_numbers.cc). Internal to the analysis module.
#pragma once

#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <re2/re2.h>

#include "mergelens/analysis/code/code_signals.h"
#include "mergelens/analysis/facts.h"

namespace mergelens::signal_internal {

// RE2 options of every detector pattern: Latin-1, so invalid UTF-8 is bytes.
RE2::Options latin1();

// Defines `const RE2& name()`: the pattern, compiled once on first use and
// kept for the life of the program.
#define ML_PATTERN(name, text)                                                          \
  const RE2& name() {                                                                   \
    static const RE2* const re = new RE2(text, ::mergelens::signal_internal::latin1()); \
    return *re;                                                                         \
  }

// A capture group as a string_view (RE2 parses into any type with ParseFrom).
struct Cap : std::string_view {
  bool ParseFrom(const char* s, size_t n) {
    static_cast<std::string_view&>(*this) = std::string_view(s ? s : "", n);
    return true;
  }
};

// `s` trimmed, whitespace runs collapsed, cut to at most `n` bytes (never
// inside a UTF-8 sequence, and never inside a name or a number when the
// token began in the second half) with "..." marking a cut.
std::string short_text(std::string_view s, size_t n = 100);

// Opening minus closing brackets of `t` (the characters of `open` and
// `close`), quoted strings skipped (a backslash escapes the next character);
// `in_string`, when given, is set when a string is still open at the end.
int bracket_balance(std::string_view t, std::string_view open = "(", std::string_view close = ")",
                    bool* in_string = nullptr);

// The arguments of a call (or a parameter list) whose '(' is at `open` in
// `s`, split at top-level commas, each trimmed; empty for "()". Views into `s`.
std::vector<std::string_view> call_args(std::string_view s, size_t open);

// One statement as written on a line, for a signal's detail: short_text,
// and a call left open at the end of the line closed as "(...)", so
// `raise RuntimeError(` reads `raise RuntimeError(...)`.
std::string statement_text(std::string_view line, size_t n = 60);

// The code of a line: a trailing comment removed (quotes respected), trimmed.
std::string_view code_part(Language lang, std::string_view s);

// `code` with the text inside string literals blanked (quotes kept): a word
// in a message ("barrier" in an error string) is no code.
std::string without_strings(std::string_view code);

// A line (trimmed) that is a comment in `lang`.
bool is_comment_line(Language lang, std::string_view t);

bool contains_any(std::string_view s, std::initializer_list<std::string_view> needles);

// Environment variable names read, set or declared on `code` (one line).
void env_var_names(std::string_view code, std::vector<std::string>& out);

// CLI/config flags declared on side line `i` (argparse, click, gflags, absl,
// clap, Go flag/cobra, Python *Args classes and dataclass fields with help).
// `code` is the line's code part.
void flag_names(Language lang, std::span<const SideLine> side, int i, std::string_view code,
                std::vector<std::string>& out);

// True when the patterns of code_env_flags.cc compiled.
bool env_flag_patterns_ok();

}  // namespace mergelens::signal_internal
