// The automaton one glob segment compiles to (private to analysis/glob.cc).
//
// A segment pattern ("*.py", "!(aot)", "+(a|b)c") is parsed into a sequence
// of nodes, then compiled into a nondeterministic automaton whose
// instructions consume one code point (a literal, '?', a class) or move
// without consuming (a fork to several states, the guard of a negative
// extglob). Matching runs the automaton backwards over the segment's code
// points, keeping the set of states from which the rest of the segment is
// accepted (a bitset per position, two kept at a time): O(states × length)
// time and O(states) memory for any pattern and any input. There is no
// backtracking, so no pattern can make a match take exponential time (the
// matcher this replaced took minutes on `*(*(*(*(?))))[Q]*`).
//
// `!(alts)` keeps minimatch's meaning: at its position, no alternative
// followed by the rest of the pattern may match the rest of the segment;
// then any characters, then the rest. The guard of a `!( )` reads the
// states of its lookahead at the same position, which may hold other
// guards; guards are decided in the order the compiler made them (those
// later in the pattern and those nested inside first), so a lookahead is
// always decided before the guard that reads it, except through an empty
// iteration of a `*( )` or `+( )` group that loops back to the group
// itself (minimatch, a JavaScript regular expression, refuses empty
// iterations there; such a pattern matches no differently in practice).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mergelens::glob {

struct Node;
using Seq = std::vector<Node>;
using Ranges = std::vector<std::pair<char32_t, char32_t>>;

// One element of a segment pattern.
struct Node {
  enum Kind : std::uint8_t { kLiteral, kStar, kOne, kClass, kExt };
  Kind kind = kLiteral;
  char ext = 0;           // kExt: '@', '?', '*', '+' or '!'
  bool negated = false;   // kClass
  std::string text;       // kLiteral
  Ranges ranges;          // kClass
  std::vector<Seq> alts;  // kExt
};

// The UTF-8 code point at s[i] and its length; invalid bytes stand for
// themselves (length 1).
std::pair<char32_t, std::size_t> decode(std::string_view s, std::size_t i);

struct Inst {
  enum Op : std::uint8_t { kMatch, kChar, kAny, kClass, kFork, kGuard };
  Op op = kMatch;
  bool negated = false;             // kClass
  std::uint8_t len = 0;             // kChar: the code point's length in bytes
  char32_t cp = 0;                  // kChar
  std::uint32_t next = 0;           // kChar, kAny, kClass: after it; kGuard: when it passes
  std::uint32_t look = 0;           // kGuard: the lookahead that must not match
  std::uint32_t cls = 0;            // kClass: index into Program::classes
  std::vector<std::uint32_t> outs;  // kFork
};

struct Program {
  // A pattern of ASCII literals, '*', '?' and classes alone is matched by
  // the classic wildcard loop (one backtracking point: the last '*'; at
  // most length × tokens steps, usually one pass), which is 2-3 times
  // faster than the automaton on the patterns labeler files hold.
  struct Token {
    Inst::Op op = Inst::kChar;  // kChar, kAny, kClass or kFork (a '*')
    bool negated = false;
    char c = 0;
    std::uint32_t cls = 0;
  };
  bool simple = false;
  std::vector<Token> tokens;
  std::vector<Inst> insts;
  std::vector<Ranges> classes;
  std::uint32_t entry = 0;
  std::uint32_t match = 0;
  // Filled by finish(): the instructions that consume, the guards in the
  // order they are decided, and each state's predecessors without
  // consuming (forks leading to it, guards continuing to it), as offsets
  // into `preds`.
  std::vector<std::uint32_t> consuming, guards, pred_at, preds;
};

// Compiles a parsed segment. Never fails; the caller bounds the size
// (Program::insts.size()).
Program compile_segment(const Seq& seq);

// True when `segment` (no '/') matches the whole program.
bool run(const Program& program, std::string_view segment);

}  // namespace mergelens::glob
