#include "mergelens/analysis/glob.h"

#include <algorithm>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace mergelens {
namespace {

constexpr std::size_t kMaxAlternatives = 1024;
constexpr std::size_t kMaxPatternLength = 4096;
constexpr int kMaxDepth = 4000;  // recursion guard for pathological extglobs

// The UTF-8 code point at s[i] and its length; invalid bytes stand for themselves.
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

struct Node;
using Seq = std::vector<Node>;

// One element of a segment pattern.
struct Node {
  enum Kind : std::uint8_t { kLiteral, kStar, kOne, kClass, kExt };
  Kind kind = kLiteral;
  char ext = 0;                                       // kExt: '@', '?', '*', '+' or '!'
  bool negated = false;                               // kClass
  std::string text;                                   // kLiteral
  std::vector<std::pair<char32_t, char32_t>> ranges;  // kClass
  std::vector<Seq> alts;                              // kExt
};

struct Segment {
  enum Kind : std::uint8_t { kGlobstar, kExact, kPattern };
  Kind kind = kExact;
  std::string text;  // kExact
  Seq seq;           // kPattern
};

// One brace alternative, split into segments, with cheap necessary conditions.
struct Alternative {
  std::vector<Segment> segs;
  bool has_globstar = false;
  std::size_t min_segments = 0;
  std::string prefix, suffix, required;
};

bool add_posix_class(std::string_view name, std::vector<std::pair<char32_t, char32_t>>& r) {
  auto add = [&](char32_t lo, char32_t hi) { r.emplace_back(lo, hi); };
  if (name == "alpha" || name == "alnum" || name == "word") add('a', 'z'), add('A', 'Z');
  if (name == "digit" || name == "alnum" || name == "word") add('0', '9');
  if (name == "word") add('_', '_');
  if (name == "upper") add('A', 'Z');
  if (name == "lower") add('a', 'z');
  if (name == "xdigit") add('0', '9'), add('a', 'f'), add('A', 'F');
  if (name == "space") add(' ', ' '), add('\t', '\r');
  if (name == "blank") add(' ', ' '), add('\t', '\t');
  if (name == "punct") add(0x21, 0x2F), add(0x3A, 0x40), add(0x5B, 0x60), add(0x7B, 0x7E);
  if (name == "cntrl") add(0, 0x1F), add(0x7F, 0x7F);
  if (name == "graph") add(0x21, 0x7E);
  if (name == "print") add(0x20, 0x7E);
  if (name == "ascii") add(0, 0x7F);
  return !r.empty();
}

bool is_ext_char(char c) {
  return c == '@' || c == '?' || c == '*' || c == '+' || c == '!';
}

// Parses one '/'-free segment into nodes. Errors are plain descriptions.
class SegmentParser {
 public:
  explicit SegmentParser(std::string_view s) : s_(s) {}

  Result<Seq> parse() {
    Seq seq;
    std::size_t i = 0;
    auto stop = parse_seq(i, false, seq);
    if (!stop) return std::unexpected(stop.error());
    return seq;
  }

 private:
  static Node simple(Node::Kind kind) {
    Node n;
    n.kind = kind;
    return n;
  }

  static void append_literal(Seq& out, std::string_view text) {
    if (out.empty() || out.back().kind != Node::kLiteral) out.push_back(Node{});
    out.back().text.append(text);
  }

  // Parses until the end, or until '|' or ')' inside an extglob; returns the
  // stop character (0 at the end) without consuming it.
  Result<char> parse_seq(std::size_t& i, bool in_ext, Seq& out) {
    const std::size_t n = s_.size();
    while (i < n) {
      const char c = s_[i];
      if (in_ext && (c == '|' || c == ')')) return c;
      if (c == '\\') {
        if (i + 1 >= n) return fail(ErrorKind::kInvalidInput, "trailing '\\'");
        const std::size_t len = decode(s_, i + 1).second;
        append_literal(out, s_.substr(i + 1, len));
        i += 1 + len;
      } else if (c == '[') {
        Node node;
        node.kind = Node::kClass;
        if (auto r = parse_class(i, node); !r) return std::unexpected(r.error());
        out.push_back(std::move(node));
      } else if (is_ext_char(c) && i + 1 < n && s_[i + 1] == '(') {
        Node node;
        node.kind = Node::kExt;
        node.ext = c;
        i += 2;
        for (;;) {
          Seq alt;
          auto stop = parse_seq(i, true, alt);
          if (!stop) return stop;
          node.alts.push_back(std::move(alt));
          if (*stop == '|') {
            ++i;
            continue;
          }
          if (*stop == ')') {
            ++i;
            break;
          }
          return fail(ErrorKind::kInvalidInput,
                      "unclosed '{}(' (extglob groups cannot contain '/')", c);
        }
        out.push_back(std::move(node));
      } else if (c == '*') {
        if (out.empty() || out.back().kind != Node::kStar) out.push_back(simple(Node::kStar));
        ++i;
      } else if (c == '?') {
        out.push_back(simple(Node::kOne));
        ++i;
      } else {
        const std::size_t len = decode(s_, i).second;
        append_literal(out, s_.substr(i, len));
        i += len;
      }
    }
    return '\0';
  }

  // Reads one class member (with '\' escapes) at j.
  Result<char32_t> class_char(std::size_t& j) {
    if (s_[j] == '\\') {
      if (j + 1 >= s_.size()) return fail(ErrorKind::kInvalidInput, "trailing '\\'");
      ++j;
    }
    auto [cp, len] = decode(s_, j);
    j += len;
    return cp;
  }

  Result<void> parse_class(std::size_t& i, Node& node) {
    const std::size_t n = s_.size();
    std::size_t j = i + 1;
    if (j < n && (s_[j] == '!' || s_[j] == '^')) {
      node.negated = true;
      ++j;
    }
    for (bool first = true;; first = false) {
      if (j >= n) return fail(ErrorKind::kInvalidInput, "unclosed '['");
      if (s_[j] == ']' && !first) {
        i = j + 1;
        return {};
      }
      if (s_[j] == '[' && j + 1 < n && s_[j + 1] == ':') {
        const std::size_t end = s_.find(":]", j + 2);
        if (end == std::string_view::npos) return fail(ErrorKind::kInvalidInput, "unclosed '[:'");
        const std::string_view name = s_.substr(j + 2, end - j - 2);
        if (!add_posix_class(name, node.ranges))
          return fail(ErrorKind::kInvalidInput, "unknown character class '[:{}:]'", name);
        j = end + 2;
        continue;
      }
      auto lo = class_char(j);
      if (!lo) return std::unexpected(lo.error());
      char32_t hi = *lo;
      if (j + 1 < n && s_[j] == '-' && s_[j + 1] != ']') {
        ++j;
        auto h = class_char(j);
        if (!h) return std::unexpected(h.error());
        hi = *h;
        if (hi < *lo) return fail(ErrorKind::kInvalidInput, "range out of order in '[...]'");
      }
      node.ranges.emplace_back(*lo, hi);
    }
  }

  std::string_view s_;
};

// Parses "x..y" or "x..y..step" (integers, or single characters) into values.
bool expand_sequence(std::string_view body, std::vector<std::string>& values) {
  std::vector<std::string_view> parts;
  for (std::size_t start = 0;;) {
    const std::size_t dots = body.find("..", start);
    parts.push_back(body.substr(start, dots == std::string_view::npos ? dots : dots - start));
    if (dots == std::string_view::npos) break;
    start = dots + 2;
  }
  if (parts.size() != 2 && parts.size() != 3) return false;
  auto as_int = [](std::string_view t, long& v) {
    if (t.empty() || t.size() > 9) return false;
    std::size_t k = t[0] == '-' ? 1 : 0;
    if (k == t.size()) return false;
    long x = 0;
    for (; k < t.size(); ++k) {
      if (t[k] < '0' || t[k] > '9') return false;
      x = x * 10 + (t[k] - '0');
    }
    v = t[0] == '-' ? -x : x;
    return true;
  };
  long step = 1;
  if (parts.size() == 3 && (!as_int(parts[2], step) || step == 0)) return false;
  step = step < 0 ? -step : step;
  long a = 0, b = 0;
  if (as_int(parts[0], a) && as_int(parts[1], b)) {
    auto padded = [](std::string_view t) { return t.size() > 1 && t[t[0] == '-' ? 1 : 0] == '0'; };
    const std::size_t width =
        padded(parts[0]) || padded(parts[1]) ? std::max(parts[0].size(), parts[1].size()) : 0;
    for (long v = a; a <= b ? v <= b : v >= b; v += a <= b ? step : -step) {
      std::string t = std::to_string(v < 0 ? -v : v);
      if (t.size() + (v < 0) < width) t.insert(0, width - t.size() - (v < 0), '0');
      if (v < 0) t.insert(0, 1, '-');
      values.push_back(std::move(t));
      if (values.size() > kMaxAlternatives) return true;
    }
    return true;
  }
  if (parts[0].size() == 1 && parts[1].size() == 1) {
    const int x = static_cast<unsigned char>(parts[0][0]);
    const int y = static_cast<unsigned char>(parts[1][0]);
    for (int v = x; x <= y ? v <= y : v >= y; v += x <= y ? step : -step)
      values.emplace_back(1, static_cast<char>(v));
    return true;
  }
  return false;
}

// Expands braces left to right, starting the search at `from`.
Result<void> expand_braces(const std::string& s, std::size_t from, std::vector<std::string>& out) {
  if (out.size() > kMaxAlternatives)
    return fail(ErrorKind::kInvalidInput, "more than {} brace alternatives", kMaxAlternatives);
  for (std::size_t i = from; i < s.size(); ++i) {
    if (s[i] == '\\') {
      ++i;
      continue;
    }
    if (s[i] != '{') continue;
    int depth = 0;
    std::size_t close = std::string::npos;
    std::vector<std::size_t> commas;
    for (std::size_t j = i; j < s.size() && close == std::string::npos; ++j) {
      if (s[j] == '\\') {
        ++j;
      } else if (s[j] == '{') {
        ++depth;
      } else if (s[j] == '}') {
        if (--depth == 0) close = j;
      } else if (s[j] == ',' && depth == 1) {
        commas.push_back(j);
      }
    }
    if (close == std::string::npos) return fail(ErrorKind::kInvalidInput, "unclosed '{{'");
    const std::string prefix = s.substr(0, i), suffix = s.substr(close + 1);
    if (!commas.empty()) {
      commas.push_back(close);
      std::size_t start = i + 1;
      for (std::size_t c : commas) {
        auto r = expand_braces(prefix + s.substr(start, c - start) + suffix, i, out);
        if (!r) return r;
        start = c + 1;
      }
      return {};
    }
    std::vector<std::string> values;
    if (expand_sequence(std::string_view(s).substr(i + 1, close - i - 1), values)) {
      if (values.size() > kMaxAlternatives)
        return fail(ErrorKind::kInvalidInput, "more than {} brace alternatives", kMaxAlternatives);
      for (const auto& v : values) {
        auto r = expand_braces(prefix + v + suffix, i + v.size(), out);
        if (!r) return r;
      }
      return {};
    }
    // "{x}" and "{}" stay literal; braces inside them may still expand.
  }
  out.push_back(s);
  return {};
}

bool has_magic(std::string_view seg) {
  for (std::size_t i = 0; i < seg.size(); ++i) {
    const char c = seg[i];
    if (c == '*' || c == '?' || c == '[' || c == '\\') return true;
    if (is_ext_char(c) && i + 1 < seg.size() && seg[i + 1] == '(') return true;
  }
  return false;
}

Result<Alternative> compile_alternative(std::string_view text) {
  Alternative alt;
  for (std::size_t start = 0; start <= text.size();) {
    std::size_t slash = text.find('/', start);
    if (slash == std::string_view::npos) slash = text.size();
    const std::string_view seg = text.substr(start, slash - start);
    start = slash + 1;
    if (seg.empty() || seg == ".") continue;
    Segment s;
    if (seg == "**") {
      if (!alt.segs.empty() && alt.segs.back().kind == Segment::kGlobstar) continue;
      s.kind = Segment::kGlobstar;
      alt.has_globstar = true;
    } else if (!has_magic(seg)) {
      s.text.assign(seg);
    } else {
      auto seq = SegmentParser(seg).parse();
      if (!seq) return std::unexpected(seq.error());
      if (seq->size() == 1 && (*seq)[0].kind == Node::kLiteral) {
        s.text = std::move((*seq)[0].text);  // only escapes: an exact segment
      } else {
        s.kind = Segment::kPattern;
        s.seq = std::move(*seq);
      }
    }
    alt.segs.push_back(std::move(s));
  }
  if (alt.segs.empty()) return fail(ErrorKind::kInvalidInput, "no path segments");

  // Necessary conditions checked before any segment matching.
  for (const auto& s : alt.segs) {
    if (s.kind == Segment::kGlobstar) break;
    if (s.kind == Segment::kExact) {
      alt.prefix += s.text;
      if (&s != &alt.segs.back()) alt.prefix += '/';
      continue;
    }
    if (s.seq.front().kind == Node::kLiteral) alt.prefix += s.seq.front().text;
    break;
  }
  const Segment& last = alt.segs.back();
  if (last.kind == Segment::kExact) {
    alt.suffix = last.text;
  } else if (last.kind == Segment::kPattern && last.seq.back().kind == Node::kLiteral) {
    alt.suffix = last.seq.back().text;
  }
  for (const auto& s : alt.segs) {
    if (s.kind != Segment::kGlobstar) ++alt.min_segments;
    if (s.kind == Segment::kExact && s.text.size() > alt.required.size()) alt.required = s.text;
    for (const auto& n : s.seq)
      if (n.kind == Node::kLiteral && n.text.size() > alt.required.size()) alt.required = n.text;
  }
  return alt;
}

// A continuation: what remains to match after the current node.
struct Frame {
  const Seq* seq = nullptr;  // continue with (*seq)[idx...]
  std::size_t idx = 0;
  const Node* rep = nullptr;  // or: an iteration of this *( ) / +( ) group just ended
  std::size_t start = 0;      // where that iteration started
  const Frame* next = nullptr;
};

// Matches one segment pattern against one path segment by backtracking.
class SegmentMatcher {
 public:
  explicit SegmentMatcher(std::string_view s) : s_(s) {}

  bool match(const Seq& seq) {
    Frame f{&seq, 0, nullptr, 0, nullptr};
    return run(&f, 0);
  }

 private:
  static bool terminal(const Frame* k) {
    for (; k; k = k->next)
      if (k->rep || k->idx < k->seq->size()) return false;
    return true;
  }

  bool run(const Frame* k, std::size_t pos) {
    if (!k) return pos == s_.size();
    if (++depth_ > kMaxDepth) return false;
    const bool r = step(k, pos);
    --depth_;
    return r;
  }

  bool any_alt(const Node& n, std::size_t pos, const Frame* then) {
    for (const auto& alt : n.alts) {
      Frame f{&alt, 0, nullptr, 0, then};
      if (run(&f, pos)) return true;
    }
    return false;
  }

  bool step(const Frame* k, std::size_t pos) {
    if (k->rep) {
      // An empty iteration ends the repetition (it cannot make progress).
      if (pos == k->start) return run(k->next, pos);
      if (run(k->next, pos)) return true;
      Frame again{nullptr, 0, k->rep, pos, k->next};
      return any_alt(*k->rep, pos, &again);
    }
    if (k->idx == k->seq->size()) return run(k->next, pos);
    const Node& n = (*k->seq)[k->idx];
    const Frame rest{k->seq, k->idx + 1, nullptr, 0, k->next};
    switch (n.kind) {
      case Node::kLiteral:
        return s_.substr(pos).starts_with(n.text) && run(&rest, pos + n.text.size());
      case Node::kOne:
        return pos < s_.size() && run(&rest, pos + decode(s_, pos).second);
      case Node::kClass: {
        if (pos >= s_.size()) return false;
        auto [cp, len] = decode(s_, pos);
        bool in = false;
        for (const auto& [lo, hi] : n.ranges) in = in || (cp >= lo && cp <= hi);
        return in != n.negated && run(&rest, pos + len);
      }
      case Node::kStar: {
        if (terminal(&rest)) return true;
        if (rest.idx < rest.seq->size() && (*rest.seq)[rest.idx].kind == Node::kLiteral) {
          const std::string& lit = (*rest.seq)[rest.idx].text;
          for (std::size_t j = s_.find(lit, pos); j != std::string_view::npos;
               j = s_.find(lit, j + 1))
            if (run(&rest, j)) return true;
          return false;
        }
        for (std::size_t j = pos;; j += decode(s_, j).second) {
          if (run(&rest, j)) return true;
          if (j >= s_.size()) return false;
        }
      }
      case Node::kExt:
        break;
    }
    switch (n.ext) {
      case '@':
        return any_alt(n, pos, &rest);
      case '?':
        return run(&rest, pos) || any_alt(n, pos, &rest);
      case '*':
      case '+': {
        if (n.ext == '*' && run(&rest, pos)) return true;
        Frame again{nullptr, 0, &n, pos, &rest};
        return any_alt(n, pos, &again);
      }
      default: {  // '!': no alternative followed by the rest may match here
        if (any_alt(n, pos, &rest)) return false;
        for (std::size_t j = pos;; j += decode(s_, j).second) {
          if (run(&rest, j)) return true;
          if (j >= s_.size()) return false;
        }
      }
    }
  }

  std::string_view s_;
  int depth_ = 0;
};

bool match_segments(std::span<const Segment> segs, std::span<const std::string_view> parts) {
  std::size_t pi = 0;
  for (std::size_t si = 0; si < segs.size(); ++si, ++pi) {
    const Segment& sg = segs[si];
    if (pi >= parts.size()) return false;  // ran out of path
    if (sg.kind == Segment::kGlobstar) {
      if (si + 1 == segs.size()) return true;
      for (std::size_t fr = pi; fr < parts.size(); ++fr)
        if (match_segments(segs.subspan(si + 1), parts.subspan(fr))) return true;
      return false;
    }
    if (sg.kind == Segment::kExact ? parts[pi] != sg.text
                                   : !SegmentMatcher(parts[pi]).match(sg.seq))
      return false;
  }
  return pi == parts.size();
}

}  // namespace

struct Glob::Compiled {
  std::string pattern;
  bool negate = false;
  bool comment = false;
  std::vector<Alternative> alts;
};

Result<Glob> Glob::compile(std::string_view pattern) {
  auto bad = [&](std::string_view why) {
    return fail(ErrorKind::kInvalidInput, "invalid glob '{}': {}", pattern, why);
  };
  if (pattern.empty()) return bad("empty pattern");
  if (pattern.size() > kMaxPatternLength) return bad("pattern too long");
  auto c = std::make_shared<Compiled>();
  c->pattern.assign(pattern);
  Glob g;
  if (pattern[0] == '#') {
    c->comment = true;
    g.c_ = std::move(c);
    return g;
  }
  std::size_t k = 0;
  while (k < pattern.size() && pattern[k] == '!') c->negate = !c->negate, ++k;
  if (k == pattern.size()) return bad("nothing after '!'");
  std::vector<std::string> expanded;
  if (auto r = expand_braces(std::string(pattern.substr(k)), 0, expanded); !r)
    return bad(r.error().message);
  std::sort(expanded.begin(), expanded.end());
  expanded.erase(std::unique(expanded.begin(), expanded.end()), expanded.end());
  for (const auto& e : expanded) {
    auto alt = compile_alternative(e);
    if (!alt) return bad(alt.error().message);
    c->alts.push_back(std::move(*alt));
  }
  g.c_ = std::move(c);
  return g;
}

bool Glob::matches(std::string_view path) const {
  if (!c_ || c_->comment) return false;
  for (;;) {
    if (path.starts_with("./")) {
      path.remove_prefix(2);
    } else if (path.starts_with("/")) {
      path.remove_prefix(1);
    } else {
      break;
    }
  }
  // Reused per thread: splitting allocates only the first time.
  thread_local std::vector<std::string_view> parts;
  bool split = false;
  bool hit = false;
  for (const auto& alt : c_->alts) {
    if (!path.starts_with(alt.prefix) || !path.ends_with(alt.suffix)) continue;
    if (!alt.required.empty() && path.find(alt.required) == std::string_view::npos) continue;
    if (!split) {
      split = true;
      parts.clear();
      for (std::size_t start = 0; start < path.size();) {
        std::size_t slash = path.find('/', start);
        if (slash == std::string_view::npos) slash = path.size();
        if (slash > start) parts.push_back(path.substr(start, slash - start));
        start = slash + 1;
      }
    }
    if (parts.size() < alt.min_segments || (!alt.has_globstar && parts.size() != alt.segs.size()))
      continue;
    if (match_segments(alt.segs, parts)) {
      hit = true;
      break;
    }
  }
  return hit != c_->negate;
}

const std::string& Glob::pattern() const {
  static const std::string kEmpty;
  return c_ ? c_->pattern : kEmpty;
}

bool Glob::negated() const {
  return c_ && c_->negate;
}

}  // namespace mergelens
