// Path globs with the semantics of minimatch as actions/labeler uses it
// ({dot: true}), matched against repository-relative paths ("a/b/c.py").
//
//   *            any characters except '/'; matches dot files too
//   **           as a whole segment: any number of segments, including none
//                ("a/**/b" matches "a/b"; "a/**" matches "a/x" but not "a")
//   ?            one character except '/'
//   [abc] [a-z]  one character from the set; [!a] / [^a] negate; [[:alpha:]] etc.
//   {a,b} {1..3} brace alternatives and sequences, expanded before matching
//   @(a|b) ?(a|b) *(a|b) +(a|b) !(a|b)   extglob groups (one, at most one, any
//                number, at least one, none), within one segment
//   \x           the character x itself
//   !pattern     a leading '!' negates the whole pattern
//   #comment     a pattern starting with '#' matches nothing
//
// A pattern without '/' matches the whole path, not the basename: "*.md"
// matches "README.md" but not "docs/a.md" (minimatch without matchBase).
// Matching is case-sensitive.
//
// Two deliberate differences from minimatch, both for patterns minimatch
// could never match against a relative path: leading "/" and "./" are
// dropped (so "/docs/**" means "docs/**"), and "." segments are ignored.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "mergelens/util/error.h"

namespace mergelens {

class Glob {
 public:
  // A glob that matches nothing (pattern() is empty).
  Glob() = default;

  // Compiles `pattern` once. Fails with kInvalidInput naming the pattern when
  // it is empty, has an unclosed '[', '{' or extglob '(', an extglob holding
  // '/', a bad range or class name, a trailing '\', or expands to more than
  // 1024 brace alternatives. The Glob owns a shared immutable copy of its
  // compiled form: copies are cheap and safe to use from several threads.
  static Result<Glob> compile(std::string_view pattern);

  // True when `path` (repository-relative, '/'-separated; a leading "./" or
  // "/" is ignored) matches. Never fails; a default-constructed Glob returns
  // false.
  bool matches(std::string_view path) const;

  // The pattern as given to compile().
  const std::string& pattern() const;

  // True when the pattern starts with '!' (an odd number of them).
  bool negated() const;

 private:
  struct Compiled;
  std::shared_ptr<const Compiled> c_;
};

}  // namespace mergelens
