// Outlines of brace languages: C/C++/CUDA, Rust, Go, JavaScript, TypeScript.
//
// One pass over the characters keeps a stack of open braces. Comments and
// string literals (including C++ raw strings, Rust raw and multi-line
// strings, JS template literals and Go raw strings) are skipped. The text
// since the last ';', '{' or '}' of the current level is the "header"; when a
// '{' opens, the header is classified (code_classify.cc) as a definition
// (function, class, ...), a namespace (transparent) or an anonymous block.
// A '{' inside parentheses (a lambda passed as an argument, a braced
// temporary) opens a block and the surrounding header resumes after its '}'.
// In C/C++, the #else/#elif branches of conditional compilation are skipped
// for brace counting, which keeps "#ifdef X / void f(int a) { / #else /
// void f() { / #endif" balanced.
#include <algorithm>
#include <array>
#include <string>
#include <utility>

#include "mergelens/analysis/code/code_classify.h"
#include "mergelens/analysis/code/code_outline.h"

namespace mergelens::outline_internal {
namespace {

// Characters the lexer acts on; runs of others go to the header in one piece.
constexpr auto kSpecial = [] {
  std::array<bool, 256> t{};
  for (unsigned char c : std::string_view("/\"'`{};()[]:")) t[c] = true;
  return t;
}();

// Inside a C/C++ or Go function body only braces, strings and comments matter.
constexpr auto kBodySpecial = [] {
  std::array<bool, 256> t{};
  for (unsigned char c : std::string_view("/\"'`{}")) t[c] = true;
  return t;
}();

enum class Str { kNone, kBlockComment, kDouble, kTemplate, kRawCpp, kRawRust, kGoRaw };

struct Frame {
  HeaderClass::What what = HeaderClass::kBlock;
  int def = -1;
  bool restore = false;  // a '{' inside parentheses: resume the saved header after '}'
  bool opaque = false;   // a C/C++/Go body: nothing inside is classified
  Header saved;
  bool private_ns = false;
};

class BraceScanner {
 public:
  BraceScanner(Language lang, std::span<const std::string_view> lines, const OutlineOptions& opt)
      : lang_(lang), lines_(lines), opt_(opt) {
    c_family_ = lang == Language::kCpp || lang == Language::kCuda;
    newline_ends_statement_ =
        lang == Language::kGo || lang == Language::kJavaScript || lang == Language::kTypeScript;
  }

  Outline run() {
    const int n = static_cast<int>(lines_.size());
    const int last = opt_.stop_line >= 0 ? std::min(n - 1, opt_.stop_line) : n - 1;
    for (int i = 0; i <= last; ++i) scan_line(i, strip_cr(lines_[i]));
    const bool complete = !opt_.fragment && last == n - 1;
    for (const Frame& f : stack_)
      if (f.def >= 0) out_.defs[f.def].end = complete ? last : kOpenEnd;
    // Prototypes and macros are recorded when they end, possibly after a
    // definition that started later; keep the list ordered by start.
    if (!sorted_) sort_by_start(out_.defs);
    return std::move(out_);
  }

 private:
  void scan_line(int i, std::string_view s) {
    line_ = i;
    line_indent_ = indentation(s);
    last_sig_ = 0;
    if (macro_continues_) {
      if (macro_def_ >= 0) out_.defs[macro_def_].end = i;
      macro_continues_ = !s.empty() && s.back() == '\\';
      return;
    }
    size_t k = 0;
    if (str_ == Str::kNone && c_family_) {
      const size_t first = s.find_first_not_of(" \t");
      if (first != std::string_view::npos && s[first] == '#') {
        directive(s.substr(first + 1));
        macro_continues_ = !s.empty() && s.back() == '\\';
        return;
      }
    }
    while (k < s.size()) k = step(s, k);
    if (str_ == Str::kDouble && lang_ != Language::kRust) str_ = Str::kNone;
    end_of_line();
  }

  // Handles one lexical element at s[k]; returns the next position.
  size_t step(std::string_view s, size_t k) {
    switch (str_) {
      case Str::kBlockComment: {
        const size_t e = s.find("*/", k);
        if (e == std::string_view::npos) return s.size();
        str_ = Str::kNone;
        return e + 2;
      }
      case Str::kDouble:
        return close_quoted(s, k, '"', true);
      case Str::kTemplate:
        return close_quoted(s, k, '`', lang_ != Language::kGo);
      case Str::kGoRaw:
        return close_quoted(s, k, '`', false);
      case Str::kRawCpp: {
        const std::string close = ")" + raw_delim_ + "\"";
        const size_t e = s.find(close, k);
        if (e == std::string_view::npos) return s.size();
        str_ = Str::kNone;
        return e + close.size();
      }
      case Str::kRawRust: {
        const std::string close = "\"" + raw_delim_;
        const size_t e = s.find(close, k);
        if (e == std::string_view::npos) return s.size();
        str_ = Str::kNone;
        return e + close.size();
      }
      case Str::kNone:
        break;
    }
    if (opaque_depth_ > 0) {  // a function body: no header to build
      size_t e = k;
      while (e < s.size() && !kBodySpecial[static_cast<unsigned char>(s[e])]) ++e;
      if (e > k) return e;
    } else if (!kSpecial[static_cast<unsigned char>(s[k])]) {  // a run of ordinary characters
      size_t e = k + 1;
      while (e < s.size() && !kSpecial[static_cast<unsigned char>(s[e])]) ++e;
      append_run(s.substr(k, e - k));
      return e;
    }
    const char c = s[k];
    const char next = k + 1 < s.size() ? s[k + 1] : 0;
    const char prev = k > 0 ? s[k - 1] : 0;
    if (c == '/' && next == '/') return s.size();
    if (c == '/' && next == '*') {
      str_ = Str::kBlockComment;
      return k + 2;
    }
    if (c == '"') {
      append_text("\"\"");
      if (c_family_ && prev == 'R' &&
          (k < 2 || !is_ident_char(s[k - 2]) || s[k - 2] == '8' || s[k - 2] == 'u' ||
           s[k - 2] == 'U' || s[k - 2] == 'L')) {
        const size_t open = s.find('(', k + 1);
        if (open != std::string_view::npos && open - k <= 17) {
          raw_delim_.assign(s.substr(k + 1, open - k - 1));
          str_ = Str::kRawCpp;
          return open + 1;
        }
      }
      str_ = Str::kDouble;
      return k + 1;
    }
    if (lang_ == Language::kRust && c == 'r' && !is_ident_char(prev) &&
        (next == '"' || next == '#')) {
      size_t m = k + 1;
      while (m < s.size() && s[m] == '#') ++m;
      if (m < s.size() && s[m] == '"') {
        raw_delim_.assign(m - k - 1, '#');
        str_ = Str::kRawRust;
        append_text("\"\"");
        return m + 1;
      }
    }
    if (c == '\'') return char_literal(s, k);
    if (c == '`' && (lang_ == Language::kJavaScript || lang_ == Language::kTypeScript)) {
      append_text("``");
      str_ = Str::kTemplate;
      return k + 1;
    }
    if (c == '`' && lang_ == Language::kGo) {
      append_text("``");
      str_ = Str::kGoRaw;
      return k + 1;
    }
    if (c == '{') {
      open_brace();
    } else if (c == '}') {
      close_brace();
    } else if (c == ';') {
      semicolon();
    } else {
      if (!suppressed()) {
        if (c == '(' || c == '[') ++header_.paren;
        if ((c == ')' || c == ']') && header_.paren > 0) --header_.paren;
      }
      append_char(c);
    }
    return k + 1;
  }

  // Inside a string closed by `quote`; returns the position after it.
  size_t close_quoted(std::string_view s, size_t k, char quote, bool escapes) {
    for (size_t m = k; m < s.size(); ++m) {
      if (escapes && s[m] == '\\') {
        ++m;
        continue;
      }
      if (s[m] == quote) {
        str_ = Str::kNone;
        return m + 1;
      }
    }
    return s.size();
  }

  size_t char_literal(std::string_view s, size_t k) {
    const char prev = k > 0 ? s[k - 1] : 0;
    if (c_family_ && is_ident_char(prev)) {  // a digit separator (1'000), not u8'x' or L'x'
      size_t b = k;
      while (b > 0 && is_ident_char(s[b - 1])) --b;
      if (s[b] >= '0' && s[b] <= '9') return k + 1;
    }
    if (lang_ == Language::kRust) {
      // 'a' or '\n' is a character; 'a (no closing quote nearby) a lifetime.
      if (k + 1 < s.size() && s[k + 1] == '\\') {
        const size_t e = s.find('\'', k + 2);
        return e == std::string_view::npos ? s.size() : e + 1;
      }
      size_t m = k + 1;
      if (m < s.size()) {
        ++m;
        while (m < s.size() && (static_cast<unsigned char>(s[m]) & 0xC0) == 0x80) ++m;
      }
      if (m < s.size() && s[m] == '\'') {
        append_text("''");
        return m + 1;
      }
      append_char('\'');
      return k + 1;
    }
    append_text("''");
    for (size_t m = k + 1; m < s.size(); ++m) {
      if (s[m] == '\\') {
        ++m;
        continue;
      }
      if (s[m] == '\'') return m + 1;
    }
    return s.size();
  }

  void directive(std::string_view d) {
    size_t i = d.find_first_not_of(" \t");
    if (i == std::string_view::npos) return;
    size_t e = i;
    while (e < d.size() && is_ident_char(d[e])) ++e;
    const std::string_view word = d.substr(i, e - i);
    macro_def_ = -1;
    const std::string guard = std::exchange(guard_, {});
    const int guard_line = guard_line_;
    if (word == "if" || word == "ifdef" || word == "ifndef") {
      pp_.push_back({stack_.size(), header_.text.size(), header_generation_});
      if (word == "ifndef") {  // perhaps an include guard: `#define` of the same name next
        size_t n0 = d.find_first_not_of(" \t", e), n1 = n0;
        while (n1 < d.size() && is_ident_char(d[n1])) ++n1;
        if (n0 != std::string_view::npos) guard_.assign(d.substr(n0, n1 - n0));
        guard_line_ = line_;
      }
    } else if (word == "else" || word == "elif" || word == "elifdef" || word == "elifndef") {
      if (!pp_.empty()) {
        Conditional& c = pp_.back();
        if (!c.decided) {
          c.decided = true;
          c.skip = stack_.size() != c.depth;
        }
        // A balanced branch's alternatives are read in turn; a header the
        // first one started is dropped so the alternative can restart it.
        if (!c.skip && header_generation_ == c.generation && header_.text.size() > c.header_size)
          header_.text.resize(c.header_size);
        update_suppressed();
      }
    } else if (word == "endif") {
      if (!pp_.empty()) pp_.pop_back();
      update_suppressed();
    } else if (word == "define") {
      size_t n0 = d.find_first_not_of(" \t", e);
      if (n0 == std::string_view::npos) return;
      size_t n1 = n0;
      while (n1 < d.size() && is_ident_char(d[n1])) ++n1;
      if (n1 == n0) return;
      // `#ifndef X` then `#define X` on the next line with no value: an
      // include guard, which defines nothing a reader reads.
      if (line_ == guard_line + 1 && d.substr(n0, n1 - n0) == guard &&
          d.find_first_not_of(" \t", n1) == std::string_view::npos)
        return;
      OutlineDef m;
      m.name.assign(d.substr(n0, n1 - n0));
      m.kind = "macro";
      if (n1 < d.size() && d[n1] == '(') {
        const size_t close = d.find(')', n1);
        if (close != std::string_view::npos)
          m.params = squeeze_params(d.substr(n1 + 1, close - n1 - 1));
      }
      m.start = m.name_line = m.header_end = m.end = line_;
      m.indent = line_indent_;
      m.parent = innermost_open_def();
      m.qualified = m.name;
      sorted_ = sorted_ && (out_.defs.empty() || out_.defs.back().start <= m.start);
      out_.defs.push_back(std::move(m));
      macro_def_ = static_cast<int>(out_.defs.size()) - 1;
    }
  }

  bool suppressed() const { return suppressed_; }

  void update_suppressed() {
    suppressed_ = false;
    for (const Conditional& c : pp_) suppressed_ = suppressed_ || c.skip;
  }

  // Appends ordinary characters, collapsing runs of whitespace to one space.
  void append_run(std::string_view run) {
    if (suppressed_ || opaque_depth_ > 0) return;
    if (header_.text.size() + run.size() > 4000) {
      header_.overflow = true;
      return;
    }
    for (char c : run) {
      if (is_space(c)) {
        if (!header_.text.empty() && header_.text.back() != ' ') header_.text += ' ';
        continue;
      }
      if (header_.last_line != line_) {
        header_.marks.emplace_back(static_cast<int>(header_.text.size()), line_);
        header_.last_line = line_;
        if (header_.start_line < 0) header_.start_line = line_;
      }
      header_.text += c;
      last_sig_ = c;
    }
  }

  void reset_header() {
    header_ = Header{};
    ++header_generation_;
  }

  void append_char(char c) {
    if (suppressed() || opaque_depth_ > 0) return;
    // "public:" and friends end a header: the next member starts after them.
    if (c == ':' && c_family_ && header_.paren == 0) {
      const std::string_view t = trim(header_.text);
      if (t == "public" || t == "private" || t == "protected") {
        reset_header();
        return;
      }
    }
    if (is_space(c)) {
      if (!header_.text.empty() && header_.text.back() != ' ') header_.text += ' ';
      return;
    }
    last_sig_ = c;
    if (header_.text.size() >= 4000) {
      header_.overflow = true;
      return;
    }
    if (header_.last_line != line_) {
      header_.marks.emplace_back(static_cast<int>(header_.text.size()), line_);
      header_.last_line = line_;
      if (header_.start_line < 0) header_.start_line = line_;
    }
    header_.text += c;
  }

  void append_text(std::string_view t) {
    for (char c : t) append_char(c);
  }

  int innermost_open_def() const {
    for (auto it = stack_.rbegin(); it != stack_.rend(); ++it)
      if (it->def >= 0) return it->def;
    return -1;
  }

  HeaderContext context() const {
    HeaderContext ctx;
    ctx.lang = lang_;
    ctx.cpp_header = opt_.cpp_header;
    ctx.fragment = opt_.fragment;
    if (!stack_.empty()) {
      const Frame& top = stack_.back();
      if (top.def >= 0) {
        const OutlineDef& d = out_.defs[top.def];
        ctx.in_class = d.container;
        ctx.parent_kind = d.kind;
      }
    }
    for (const Frame& f : stack_) {
      if (f.what == HeaderClass::kNamespace) {
        ctx.private_ns = ctx.private_ns || f.private_ns;
      } else if (f.def < 0 || !out_.defs[f.def].container) {
        ctx.in_function = true;
      }
    }
    return ctx;
  }

  int add_def(HeaderClass&& h, int header_end, bool declaration) {
    OutlineDef d;
    d.name = std::move(h.name);
    d.kind = std::move(h.kind);
    d.params = std::move(h.params);
    d.container = h.container;
    d.exported = h.exported;
    d.declaration = declaration;
    d.start = header_.start_line >= 0 ? header_.start_line : line_;
    d.name_line = d.start;
    for (const auto& [offset, line] : header_.marks)
      if (static_cast<size_t>(offset) <= h.name_pos) d.name_line = line;
    d.header_end = header_end;
    d.indent = d.name_line < static_cast<int>(lines_.size()) ? indentation(lines_[d.name_line]) : 0;
    d.parent = innermost_open_def();
    const char* sep =
        (lang_ == Language::kGo || lang_ == Language::kJavaScript || lang_ == Language::kTypeScript)
            ? "."
            : "::";
    if (!h.qualifier.empty())
      d.qualified = h.qualifier + sep + d.name;
    else if (d.parent >= 0)
      d.qualified = out_.defs[d.parent].qualified + sep + d.name;
    else
      d.qualified = d.name;
    if (declaration) d.end = line_;
    sorted_ = sorted_ && (out_.defs.empty() || out_.defs.back().start <= d.start);
    out_.defs.push_back(std::move(d));
    return static_cast<int>(out_.defs.size()) - 1;
  }

  void open_brace() {
    if (suppressed()) return;
    if (opaque_depth_ > 0) {
      Frame f;
      f.opaque = true;
      ++opaque_depth_;
      stack_.push_back(std::move(f));
      return;
    }
    if (header_.paren > 0) {
      Frame f;
      f.restore = true;
      f.saved = std::move(header_);
      reset_header();
      stack_.push_back(std::move(f));
      return;
    }
    if (c_family_ && is_ctor_init_brace(header_)) {
      ++header_.init_braces;
      append_char('{');
      return;
    }
    Frame f;
    if (!header_.overflow) {
      HeaderClass h = classify_header(header_.text, context(), false);
      f.what = h.what;
      f.private_ns = h.private_ns;
      if (h.what == HeaderClass::kDef) f.def = add_def(std::move(h), line_, false);
    }
    // C/C++ and Go have no named definitions inside function bodies or blocks.
    f.opaque = (c_family_ || lang_ == Language::kGo) && f.what == HeaderClass::kBlock;
    if (f.def >= 0 && (c_family_ || lang_ == Language::kGo)) f.opaque = !out_.defs[f.def].container;
    opaque_depth_ += f.opaque;
    stack_.push_back(std::move(f));
    reset_header();
  }

  void close_brace() {
    if (suppressed()) return;
    if (header_.init_braces > 0) {
      --header_.init_braces;
      append_char('}');
      return;
    }
    if (stack_.empty()) {
      out_.outer_lines.emplace_back(line_, line_indent_);
      reset_header();
      return;
    }
    Frame f = std::move(stack_.back());
    stack_.pop_back();
    opaque_depth_ -= f.opaque;
    if (f.def >= 0) out_.defs[f.def].end = line_;
    if (f.restore) {
      header_ = std::move(f.saved);
      ++header_generation_;
    } else {
      reset_header();
    }
  }

  void semicolon() {
    if (suppressed()) return;
    if (header_.paren > 0 || header_.init_braces > 0) {
      append_char(';');
      return;
    }
    const bool wants_decl = (c_family_ && opt_.cpp_header) || lang_ == Language::kRust;
    if (wants_decl && !header_.text.empty() && !header_.overflow) {
      HeaderContext ctx = context();
      if (lang_ != Language::kRust || ctx.parent_kind == "trait") {
        HeaderClass h = classify_header(header_.text, ctx, true);
        if (h.what == HeaderClass::kDef) add_def(std::move(h), line_, true);
      }
    }
    reset_header();
  }

  void end_of_line() {
    if (suppressed() || str_ != Str::kNone) return;
    if (c_family_ && header_.paren == 0 && last_sig_ == ')' && macro_calls_only(header_.text)) {
      reset_header();
      return;
    }
    if (newline_ends_statement_ && header_.paren == 0 && header_.init_braces == 0 &&
        (is_ident_char(last_sig_) || last_sig_ == ')' || last_sig_ == ']' || last_sig_ == '"' ||
         last_sig_ == '\'' || last_sig_ == '`')) {
      reset_header();
      return;
    }
    append_char(' ');
  }

  const Language lang_;
  const std::span<const std::string_view> lines_;
  const OutlineOptions opt_;
  bool c_family_ = false;
  bool newline_ends_statement_ = false;
  Outline out_;
  std::vector<Frame> stack_;
  Header header_;
  Str str_ = Str::kNone;
  std::string raw_delim_;
  // Per open #if: the state when it opened. When its first branch leaves the
  // brace depth unchanged, the #else/#elif branches are read too; otherwise
  // (a header duplicated per branch) they are skipped.
  struct Conditional {
    size_t depth = 0;
    size_t header_size = 0;
    int generation = 0;
    bool decided = false;
    bool skip = false;
  };
  std::vector<Conditional> pp_;
  bool suppressed_ = false;    // inside a skipped #else/#elif branch
  int opaque_depth_ = 0;       // open opaque frames
  int header_generation_ = 0;  // bumped whenever the header is reset
  bool macro_continues_ = false;
  int macro_def_ = -1;
  std::string guard_;    // the name of an `#ifndef` on the line before, else ""
  int guard_line_ = -2;  // that `#ifndef`'s line
  int line_ = 0;
  int line_indent_ = 0;
  char last_sig_ = 0;
  bool sorted_ = true;
};

}  // namespace

Outline brace_outline(Language lang, std::span<const std::string_view> lines,
                      const OutlineOptions& options) {
  return BraceScanner(lang, lines, options).run();
}

}  // namespace mergelens::outline_internal
