// A glob segment's automaton (glob_program.h).
#include "mergelens/analysis/glob_program.h"

#include <algorithm>

namespace mergelens::glob {

std::pair<char32_t, std::size_t> decode(std::string_view s, std::size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) return {c, 1};
  const std::size_t len = c >= 0xF8 ? 0 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 0;
  if (len == 0 || i + len > s.size()) return {c, 1};
  char32_t cp = c & (0x7F >> len);
  for (std::size_t k = 1; k < len; ++k) {
    const auto d = static_cast<unsigned char>(s[i + k]);
    if ((d & 0xC0) != 0x80) return {c, 1};
    cp = (cp << 6) | (d & 0x3F);
  }
  return {cp, len};
}

namespace {

// Builds a program back to front: each node is compiled knowing the state
// that follows it (its continuation), so every state's successors are fixed.
class Compiler {
 public:
  Program take(const Seq& seq) {
    p_.match = add(Inst{});
    p_.entry = seq_to(seq, p_.match);
    finish();
    return std::move(p_);
  }

 private:
  std::uint32_t add(Inst inst) {
    p_.insts.push_back(std::move(inst));
    return static_cast<std::uint32_t>(p_.insts.size() - 1);
  }
  std::uint32_t fork(std::vector<std::uint32_t> outs) {
    if (outs.size() == 1) return outs[0];
    Inst f;
    f.op = Inst::kFork;
    f.outs = std::move(outs);
    return add(std::move(f));
  }
  // A fork whose targets are set later (a loop's head).
  std::uint32_t placeholder() {
    Inst f;
    f.op = Inst::kFork;
    return add(std::move(f));
  }

  std::uint32_t seq_to(const Seq& seq, std::uint32_t k) {
    for (auto it = seq.rbegin(); it != seq.rend(); ++it) k = node_to(*it, k);
    return k;
  }

  // Each alternative of `n` followed by `k`.
  std::vector<std::uint32_t> alts_to(const Node& n, std::uint32_t k) {
    std::vector<std::uint32_t> out;
    for (const auto& alt : n.alts) out.push_back(seq_to(alt, k));
    return out;
  }

  // `*`-like loop: any code point any number of times, then k.
  std::uint32_t any_loop(std::uint32_t k) {
    const std::uint32_t head = placeholder();
    Inst any;
    any.op = Inst::kAny;
    any.next = head;
    const std::uint32_t a = add(std::move(any));
    p_.insts[head].outs = {a, k};
    return head;
  }

  std::uint32_t node_to(const Node& n, std::uint32_t k) {
    switch (n.kind) {
      case Node::kLiteral: {
        std::vector<std::pair<char32_t, std::uint8_t>> cps;
        for (std::size_t i = 0; i < n.text.size();) {
          auto [cp, len] = decode(n.text, i);
          cps.emplace_back(cp, static_cast<std::uint8_t>(len));
          i += len;
        }
        for (auto it = cps.rbegin(); it != cps.rend(); ++it) {
          Inst c;
          c.op = Inst::kChar;
          c.cp = it->first;
          c.len = it->second;
          c.next = k;
          k = add(std::move(c));
        }
        return k;
      }
      case Node::kOne: {
        Inst any;
        any.op = Inst::kAny;
        any.next = k;
        return add(std::move(any));
      }
      case Node::kClass: {
        Inst c;
        c.op = Inst::kClass;
        c.negated = n.negated;
        c.cls = static_cast<std::uint32_t>(p_.classes.size());
        p_.classes.push_back(n.ranges);
        c.next = k;
        return add(std::move(c));
      }
      case Node::kStar:
        return any_loop(k);
      case Node::kExt:
        break;
    }
    switch (n.ext) {
      case '@':
        return fork(alts_to(n, k));
      case '?': {
        auto outs = alts_to(n, k);
        outs.push_back(k);
        return fork(std::move(outs));
      }
      case '*':
      case '+': {
        // head: leave the group, or one more iteration that comes back here.
        const std::uint32_t head = placeholder();
        auto iterations = alts_to(n, head);
        p_.insts[head].outs = iterations;
        p_.insts[head].outs.push_back(k);
        return n.ext == '*' ? head : fork(std::move(iterations));
      }
      default: {  // '!'
        const std::uint32_t look = fork(alts_to(n, k));
        Inst g;
        g.op = Inst::kGuard;
        g.look = look;
        g.next = any_loop(k);
        return add(std::move(g));
      }
    }
  }

  void finish() {
    const std::size_t n = p_.insts.size();
    std::vector<std::uint32_t> count(n + 1, 0);
    auto each_pred = [&](auto&& f) {
      for (std::uint32_t i = 0; i < n; ++i) {
        const Inst& in = p_.insts[i];
        if (in.op == Inst::kFork)
          for (std::uint32_t o : in.outs) f(o, i);
        if (in.op == Inst::kGuard) f(in.next, i);
      }
    };
    each_pred([&](std::uint32_t to, std::uint32_t) { ++count[to + 1]; });
    for (std::size_t i = 0; i < n; ++i) count[i + 1] += count[i];
    p_.pred_at = count;
    p_.preds.assign(count[n], 0);
    each_pred([&](std::uint32_t to, std::uint32_t from) { p_.preds[count[to]++] = from; });
    for (std::uint32_t i = 0; i < n; ++i) {
      const Inst::Op op = p_.insts[i].op;
      if (op == Inst::kChar || op == Inst::kAny || op == Inst::kClass) p_.consuming.push_back(i);
      // Guards are made after what they read (the rest of the pattern and
      // nested groups), so creation order decides a lookahead first.
      if (op == Inst::kGuard) p_.guards.push_back(i);
    }
  }

  Program p_;
};

// A set of states as a bitset, with the states added since the last
// propagation on a stack.
class StateSet {
 public:
  void reset(std::size_t n) {
    bits_.assign((n + 63) / 64, 0);
    any_ = false;
  }
  bool has(std::uint32_t s) const { return (bits_[s >> 6] >> (s & 63)) & 1; }
  bool empty() const { return !any_; }
  // Adds `s`; true when it was not there.
  bool add(std::uint32_t s) {
    std::uint64_t& w = bits_[s >> 6];
    const std::uint64_t bit = std::uint64_t{1} << (s & 63);
    if (w & bit) return false;
    w |= bit;
    any_ = true;
    return true;
  }
  void swap(StateSet& o) {
    bits_.swap(o.bits_);
    std::swap(any_, o.any_);
  }

 private:
  std::vector<std::uint64_t> bits_;
  bool any_ = false;
};

bool in_class(const Ranges& ranges, char32_t cp) {
  for (const auto& [lo, hi] : ranges)
    if (cp >= lo && cp <= hi) return true;
  return false;
}

// The tokens of a pattern the wildcard loop can match, or false.
bool simple_tokens(const Seq& seq, Program& p) {
  for (const Node& n : seq) {
    Program::Token t;
    switch (n.kind) {
      case Node::kLiteral:
        for (char c : n.text) {
          if (static_cast<unsigned char>(c) >= 0x80) return false;
          t.op = Inst::kChar;
          t.c = c;
          p.tokens.push_back(t);
        }
        break;
      case Node::kStar:
        t.op = Inst::kFork;
        p.tokens.push_back(t);
        break;
      case Node::kOne:
        t.op = Inst::kAny;
        p.tokens.push_back(t);
        break;
      case Node::kClass:
        t.op = Inst::kClass;
        t.negated = n.negated;
        t.cls = static_cast<std::uint32_t>(p.classes.size());
        p.classes.push_back(n.ranges);
        p.tokens.push_back(t);
        break;
      case Node::kExt:
        return false;
    }
  }
  return true;
}

bool run_simple(const Program& p, std::string_view s) {
  const auto& tk = p.tokens;
  std::size_t ti = 0, si = 0;
  std::size_t star_ti = SIZE_MAX, star_si = 0;
  while (si < s.size()) {
    if (ti < tk.size() && tk[ti].op != Inst::kFork) {
      const Program::Token& t = tk[ti];
      const auto [cp, len] = decode(s, si);
      const bool ok =
          t.op == Inst::kAny || (t.op == Inst::kChar ? cp == static_cast<unsigned char>(t.c)
                                                     : in_class(p.classes[t.cls], cp) != t.negated);
      if (ok) {
        ++ti;
        si += len;
        continue;
      }
    } else if (ti < tk.size()) {  // '*': match nothing for now, remember where
      star_ti = ti++;
      star_si = si;
      continue;
    }
    if (star_ti == SIZE_MAX) return false;
    // Let the last '*' take one more code point and try again after it.
    star_si += decode(s, star_si).second;
    si = star_si;
    ti = star_ti + 1;
  }
  while (ti < tk.size() && tk[ti].op == Inst::kFork) ++ti;
  return ti == tk.size();
}

}  // namespace

Program compile_segment(const Seq& seq) {
  Program p;
  if (simple_tokens(seq, p)) {
    p.simple = true;
    return p;
  }
  return Compiler().take(seq);
}

bool run(const Program& p, std::string_view segment) {
  if (p.simple) return run_simple(p, segment);
  // Reused per thread: a match allocates only when a segment or program is
  // larger than any before on this thread.
  thread_local std::vector<std::pair<char32_t, std::uint8_t>> cps;
  thread_local StateSet accept, later, open;
  thread_local std::vector<std::uint32_t> stack;
  cps.clear();
  for (std::size_t i = 0; i < segment.size();) {
    auto [cp, len] = decode(segment, i);
    cps.emplace_back(cp, static_cast<std::uint8_t>(len));
    i += len;
  }
  const std::size_t n = p.insts.size();
  later.reset(n);
  // States reached without consuming lead back to what they come from.
  auto propagate = [&] {
    while (!stack.empty()) {
      const std::uint32_t s = stack.back();
      stack.pop_back();
      for (std::uint32_t k = p.pred_at[s]; k < p.pred_at[s + 1]; ++k) {
        const std::uint32_t from = p.preds[k];
        if (p.insts[from].op == Inst::kGuard && !open.has(from)) continue;
        if (accept.add(from)) stack.push_back(from);
      }
    }
  };
  // From the end of the segment back to its start: `accept` holds the
  // states from which the code points from position k on are accepted.
  for (std::size_t k = cps.size() + 1; k-- > 0;) {
    accept.reset(n);
    open.reset(n);
    stack.clear();
    if (k == cps.size()) {
      accept.add(p.match);
      stack.push_back(p.match);
    } else {
      const auto [cp, len] = cps[k];
      for (std::uint32_t s : p.consuming) {
        const Inst& in = p.insts[s];
        if (!later.has(in.next)) continue;
        const bool ok = in.op == Inst::kAny ||
                        (in.op == Inst::kChar ? in.cp == cp && in.len == len
                                              : in_class(p.classes[in.cls], cp) != in.negated);
        if (ok && accept.add(s)) stack.push_back(s);
      }
    }
    propagate();
    for (std::uint32_t g : p.guards) {
      if (accept.has(p.insts[g].look)) continue;  // the negated part matches here
      open.add(g);
      if (accept.has(p.insts[g].next) && accept.add(g)) {
        stack.push_back(g);
        propagate();
      }
    }
    if (accept.empty()) return false;  // nothing before can reach the end
    later.swap(accept);
  }
  return later.has(p.entry);
}

}  // namespace mergelens::glob
