#include "mergelens/analysis/code/language.h"

#include <string>
#include <utility>

namespace mergelens {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

std::string_view basename(std::string_view path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// Lower-case extension without the dot, empty when there is none.
std::string extension(std::string_view path) {
  const std::string_view base = basename(path);
  const size_t dot = base.find_last_of('.');
  if (dot == std::string_view::npos || dot == 0) return {};
  return lower(base.substr(dot + 1));
}

constexpr std::pair<std::string_view, Language> kByExtension[] = {
    {"py", Language::kPython},
    {"pyi", Language::kPython},
    {"c", Language::kCpp},
    {"cc", Language::kCpp},
    {"cpp", Language::kCpp},
    {"cxx", Language::kCpp},
    {"c++", Language::kCpp},
    {"h", Language::kCpp},
    {"hpp", Language::kCpp},
    {"hh", Language::kCpp},
    {"hxx", Language::kCpp},
    {"ipp", Language::kCpp},
    {"inl", Language::kCpp},
    {"cu", Language::kCuda},
    {"cuh", Language::kCuda},
    {"rs", Language::kRust},
    {"go", Language::kGo},
    {"js", Language::kJavaScript},
    {"mjs", Language::kJavaScript},
    {"cjs", Language::kJavaScript},
    {"jsx", Language::kJavaScript},
    {"ts", Language::kTypeScript},
    {"tsx", Language::kTypeScript},
    {"mts", Language::kTypeScript},
    {"cts", Language::kTypeScript},
    {"md", Language::kMarkdown},
    {"markdown", Language::kMarkdown},
    {"rst", Language::kMarkdown},
    {"json", Language::kJson},
    {"jsonl", Language::kJson},
    {"yml", Language::kYaml},
    {"yaml", Language::kYaml},
    {"toml", Language::kToml},
    {"sh", Language::kShell},
    {"bash", Language::kShell},
    {"zsh", Language::kShell},
    {"cmake", Language::kCMake},
    {"txt", Language::kText},
    {"mdx", Language::kMarkdown},
    {"pyw", Language::kPython},
    {"cppm", Language::kCpp},
    {"hip", Language::kCuda},
    {"ksh", Language::kShell},
    {"text", Language::kText},
};

Language from_shebang(std::string_view line) {
  if (line.substr(0, 2) != "#!") return Language::kUnknown;
  line.remove_prefix(2);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  // The interpreter is the last path component of the first word, or the
  // first argument of `env` ("/usr/bin/env -S python3 -u").
  std::string_view interp;
  size_t pos = 0;
  bool after_env = false;
  while (pos < line.size()) {
    while (pos < line.size() && (line[pos] == ' ' || line[pos] == '\t')) ++pos;
    size_t end = pos;
    while (end < line.size() && line[end] != ' ' && line[end] != '\t') ++end;
    if (end == pos) break;
    std::string_view word = basename(line.substr(pos, end - pos));
    pos = end;
    if (word == "env") {
      after_env = true;
      continue;
    }
    if (after_env && !word.empty() && word[0] == '-') continue;
    interp = word;
    break;
  }
  auto starts = [&](std::string_view p) { return interp.substr(0, p.size()) == p; };
  if (starts("python") || starts("pypy")) return Language::kPython;
  if (interp == "sh" || interp == "bash" || interp == "zsh" || interp == "dash" || interp == "ksh")
    return Language::kShell;
  if (interp == "node" || interp == "nodejs" || interp == "deno" || interp == "bun")
    return Language::kJavaScript;
  if (interp == "ts-node" || interp == "tsx") return Language::kTypeScript;
  return Language::kUnknown;
}

}  // namespace

Language detect_language(std::string_view path, std::string_view first_line) {
  const std::string base = lower(basename(path));
  if (base == "cmakelists.txt") return Language::kCMake;
  const std::string ext = extension(path);
  if (!ext.empty()) {
    for (const auto& [e, lang] : kByExtension)
      if (e == ext) return lang;
  }
  return from_shebang(first_line);
}

bool is_code_language(Language l) {
  switch (l) {
    case Language::kPython:
    case Language::kCpp:
    case Language::kCuda:
    case Language::kRust:
    case Language::kGo:
    case Language::kJavaScript:
    case Language::kTypeScript:
      return true;
    default:
      return false;
  }
}

bool is_brace_language(Language l) {
  return is_code_language(l) && l != Language::kPython;
}

bool is_cpp_header_path(std::string_view path) {
  const std::string ext = extension(path);
  return ext == "h" || ext == "hh" || ext == "hpp" || ext == "hxx" || ext == "cuh" ||
         ext == "inl" || ext == "ipp";
}

}  // namespace mergelens
