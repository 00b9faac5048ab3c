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
// Matching takes time linear in the path for a fixed pattern, whatever the
// pattern: each segment pattern is a small automaton run over the segment's
// code points (glob_program.h), and "**" is matched by dynamic programming
// over (segment, part) pairs, so no pattern backtracks exponentially. The
// cost of one match is at most states() × the path's length.
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
  // it is empty or longer than 4096 bytes, has an unclosed '[', '{' or
  // extglob '(', an extglob holding '/', extglobs nested more than 16 deep, a
  // bad range or class name, a trailing '\', expands to more than 1024 brace
  // alternatives, or needs more than 16384 automaton states in all. The Glob owns a shared
  // immutable copy of its compiled form: copies are cheap and safe to use from several threads.
  static Result<Glob> compile(std::string_view pattern);

  // True when `path` (repository-relative, '/'-separated; a leading "./" or
  // "/" is ignored) matches. Never fails; a default-constructed Glob returns
  // false.
  bool matches(std::string_view path) const;

  // The pattern as given to compile().
  const std::string& pattern() const;

  // True when the pattern starts with '!' (an odd number of them).
  bool negated() const;

  // The automaton states of every brace alternative together (at least 1):
  // what one match costs per byte of path, at most.
  std::size_t states() const;

 private:
  struct Compiled;
  std::shared_ptr<const Compiled> c_;
};

}  // namespace mergelens
