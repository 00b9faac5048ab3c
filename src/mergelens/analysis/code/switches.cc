// Switch declarations of Python sources and the registry of a tree (see
// switches.h). A file is read once into a copy whose comments are blanked
// (strings kept: names and defaults are in them), with the bracket depth at
// each line's start; statements are the lines from a start at depth 0 (or a
// dict entry's depth) until the depth falls back.
#include "mergelens/analysis/code/switches.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <tuple>

#include <re2/re2.h>

#include "mergelens/analysis/code/code_text.h"

namespace mergelens {
namespace {

using signal_internal::Cap;

#define SW_PATTERN(name, text)                                                          \
  const RE2& name() {                                                                   \
    static const RE2* const re = new RE2(text, ::mergelens::signal_internal::latin1()); \
    return *re;                                                                         \
  }

SW_PATTERN(registry_assign,
           R"re(^\s*([A-Z][A-Z0-9_]*)\s*(?::[^=]*)?=\s*(Env[A-Za-z]*)\s*\()re")
SW_PATTERN(dict_entry,
           R"re(^\s*["']([A-Z][A-Z0-9_]*)["']\s*:\s*(?:lambda\b|(Env[A-Za-z]*)\s*\())re")
// A read: environ.get("X", ...), environ["X"], getenv("X", ...), any *env*("X", ...).
SW_PATTERN(
    env_read,
    R"re((?i:(environ)\s*(?:\.\s*(?:get|setdefault|pop)\s*\(|\[)|(getenv)\s*\(|\b(\w*env\w*)\s*\()\s*[rbuf]?["']([A-Za-z_][A-Za-z0-9_]*)["'])re")
SW_PATTERN(config_read,
           R"re((?i:\b\w*config\w*)\s*\.\s*get\s*\(\s*["']([A-Za-z_][A-Za-z0-9_]*)["'])re")
SW_PATTERN(add_argument, R"re(\badd_argument\s*\()re")
SW_PATTERN(class_line, R"re(^(\s*)class\s+([A-Za-z_]\w*))re")
SW_PATTERN(field_line, R"re(^(\s+)([A-Za-z_]\w*)\s*:(?:[^=]|==)*?(?:=(.*))?$)re")
SW_PATTERN(config_class, R"re((?:Args|Arguments|Config|Settings|Options)$)re")
SW_PATTERN(env_style, R"re(^[A-Z][A-Z0-9]*_[A-Z0-9_]+$)re")
// On changed lines.
SW_PATTERN(flag_token, R"re((--[a-z0-9][a-z0-9_-]*[a-z0-9]))re")
SW_PATTERN(upper_token, R"re(\b([A-Z][A-Z0-9]*_[A-Z0-9_]*[A-Z0-9])\b)re")
SW_PATTERN(field_token,
           R"re((?i:args|config|cfg|options|opts|settings)(?:\(\))?\s*\.\s*([a-z_][a-z0-9_]*))re")

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

int origin_rank(std::string_view o) {
  static constexpr std::string_view kOrder[] = {"registry", "field", "argparse", "config_read",
                                                "read_default", "read"};
  for (size_t i = 0; i < std::size(kOrder); ++i)
    if (o == kOrder[i]) return static_cast<int>(i);
  return 9;
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

  std::string code;                // content with comments replaced by spaces
  std::vector<size_t> starts;      // offset of each line
  std::vector<int> depth;          // bracket depth at each line's start
  std::vector<bool> in_string;     // the line starts inside a triple-quoted string

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

// The arguments of a call whose '(' is at `open`, split at top-level commas.
std::vector<std::string_view> call_args(std::string_view s, size_t open) {
  std::vector<std::string_view> out;
  int d = 0;
  char q = 0;
  size_t arg = open + 1;
  for (size_t i = open; i < s.size(); ++i) {
    char c = s[i];
    if (q) {
      if (c == '\\')
        ++i;
      else if (c == q)
        q = 0;
      continue;
    }
    if (c == '"' || c == '\'') {
      q = c;
    } else if (c == '(' || c == '[' || c == '{') {
      ++d;
    } else if (c == ')' || c == ']' || c == '}') {
      if (--d == 0) {
        out.push_back(s.substr(arg, i - arg));
        break;
      }
    } else if (c == ',' && d == 1) {
      out.push_back(s.substr(arg, i - arg));
      arg = i + 1;
    }
  }
  for (auto& a : out) {
    while (!a.empty() && std::isspace(static_cast<unsigned char>(a.front()))) a.remove_prefix(1);
    while (!a.empty() && std::isspace(static_cast<unsigned char>(a.back()))) a.remove_suffix(1);
  }
  if (out.size() == 1 && out[0].empty()) out.clear();
  return out;
}

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

bool is_string(std::string_view a) {
  while (!a.empty() && std::string_view("rbuf").find(a.front()) != std::string_view::npos &&
         a.size() > 1 && (a[1] == '"' || a[1] == '\'' || std::isalpha(a[1])))
    a.remove_prefix(1);
  return a.size() >= 2 && (a.front() == '"' || a.front() == '\'') && a.back() == a.front();
}
std::string_view unquote(std::string_view a) {
  return is_string(a) ? a.substr(a.find_first_of("\"'") + 1, a.size() - a.find_first_of("\"'") - 2)
                      : a;
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
      if (c == '"' || c == '\'') q = c;
      else if (c == '(' || c == '[' || c == '{') ++d;
      else if ((c == ')' || c == ']' || c == '}') && d-- == 0) return s.substr(b, k - b);
      else if (c == ',' && d == 0) return s.substr(b, k - b);
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
          !environ.empty() && std::string_view(environ.data(), static_cast<size_t>(name.data() - environ.data()))
                                      .find('[') != std::string_view::npos;
      auto def = subscript ? std::nullopt : read_default(s, end);
      if (!def && !helper.empty()) {
        // get_bool_env_var("X", default="false")
        auto open = s.rfind('(', end);
        if (open != std::string_view::npos) def = keyword(call_args(s, open), "default");
      }
      size_t line = static_cast<size_t>(t.line_of(static_cast<size_t>(name.data() - t.code.data())) - 1);
      emit(std::string(name), "env", def ? "read_default" : "read", def, line, line);
    }
    in = re2::StringPiece(s.data(), s.size());
    while (config && RE2::FindAndConsume(&in, config_read(), &name)) {
      const size_t end = static_cast<size_t>(in.data() - s.data());
      auto def = read_default(s, end);
      size_t line = static_cast<size_t>(t.line_of(static_cast<size_t>(name.data() - t.code.data())) - 1);
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
      size_t line = static_cast<size_t>(t.line_of(static_cast<size_t>(s.data() + open - t.code.data())) - 1);
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
      if (c == '"' || c == '\'') q = c;
      else if (c == '(' || c == '[' || c == '{') ++d;
      else if ((c == ')' || c == ']' || c == '}') && d > 0) --d;
      else if (c == '=' && d == 0 && (k + 1 >= s.size() || s[k + 1] != '=') && k > 0 &&
               std::string_view("=<>!").find(s[k - 1]) == std::string_view::npos) {
        std::string_view v = s.substr(k + 1);
        while (!v.empty() && std::isspace(static_cast<unsigned char>(v.front()))) v.remove_prefix(1);
        while (!v.empty() && std::isspace(static_cast<unsigned char>(v.back()))) v.remove_suffix(1);
        // field(default=X, ...) / Field(default=X)
        for (std::string_view head : {"field(", "dataclasses.field(", "Field(", "pydantic.Field("})
          if (v.starts_with(head)) {
            auto args = call_args(v, head.size() - 1);
            if (auto x = keyword(args, "default")) return x;
            if (auto x = keyword(args, "default_factory")) return x;
            if (head.starts_with("Field") && !args.empty() && args[0].find('=') == std::string_view::npos)
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
    const bool cheap_reads = t.code.find("env") == std::string::npos &&
                             t.code.find("ENV") == std::string::npos &&
                             t.code.find("Env") == std::string::npos &&
                             t.code.find("onfig") == std::string::npos &&
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
            ln.find("ClassVar") == std::string_view::npos && field != "else" &&
            field != "try" && field != "finally" && field != "except") {
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

std::string norm_default(std::string_view v) {
  std::string s;
  for (char c : unquote(v))
    if (!std::isspace(static_cast<unsigned char>(c)))
      s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (s == "1" || s == "true" || s == "yes" || s == "on") return "true";
  if (s == "0" || s == "false" || s == "no" || s == "off") return "false";
  return s;
}

SwitchSide side_of(const SwitchDecl* decl) {
  SwitchSide s;
  if (!decl) return s;
  const SwitchDecl& d = *decl;
  s.exists = true;
  s.path = d.path;
  s.line = d.line;
  s.origin = d.origin;
  s.default_value = d.default_value;
  s.has_default = d.has_default;
  s.text = d.text;
  return s;
}

std::string decl_key(const SwitchDecl& d) {
  return d.kind + '\n' + d.origin + '\n' + d.default_value + '\n' + d.text;
}

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

void SwitchRegistry::set_file(const std::string& path, std::string_view content) {
  if (!switch_scan_tracks(path)) return;
  remove_file(path);
  auto decls = scan_switches(path, content);
  if (decls.empty()) return;
  for (const auto& d : decls) by_name_[d.name].insert(path);
  by_path_[path] = std::move(decls);
}

void SwitchRegistry::remove_file(const std::string& path) {
  auto it = by_path_.find(path);
  if (it == by_path_.end()) return;
  for (const auto& d : it->second) {
    auto n = by_name_.find(d.name);
    if (n == by_name_.end()) continue;
    n->second.erase(path);
    if (n->second.empty()) by_name_.erase(n);
  }
  by_path_.erase(it);
}

void SwitchRegistry::clear() {
  by_path_.clear();
  by_name_.clear();
  commit.clear();
}

namespace {

// The order of lookup(): a read with a default says more than one without;
// a test's read least.
bool decl_before(const SwitchDecl& a, const SwitchDecl& b) {
  const int ra = origin_rank(a.origin), rb = origin_rank(b.origin);
  if (ra != rb) return ra < rb;
  const bool ta = a.path.find("test") != std::string::npos;
  const bool tb = b.path.find("test") != std::string::npos;
  if (ta != tb) return tb;
  return std::tie(a.path, a.line) < std::tie(b.path, b.line);
}

}  // namespace

std::vector<SwitchDecl> SwitchRegistry::lookup(std::string_view name) const {
  std::vector<SwitchDecl> out;
  auto it = by_name_.find(name);
  if (it == by_name_.end()) return out;
  for (const auto& p : it->second)
    for (const auto& d : by_path_.at(p))
      if (d.name == name) out.push_back(d);
  std::stable_sort(out.begin(), out.end(), decl_before);
  return out;
}

const SwitchDecl* SwitchRegistry::primary(std::string_view name, bool fields_only) const {
  auto it = by_name_.find(name);
  if (it == by_name_.end()) return nullptr;
  const SwitchDecl* best = nullptr;  // the first least one: lookup()'s front
  for (const auto& p : it->second)
    for (const auto& d : by_path_.at(p))
      if (d.name == name && (!fields_only || d.origin == "field") &&
          (!best || decl_before(d, *best)))
        best = &d;
  return best;
}

const std::vector<SwitchDecl>* SwitchRegistry::in_file(const std::string& path) const {
  auto it = by_path_.find(path);
  return it == by_path_.end() ? nullptr : &it->second;
}

bool SwitchRegistry::is_field(std::string_view name) const {
  return primary(name, /*fields_only=*/true) != nullptr;
}

void switch_names_on_line(std::string_view line, std::vector<std::string>& out) {
  auto add = [&](std::string_view n) {
    if (std::find(out.begin(), out.end(), n) == out.end()) out.emplace_back(n);
  };
  // Each pattern runs only on a line holding what all its matches hold: an
  // env-style name a '_', a flag "--", a field read or config.get() a '.'.
  const bool underscore = line.find('_') != std::string_view::npos;
  const bool flag = line.find("--") != std::string_view::npos;
  const bool dot = line.find('.') != std::string_view::npos;
  if (!underscore && !flag && !dot) return;
  Cap m;
  re2::StringPiece in(line.data(), line.size());
  while (underscore && RE2::FindAndConsume(&in, upper_token(), &m)) add(m);
  in = re2::StringPiece(line.data(), line.size());
  while (flag && RE2::FindAndConsume(&in, flag_token(), &m)) add(m);
  if (!dot) return;
  in = re2::StringPiece(line.data(), line.size());
  while (RE2::FindAndConsume(&in, field_token(), &m)) add(m);
  // Quoted lower-case keys read from a config (`config.get("key")`).
  in = re2::StringPiece(line.data(), line.size());
  while (RE2::FindAndConsume(&in, config_read(), &m)) add(m);
}

namespace {

// The registry's declarations of `name`, or for a "--flag" without an
// argparse declaration, the configuration field it is derived from
// (`--enable-foo` from `enable_foo`, as dataclass-generated CLIs do).
// The primary one (lookup()'s front); nullptr when there is none.
const SwitchDecl* resolve(const SwitchRegistry& r, const std::string& name) {
  if (const SwitchDecl* d = r.primary(name)) return d;
  if (!name.starts_with("--")) return nullptr;
  std::string field = name.substr(2);
  std::replace(field.begin(), field.end(), '-', '_');
  return r.primary(field, /*fields_only=*/true);
}

}  // namespace

SwitchProbe::SwitchProbe(const SwitchRegistry& parent, const Change& change) : change_(change) {
  for (const auto& f : change.files) {
    if (f.binary) continue;
    for (const auto& h : f.hunks)
      for (const auto& l : h.lines)
        if (l.origin == '+' || l.origin == '-') {
          std::vector<std::string> names;
          switch_names_on_line(l.text, names);
          names_.insert(names.begin(), names.end());
        }
    for (const std::string* p : {&f.path, &f.old_path})
      if (!p->empty())
        if (const auto* decls = parent.in_file(*p)) {
          auto& v = parent_decls_[f.path];
          v.insert(v.end(), decls->begin(), decls->end());
        }
  }
  std::set<std::string> all = names_;
  for (const auto& [path, decls] : parent_decls_)
    for (const auto& d : decls) all.insert(d.name);
  for (const auto& n : all)
    if (const SwitchDecl* d = resolve(parent, n)) before_.emplace(n, *d);
}

std::vector<SwitchFact> SwitchProbe::finish(const SwitchRegistry& merge) const {
  // Names whose declarations in the changed files differ (added, removed, edited).
  std::set<std::string> edited;
  for (const auto& f : change_.files) {
    std::map<std::string, std::multiset<std::string>> was, now;
    if (auto it = parent_decls_.find(f.path); it != parent_decls_.end())
      for (const auto& d : it->second) was[d.name].insert(decl_key(d));
    if (const auto* decls = merge.in_file(f.path))
      for (const auto& d : *decls) now[d.name].insert(decl_key(d));
    for (const auto& [n, keys] : was)
      if (!now.count(n) || now.at(n) != keys) edited.insert(n);
    for (const auto& [n, keys] : now)
      if (!was.count(n)) edited.insert(n);
  }
  std::set<std::string> names = names_;
  names.insert(edited.begin(), edited.end());
  std::vector<SwitchFact> out;
  for (const auto& n : names) {
    const SwitchDecl* after = resolve(merge, n);
    auto b = before_.find(n);
    if (!after && b == before_.end()) continue;
    SwitchFact f;
    f.name = n;
    f.kind = after ? after->kind : b->second.kind;
    if (b != before_.end()) f.before = side_of(&b->second);
    f.after = side_of(after);
    f.existed_at_parent = f.before.exists;
    f.default_changed = f.before.exists && f.after.exists &&
                        (f.before.has_default != f.after.has_default ||
                         norm_default(f.before.default_value) != norm_default(f.after.default_value));
    f.change = !f.before.exists       ? "added"
               : !f.after.exists      ? "removed"
               : f.default_changed    ? "default_changed"
               : edited.count(n)      ? "redeclared"
                                      : "used";
    out.push_back(std::move(f));
  }
  // At most 40: what the change does to a switch before what it only reads.
  std::stable_sort(out.begin(), out.end(), [](const SwitchFact& a, const SwitchFact& b) {
    return (a.change == "used") < (b.change == "used");
  });
  if (out.size() > 40) out.resize(40);
  std::sort(out.begin(), out.end(),
            [](const SwitchFact& a, const SwitchFact& b) { return a.name < b.name; });
  return out;
}

}  // namespace mergelens
