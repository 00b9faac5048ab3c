// analyze_code: languages, hunk symbols, signals and moved code.
//
// Per file: read the new content when the language has an outline, build the
// outline once (up to the last changed line), then per hunk split the two
// sides, outline each side as a fragment (definitions touched by the hunk,
// and a fallback for symbols when there is no content) and run the signal
// detectors. Definitions and dead code are in symbols.cc, moved code in
// moved_code.cc.
#include <algorithm>
#include <unordered_map>
#include <utility>

#include "mergelens/analysis/code/code_facts.h"
#include "mergelens/analysis/code/code_file.h"
#include "mergelens/analysis/code/language.h"

namespace mergelens {
namespace code_internal {

using outline_internal::strip_cr;
using outline_internal::trim;

const char* separator(Language l) {
  return l == Language::kCpp || l == Language::kCuda || l == Language::kRust ? "::" : ".";
}

Sym content_symbol(const FileState& f, int line) {
  const int d = innermost_def(f.outline, line - 1);
  if (d < 0) return {};
  const OutlineDef& def = f.outline.defs[d];
  return {def.qualified, def.kind, def.indent, def.container};
}

namespace {

bool section_open(const HunkState& h, int idx, bool old_side) {
  return h.section && idx < (old_side ? h.section_closed_old : h.section_closed_new);
}

Sym section_symbol(const HunkState& h, int idx, bool old_side) {
  if (!section_open(h, idx, old_side)) return {};
  return {h.section->name, h.section->kind, h.section->indent, h.section->container};
}

// A removed line sat between new lines p-1 and p: its scope is the one that
// holds p-1, unless that scope closed on p-1 (a brace language's '}') or, in
// Python, is indented at or beyond the removed line.
Sym removed_line_symbol(const FileState& f, const HunkState& h, int k) {
  const int p = h.pos[k];
  if (p <= 1) return content_symbol(f, p);
  int d = innermost_def(f.outline, p - 2);
  const std::string_view text = strip_cr(h.hunk->lines[k].text);
  const bool python = f.lang == Language::kPython;
  const int ind = indentation(text);
  while (d >= 0) {
    const OutlineDef& def = f.outline.defs[d];
    const bool closed =
        python ? (!trim(text).empty() && def.indent >= ind && def.end == p - 2) : def.end == p - 2;
    if (!closed) break;
    d = def.parent;
  }
  if (d < 0) return {};
  const OutlineDef& def = f.outline.defs[d];
  return {def.qualified, def.kind, def.indent, def.container};
}

}  // namespace

Sym fragment_symbol(const FileState& f, const HunkState& h, bool old_side, int d) {
  const Outline& o = old_side ? h.frag_old : h.frag_new;
  const OutlineDef& def = o.defs[d];
  Sym s{def.qualified, def.kind, def.indent, def.container};
  // The fragment starts inside a class git named: qualify with it.
  const int root_line = def.name_line;
  if (def.parent < 0 && f.lang != Language::kMarkdown && section_open(h, root_line, old_side) &&
      h.section->container && h.section->indent < def.indent) {
    s.name = h.section->name + separator(f.lang) + s.name;
    if (s.kind == "function") s.kind = "method";
  }
  return s;
}

bool code_line(std::string_view text, Language lang) {
  const std::string_view t = trim(strip_cr(text));
  if (t.empty()) return false;
  if (lang == Language::kMarkdown) return true;
  const bool comment = lang == Language::kPython
                           ? t.starts_with("#")
                           : (t.starts_with("//") || t.starts_with("/*") || t.starts_with("*"));
  return !comment;
}

int symbol_line(const HunkState& h, Language lang) {
  int first = -1;
  for (size_t k = 0; k < h.hunk->lines.size(); ++k) {
    const DiffLine& l = h.hunk->lines[k];
    if (l.origin != '+' && l.origin != '-') continue;
    if (first < 0) first = static_cast<int>(k);
    if (code_line(l.text, lang)) return static_cast<int>(k);
  }
  return first;
}

Sym resolve_symbol(const FileState& f, const HunkState& h, int k) {
  const DiffLine& l = h.hunk->lines[k];
  if (l.origin == '-') {
    const int oi = h.sides.old_of[k];
    if (h.analysed && oi >= 0) {
      const int d = innermost_def(h.frag_old, oi);
      if (d >= 0 && h.touched_old[d]) return fragment_symbol(f, h, true, d);
    }
    if (f.has_content) return removed_line_symbol(f, h, k);
    if (h.analysed && oi >= 0) {
      const int d = innermost_def(h.frag_old, oi);
      if (d >= 0) return fragment_symbol(f, h, true, d);
    }
    return section_symbol(h, oi, true);
  }
  if (f.has_content) return content_symbol(f, l.new_no);
  const int ni = h.sides.new_of[k];
  if (h.analysed && ni >= 0) {
    const int d = innermost_def(h.frag_new, ni);
    if (d >= 0) return fragment_symbol(f, h, false, d);
  }
  return section_symbol(h, ni, false);
}

namespace {

bool has_outline(Language l) {
  return is_code_language(l) || l == Language::kMarkdown;
}

bool is_test_path(std::string_view path) {
  std::string p(path);
  for (char& c : p)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  const std::string_view v = p;
  const size_t slash = v.rfind('/');
  const std::string_view base = slash == std::string_view::npos ? v : v.substr(slash + 1);
  const std::string dir =
      "/" + std::string(slash == std::string_view::npos ? "" : v.substr(0, slash)) + "/";
  for (std::string_view d : {"/test/", "/tests/", "/testing/", "/unittest/", "/unittests/",
                             "/__tests__/", "/test_utils/"})
    if (dir.find(d) != std::string::npos) return true;
  return base.starts_with("test_") || base.find("_test.") != std::string_view::npos ||
         base.find("_tests.") != std::string_view::npos ||
         base.find(".test.") != std::string_view::npos ||
         base.find(".spec.") != std::string_view::npos || base == "conftest.py";
}

// Scripts, benchmarks, examples and docs: their top-level names are not an API.
bool is_tooling_path(std::string_view path) {
  const std::string p = "/" + std::string(path);
  for (std::string_view d : {"/scripts/", "/script/", "/benchmark/", "/benchmarks/", "/bench/",
                             "/examples/", "/example/", "/docs/", "/doc/"})
    if (p.find(d) != std::string::npos) return true;
  return false;
}

std::vector<std::string_view> split_lines(std::string_view s) {
  std::vector<std::string_view> out;
  size_t p = 0;
  while (p < s.size()) {
    size_t e = s.find('\n', p);
    if (e == std::string_view::npos) e = s.size();
    out.push_back(strip_cr(s.substr(p, e - p)));
    p = e + 1;
  }
  return out;
}

Sides split_sides(const Hunk& h) {
  Sides s;
  const size_t n = h.lines.size();
  s.old_of.assign(n, -1);
  s.new_of.assign(n, -1);
  for (size_t k = 0; k < n; ++k) {
    const DiffLine& l = h.lines[k];
    if (l.origin != ' ' && l.origin != '+' && l.origin != '-') continue;
    const std::string_view t = strip_cr(l.text);
    if (l.origin != '+') {
      s.old_of[k] = static_cast<int>(s.old_side.size());
      s.old_side.push_back({t, l.origin == '-', {}});
      s.old_text.push_back(t);
      s.old_line.push_back(static_cast<int>(k));
    }
    if (l.origin != '-') {
      s.new_of[k] = static_cast<int>(s.new_side.size());
      s.new_side.push_back({t, l.origin == '+', {}});
      s.new_text.push_back(t);
      s.new_line.push_back(static_cast<int>(k));
    }
  }
  return s;
}

std::vector<std::int32_t> positions(const Hunk& h) {
  std::vector<std::int32_t> pos(h.lines.size(), 0);
  std::int32_t last_new = h.new_lines > 0 ? h.new_start - 1 : h.new_start;
  for (size_t k = 0; k < h.lines.size(); ++k) {
    const DiffLine& l = h.lines[k];
    if (l.origin == ' ' || l.origin == '+') {
      pos[k] = l.new_no;
      last_new = l.new_no;
    } else {
      pos[k] = std::max<std::int32_t>(1, last_new + 1);
    }
  }
  return pos;
}

// Marks the fragment definitions whose header holds a changed line.
std::vector<char> touched(const Outline& o, const std::vector<SideLine>& side, Language lang,
                          int cut) {
  std::vector<char> out(o.defs.size(), 0);
  const bool from_name = lang == Language::kPython || lang == Language::kMarkdown;
  for (size_t d = 0; d < o.defs.size(); ++d) {
    const OutlineDef& def = o.defs[d];
    const int lo = from_name ? def.name_line : def.start;
    if (def.name_line >= cut) continue;
    for (int i = std::max(0, lo); i <= def.header_end && i < static_cast<int>(side.size()); ++i)
      if (side[i].changed) {
        out[d] = 1;
        break;
      }
  }
  return out;
}

// Index of the side line after the first `budget` changed lines.
int cut_index(const std::vector<SideLine>& side, int budget) {
  int changed = 0;
  for (size_t i = 0; i < side.size(); ++i)
    if (side[i].changed && ++changed > budget) return static_cast<int>(i);
  return static_cast<int>(side.size());
}

// First side index where the scope git named is closed (see Outline::outer_lines).
int section_closed(const Outline& frag, const OutlineDef& section, Language lang) {
  if (lang == Language::kMarkdown) return INT_MAX;
  for (const auto& [line, indent] : frag.outer_lines)
    if (indent <= section.indent) return lang == Language::kPython ? line : line + 1;
  return INT_MAX;
}

// Spans of Python `__all__ = [...]` (and `+=`, `.extend(`) in `lines`.
std::vector<std::pair<int, int>> all_spans(std::span<const std::string_view> lines,
                                           bool open_at_start) {
  std::vector<std::pair<int, int>> spans;
  bool open = open_at_start;
  int start = 0, depth = open_at_start ? 1 : 0;
  for (int i = 0; i < static_cast<int>(lines.size()); ++i) {
    const std::string_view t = lines[i];
    if (!open && t.starts_with("__all__")) {
      const std::string_view rest = trim(t.substr(7));
      if (rest.starts_with("=") || rest.starts_with("+=") || rest.starts_with(".extend(") ||
          rest.starts_with(".append(")) {
        open = true;
        start = i;
        depth = 0;
      }
    }
    if (!open) continue;
    for (char c : t) {
      if (c == '[' || c == '(') ++depth;
      if (c == ']' || c == ')') --depth;
    }
    if (depth <= 0) {
      spans.emplace_back(start, i);
      open = false;
    }
  }
  if (open) spans.emplace_back(start, static_cast<int>(lines.size()) - 1);
  return spans;
}

// "    name: type ..." — a line that may declare a class attribute.
bool maybe_field(std::string_view line) {
  if (line.empty() || !(line[0] == ' ' || line[0] == '\t')) return false;
  const std::string_view t = trim(line);
  size_t e = 0;
  while (e < t.size() && outline_internal::is_ident_char(t[e])) ++e;
  if (e == 0 || t[0] == '@') return false;
  while (e < t.size() && t[e] == ' ') ++e;
  return e + 1 < t.size() && t[e] == ':' && t[e + 1] != '=' && !t.ends_with(":");
}

bool in_spans(const std::vector<std::pair<int, int>>& spans, int i) {
  for (const auto& [a, b] : spans)
    if (i >= a && i <= b) return true;
  return false;
}

class Analyzer {
 public:
  Analyzer(const Change& change, const FileReader& reader) : change_(change), reader_(reader) {}

  CodeFacts run() {
    files_.reserve(change_.files.size());
    for (size_t i = 0; i < change_.files.size(); ++i) analyse_file(i);
    mark_moved(files_, out_.hunks);
    drop_moved_todos(change_, out_.signals);
    drop_kept_branches(change_, out_.signals);
    drop_protocol_raises(change_, out_.signals);
    drop_moved_notes(change_, out_.rationale);
    detect_dead_code(change_, out_);
    return std::move(out_);
  }

 private:
  std::optional<std::string> read(const std::string& path) {
    if (!reader_) return std::nullopt;
    try {
      auto content = reader_(path);
      if (content && content->size() > (16u << 20)) return std::nullopt;
      return content;
    } catch (...) {
      return std::nullopt;
    }
  }

  void analyse_file(size_t index) {
    const FileChange& fc = change_.files[index];
    FileState& f = files_.emplace_back();
    f.file = &fc;
    f.index = index;
    f.lang = detect_language(fc.path);
    // An added file is all in its hunk: the hunk's own outline is the file's.
    // A file rewritten wholesale (a regenerated one) is not read either.
    std::int64_t file_changed = 0;
    for (const Hunk& h : fc.hunks)
      for (const DiffLine& l : h.lines) file_changed += l.origin == '+' || l.origin == '-';
    const bool want_content = fc.status != FileStatus::kDeleted &&
                              fc.status != FileStatus::kAdded && !fc.binary && !fc.hunks.empty() &&
                              file_changed <= 4 * kChangedLineCap &&
                              (has_outline(f.lang) || f.lang == Language::kUnknown);
    if (want_content) {
      if (auto c = read(fc.path)) {
        f.content = std::move(*c);
        f.has_content = true;
        f.lines = split_lines(f.content);
        if (f.lang == Language::kUnknown && !f.lines.empty())
          f.lang = detect_language(fc.path, f.lines[0]);
      }
    }
    if (f.lang == Language::kUnknown && !f.has_content && !fc.hunks.empty() &&
        fc.hunks[0].new_start == 1 && !fc.hunks[0].lines.empty() &&
        fc.hunks[0].lines[0].origin != '-')  // an added file's shebang is in its hunk
      f.lang = detect_language(fc.path, strip_cr(fc.hunks[0].lines[0].text));
    out_.languages[fc.path] = f.lang;
    if (fc.binary || fc.hunks.empty()) return;
    f.test = is_test_path(fc.path);
    f.tooling = is_tooling_path(fc.path);
    f.cpp_header =
        (f.lang == Language::kCpp || f.lang == Language::kCuda) && is_cpp_header_path(fc.path);
    if (f.has_content && has_outline(f.lang)) {
      int last_changed = 0;
      for (const Hunk& h : fc.hunks)
        last_changed = std::max(last_changed, h.new_start + h.new_lines);
      OutlineOptions opt;
      opt.stop_line = last_changed + 1;
      opt.cpp_header = f.cpp_header;
      f.outline = build_outline(f.lang, f.lines, opt);
      for (size_t d = 0; d < f.outline.defs.size(); ++d)
        f.def_at_name_line.emplace(f.outline.defs[d].name_line, static_cast<int>(d));
    } else {
      f.has_content = false;  // content of a language without an outline is not used
    }
    std::vector<std::pair<int, int>> all_content_spans;
    if (f.lang == Language::kPython && f.has_content && !f.test && !f.tooling)
      all_content_spans = all_spans(f.lines, false);

    int changed_seen = 0;
    size_t signals_before = out_.signals.size();
    f.hunks.resize(fc.hunks.size());
    for (size_t hi = 0; hi < fc.hunks.size(); ++hi) {
      HunkState& h = f.hunks[hi];
      h.hunk = &fc.hunks[hi];
      h.sides = split_sides(*h.hunk);
      h.pos = positions(*h.hunk);
      int changed = 0;
      for (const DiffLine& l : h.hunk->lines) changed += (l.origin == '+' || l.origin == '-');
      h.analysed = has_outline(f.lang) && changed_seen < kChangedLineCap;
      if (h.analysed) {
        h.old_cut = cut_index(h.sides.old_side, kChangedLineCap - changed_seen);
        h.new_cut = cut_index(h.sides.new_side, kChangedLineCap - changed_seen);
      }
      changed_seen += changed;
      if (has_outline(f.lang)) {
        if (auto sec = parse_definition_line(f.lang, h.hunk->section)) h.section = std::move(*sec);
      }
      if (h.analysed) {
        OutlineOptions opt;
        opt.fragment = true;
        opt.cpp_header = f.cpp_header;
        // Past the cap nothing is read from the fragments: outline up to it.
        auto upto = [](const std::vector<std::string_view>& text, int cut) {
          return std::span(text).first(std::min(text.size(), static_cast<size_t>(cut) + 64));
        };
        h.frag_old = build_outline(f.lang, upto(h.sides.old_text, h.old_cut), opt);
        h.frag_new = build_outline(f.lang, upto(h.sides.new_text, h.new_cut), opt);
        h.touched_old = touched(h.frag_old, h.sides.old_side, f.lang, h.old_cut);
        h.touched_new = touched(h.frag_new, h.sides.new_side, f.lang, h.new_cut);
        if (h.section) {
          h.section_closed_old = section_closed(h.frag_old, *h.section, f.lang);
          h.section_closed_new = section_closed(h.frag_new, *h.section, f.lang);
        }
      }
      add_hunk_facts(f, h, hi);
      if (h.analysed && out_.signals.size() - signals_before < kSignalCapPerFile) {
        hunk_signals(f, h, all_content_spans);
      }
    }
    if (out_.signals.size() - signals_before > kSignalCapPerFile)
      out_.signals.resize(signals_before + kSignalCapPerFile);
    collect_definitions(f, out_);
    collect_rationale(f, out_);
  }

  void add_hunk_facts(const FileState& f, const HunkState& h, size_t hi) {
    HunkFacts hf;
    hf.file = f.index;
    hf.hunk = hi;
    int first = -1;
    std::int32_t lo = INT32_MAX, hi_line = 0;
    for (size_t k = 0; k < h.hunk->lines.size(); ++k) {
      const char o = h.hunk->lines[k].origin;
      if (o != '+' && o != '-') continue;
      if (first < 0) first = static_cast<int>(k);
      (o == '+' ? hf.added : hf.removed) += 1;
      lo = std::min(lo, h.pos[k]);
      hi_line = std::max(hi_line, h.pos[k]);
    }
    if (first < 0) {
      hf.new_start = hf.new_end = h.hunk->new_start;
    } else {
      hf.new_start = lo;
      hf.new_end = std::max(lo, hi_line);
      if (has_outline(f.lang)) hf.symbol = resolve_symbol(f, h, symbol_line(h, f.lang)).name;
      if (has_outline(f.lang) && h.analysed) hf.spans = symbol_spans(f, h);
    }
    out_.hunks.push_back(std::move(hf));
  }

  // The changed lines of hunk `h` by enclosing symbol, runs merged.
  static std::vector<SymbolSpan> symbol_spans(const FileState& f, const HunkState& h) {
    std::vector<SymbolSpan> out;
    bool joined = false;  // the previous hunk line was changed: a span may go on
    for (size_t k = 0; k < h.hunk->lines.size(); ++k) {
      const DiffLine& l = h.hunk->lines[k];
      if (l.origin != '+' && l.origin != '-') {
        joined = false;
        continue;
      }
      const bool added = l.origin == '+', code = code_line(l.text, f.lang);
      std::string sym = resolve_symbol(f, h, static_cast<int>(k)).name;
      const std::int32_t at = h.pos[k];
      const bool go_on = std::exchange(joined, true);
      if (go_on && !out.empty() && out.back().added == added && out.back().code == code &&
          out.back().symbol == sym) {
        out.back().start = std::min(out.back().start, at);
        out.back().end = std::max(out.back().end, at);
        ++out.back().lines;
        continue;
      }
      out.push_back(SymbolSpan{at, at, 1, added, code, std::move(sym)});
    }
    return out;
  }

  Place place(const FileState& f, const HunkState& h, int k) {
    return Place{f.file->path, h.pos[k], resolve_symbol(f, h, k).name};
  }

  void hunk_signals(const FileState& f, HunkState& h,
                    const std::vector<std::pair<int, int>>& all_content_spans) {
    // The hunk's removed lines, trimmed: what a new `else` may keep.
    std::vector<std::string_view> removed_lines;
    for (const auto& l : h.sides.old_side)
      if (l.changed) removed_lines.push_back(trim(l.text));
    // Python config classes: the class whose body holds each changed line.
    std::vector<std::string> class_names;
    if (f.lang == Language::kPython) {
      for (bool old_side : {false, true}) {
        auto& side = old_side ? h.sides.old_side : h.sides.new_side;
        const auto& lines = old_side ? h.sides.old_line : h.sides.new_line;
        const size_t cut = static_cast<size_t>(old_side ? h.old_cut : h.new_cut);
        class_names.clear();
        class_names.resize(cut);
        for (size_t i = 0; i < cut; ++i) {
          if (!side[i].changed || !maybe_field(side[i].text)) continue;
          const Sym s = resolve_symbol(f, h, lines[i]);
          if (s.kind == "class") class_names[i] = s.name.substr(s.name.rfind('.') + 1);
        }
        for (size_t i = 0; i < cut; ++i) side[i].class_body = class_names[i];
        std::vector<RawSignal> raw;
        detect_side_signals(f.lang, std::span(side).first(cut), !old_side, raw,
                            old_side ? nullptr : &removed_lines);
        for (auto& r : raw) push_signal(f, h, lines[r.index], std::move(r), !old_side);
        for (size_t i = 0; i < cut; ++i) side[i].class_body = {};
      }
    } else {
      for (bool old_side : {false, true}) {
        const auto& side = old_side ? h.sides.old_side : h.sides.new_side;
        const auto& lines = old_side ? h.sides.old_line : h.sides.new_line;
        const size_t cut = static_cast<size_t>(old_side ? h.old_cut : h.new_cut);
        std::vector<RawSignal> raw;
        detect_side_signals(f.lang, std::span(side).first(cut), !old_side, raw,
                            old_side ? nullptr : &removed_lines);
        for (auto& r : raw) push_signal(f, h, lines[r.index], std::move(r), !old_side);
      }
    }
    // Numeric constants: removed vs added lines of the hunk.
    std::vector<std::string_view> removed, added;
    std::vector<int> added_k;
    for (size_t k = 0; k < h.hunk->lines.size(); ++k) {
      const DiffLine& l = h.hunk->lines[k];
      if (l.origin == '-' && h.sides.old_of[k] < h.old_cut) removed.push_back(strip_cr(l.text));
      if (l.origin == '+' && h.sides.new_of[k] < h.new_cut) {
        added.push_back(strip_cr(l.text));
        added_k.push_back(static_cast<int>(k));
      }
    }
    if (!removed.empty() && !added.empty()) {
      std::vector<RawSignal> raw;
      detect_numeric_changes(removed, added, f.lang, raw);
      for (auto& r : raw) push_signal(f, h, added_k[r.index], std::move(r), true);
    }
    // Names added to a Python __all__.
    if (f.lang == Language::kPython && !f.test && !f.tooling) {
      std::vector<std::pair<int, int>> frag_spans;
      if (!f.has_content)
        frag_spans = all_spans(h.sides.new_text, h.hunk->section.starts_with("__all__"));
      for (size_t i = 0; i < static_cast<size_t>(h.new_cut); ++i) {
        if (!h.sides.new_side[i].changed) continue;
        const int k = h.sides.new_line[i];
        const bool inside = f.has_content ? in_spans(all_content_spans, h.pos[k] - 1)
                                          : in_spans(frag_spans, static_cast<int>(i));
        if (inside) all_names(f, h, k);
      }
    }
  }

  void all_names(const FileState& f, const HunkState& h, int k) {
    const std::string_view t = strip_cr(h.hunk->lines[k].text);
    for (size_t p = 0; p < t.size(); ++p) {
      if (t[p] != '"' && t[p] != '\'') continue;
      const size_t e = t.find(t[p], p + 1);
      if (e == std::string_view::npos) break;
      const std::string_view name = t.substr(p + 1, e - p - 1);
      bool ident = !name.empty() && !(name[0] >= '0' && name[0] <= '9');
      for (char c : name) ident = ident && outline_internal::is_ident_char(c);
      if (ident)
        out_.signals.push_back(Signal{"public_api", std::string(name), place(f, h, k), true});
      p = e;
    }
  }

  void push_signal(const FileState& f, const HunkState& h, int k, RawSignal&& r, bool added) {
    if (f.test && r.kind == "assert") return;  // a test's assertions are not guards
    out_.signals.push_back(Signal{std::move(r.kind), std::move(r.detail), place(f, h, k), added});
  }

  const Change& change_;
  const FileReader& reader_;
  std::vector<FileState> files_;
  CodeFacts out_;
};

}  // namespace
}  // namespace code_internal

CodeFacts analyze_code(const Change& change, const FileReader& read_new_file) {
  try {
    return code_internal::Analyzer(change, read_new_file).run();
  } catch (...) {
    // Only allocation failure can get here; report what could not be analysed as nothing.
    return CodeFacts{};
  }
}

}  // namespace mergelens
