// Comments, docstrings and one-for-one replacements (see rationale.h).
//
// The lexer follows only what decides whether a character is code, comment
// or documentation: strings (so a '#' or "//" inside one is not a comment),
// Python brackets and backslash continuations (so a docstring is told from a
// string argument: it is a statement of its own right after a def/class
// header, or the first statement of a module), C-family block comments.
// find_notes groups the comment lines of a run of added lines, then cuts the
// group at lines that are no rationale (pragmas, TODOs, commented-out code,
// separators) and drops what is left too small to say anything.
#include "mergelens/analysis/code/rationale.h"

#include <re2/re2.h>
#include <algorithm>
#include <climits>

#include "mergelens/analysis/code/code_outline.h"
#include "mergelens/analysis/code/code_text.h"

namespace mergelens {
namespace {

using outline_internal::trim;

constexpr size_t kMaxNoteBytes = 1500;

bool is_alpha(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
bool is_alnum(unsigned char c) {
  return is_alpha(c) || (c >= '0' && c <= '9');
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

// Position of the closing triple quote `q` at or after `from`, or npos.
size_t find_triple(std::string_view s, size_t from, char q) {
  for (size_t i = from; i + 3 <= s.size(); ++i) {
    if (s[i] == '\\') {
      ++i;
      continue;
    }
    if (s[i] == q && s[i + 1] == q && s[i + 2] == q) return i;
  }
  return std::string_view::npos;
}

// End (one past the closing quote) of the string literal opening at `i`, or
// the line's end when it does not close.
size_t skip_string(std::string_view s, size_t i) {
  const char q = s[i];
  for (size_t j = i + 1; j < s.size(); ++j) {
    if (s[j] == '\\')
      ++j;
    else if (s[j] == q)
      return j + 1;
  }
  return s.size();
}

// Text inside a block comment line: a leading '*' (the usual " * " margin) removed.
std::string_view block_text(std::string_view s) {
  s = trim(s);
  while (!s.empty() && s.front() == '*') s.remove_prefix(1);
  while (!s.empty() && s.back() == '*') s.remove_suffix(1);
  return trim(s);
}

void append_piece(std::string& to, std::string_view piece) {
  if (piece.empty()) return;
  if (!to.empty()) to += ' ';
  to += piece;
}

}  // namespace

CommentLexer::CommentLexer(Language lang, bool at_file_start)
    : python_(lang == Language::kPython), code_seen_(!at_file_start) {}

void CommentLexer::guess_from(std::span<const std::string_view> lines) {
  if (python_ || state_ != kCode) return;
  for (std::string_view l : lines) {
    const size_t open = l.find("/*"), close = l.find("*/");
    if (close != std::string_view::npos && (open == std::string_view::npos || close < open)) {
      state_ = kBlock;
      doc_ = false;
      return;
    }
    if (open != std::string_view::npos) return;
  }
}

CommentLexer::Line CommentLexer::scan(std::string_view line) {
  Line out;
  out.in_block = state_ != kCode;
  size_t i = 0;
  const size_t n = line.size();
  if (!python_) {
    if (state_ == kBlock) {
      const size_t close = line.find("*/");
      out.block = true;
      out.block_doc = doc_;
      append_piece(out.comment, block_text(line.substr(0, close)));
      if (close == std::string_view::npos) return out;
      state_ = kCode;
      i = close + 2;
    }
    while (i < n) {
      const char c = line[i];
      if (c == ' ' || c == '\t' || c == '\r') {
        ++i;
      } else if (c == '/' && i + 1 < n && line[i + 1] == '/') {
        size_t from = i + 2;
        const bool doc =
            from < n &&
            (line[from] == '!' || (line[from] == '/' && (from + 1 >= n || line[from + 1] != '/')));
        while (from < n && (line[from] == '/' || line[from] == '!')) ++from;
        out.line_doc = doc;
        append_piece(out.comment, trim(line.substr(from)));
        return out;
      } else if (c == '/' && i + 1 < n && line[i + 1] == '*') {
        size_t from = i + 2;
        const bool doc =
            from < n &&
            (line[from] == '!' || (line[from] == '*' && (from + 1 >= n || line[from + 1] != '/')));
        const size_t close = line.find("*/", from);
        out.block = true;
        out.block_doc = out.block_doc || doc;
        append_piece(out.comment, block_text(line.substr(from, close == std::string_view::npos
                                                                   ? std::string_view::npos
                                                                   : close - from)));
        if (close == std::string_view::npos) {
          state_ = kBlock;
          doc_ = doc;
          out.opens = true;
          return out;
        }
        i = close + 2;
      } else if (c == '"' || c == '`') {
        out.code = true;
        i = skip_string(line, i);
      } else if (c == '\'' && (i == 0 || !is_alnum(line[i - 1]))) {
        // 'a' or '\n' is a character; 'a (a Rust lifetime) and 1'000 are not.
        out.code = true;
        if (i + 1 < n && line[i + 1] == '\\')
          i = skip_string(line, i);
        else
          i += i + 2 < n && line[i + 2] == '\'' ? 3 : 1;
      } else {
        out.code = true;
        ++i;
      }
    }
    return out;
  }

  // Python.
  const bool stmt_start = depth_ == 0 && !continued_;
  bool first = true;
  char last = 0;  // last code character of the line
  if (state_ == kTriple) {
    const size_t close = find_triple(line, 0, quote_);
    if (doc_) {
      out.docstring = true;
      out.doc = std::string(trim(line.substr(0, close)));
    } else {
      out.code = true;  // the rest of a string literal
    }
    if (close == std::string_view::npos) return out;
    state_ = kCode;
    i = close + 3;
    first = false;
    last = quote_;
  }
  while (i < n) {
    const char c = line[i];
    if (c == ' ' || c == '\t' || c == '\r' || c == '\f') {
      ++i;
      continue;
    }
    if (c == '#') {
      size_t from = i;
      while (from < n && line[from] == '#') ++from;
      out.comment = std::string(trim(line.substr(from)));
      break;
    }
    // A string literal, with up to two prefix letters (r, b, u, f).
    size_t q = i;
    while (q < n && q < i + 2 &&
           std::string_view("rRbBuUfF").find(line[q]) != std::string_view::npos)
      ++q;
    if (q < n && (line[q] == '"' || line[q] == '\'') &&
        (q == i || i == 0 || !is_alnum(line[i - 1]))) {
      const char qc = line[q];
      const bool triple = q + 2 < n && line[q + 1] == qc && line[q + 2] == qc;
      const bool starts_statement = first && stmt_start;
      if (starts_statement) {
        stmt_header_ = false;
        stmt_started_ = true;
      }
      if (triple) {
        const bool doc = starts_statement && (header_ || !code_seen_);
        if (starts_statement) {
          header_ = false;
          code_seen_ = true;
        }
        const size_t close = find_triple(line, q + 3, qc);
        if (doc) {
          out.doc = std::string(trim(line.substr(
              q + 3, close == std::string_view::npos ? std::string_view::npos : close - q - 3)));
          out.opens = true;
          out.docstring = true;
        } else {
          out.code = true;
        }
        first = false;
        last = qc;
        if (close == std::string_view::npos) {
          state_ = kTriple;
          quote_ = qc;
          doc_ = doc;
          if (doc) out.opens = true;
          return out;
        }
        i = close + 3;
        continue;
      }
      if (starts_statement) {
        header_ = false;
        code_seen_ = true;
      }
      out.code = true;
      first = false;
      last = qc;
      i = skip_string(line, q);
      continue;
    }
    if (first && stmt_start) {
      const std::string_view rest = line.substr(i);
      stmt_header_ =
          rest.starts_with("def ") || rest.starts_with("class ") || rest.starts_with("async def ");
      stmt_started_ = true;
      header_ = false;
      code_seen_ = true;
    }
    first = false;
    out.code = true;
    if (c == '(' || c == '[' || c == '{') ++depth_;
    if ((c == ')' || c == ']' || c == '}') && depth_ > 0) --depth_;
    last = c;
    ++i;
  }
  continued_ = last == '\\';
  if (out.code && depth_ == 0 && !continued_ && stmt_started_) {
    header_ = stmt_header_ && last == ':';
    stmt_header_ = false;
    stmt_started_ = false;
  }
  return out;
}

namespace {

ML_PATTERN(
    strong_code,
    R"re(^(?:(?:async\s+)?def\s+\w+\s*\(|class\s+\w+\s*[:(]|import\s+[\w.]+(?:\s+as\s+\w+)?\s*$|)re"
    R"re(from\s+[.\w]+\s+import\s|(?:try|else|finally)\s*:\s*$|except\b.*:\s*$|)re"
    R"re(@[\w.]+(?:\(.*\))?\s*$|#\s*(?:include|define|ifdef|ifndef|endif|pragma)\b|)re"
    R"re((?:const\s+)?(?:auto|int|float|double|void|bool|size_t|u?int\d+_t)\s+\**\w+\s*[=;(\[]))re")
ML_PATTERN(keyword_block, R"re(^(?:if|elif|while|with|for)\s+(.+?)\s*:\s*$)re")
ML_PATTERN(assignment,
           R"re(^[\w.\[\]'"]+(?:\s*,\s*[\w.]+)*\s*(?:=|\+=|-=|\*=|/=|\|=|&=|:=)\s*[^=\s])re")
ML_PATTERN(python_condition, R"re(\bis\s+(?:not\s+)?None\b|\bnot\s+\w+$)re")
ML_PATTERN(call_line, R"re(^[\w.]+(?:\[[^\]]*\])?\(.*\)\s*[;,]?\s*$)re")
ML_PATTERN(statement_word, R"re(^(?:return|raise|yield|await|assert|del|print|throw)\b)re")

// Longest run of words that read as prose ("copies a host-resident scalar").
int prose_run(std::string_view t) {
  int best = 0, run = 0;
  size_t i = 0;
  while (i < t.size()) {
    while (i < t.size() && t[i] == ' ') ++i;
    size_t e = i;
    while (e < t.size() && t[e] != ' ') ++e;
    std::string_view w = t.substr(i, e - i);
    i = e;
    if (w.empty()) continue;
    if (w.front() == '(') w.remove_prefix(1);
    while (!w.empty() && std::string_view(",.;:!?)\"'").find(w.back()) != std::string_view::npos)
      w.remove_suffix(1);
    bool plain = !w.empty();
    for (unsigned char c : w) plain = plain && (is_alpha(c) || c == '-' || c == '\'' || c >= 0x80);
    plain = plain && is_alpha(static_cast<unsigned char>(w.front()));
    run = plain ? run + 1 : 0;
    best = std::max(best, run);
  }
  return best;
}

// A comment line that is code put out of action rather than prose about code.
bool looks_like_code(std::string_view t) {
  if (t.ends_with(";") || t.ends_with("{") || t == "}" || t == "};" || t.ends_with("});"))
    return true;
  if (RE2::PartialMatch(t, strong_code())) return true;
  signal_internal::Cap cond;
  if (RE2::FullMatch(t, keyword_block(), &cond)) {
    if (cond.find_first_of(".()[]_=<>!") != std::string_view::npos) return true;
    if (RE2::PartialMatch(cond, python_condition())) return true;
    return cond.find(' ') == std::string_view::npos;
  }
  if (RE2::PartialMatch(t, assignment()) || RE2::PartialMatch(t, statement_word()))
    return prose_run(t) < 3;
  if (RE2::FullMatch(t, call_line())) return prose_run(t) < 4;
  return false;
}

bool is_pragma(std::string_view t) {
  const std::string l = lower(t);
  // clang-format off
  static constexpr std::string_view kStarts[] = {
      "noqa", "type:", "nolint", "fmt:", "pylint:", "pragma:", "pragma no", "isort:", "mypy:",
      "pyright", "ruff:", "nosec", "clang-format", "eslint-", "prettier-ignore", "yapf:", "pyre-",
      "@ts-", "-*-", "coding:", "coding=", "!", "spdx-", "cppcheck-", "codespell:", "lint:",
      "language=", "pytype:", "cython:", "black:", "flake8:", "jscpd:", "istanbul ignore"};
  // clang-format on
  for (auto s : kStarts)
    if (l.starts_with(s)) return true;
  return l.find("noqa") != std::string::npos || l.find("type: ignore") != std::string::npos ||
         l.find("nolint") != std::string::npos;
}

bool has_words(std::string_view t);

// "TODO", "FIXME(name):" and the like with nothing after them: a marker, not
// a thought. A TODO that says why (a FIXME explaining a workaround) stays.
std::string_view after_todo(std::string_view t) {
  for (std::string_view m : {"TODO", "FIXME", "XXX", "todo", "Todo", "fixme"}) {
    if (!t.starts_with(m) ||
        (t.size() > m.size() && is_alnum(static_cast<unsigned char>(t[m.size()]))))
      continue;
    t.remove_prefix(m.size());
    if (t.starts_with("(")) {
      const size_t close = t.find(')');
      t.remove_prefix(close == std::string_view::npos ? t.size() : close + 1);
    }
    while (!t.empty() && (t.front() == ':' || t.front() == ' ' || t.front() == '-'))
      t.remove_prefix(1);
    return t;
  }
  return t;
}

bool todo_only(std::string_view t) {
  const std::string_view rest = after_todo(t);
  return rest.size() != t.size() && !has_words(rest);
}

bool is_licence(std::string_view block) {
  const std::string l = lower(block);
  for (std::string_view w : {"copyright", "spdx-license", "licensed under", "all rights reserved",
                             "permission is hereby granted", "apache license", "mit license",
                             "gnu general public", "license, version", "without warranties"})
    if (l.find(w) != std::string::npos) return true;
  return false;
}

// Words of two letters or more (a run of non-ASCII bytes counts one word per
// six bytes: two CJK characters) and letters in all.
bool has_words(std::string_view t) {
  int words = 0, letters = 0;
  size_t i = 0;
  while (i < t.size()) {
    const unsigned char c = t[i];
    if (c >= 0x80) {
      size_t e = i;
      while (e < t.size() && static_cast<unsigned char>(t[e]) >= 0x80) ++e;
      words += static_cast<int>((e - i + 5) / 6);
      letters += static_cast<int>((e - i) / 2);
      i = e;
    } else if (is_alpha(c)) {
      size_t e = i;
      while (e < t.size() && is_alpha(static_cast<unsigned char>(t[e]))) ++e;
      if (e - i >= 2) ++words;
      letters += static_cast<int>(e - i);
      i = e;
    } else {
      ++i;
    }
  }
  return words >= 2 && letters >= 6;
}

bool has_letter(std::string_view t) {
  return std::any_of(t.begin(), t.end(), [](char c) {
    return is_alpha(static_cast<unsigned char>(c)) || static_cast<unsigned char>(c) >= 0x80;
  });
}

// The comment lines of one group, before cutting: line index and text.
struct Group {
  int first = -1;
  char family = 0;  // '#', '/' (line comments), 'D' (/// doc lines), 'b' block, 'd' docstring
  std::vector<std::pair<int, std::string>> lines;
};

void emit(const Group& g, std::vector<RawNote>& out) {
  if (g.lines.empty()) return;
  std::string all;
  for (const auto& [_, t] : g.lines) append_piece(all, t);
  if (is_licence(all)) return;
  const bool doc = g.family == 'd' || g.family == 'D';
  const char* kind = doc ? "docstring" : "comment";
  const size_t before = out.size();
  RawNote cur;
  bool open = false, paragraph = false;
  auto close = [&] {
    if (open && has_words(cur.text)) out.push_back(std::move(cur));
    cur = RawNote{};
    open = paragraph = false;
  };
  int first_text = -1, last_text = -1;
  for (const auto& [idx, text] : g.lines) {
    if (text.empty()) {  // a blank comment line: a paragraph break
      paragraph = open;
      continue;
    }
    if (first_text < 0) first_text = idx;
    last_text = idx;
    if (!doc &&
        (todo_only(text) || is_pragma(text) || !has_letter(text) || looks_like_code(text))) {
      close();
      continue;
    }
    if (open && cur.text.size() + text.size() + 1 > kMaxNoteBytes) break;  // the note is full
    if (!open) {
      if (text.size() > kMaxNoteBytes) break;
      cur.first = idx;
      cur.kind = kind;
      open = true;
    } else {
      cur.text += paragraph ? '\n' : ' ';
    }
    paragraph = false;
    cur.text += text;
    cur.last = idx;
  }
  close();
  // A note that starts (ends) the group's text spans its opening (closing)
  // line too: the `/**` or `"""` line without text.
  for (size_t i = before; i < out.size() && g.family != '#'; ++i) {
    if (out[i].first == first_text) out[i].first = g.first;
    if (out[i].last == last_text) out[i].last = g.lines.back().first;
  }
}

}  // namespace

std::vector<RawNote> find_notes(std::span<const NoteLine> lines, CommentLexer& lexer) {
  std::vector<RawNote> out;
  Group g;
  auto flush = [&] {
    emit(g, out);
    g = Group{};
  };
  for (int i = 0; i < static_cast<int>(lines.size()); ++i) {
    const CommentLexer::Line s = lexer.scan(lines[i].text);
    if (!lines[i].added) {
      flush();
      continue;
    }
    char family = 0;
    std::string text;
    if (s.code) {
      flush();
      if (!s.comment.empty() && !is_pragma(s.comment) && !todo_only(s.comment) &&
          !looks_like_code(s.comment) && has_words(s.comment)) {
        Group one{i, s.block_doc || s.line_doc ? 'D' : '#', {{i, s.comment}}};
        emit(one, out);
      }
      continue;
    }
    if (s.docstring) {
      family = 'd';
      text = s.doc;
    } else if (s.block || s.in_block) {
      family = s.block_doc ? 'D' : 'b';
      text = s.comment;
    } else if (!s.comment.empty() || trim(lines[i].text).starts_with("#") ||
               trim(lines[i].text).starts_with("//")) {
      family = s.line_doc ? 'D' : '#';
      text = s.comment;
    } else {
      flush();  // a blank line ends line comments; inside a block it is a paragraph break
      continue;
    }
    const bool new_block = s.opens && !s.in_block;
    if (g.first >= 0 && (g.family != family || new_block)) flush();
    if (g.first < 0) {
      g.first = i;
      g.family = family;
    }
    g.lines.emplace_back(i, std::move(text));
    const bool closes = (family == 'd' || s.block) && !lexer.inside();
    if (closes) flush();
  }
  flush();
  return out;
}

}  // namespace mergelens
