#include "mergelens/analysis/glob.h"

#include <algorithm>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "mergelens/analysis/glob_program.h"

namespace mergelens {
namespace {

using glob::decode;
using glob::Node;
using glob::Seq;

constexpr std::size_t kMaxAlternatives = 1024;
constexpr std::size_t kMaxPatternLength = 4096;
// Extglob groups inside one another ("@(a|+(b|c))" is two deep).
constexpr int kMaxNesting = 16;
// Automaton states of all the brace alternatives together: bounds the work
// of one match (states × path length) and the memory of one glob.
constexpr std::size_t kMaxStates = 16384;

struct Segment {
  enum Kind : std::uint8_t { kGlobstar, kExact, kPattern };
  Kind kind = kExact;
  std::string text;       // kExact
  glob::Program program;  // kPattern
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
    auto stop = parse_seq(i, 0, seq);
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

  // Parses until the end, or until '|' or ')' inside an extglob (`depth`
  // groups deep); returns the stop character (0 at the end) without
  // consuming it.
  Result<char> parse_seq(std::size_t& i, int depth, Seq& out) {
    const bool in_ext = depth > 0;
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
        if (depth + 1 > kMaxNesting)
          return fail(ErrorKind::kInvalidInput, "extglob groups nested more than {} deep",
                      kMaxNesting);
        for (;;) {
          Seq alt;
          auto stop = parse_seq(i, depth + 1, alt);
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

// Compiles one brace alternative; adds its automaton states to `states`.
Result<Alternative> compile_alternative(std::string_view text, std::size_t& states) {
  Alternative alt;
  std::vector<Seq> seqs;  // per segment; empty but for kPattern
  for (std::size_t start = 0; start <= text.size();) {
    std::size_t slash = text.find('/', start);
    if (slash == std::string_view::npos) slash = text.size();
    const std::string_view seg = text.substr(start, slash - start);
    start = slash + 1;
    if (seg.empty() || seg == ".") continue;
    Segment s;
    Seq seq;
    if (seg == "**") {
      if (!alt.segs.empty() && alt.segs.back().kind == Segment::kGlobstar) continue;
      s.kind = Segment::kGlobstar;
      alt.has_globstar = true;
    } else if (!has_magic(seg)) {
      s.text.assign(seg);
    } else {
      auto parsed = SegmentParser(seg).parse();
      if (!parsed) return std::unexpected(parsed.error());
      if (parsed->size() == 1 && (*parsed)[0].kind == Node::kLiteral) {
        s.text = std::move((*parsed)[0].text);  // only escapes: an exact segment
      } else {
        s.kind = Segment::kPattern;
        seq = std::move(*parsed);
      }
    }
    alt.segs.push_back(std::move(s));
    seqs.push_back(std::move(seq));
  }
  if (alt.segs.empty()) return fail(ErrorKind::kInvalidInput, "no path segments");

  // Necessary conditions checked before any segment matching.
  for (std::size_t i = 0; i < alt.segs.size(); ++i) {
    const Segment& s = alt.segs[i];
    if (s.kind == Segment::kGlobstar) break;
    if (s.kind == Segment::kExact) {
      alt.prefix += s.text;
      if (i + 1 < alt.segs.size()) alt.prefix += '/';
      continue;
    }
    if (seqs[i].front().kind == Node::kLiteral) alt.prefix += seqs[i].front().text;
    break;
  }
  const Segment& last = alt.segs.back();
  if (last.kind == Segment::kExact) {
    alt.suffix = last.text;
  } else if (last.kind == Segment::kPattern && seqs.back().back().kind == Node::kLiteral) {
    alt.suffix = seqs.back().back().text;
  }
  for (std::size_t i = 0; i < alt.segs.size(); ++i) {
    Segment& s = alt.segs[i];
    if (s.kind != Segment::kGlobstar) ++alt.min_segments;
    if (s.kind == Segment::kExact && s.text.size() > alt.required.size()) alt.required = s.text;
    for (const auto& n : seqs[i])
      if (n.kind == Node::kLiteral && n.text.size() > alt.required.size()) alt.required = n.text;
    if (s.kind != Segment::kPattern) continue;
    s.program = glob::compile_segment(seqs[i]);
    states += s.program.simple ? s.program.tokens.size() : s.program.insts.size();
    if (states > kMaxStates)
      return fail(ErrorKind::kInvalidInput, "too complex (more than {} states to match)",
                  kMaxStates);
  }
  return alt;
}

// True when the segments `segs` match the path's `parts`, by dynamic
// programming over (segment, part) pairs: "**" may take any number of parts
// (none included, but at least one as the last segment), every other
// segment exactly one. Each pair is looked at once, so many "**" cost
// segments × parts segment matches, not a backtracking search.
bool match_segments(const Alternative& alt, std::span<const std::string_view> parts) {
  auto one = [](const Segment& sg, std::string_view part) {
    return sg.kind == Segment::kExact ? part == sg.text : glob::run(sg.program, part);
  };
  const std::span<const Segment> segs = alt.segs;
  const std::size_t S = segs.size(), P = parts.size();
  if (!alt.has_globstar) {
    if (P != S) return false;
    for (std::size_t i = 0; i < S; ++i)
      if (!one(segs[i], parts[i])) return false;
    return true;
  }
  // row[p]: segments si.. match parts p..; `after` the same for si + 1.
  thread_local std::vector<char> rows;
  rows.assign(2 * (P + 1), 0);
  char* after = rows.data();
  char* row = after + P + 1;
  after[P] = 1;
  for (std::size_t si = S; si-- > 0;) {
    const Segment& sg = segs[si];
    if (sg.kind == Segment::kGlobstar && si + 1 == S) {
      for (std::size_t p = 0; p < P; ++p) row[p] = 1;
      row[P] = 0;
    } else if (sg.kind == Segment::kGlobstar) {
      row[P] = after[P];
      for (std::size_t p = P; p-- > 0;) row[p] = after[p] || row[p + 1];
    } else {
      row[P] = 0;
      for (std::size_t p = 0; p < P; ++p) row[p] = after[p + 1] && one(sg, parts[p]);
    }
    std::swap(row, after);
  }
  return after[0] != 0;
}

}  // namespace

struct Glob::Compiled {
  std::string pattern;
  std::size_t states = 1;
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
  std::size_t states = 0;
  for (const auto& e : expanded) {
    auto alt = compile_alternative(e, states);
    if (!alt) return bad(alt.error().message);
    c->alts.push_back(std::move(*alt));
  }
  c->states = std::max<std::size_t>(states + c->alts.size(), 1);
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
    if (match_segments(alt, parts)) {
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

std::size_t Glob::states() const {
  return c_ ? c_->states : 1;
}

}  // namespace mergelens
