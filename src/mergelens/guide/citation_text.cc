#include "mergelens/guide/citation_text.h"

#include <algorithm>
#include <cctype>

namespace mergelens::citation_text {
namespace {

constexpr std::string_view kUnits[] = {"tokens/s", "tok/s", "req/s", "it/s", "GiB", "MiB", "KiB",
                                       "GB",       "MB",    "KB",    "TB",   "ms",  "us",  "µs",
                                       "μs",       "ns",    "×",     "x",    "%",   "倍",  "s"};

constexpr std::string_view kExtensions[] = {
    ".py",    ".pyi",   ".cc",    ".cpp", ".cxx",  ".c",    ".h",    ".hpp", ".hh",
    ".cu",    ".cuh",   ".rs",    ".go",  ".java", ".js",   ".ts",   ".tsx", ".md",
    ".rst",   ".json",  ".yaml",  ".yml", ".toml", ".txt",  ".sh",   ".cfg", ".ini",
    ".proto", ".jinja", ".cmake", ".mk",  ".in",   ".lock", ".html", ".css"};

}  // namespace

bool word_char(unsigned char c) {
  return std::isalnum(c) || c == '_';
}

std::string normalise(std::string_view n) {
  std::string s(n);
  auto dot = s.find('.');
  if (dot != std::string::npos) {
    while (!s.empty() && s.back() == '0') s.pop_back();
    if (!s.empty() && s.back() == '.') s.pop_back();
  }
  size_t lead = 0;
  while (lead + 1 < s.size() && s[lead] == '0' && s[lead + 1] != '.') ++lead;
  return s.substr(lead);
}

std::vector<NumberToken> scan_numbers(std::string_view text) {
  std::vector<NumberToken> out;
  size_t i = 0;
  while (i < text.size()) {
    unsigned char c = text[i];
    if (!std::isdigit(c)) {
      ++i;
      continue;
    }
    unsigned char prev = i > 0 ? text[i - 1] : ' ';
    size_t j = i;
    while (j < text.size() && (std::isdigit(static_cast<unsigned char>(text[j])) ||
                               (text[j] == '.' && j + 1 < text.size() &&
                                std::isdigit(static_cast<unsigned char>(text[j + 1])))))
      ++j;
    const bool joined = prev == '-' && i >= 2 && word_char(text[i - 2]);  // "Llama-3"
    if (word_char(prev) || prev == '.' || prev == '#' || prev == '/' || joined) {
      i = j;
      continue;
    }
    NumberToken t;
    t.text = std::string(text.substr(i, j - i));
    t.pos = i;
    t.version = std::count(t.text.begin(), t.text.end(), '.') > 1;
    t.strict = t.text.find('.') != std::string::npos;
    size_t k = j;
    if (k < text.size() && text[k] == ' ') ++k;
    bool unit = false;
    for (auto u : kUnits)
      if (text.substr(k).starts_with(u)) {
        size_t after = k + u.size();
        bool bounded =
            after >= text.size() || !std::isalpha(static_cast<unsigned char>(text[after]));
        if (bounded) {
          unit = true;
          j = after;
          break;
        }
      }
    if (!unit && j < text.size() && std::isalpha(static_cast<unsigned char>(text[j]))) {
      i = j;  // part of a token such as 8B or 4bit
      continue;
    }
    t.strict = t.strict || unit;
    t.end = j;
    t.written = std::string(text.substr(i, j - i));
    out.push_back(std::move(t));
    i = j;
  }
  return out;
}

void scan_tokens(std::string_view text, std::set<std::string>& out, size_t min_len) {
  size_t i = 0;
  while (i < text.size()) {
    unsigned char c = text[i];
    if (std::isalpha(c) || c == '_') {
      size_t j = i;
      while (j < text.size() && word_char(text[j])) ++j;
      if (j - i >= min_len) out.emplace(text.substr(i, j - i));
      i = j;
    } else if (std::isdigit(c)) {
      while (i < text.size() && word_char(text[i])) ++i;  // 8B, 0x1F: not identifiers
    } else {
      ++i;
    }
  }
}

std::vector<std::string> tokens_of(std::string_view text) {
  std::set<std::string> s;
  scan_tokens(text, s);
  return {s.begin(), s.end()};
}

std::string span_text(std::string span) {
  for (std::string_view cut : {"…", "..."})
    if (span.size() >= cut.size() && span.ends_with(cut)) span.resize(span.size() - cut.size());
  while (span.ends_with("()")) span.resize(span.size() - 2);
  while (!span.empty() && std::isspace(static_cast<unsigned char>(span.back()))) span.pop_back();
  while (!span.empty() && std::isspace(static_cast<unsigned char>(span.front()))) span.erase(0, 1);
  return span;
}

bool path_like(std::string_view s, std::string* path, int* first, int* last, bool* has_ext) {
  *first = *last = 0;
  if (has_ext) *has_ext = false;
  if (s.empty() || s.size() > 300) return false;
  // A line suffix: ":12", ":12-30", "#L12".
  std::string_view p = s;
  auto lines = [&](std::string_view tail) {
    int a = 0, b = 0;
    size_t i = 0;
    while (i < tail.size() && std::isdigit(static_cast<unsigned char>(tail[i])))
      a = a * 10 + (tail[i++] - '0');
    if (i == 0 || a > 10000000) return false;
    if (i < tail.size() && (tail[i] == '-' || tail[i] == ':')) {
      size_t k = ++i;
      while (i < tail.size() && std::isdigit(static_cast<unsigned char>(tail[i])))
        b = b * 10 + (tail[i++] - '0');
      if (i == k || b > 10000000) return false;
    }
    if (i != tail.size()) return false;
    *first = a;
    *last = b ? b : a;
    return true;
  };
  if (auto c = p.rfind(":L"); c != std::string_view::npos && lines(p.substr(c + 2)))
    p = p.substr(0, c);
  else if (auto h = p.rfind("#L"); h != std::string_view::npos && lines(p.substr(h + 2)))
    p = p.substr(0, h);
  else if (auto k = p.rfind(':'); k != std::string_view::npos && lines(p.substr(k + 1)))
    p = p.substr(0, k);
  for (char ch : p)
    if (!(word_char(static_cast<unsigned char>(ch)) || ch == '/' || ch == '.' || ch == '-'))
      return false;
  if (p.starts_with('/') && p.find('/', 1) == std::string_view::npos) return false;  // "/v1"
  const size_t slashes = std::count(p.begin(), p.end(), '/');
  bool ext = false;
  for (auto e : kExtensions)
    if (p.size() > e.size() && p.ends_with(e) &&
        word_char(static_cast<unsigned char>(p[p.size() - e.size() - 1])))
      // `self.h`, `ctx.c`, `x.in` are attributes unless a folder is named.
      ext = slashes > 0 || !(e == ".c" || e == ".h" || e == ".in" || e == ".mk");
  // "a/b" alone may be a ratio or an expression ("fp8/fp4"); a folder needs a
  // trailing slash or two separators.
  const bool folder = slashes >= 2 || (slashes == 1 && p.ends_with('/') && p.size() > 2);
  if (!ext && !folder) return false;
  if (ext && slashes == 0 && p.find('.') != p.rfind('.') && !p.ends_with(".in")) {
    // "torch.cuda.py"-like dotted names are modules, not files, unless the
    // extension is the only dot.
    return false;
  }
  *path = std::string(p);
  if (has_ext) *has_ext = ext;
  return true;
}

}  // namespace mergelens::citation_text
