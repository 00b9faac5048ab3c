#include "mergelens/guide/digest.h"

#include <algorithm>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "mergelens/util/strings.h"

namespace mergelens {
namespace {

constexpr size_t kMaxPlaces = 3;

std::string basename(std::string_view path) {
  const size_t slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

bool ends_sentence(std::string_view s) {
  for (std::string_view end : {"。", "！", "？", ".", "!", "?", "…"})
    if (s.ends_with(end)) return true;
  return false;
}

// Appends `s` as a sentence of the paragraph.
void add_sentence(std::string& out, std::string_view s, bool zh) {
  std::string_view t = trim(s);
  if (t.empty()) return;
  if (!out.empty() && !zh) out += ' ';
  out += t;
  if (!ends_sentence(t)) out += zh ? "。" : ".";
}

// "(1) `Scheduler.watchdog_loop` in `scheduler.py` (lines 163–179)" or the
// Chinese form, for the focus places `text` does not name yet.
std::string places(const Guide& g, std::string_view text, bool zh) {
  std::vector<std::string> parts;
  for (const auto& f : g.focus) {
    if (parts.size() == kMaxPlaces) break;
    if (f.path.empty()) continue;
    const std::string file = basename(f.path);
    const std::string& name = f.symbol.empty() ? file : f.symbol;
    if (text.find("`" + name + "`") != std::string_view::npos) continue;
    std::string lines;
    if (f.start_line > 0 && zh)
      lines = f.end_line > f.start_line ? fmt::format("第 {}–{} 行", f.start_line, f.end_line)
                                        : fmt::format("第 {} 行", f.start_line);
    else if (f.start_line > 0)
      lines = f.end_line > f.start_line ? fmt::format("lines {}–{}", f.start_line, f.end_line)
                                        : fmt::format("line {}", f.start_line);
    std::string p;
    if (f.symbol.empty() && lines.empty())
      p = fmt::format("`{}`", file);
    else if (f.symbol.empty())
      p = zh ? fmt::format("`{}`（{}）", file, lines) : fmt::format("`{}` ({})", file, lines);
    else if (zh)
      p = fmt::format("`{}` 的 `{}`{}", file, f.symbol, lines.empty() ? "" : "（" + lines + "）");
    else
      p = fmt::format("`{}` in `{}`{}", f.symbol, file, lines.empty() ? "" : " (" + lines + ")");
    if (std::find(parts.begin(), parts.end(), p) == parts.end()) parts.push_back(std::move(p));
  }
  if (parts.empty()) return "";
  std::string out = zh ? "精读时先看：" : "Start with ";
  for (size_t i = 0; i < parts.size(); ++i)
    out += fmt::format("{}({}) {}", i ? (zh ? "；" : "; ") : "", i + 1, parts[i]);
  return out;
}

}  // namespace

std::string compose_digest(const Guide& g) {
  const bool zh = g.lang != "en";
  std::string out;
  add_sentence(out, g.verdict_text, zh);
  add_sentence(out, g.why, zh);
  if (g.verdict == "close_read" || g.verdict == "selective_read")
    add_sentence(out, places(g, out, zh), zh);
  return out;
}

}  // namespace mergelens
