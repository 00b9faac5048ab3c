// One-line clipping and the backticked-name check (answer_check.h).
#include "mergelens/guide/answer_check.h"

#include "mergelens/util/strings.h"

namespace mergelens::answer_check {

std::string one_line(std::string_view text, size_t chars) {
  std::string s;
  for (char c : text) s.push_back(c == '\n' || c == '\r' || c == '\t' ? ' ' : c);
  s = std::string(trim(s));
  if (s.size() <= chars) return s;
  size_t cut = chars;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return s.substr(0, cut) + "…";
}

std::vector<std::string> backticked(std::string_view text) {
  std::vector<std::string> out;
  size_t pos = 0;
  for (;;) {
    const size_t open = text.find('`', pos);
    if (open == std::string_view::npos) break;
    const size_t close = text.find('`', open + 1);
    if (close == std::string_view::npos) break;
    out.emplace_back(trim(text.substr(open + 1, close - open - 1)));
    pos = close + 1;
  }
  return out;
}

bool shown_in(std::string_view name, std::string_view entry) {
  if (entry.find(name) != std::string_view::npos) return true;
  std::string_view core = name;
  while (!core.empty() && (core.front() == '.' || core.front() == ':')) core.remove_prefix(1);
  while (core.ends_with("()")) core.remove_suffix(2);
  while (!core.empty() && (core.back() == '.' || core.back() == ':' || core.back() == '*'))
    core.remove_suffix(1);
  return core.empty() || entry.find(core) != std::string_view::npos;
}

std::string first_unshown(std::string_view text, std::string_view entry) {
  for (const auto& name : backticked(text))
    if (!name.empty() && !shown_in(name, entry)) return name;
  return {};
}

}  // namespace mergelens::answer_check
