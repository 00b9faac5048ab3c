// The diff excerpt of the model prompts (see prompt_excerpt.h); the facts
// section and the clipping helpers are in prompt_facts.cc.
#include "mergelens/guide/prompt_excerpt.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "mergelens/llm/tokens.h"
#include "mergelens/model/diff.h"

namespace mergelens::prompt_detail {
namespace {

using llm::estimate_tokens;

class Shown {
 public:
  Shown(const Change& c, const Facts& f) : c_(c), f_(f), shown_(c.files.size()) {
    for (size_t i = 0; i < c.files.size(); ++i) shown_[i].resize(c.files[i].hunks.size());
    for (size_t i = 0; i < c.files.size(); ++i)
      for (size_t h = 0; h < c.files[i].hunks.size(); ++h)
        shown_[i][h].assign(c.files[i].hunks[h].lines.size(), false);
  }

  // Renders lines [from, to) of a hunk that are not shown yet; empty when none.
  std::string render(size_t fi, size_t hi, size_t from, size_t to) const {
    const Hunk& h = c_.files[fi].hunks[hi];
    std::string out;
    for (size_t i = from; i < to && i < h.lines.size(); ++i) {
      if (shown_[fi][hi][i]) continue;
      const DiffLine& l = h.lines[i];
      if (l.origin == '\\') continue;
      std::string no = l.origin == '-' ? std::string("     ") : fmt::format("{:>5}", l.new_no);
      std::string text = l.text.size() > 400 ? l.text.substr(0, 400) + "…" : l.text;
      out += fmt::format("{} {}{}\n", no, l.origin, text);
    }
    return out;
  }
  void mark(size_t fi, size_t hi, size_t from, size_t to) {
    auto& v = shown_[fi][hi];
    for (size_t i = from; i < to && i < v.size(); ++i) v[i] = true;
  }
  bool any(size_t fi) const {
    for (const auto& h : shown_[fi])
      if (std::find(h.begin(), h.end(), true) != h.end()) return true;
    return false;
  }
  bool any(size_t fi, size_t hi) const {
    const auto& h = shown_[fi][hi];
    return std::find(h.begin(), h.end(), true) != h.end();
  }
  // Share of the changed lines of `r` that are shown.
  std::pair<size_t, size_t> region_lines(const FocusRegion& r) const {
    size_t total = 0, shown = 0;
    for (size_t fi = 0; fi < c_.files.size(); ++fi) {
      if (c_.files[fi].path != r.path) continue;
      for (size_t hi = 0; hi < c_.files[fi].hunks.size(); ++hi) {
        const Hunk& h = c_.files[fi].hunks[hi];
        auto pos = positions(h);
        for (size_t i = 0; i < h.lines.size(); ++i) {
          if (h.lines[i].origin != '+' && h.lines[i].origin != '-') continue;
          if (pos[i] < r.start_line || pos[i] > r.end_line) continue;
          ++total;
          shown += shown_[fi][hi][i];
        }
      }
    }
    return {total, shown};
  }

 private:
  const Change& c_;
  const Facts& f_;
  std::vector<std::vector<std::vector<bool>>> shown_;
};

}  // namespace

std::vector<std::int32_t> positions(const Hunk& h) {
  std::vector<std::int32_t> pos;
  std::int32_t last = h.new_start > 0 ? h.new_start - 1 : 0;
  for (const auto& l : h.lines) {
    if (l.new_no > 0) last = l.new_no;
    pos.push_back(l.new_no > 0 ? l.new_no : last + 1);
  }
  return pos;
}

namespace {

constexpr std::int32_t kContext = 6;

// The lines [from, to) of each hunk of `fi` that region `r` covers, with context.
template <class Fn>
void region_pieces(const Change& c, const FocusRegion& r, Fn fn) {
  for (size_t fi = 0; fi < c.files.size(); ++fi) {
    if (c.files[fi].path != r.path) continue;
    for (size_t hi = 0; hi < c.files[fi].hunks.size(); ++hi) {
      auto pos = positions(c.files[fi].hunks[hi]);
      size_t from = pos.size(), to = 0;
      for (size_t i = 0; i < pos.size(); ++i)
        if (pos[i] >= r.start_line - kContext && pos[i] <= r.end_line + kContext) {
          from = std::min(from, i);
          to = i + 1;
        }
      if (from < to) fn(fi, hi, from, to);
    }
  }
}

bool role_is_test(const Facts& f, const std::string& path) {
  auto it = f.roles.find(path);
  return it != f.roles.end() && it->second == FileRole::kTest;
}

std::string trim_view(std::string_view t) {
  size_t a = t.find_first_not_of(" \t");
  if (a == std::string_view::npos) return {};
  size_t b = t.find_last_not_of(" \t\r");
  return std::string(t.substr(a, b - a + 1));
}

int indent_of(std::string_view t) {
  int n = 0;
  for (char ch : t) {
    if (ch == ' ')
      ++n;
    else if (ch == '\t')
      n += 8 - n % 8;
    else
      break;
  }
  return n;
}

bool python_like(Language l) {
  return l == Language::kPython || l == Language::kUnknown;
}

// Whether hunk line `text` starts a definition (a decorator counts for the
// Python definition below it).
bool starts_definition(std::string_view text, Language lang) {
  std::string t = trim_view(text);
  if (t.empty()) return false;
  if (python_like(lang) && (t.starts_with("def ") || t.starts_with("async def ") ||
                            t.starts_with("class ") || t.starts_with("@")))
    return true;
  if (lang == Language::kCpp || lang == Language::kCuda || lang == Language::kRust ||
      lang == Language::kGo || lang == Language::kJavaScript || lang == Language::kTypeScript) {
    if (t.starts_with("template") || t.starts_with("struct ") || t.starts_with("class ") ||
        t.starts_with("fn ") || t.starts_with("pub fn ") || t.starts_with("func ") ||
        t.starts_with("function ") || t.starts_with("impl "))
      return true;
    // An unindented line with a parameter list that is not a statement.
    return indent_of(text) == 0 && t.find('(') != std::string::npos && !t.ends_with(";") &&
           !t.starts_with("#") && !t.starts_with("//") && !t.starts_with("}");
  }
  return false;
}

// The line after the definition starting at `j` ends (within [j, to)).
size_t definition_end_impl(const Hunk& h, Language lang, size_t j, size_t to) {
  size_t d = j;
  while (d + 1 < to && trim_view(h.lines[d].text).starts_with("@")) ++d;  // decorators
  const int base = indent_of(h.lines[d].text);
  for (size_t i = d + 1; i < to; ++i) {
    if (h.lines[i].origin == '\\') continue;
    std::string t = trim_view(h.lines[i].text);
    if (t.empty()) continue;
    if (python_like(lang)) {
      if (indent_of(h.lines[i].text) <= base && !t.starts_with(")") && !t.starts_with("]"))
        return i;
    } else if (indent_of(h.lines[i].text) <= base && t.starts_with("}")) {
      return i + 1;
    } else if (starts_definition(h.lines[i].text, lang) && indent_of(h.lines[i].text) <= base) {
      return i;
    }
  }
  return to;
}

}  // namespace

// The start of the innermost definition in (from, k] whose body goes past
// line k (the cut would split it); `from` when none.
size_t definition_start(const Hunk& h, Language lang, size_t from, size_t k, size_t to) {
  if (k >= to) return from;
  for (size_t j = std::min(k, to - 1); j > from; --j) {
    if (h.lines[j].origin == '-' || !starts_definition(h.lines[j].text, lang)) continue;
    size_t start = j;
    while (start > from + 1 && trim_view(h.lines[start - 1].text).starts_with("@")) --start;
    if (definition_end_impl(h, lang, start, to) > k) return start;
  }
  return from;
}

size_t definition_end(const Hunk& h, Language lang, size_t j, size_t to) {
  return definition_end_impl(h, lang, j, to);
}

std::vector<size_t> code_first(const Facts& f, std::vector<size_t> regions) {
  std::stable_partition(regions.begin(), regions.end(), [&](size_t k) {
    return k >= f.focus.size() || !role_is_test(f, f.focus[k].path);
  });
  return regions;
}

Excerpt whole_diff(const Change& c, const Facts& f) {
  Excerpt out;
  Shown ex(c, f);
  std::vector<size_t> order(c.files.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_partition(order.begin(), order.end(),
                        [&](size_t i) { return !role_is_test(f, c.files[i].path); });
  std::map<std::pair<size_t, size_t>, std::string> symbols;
  for (const auto& h : f.hunks) symbols[{h.file, h.hunk}] = h.symbol;
  for (size_t fi : order) {
    const FileChange& fc = c.files[fi];
    for (size_t hi = 0; hi < fc.hunks.size(); ++hi) {
      const Hunk& hunk = fc.hunks[hi];
      std::string piece = ex.render(fi, hi, 0, hunk.lines.size());
      if (piece.empty()) continue;
      const std::string& sym = symbols[{fi, hi}];
      out.diff +=
          fmt::format("--- {} @@ -{},{} +{},{} @@{}\n", fc.path, hunk.old_start, hunk.old_lines,
                      hunk.new_start, hunk.new_lines, sym.empty() ? "" : " " + sym) +
          piece;
      ex.mark(fi, hi, 0, hunk.lines.size());
    }
    if (!ex.any(fi) && (fc.additions + fc.deletions > 0 || fc.binary)) {
      out.coverage.files_left_out.push_back(fc.path);
      out.left.push_back(fmt::format("  {} (+{} -{}{})", fc.path, fc.additions, fc.deletions,
                                     fc.binary      ? ", binary"
                                     : fc.truncated ? ", too large"
                                                    : ""));
    }
  }
  for (size_t fi = 0; fi < c.files.size(); ++fi) {
    out.coverage.hunks_total += c.files[fi].hunks.size();
    for (size_t hi = 0; hi < c.files[fi].hunks.size(); ++hi)
      out.coverage.hunks_included += ex.any(fi, hi);
  }
  out.coverage.top_regions = std::min(f.focus.size(), kTopRegions);
  out.coverage.top_regions_shown = out.coverage.top_regions;
  out.coverage.top3_share = 1.0;
  return out;
}

size_t region_cost(const Change& c, const Facts& f, size_t k) {
  if (k >= f.focus.size()) return 0;
  Shown shown(c, f);
  size_t cost = estimate_tokens(f.focus[k].path) + 12;
  region_pieces(c, f.focus[k], [&](size_t fi, size_t hi, size_t from, size_t to) {
    cost += estimate_tokens(shown.render(fi, hi, from, to)) + 2;
    shown.mark(fi, hi, from, to);
  });
  return cost;
}

Excerpt build_excerpt(const Change& c, const Facts& f, const std::vector<size_t>& regions,
                      long budget, bool other_hunks, const std::vector<long>& caps) {
  Excerpt out;
  long remaining = budget;
  long region_left = 0;  // what the current region may still take (its cap)
  Shown ex(c, f);
  std::string& diff = out.diff;
  auto add_piece = [&](const std::string& header, size_t fi, size_t hi, size_t from, size_t to) {
    // Whole when it fits, otherwise line by line until the budget is spent.
    std::string piece = ex.render(fi, hi, from, to);
    if (piece.empty()) return true;
    long cost = static_cast<long>(estimate_tokens(header) + estimate_tokens(piece));
    if (cost <= remaining) {
      diff += header + piece;
      ex.mark(fi, hi, from, to);
      remaining -= cost;
      return true;
    }
    long head = static_cast<long>(estimate_tokens(header)) + 8;
    if (head >= remaining) return false;
    const long room = remaining - head;
    // The lines that fit, then back to the start of the definition the cut
    // would split when that definition fits the room whole.
    size_t k = from;
    for (long used = 0; k < to; ++k) {
      long t = static_cast<long>(estimate_tokens(ex.render(fi, hi, k, k + 1)));
      if (used + t > room) break;
      used += t;
    }
    const Hunk& hk = c.files[fi].hunks[hi];
    const Language lang =
        f.languages.count(c.files[fi].path) ? f.languages.at(c.files[fi].path) : Language::kUnknown;
    std::string cut_name;
    if (auto j = definition_start(hk, lang, from, k, to); j > from) {
      const size_t end = definition_end(hk, lang, j, to);
      if (static_cast<long>(estimate_tokens(ex.render(fi, hi, j, end))) <= room) {
        k = j;
        cut_name = trim_view(hk.lines[j].text);
      }
    }
    std::string part = header + ex.render(fi, hi, from, k);
    remaining -= head + static_cast<long>(estimate_tokens(ex.render(fi, hi, from, k)));
    ex.mark(fi, hi, from, k);
    std::int32_t first_new = 0, last_new = 0;
    for (size_t i = k; i < to; ++i)
      if (hk.lines[i].new_no > 0) {
        if (!first_new) first_new = hk.lines[i].new_no;
        last_new = hk.lines[i].new_no;
      }
    if (first_new)
      out.cut.push_back(
          fmt::format("  {}: new-file lines {}-{}", c.files[fi].path, first_new, last_new));
    diff +=
        part +
        (cut_name.empty()
             ? std::string("[… cut here for room; the rest of this hunk is listed as not shown]\n")
             : fmt::format("[… cut before `{}` for room; it and the rest of this hunk are "
                           "listed as not shown]\n",
                           cut_name.substr(0, 80)));
    return false;
  };

  // 1. The chosen focus regions, in order, with a few lines of context; a
  // region with a cap is shown up to it (its head), so later ones get room.
  for (size_t i = 0; i < regions.size(); ++i) {
    const size_t k = regions[i];
    if (remaining <= 0 || k >= f.focus.size()) break;
    const long cap = i < caps.size() && caps[i] > 0 ? caps[i] : remaining;
    region_left = std::min(cap, remaining);
    const long rest = remaining - region_left;  // kept for the regions after this one
    remaining = region_left;
    const FocusRegion& r = f.focus[k];
    bool first = true;
    region_pieces(c, r, [&](size_t fi, size_t hi, size_t from, size_t to) {
      if (remaining <= 0 || ex.render(fi, hi, from, to).empty()) return;
      std::string header = first ? fmt::format("--- {} (focus #{}{})\n", r.path, k + 1,
                                               r.symbol.empty() ? "" : ", " + r.symbol)
                                 : std::string("    …\n");
      first = false;
      add_piece(header, fi, hi, from, to);
    });
    remaining += rest;
  }
  // 2. Other hunks by focus score, clean-up files last (left out).
  std::set<std::string> skim;
  for (const auto& s : f.skim) skim.insert(s.path);
  if (other_hunks) {
    std::vector<const HunkFacts*> order;
    for (const auto& h : f.hunks) order.push_back(&h);
    auto is_test = [&](const HunkFacts* h) {
      return h->file < c.files.size() && role_is_test(f, c.files[h->file].path);
    };
    std::stable_sort(order.begin(), order.end(), [&](const HunkFacts* a, const HunkFacts* b) {
      if (is_test(a) != is_test(b)) return is_test(b);
      return a->score > b->score;
    });
    for (const HunkFacts* h : order) {
      if (remaining <= 40) break;
      if (h->file >= c.files.size() || h->hunk >= c.files[h->file].hunks.size()) continue;
      const FileChange& fc = c.files[h->file];
      if (skim.count(fc.path)) continue;
      const Hunk& hunk = fc.hunks[h->hunk];
      std::string piece = ex.render(h->file, h->hunk, 0, hunk.lines.size());
      if (piece.empty()) continue;
      std::string header =
          fmt::format("--- {} @@ -{},{} +{},{} @@{}\n", fc.path, hunk.old_start, hunk.old_lines,
                      hunk.new_start, hunk.new_lines, h->symbol.empty() ? "" : " " + h->symbol);
      if (static_cast<long>(estimate_tokens(header) + estimate_tokens(piece)) <= remaining)
        add_piece(header, h->file, h->hunk, 0, hunk.lines.size());
    }
  }
  // 3. What the excerpt leaves out, and how much of the focus it shows.
  for (size_t fi = 0; fi < c.files.size(); ++fi) {
    const FileChange& fc = c.files[fi];
    out.coverage.hunks_total += fc.hunks.size();
    for (size_t hi = 0; hi < fc.hunks.size(); ++hi) out.coverage.hunks_included += ex.any(fi, hi);
    if (ex.any(fi) || (fc.additions + fc.deletions == 0 && !fc.binary)) continue;
    out.coverage.files_left_out.push_back(fc.path);
    out.left.push_back(fmt::format("  {} (+{} -{}{})", fc.path, fc.additions, fc.deletions,
                                   fc.binary             ? ", binary"
                                   : skim.count(fc.path) ? ", clean-up"
                                                         : ""));
  }
  size_t total = 0, shown = 0;
  for (size_t k = 0; k < f.focus.size() && k < kTopRegions; ++k) {
    auto [t, s] = ex.region_lines(f.focus[k]);
    if (k < 3) {
      total += t;
      shown += s;
    }
    if (t == 0 || s * 10 >= t * 9) ++out.coverage.top_regions_shown;
  }
  out.coverage.top_regions = std::min(f.focus.size(), kTopRegions);
  out.coverage.top3_share =
      total == 0 ? 1.0 : static_cast<double>(shown) / static_cast<double>(total);
  out.remaining = remaining;
  return out;
}

}  // namespace mergelens::prompt_detail
