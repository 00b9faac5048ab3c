// Switch declarations of Python sources (see switches.h). A file is read
// once into a copy whose comments are blanked (strings kept: names and
// defaults are in them), with the bracket depth at each line's start;
// statements are the lines from a start at depth 0 (or a dict entry's depth)
// until the depth falls back.
#include <algorithm>
#include <array>
#include <cctype>
#include <tuple>

#include <re2/re2.h>

#include "mergelens/analysis/code/code_text.h"
#include "mergelens/analysis/code/switches.h"

namespace mergelens {
namespace {

using signal_internal::call_args;
using signal_internal::Cap;

#include "mergelens/analysis/code/switch_text.inc"

// Whether `hay` holds `needle` (lower-case ASCII) in any letter case: the
// prefilter of a pattern matched case-insensitively (every match holds it).
bool has_nocase(std::string_view hay, std::string_view needle) {
  if (needle.empty()) return true;
  const char lo = needle[0], up = static_cast<char>(lo - 'a' + 'A');
  for (size_t i = 0; i + needle.size() <= hay.size(); ++i) {
    if (hay[i] != lo && hay[i] != up) continue;
    size_t k = 1;
    while (k < needle.size() &&
           (hay[i + k] == needle[k] || hay[i + k] == static_cast<char>(needle[k] - 'a' + 'A')))
      ++k;
    if (k == needle.size()) return true;
  }
  return false;
}

std::string collapse(std::string_view s, size_t max = 200) {
  std::string out;
  bool space = false;
  for (char c : s) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  if (out.size() > max) {
    size_t cut = max;
    while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80) --cut;
    out = out.substr(0, cut) + "…";
  }
  return out;
}

// A file with comments blanked and each line's bracket depth at its start.
struct PyText {
  static constexpr auto kSpecial = [] {
    std::array<bool, 256> t{};
    for (unsigned char c : std::string_view("\n#\"'([{)]}")) t[c] = true;
    return t;
  }();

  std::string code;             // content with comments replaced by spaces
  std::vector<size_t> starts;   // offset of each line
  std::vector<int> depth;       // bracket depth at each line's start
  std::vector<bool> in_string;  // the line starts inside a triple-quoted string

  explicit PyText(std::string_view content) : code(content) {
    int d = 0;
    char triple = 0;  // the quote of an open triple-quoted string
    char single = 0;  // the quote of an open one-line string
    bool line_start = true;
    for (size_t i = 0; i < code.size(); ++i) {
      if (line_start) {
        starts.push_back(i);
        depth.push_back(d);
        in_string.push_back(triple != 0);
        line_start = false;
      }
      // Skip what cannot change the state: in a string anything but a
      // newline, a backslash or its quote; outside one anything kSpecial
      // does not name.
      if (triple || single) {
        const char q = triple ? triple : single;
        while (i < code.size() && code[i] != '\n' && code[i] != '\\' && code[i] != q) ++i;
      } else {
        while (i < code.size() && !kSpecial[static_cast<unsigned char>(code[i])]) ++i;
      }
      if (i >= code.size()) break;
      char c = code[i];
      if (c == '\n') {
        single = 0;  // an unterminated one-line string ends with its line
        line_start = true;
        continue;
      }
      // A backslash escapes the next character; an escaped newline (a string
      // continued on the next line) still starts a line, or every later line
      // number of the file would be one short.
      if (triple) {
        if (c == '\\') {
          if (++i < code.size() && code[i] == '\n') line_start = true;
        } else if (c == triple && i + 2 < code.size() && code[i + 1] == triple &&
                   code[i + 2] == triple) {
          triple = 0;
          i += 2;
        }
        continue;
      }
      if (single) {
        if (c == '\\') {
          if (++i < code.size() && code[i] == '\n') line_start = true;
        } else if (c == single)
          single = 0;
        continue;
      }
      if (c == '#') {
        while (i < code.size() && code[i] != '\n') code[i++] = ' ';
        --i;
        continue;
      }
      if (c == '"' || c == '\'') {
        if (i + 2 < code.size() && code[i + 1] == c && code[i + 2] == c) {
          triple = c;
          i += 2;
        } else {
          single = c;
        }
        continue;
      }
      if (c == '(' || c == '[' || c == '{') ++d;
      if ((c == ')' || c == ']' || c == '}') && d > 0) --d;
    }
    if (line_start || starts.empty()) {
      starts.push_back(code.size());
      depth.push_back(d);
      in_string.push_back(triple != 0);
    }
    starts.push_back(code.size() + 1);  // sentinel
  }
  size_t lines() const { return starts.size() - 1; }
  std::string_view line(size_t i) const {
    size_t b = starts[i], e = std::min(starts[i + 1], code.size() + 1) - 1;
    if (e > code.size()) e = code.size();
    return std::string_view(code).substr(b, e > b ? e - b : 0);
  }
  int depth_after(size_t i) const { return i + 1 < depth.size() ? depth[i + 1] : depth.back(); }
  // The last line of the statement or entry starting at `i` (base depth
  // depth[i]): the depth falls back and the line does not continue.
  size_t end_of(size_t i, size_t max_lines = 40) const {
    const int base = depth[i];
    size_t j = i;
    while (j + 1 < lines() && j - i < max_lines) {
      std::string_view t = line(j);
      while (!t.empty() && (t.back() == ' ' || t.back() == '\r')) t.remove_suffix(1);
      const bool cont = depth_after(j) > base || t.ends_with('\\') ||
                        (base > 0 && (t.ends_with(':') || t.ends_with("lambda")));
      if (!cont) break;
      ++j;
    }
    return j;
  }
  // 1-based line of byte offset `off`.
  std::int32_t line_of(size_t off) const {
    auto it = std::upper_bound(starts.begin(), starts.end() - 1, off);
    return static_cast<std::int32_t>(it - starts.begin());
  }
  std::string_view span(size_t a, size_t b) const {
    size_t e = std::min(starts[b + 1] - 1, code.size());
    return std::string_view(code).substr(starts[a], e - starts[a]);
  }
};

// The value of keyword `key` among `args` ("default=3" → "3"), or nullopt.
std::optional<std::string_view> keyword(const std::vector<std::string_view>& args,
                                        std::string_view key) {
  for (auto a : args) {
    if (!a.starts_with(key)) continue;
    auto rest = a.substr(key.size());
    while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
    if (rest.starts_with('=') && !rest.starts_with("==")) {
      rest.remove_prefix(1);
      while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
      return rest;
    }
  }
  return std::nullopt;
}

struct Scanner {
  std::string_view path;
  const PyText& t;
  std::vector<SwitchDecl>& out;

  void emit(std::string name, const char* kind, const char* origin,
            std::optional<std::string_view> def, size_t line0, size_t line1) {
    SwitchDecl d;
    d.name = std::move(name);
    d.kind = kind;
    d.origin = origin;
    if (def && !def->empty()) {
      d.has_default = true;
      d.default_value = collapse(*def, 120);
    }
    d.path = std::string(path);
    d.line = static_cast<std::int32_t>(line0 + 1);
    d.text = collapse(t.span(line0, line1));
    out.push_back(std::move(d));
  }

  // The default of an env read whose name literal ends at `after` in `s`.
  static std::optional<std::string_view> read_default(std::string_view s, size_t after) {
    size_t i = after;
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    if (i >= s.size() || s[i] != ',') return std::nullopt;
    // Re-split from a synthetic '(' just before the comma.
    int d = 0;
    char q = 0;
    size_t b = i + 1;
    for (size_t k = b; k < s.size(); ++k) {
      char c = s[k];
      if (q) {
        if (c == '\\')
          ++k;
        else if (c == q)
          q = 0;
        continue;
      }
      if (c == '"' || c == '\'')
        q = c;
      else if (c == '(' || c == '[' || c == '{')
        ++d;
      else if ((c == ')' || c == ']' || c == '}') && d-- == 0)
        return s.substr(b, k - b);
      else if (c == ',' && d == 0)
        return s.substr(b, k - b);
    }
    return std::nullopt;
  }

  void reads(size_t line0, size_t line1) {
    std::string_view s = t.span(line0, line1);
    // Every env read holds "env" and every config read "config", in some case.
    const bool env = has_nocase(s, "env"), config = has_nocase(s, "config");
    if (!env && !config) return;
    re2::StringPiece in(s.data(), s.size());
    Cap environ, getenv, helper, name;
    while (env && RE2::FindAndConsume(&in, env_read(), &environ, &getenv, &helper, &name)) {
      const size_t end = static_cast<size_t>(in.data() - s.data());
      std::string lower(helper);
      for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (lower.find("setenv") != std::string::npos || lower.find("putenv") != std::string::npos ||
          lower.find("delenv") != std::string::npos)
        continue;  // sets a variable, declares nothing
      if (!helper.empty() && (!RE2::FullMatch(name, env_style()) || lower.starts_with("env")))
        continue;  // a helper reads env-style names only; Env*(...) builds a registry entry
      const bool subscript =
          !environ.empty() &&
          std::string_view(environ.data(), static_cast<size_t>(name.data() - environ.data()))
                  .find('[') != std::string_view::npos;
      auto def = subscript ? std::nullopt : read_default(s, end);
      if (!def && !helper.empty()) {
        // get_bool_env_var("X", default="false")
        auto open = s.rfind('(', end);
        if (open != std::string_view::npos) def = keyword(call_args(s, open), "default");
      }
      size_t line =
          static_cast<size_t>(t.line_of(static_cast<size_t>(name.data() - t.code.data())) - 1);
      emit(std::string(name), "env", def ? "read_default" : "read", def, line, line);
    }
    in = re2::StringPiece(s.data(), s.size());
    while (config && RE2::FindAndConsume(&in, config_read(), &name)) {
      const size_t end = static_cast<size_t>(in.data() - s.data());
      auto def = read_default(s, end);
      size_t line =
          static_cast<size_t>(t.line_of(static_cast<size_t>(name.data() - t.code.data())) - 1);
      emit(std::string(name), "config", "config_read", def, line, line);
    }
  }

  void argparse(size_t line0, size_t line1) {
    std::string_view s = t.span(line0, line1);
    re2::StringPiece in(s.data(), s.size());
    while (RE2::FindAndConsume(&in, add_argument())) {
      size_t open = static_cast<size_t>(in.data() - s.data()) - 1;
      auto args = call_args(s, open);
      std::string_view best;
      for (auto a : args) {
        if (!is_string(a)) continue;
        auto v = unquote(a);
        if (!v.starts_with('-')) continue;
        if (best.empty() || (v.starts_with("--") && !best.starts_with("--"))) best = v;
      }
      if (best.empty()) continue;
      auto def = keyword(args, "default");
      std::string implied;
      if (!def)
        if (auto action = keyword(args, "action")) {
          if (unquote(*action) == "store_true") implied = "False";
          if (unquote(*action) == "store_false") implied = "True";
          if (!implied.empty()) def = implied;
        }
      size_t line =
          static_cast<size_t>(t.line_of(static_cast<size_t>(s.data() + open - t.code.data())) - 1);
      emit(std::string(best), "cli", "argparse", def, line, std::min(line1, line + 12));
    }
  }

  // The default of a field statement: what follows the top-level '='.
  static std::optional<std::string_view> field_default(std::string_view s) {
    int d = 0;
    char q = 0;
    size_t colon = s.find(':');
    for (size_t k = colon == std::string_view::npos ? 0 : colon + 1; k < s.size(); ++k) {
      char c = s[k];
      if (q) {
        if (c == '\\')
          ++k;
        else if (c == q)
          q = 0;
        continue;
      }
      if (c == '"' || c == '\'')
        q = c;
      else if (c == '(' || c == '[' || c == '{')
        ++d;
      else if ((c == ')' || c == ']' || c == '}') && d > 0)
        --d;
      else if (c == '=' && d == 0 && (k + 1 >= s.size() || s[k + 1] != '=') && k > 0 &&
               std::string_view("=<>!").find(s[k - 1]) == std::string_view::npos) {
        std::string_view v = s.substr(k + 1);
        while (!v.empty() && std::isspace(static_cast<unsigned char>(v.front())))
          v.remove_prefix(1);
        while (!v.empty() && std::isspace(static_cast<unsigned char>(v.back()))) v.remove_suffix(1);
        // field(default=X, ...) / Field(default=X)
        for (std::string_view head : {"field(", "dataclasses.field(", "Field(", "pydantic.Field("})
          if (v.starts_with(head)) {
            auto args = call_args(v, head.size() - 1);
            if (auto x = keyword(args, "default")) return x;
            if (auto x = keyword(args, "default_factory")) return x;
            if (head.starts_with("Field") && !args.empty() &&
                args[0].find('=') == std::string_view::npos)
              return args[0];
            return std::nullopt;
          }
        return v;
      }
    }
    return std::nullopt;
  }

  void run() {
    struct Cls {
      int indent;
      bool config;
      int body = -1;  // indentation of its body, once seen
    };
    std::vector<Cls> classes;
    const bool cheap_reads =
        t.code.find("env") == std::string::npos && t.code.find("ENV") == std::string::npos &&
        t.code.find("Env") == std::string::npos && t.code.find("onfig") == std::string::npos &&
        t.code.find("ONFIG") == std::string::npos;
    const bool has_argparse = t.code.find("add_argument") != std::string::npos;
    for (size_t i = 0; i < t.lines(); ++i) {
      if (t.in_string[i]) continue;
      std::string_view ln = t.line(i);
      size_t first = ln.find_first_not_of(" \t\r");
      if (first == std::string_view::npos) continue;
      const int indent = static_cast<int>(first);
      const bool top = t.depth[i] == 0;
      if (top) {
        while (!classes.empty() && indent <= classes.back().indent) classes.pop_back();
        if (!classes.empty() && classes.back().body < 0) classes.back().body = indent;
        Cap sp, name;
        if (ln.find("class") != std::string_view::npos &&
            RE2::PartialMatch(ln, class_line(), &sp, &name)) {
          classes.push_back({indent, RE2::PartialMatch(name, config_class())});
          continue;
        }
      }
      Cap name, ctor;
      if (ln.find("Env") != std::string_view::npos &&
          RE2::PartialMatch(ln, registry_assign(), &name, &ctor)) {
        const size_t end = t.end_of(i);
        std::string_view s = t.span(i, end);
        auto args = call_args(s, s.find('(', s.find(std::string_view(ctor))));
        std::optional<std::string_view> def;
        if (!args.empty() && args[0].find('=') == std::string_view::npos) def = args[0];
        if (auto k = keyword(args, "default")) def = k;
        emit(std::string(name), "env", "registry", def, i, end);
      } else if (t.depth[i] > 0 && (ln[first] == '"' || ln[first] == '\'') &&
                 RE2::PartialMatch(ln, dict_entry(), &name, &ctor)) {
        const size_t end = t.end_of(i);
        std::string_view s = t.span(i, end);
        std::optional<std::string> def;
        std::vector<SwitchDecl> inner;
        Scanner sub{path, t, inner};
        sub.reads(i, end);
        for (const auto& d : inner)
          if (d.name == name && d.has_default) def = d.default_value;
        if (!ctor.empty()) {
          auto args = call_args(s, s.find('(', s.find(std::string_view(ctor))));
          if (!args.empty()) def = std::string(args[0]);
        }
        emit(std::string(name), "env", "registry",
             def ? std::optional<std::string_view>(*def) : std::nullopt, i, end);
      } else if (top && !classes.empty() && classes.back().config &&
                 indent == classes.back().body) {
        Cap sp, field, rest;
        if (RE2::PartialMatch(ln, field_line(), &sp, &field, &rest) &&
            ln.find("ClassVar") == std::string_view::npos && field != "else" && field != "try" &&
            field != "finally" && field != "except") {
          const size_t end = t.end_of(i);
          std::string_view s = t.span(i, end);
          emit(std::string(field), "config", "field", field_default(s), i, end);
        }
      }
      // Reads and options anywhere in a statement, read once from its start
      // (a dict of entries or a long call may span hundreds of lines).
      if (top && !t.in_string[i] && (!cheap_reads || has_argparse)) {
        const size_t whole = t.end_of(i, 5000);
        if (!cheap_reads) reads(i, whole);
        if (has_argparse && t.span(i, whole).find("add_argument") != std::string_view::npos)
          argparse(i, whole);
      }
    }
  }
};

}  // namespace

bool switch_scan_tracks(std::string_view path) {
  return path.ends_with(".py") || path.ends_with(".pyi");
}

std::vector<SwitchDecl> scan_switches(std::string_view path, std::string_view content) {
  std::vector<SwitchDecl> out;
  if (content.find('\0') != std::string_view::npos) return out;
  // A file without one of these words declares nothing (each way to declare
  // needs one: Scanner::run), and most files are skipped without a copy.
  static constexpr std::string_view kNeedles[] = {"env",       "ENV",      "Env",          "onfig",
                                                  "ONFIG",     "lambda",   "add_argument", "Args",
                                                  "Arguments", "Settings", "Options"};
  if (std::none_of(std::begin(kNeedles), std::end(kNeedles),
                   [&](std::string_view n) { return content.find(n) != std::string_view::npos; }))
    return out;
  PyText text(content);
  Scanner{path, text, out}.run();
  return out;
}

}  // namespace mergelens
