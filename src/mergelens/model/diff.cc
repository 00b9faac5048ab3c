#include "mergelens/model/diff.h"

#include <charconv>

#include <fmt/format.h>

namespace mergelens {
namespace {

bool starts_with(std::string_view s, std::string_view p) {
  return s.substr(0, p.size()) == p;
}

// Reads "<n>" or "<n>,<m>" at s; advances s. Missing ",m" means m = 1.
bool read_range(std::string_view& s, std::int32_t& start, std::int32_t& count) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), start);
  if (ec != std::errc() || start < 0) return false;
  s.remove_prefix(static_cast<size_t>(p - s.data()));
  count = 1;
  if (!s.empty() && s[0] == ',') {
    s.remove_prefix(1);
    auto [q, ec2] = std::from_chars(s.data(), s.data() + s.size(), count);
    if (ec2 != std::errc() || count < 0) return false;
    s.remove_prefix(static_cast<size_t>(q - s.data()));
  }
  return true;
}

bool parse_header(std::string_view line, Hunk& h) {
  // "@@ -a[,b] +c[,d] @@[ section]"
  if (!starts_with(line, "@@ -")) return false;
  line.remove_prefix(4);
  if (!read_range(line, h.old_start, h.old_lines)) return false;
  if (!starts_with(line, " +")) return false;
  line.remove_prefix(2);
  if (!read_range(line, h.new_start, h.new_lines)) return false;
  if (!starts_with(line, " @@")) return false;
  line.remove_prefix(3);
  if (!line.empty() && line[0] == ' ') line.remove_prefix(1);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  h.section.assign(line);
  return true;
}

bool is_git_header(std::string_view line) {
  static constexpr std::string_view kPrefixes[] = {"diff --git ",
                                                   "index ",
                                                   "--- ",
                                                   "+++ ",
                                                   "old mode ",
                                                   "new mode ",
                                                   "deleted file mode ",
                                                   "new file mode ",
                                                   "similarity index ",
                                                   "dissimilarity index ",
                                                   "rename from ",
                                                   "rename to ",
                                                   "copy from ",
                                                   "copy to ",
                                                   "Binary files "};
  for (auto p : kPrefixes)
    if (starts_with(line, p)) return true;
  return false;
}

}  // namespace

Result<ParsedPatch> parse_patch(std::string_view patch) {
  ParsedPatch out;
  Hunk* cur = nullptr;
  std::int32_t old_no = 0, new_no = 0, old_left = 0, new_left = 0;
  size_t line_no = 0;
  auto close_hunk = [&] {
    if (cur && (old_left > 0 || new_left > 0)) out.short_hunk = true;
  };
  while (!patch.empty()) {
    const size_t nl = patch.find('\n');
    std::string_view line = patch.substr(0, nl);
    patch.remove_prefix(nl == std::string_view::npos ? patch.size() : nl + 1);
    ++line_no;
    if (starts_with(line, "@@")) {
      close_hunk();
      Hunk h;
      if (!parse_header(line, h))
        return fail(ErrorKind::kInvalidInput, "patch line {}: malformed hunk header '{}'", line_no,
                    line.substr(0, 80));
      out.hunks.push_back(std::move(h));
      cur = &out.hunks.back();
      old_no = cur->old_start;
      new_no = cur->new_start;
      old_left = cur->old_lines;
      new_left = cur->new_lines;
      continue;
    }
    if (!cur) {
      if (line.empty() || is_git_header(line)) continue;
      return fail(ErrorKind::kInvalidInput, "patch line {}: text before the first hunk header",
                  line_no);
    }
    if (line.empty() && old_left <= 0 && new_left <= 0) continue;  // trailing blank line
    DiffLine dl;
    const char origin = line.empty() ? ' ' : line[0];
    if (!line.empty()) line.remove_prefix(1);
    dl.origin = origin;
    dl.text.assign(line);
    switch (origin) {
      case ' ':
        dl.old_no = old_no++;
        dl.new_no = new_no++;
        --old_left;
        --new_left;
        break;
      case '-':
        dl.old_no = old_no++;
        --old_left;
        break;
      case '+':
        dl.new_no = new_no++;
        --new_left;
        break;
      case '\\':
        break;
      default:
        if (old_left <= 0 && new_left <= 0 && is_git_header(std::string(1, origin) + dl.text)) {
          // The next file's headers in a multi-file diff: stop this hunk.
          cur = nullptr;
          continue;
        }
        return fail(ErrorKind::kInvalidInput, "patch line {}: unexpected line origin '{}'", line_no,
                    origin);
    }
    cur->lines.push_back(std::move(dl));
  }
  close_hunk();
  return out;
}

void append_hunk_text(const Hunk& h, std::string& out) {
  fmt::format_to(std::back_inserter(out), "@@ -{},{} +{},{} @@", h.old_start, h.old_lines,
                 h.new_start, h.new_lines);
  if (!h.section.empty()) {
    out += ' ';
    out += h.section;
  }
  out += '\n';
  for (const auto& l : h.lines) {
    out += l.origin;
    out += l.text;
    out += '\n';
  }
}

std::string render_patch(const std::vector<Hunk>& hunks) {
  std::string out;
  for (const auto& h : hunks) append_hunk_text(h, out);
  return out;
}

}  // namespace mergelens
