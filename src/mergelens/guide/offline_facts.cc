// Offline guide: the checks a fact passes before a sentence may state it,
// and the rendering of code and names (see offline_parts.h).
//
// A sentence of the offline writer says only what was verified against the
// change: its removed lines are the parent revision's text, its added and
// context lines the merge's. What cannot be verified that way is not said.
#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "mergelens/analysis/code/roles.h"
#include "mergelens/guide/offline_parts.h"
#include "mergelens/util/strings.h"

namespace mergelens::guide_detail {
namespace {

bool ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// Whether `text` holds `word` with no identifier character on either side.
bool has_word(std::string_view text, std::string_view word) {
  if (word.empty()) return false;
  for (size_t p = text.find(word); p != std::string_view::npos; p = text.find(word, p + 1)) {
    const size_t e = p + word.size();
    if ((p == 0 || !ident_char(text[p - 1])) && (e == text.size() || !ident_char(text[e])))
      return true;
  }
  return false;
}

// Folders whose code is tooling, not what a user runs.
bool tooling_path(std::string_view path) {
  const std::string p = "/" + std::string(path);
  for (std::string_view d :
       {"/tests/", "/test/", "/testing/", "/benchmarks/", "/benchmark/", "/bench/", "/examples/",
        "/example/", "/scripts/", "/script/", "/docs/", "/doc/", "/tools/"})
    if (p.find(d) != std::string::npos) return true;
  return false;
}

}  // namespace

std::string code(std::string_view text, size_t max) {
  std::string s(text);
  std::replace(s.begin(), s.end(), '`', '\'');
  std::replace(s.begin(), s.end(), '\n', ' ');
  if (s.size() <= max) return "`" + s + "`";
  // A cut is allowed only outside a string literal, where every bracket
  // opened before it is closed, and not between two characters of one name
  // or number: a quote cut there reads as the code it shows.
  std::vector<size_t> cuts;  // every allowed cut, ascending
  char quote = 0;
  int depth = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const char ch = s[i];
    if (quote) {
      if (ch == '\\')
        ++i;
      else if (ch == quote)
        quote = 0;
      continue;
    }
    // Nor between a string's prefix and its quote (f"…", r'…').
    const bool prefix = (ch == '"' || ch == '\'') && ident_char(s[i > 0 ? i - 1 : 0]);
    // A qualified name (`ge::GRAPH_SUCCESS`, `self.pool`) is one name too.
    const auto name_char = [](char c) { return ident_char(c) || c == '.' || c == ':'; };
    if (i > 0 && depth == 0 && !prefix && !(name_char(s[i - 1]) && name_char(ch)) &&
        (static_cast<unsigned char>(ch) & 0xC0) != 0x80)
      cuts.push_back(i);
    if (ch == '"' || ch == '\'')
      quote = ch;
    else if (ch == '(' || ch == '[' || ch == '{')
      ++depth;
    else if ((ch == ')' || ch == ']' || ch == '}') && depth > 0)
      --depth;
  }
  // The last allowed cut at or before `max`; failing one that keeps a third
  // of it, the first after it; failing that, the whole line.
  size_t best = 0;
  for (size_t at : cuts)
    if (at <= max) best = at;
  if (best < max / 3) {
    best = s.size();
    for (size_t at : cuts)
      if (at > max) {
        best = at;
        break;
      }
  }
  std::string cut = s.substr(0, best);
  while (!cut.empty() && cut.back() == ' ') cut.pop_back();
  if (best >= s.size()) return "`" + cut + "`";
  return "`" + cut + "`…";
}

std::string code_name(std::string_view name, size_t max) {
  std::string_view n = name;
  while (n.size() > max) {
    const size_t dot = n.find('.'), colons = n.find("::");
    const size_t cut = std::min(dot, colons);
    if (cut == std::string_view::npos) break;
    n.remove_prefix(cut + (cut == colons ? 2 : 1));
  }
  std::string s(n);
  std::replace(s.begin(), s.end(), '`', '\'');
  return "`" + s + "`";
}

std::string diff_key(const Ctx& c, const std::string& path) {
  std::string key;
  for (const auto& fc : c.change.files) {
    if (fc.path != path) continue;
    for (const auto& h : fc.hunks)
      for (const auto& l : h.lines) {
        key += l.origin;
        key += l.text;
        key += '\n';
      }
  }
  return key;
}

bool shipped_code(const Facts& f, const std::string& path) {
  auto it = f.roles.find(path);
  const FileRole role = it == f.roles.end() ? FileRole::kCore : it->second;
  if (role != FileRole::kCore && role != FileRole::kKernel && role != FileRole::kModel)
    return false;
  return !tooling_path(path);
}

namespace {
std::string squeezed(std::string_view line) {
  std::string out;
  for (char ch : line)
    if (ch != ' ' && ch != '\t') out += ch;
  return out;
}
}  // namespace

bool moved_line(const Ctx& c, const Signal& s) {
  if (!s.added) return false;
  std::string line;
  for (const auto& fc : c.change.files)
    if (fc.path == s.at.path)
      for (const auto& h : fc.hunks)
        for (const auto& l : h.lines)
          if (l.origin == '+' && l.new_no == s.at.line) line = squeezed(l.text);
  if (line.size() < 10) return false;
  for (const auto& fc : c.change.files)
    for (const auto& h : fc.hunks)
      for (const auto& l : h.lines)
        if (l.origin == '-' && squeezed(l.text) == line) return true;
  return false;
}

bool in_added_code(const Ctx& c, const Signal& s) {
  for (const auto& fc : c.change.files)
    if (fc.path == s.at.path && fc.status == FileStatus::kAdded) return true;
  if (s.at.symbol.empty()) return false;
  for (const auto& d : c.facts.definitions)
    if (d.change == "added" && d.at.path == s.at.path &&
        (s.at.symbol == d.name || s.at.symbol.starts_with(d.name + ".")))
      return true;
  return false;
}

bool askable(const Ctx& c, const Signal& s) {
  const Facts& f = c.facts;
  if (s.kind == "dead_code_removed") return true;
  if (!shipped_code(f, s.at.path) || moved_line(c, s)) return false;
  const bool device = s.kind == "device_branch" || s.kind == "platform_branch";
  if (device && in_added_code(c, s)) return false;  // "the old path" there is none
  if (s.kind == "guard" || s.kind == "early_return" || s.kind == "raise" || s.kind == "assert") {
    if (in_added_code(c, s)) return false;
    for (const Replacement& x : f.replacements)
      if (x.path == s.at.path && x.new_line == s.at.line && !exits(x.old_text).empty() &&
          exits(x.new_text) == exits(x.old_text))
        return false;
    for (const Signal& old : f.signals)
      if (!old.added && old.kind == s.kind && old.at.path == s.at.path &&
          old.at.symbol == s.at.symbol && same_shape(old.detail, s.detail))
        return false;
  }
  if (s.kind != "env_var" && s.kind != "cli_flag") return true;
  if (const SwitchFact* sf = switch_fact(c, s.detail); sf && sf->unread) return false;
  return switch_age(c, s.detail) != SwitchAge::kExisting;
}

bool example_path(std::string_view path) {
  const std::string p = "/" + std::string(path);
  if (p.find("/examples/") != std::string::npos || p.find("/example/") != std::string::npos)
    return true;
  std::string_view name = path.substr(path.rfind('/') + 1);  // npos + 1 == 0
  name = name.substr(0, name.rfind('.'));
  return name.ends_with("_example") || name.starts_with("example_");
}

bool example_file(const Facts& f, const FileChange& fc) {
  if (example_path(fc.path)) return true;
  auto it = f.roles.find(fc.path);
  return it != f.roles.end() && example_script(fc, it->second);
}

bool examples_only(const Change& change, const Facts& facts) {
  return !change.files.empty() &&
         std::all_of(change.files.begin(), change.files.end(),
                     [&](const auto& fc) { return example_file(facts, fc); });
}

namespace {

// "--enable-foo" is also written "enable_foo" (its argparse dest, a field).
std::string field_of(const std::string& name) {
  std::string field;
  if (name.starts_with("--")) {
    field = name.substr(2);
    std::replace(field.begin(), field.end(), '-', '_');
  }
  return field;
}

}  // namespace

const SwitchFact* switch_fact(const Ctx& c, const std::string& name) {
  if (!c.facts.switches_known) return nullptr;
  const std::string field = field_of(name);
  const SwitchFact* by_field = nullptr;
  for (const auto& s : c.facts.switches) {
    if (s.name == name) return &s;
    if (!field.empty() && s.name == field && !by_field) by_field = &s;
  }
  return by_field;
}

std::vector<const SwitchFact*> changed_defaults(const Ctx& c, size_t max) {
  std::vector<const SwitchFact*> out;
  if (!c.facts.switches_known) return out;
  for (const auto& s : c.facts.switches)
    if (out.size() < max && s.default_changed && s.before.exists && s.after.exists &&
        s.before.has_default && s.after.has_default &&
        s.before.default_value != s.after.default_value && shipped_code(c.facts, s.after.path))
      out.push_back(&s);
  return out;
}

SwitchAge switch_age(const Ctx& c, const std::string& name) {
  // A removed line that names it is the parent's own text: it existed, even
  // where the switch facts (Python sources only) did not see it.
  const std::string field = field_of(name);
  for (const auto& fc : c.change.files)
    for (const auto& h : fc.hunks)
      for (const auto& l : h.lines)
        if (l.origin == '-' && (has_word(l.text, name) || has_word(l.text, field)))
          return SwitchAge::kExisting;
  if (const SwitchFact* s = switch_fact(c, name)) {
    if (s->existed_at_parent || s->before.exists) return SwitchAge::kExisting;
    if (s->after.exists) return SwitchAge::kNew;
  }
  return SwitchAge::kUnknown;
}

std::vector<const Signal*> switch_signals(const Ctx& c, bool new_only) {
  std::vector<const Signal*> out;
  for (const auto& s : c.facts.signals) {
    if (!s.added || (s.kind != "env_var" && s.kind != "cli_flag") ||
        !shipped_code(c.facts, s.at.path))
      continue;
    if (std::any_of(out.begin(), out.end(), [&](const Signal* o) { return o->detail == s.detail; }))
      continue;
    if (new_only && switch_age(c, s.detail) != SwitchAge::kNew) continue;
    // A switch whose value nothing reads selects nothing.
    if (const SwitchFact* f = switch_fact(c, s.detail); f && f->unread) continue;
    out.push_back(&s);
  }
  return out;
}

std::vector<const Signal*> code_signals(const Ctx& c,
                                        std::initializer_list<std::string_view> kinds) {
  std::vector<const Signal*> out;
  for (const auto& s : c.facts.signals)
    if (s.added && std::find(kinds.begin(), kinds.end(), s.kind) != kinds.end() &&
        shipped_code(c.facts, s.at.path))
      out.push_back(&s);
  return out;
}

namespace {

std::string_view trimmed(std::string_view t) {
  while (!t.empty() && (t.front() == ' ' || t.front() == '\t')) t.remove_prefix(1);
  while (!t.empty() && (t.back() == ' ' || t.back() == '\t' || t.back() == '\r'))
    t.remove_suffix(1);
  return t;
}

// From the `def` line at `i`: whether the body's first statement is an
// unchanged `raise` (context lines on both sides, after the signature's
// last line at the merge, blank lines, comments and a docstring aside).
bool body_raises_first(const Hunk& h, size_t i, int depth = 0) {
  size_t j = i;
  for (; j < h.lines.size(); ++j) {
    const DiffLine& l = h.lines[j];
    if (l.origin == '-' || l.origin == '\\') continue;
    std::string_view t = trimmed(l.text);
    if (const size_t hash = t.find('#'); hash != std::string_view::npos)
      t = trimmed(t.substr(0, hash));
    for (char ch : t) depth += ch == '(' || ch == '[' ? 1 : ch == ')' || ch == ']' ? -1 : 0;
    if (depth <= 0 && t.ends_with(":")) break;
  }
  std::string_view doc;  // the closing quotes of an open docstring
  for (++j; j < h.lines.size(); ++j) {
    const DiffLine& l = h.lines[j];
    if (l.origin == '\\') continue;
    const std::string_view t = trimmed(l.text);
    if (!doc.empty()) {
      if (l.origin != ' ') return false;
      if (t.find(doc) != std::string_view::npos) doc = {};
      continue;
    }
    if (t.empty() || t.starts_with("#")) continue;
    if (l.origin != ' ') return false;
    for (std::string_view q : {std::string_view("\"\"\""), std::string_view("'''")})
      if (t.starts_with(q)) {
        if (t.size() < 6 || t.substr(3).find(q) == std::string_view::npos) doc = q;
        break;
      }
    if (!doc.empty() || t.starts_with("\"\"\"") || t.starts_with("'''")) continue;
    return t == "raise" || t.starts_with("raise ");
  }
  return false;
}

}  // namespace

int prose_changed_lines(const Ctx& c, const std::string& path, std::int32_t start,
                        std::int32_t end) {
  const bool hash = path.ends_with(".py") || path.ends_with(".sh");
  int n = 0;
  for (const auto& fc : c.change.files) {
    if (fc.path != path || fc.truncated) continue;
    for (const auto& h : fc.hunks) {
      std::int32_t pos = h.new_start;  // a removed line sits where the next line is
      for (const auto& l : h.lines) {
        if (l.origin == '\\') continue;
        const std::int32_t at = l.origin == '-' ? pos : l.new_no;
        if (l.origin != '-') pos = l.new_no + 1;
        if (l.origin == ' ' || at < start || at > end) continue;
        const std::string_view t = trimmed(l.text);
        n += t.empty() || (hash ? t.starts_with("#")
                                : t.starts_with("//") || t.starts_with("/*") || t.starts_with("*"));
      }
    }
  }
  return n;
}

std::string region_lines_label(const Ctx& c, const FocusRegion& r) {
  std::string out = lines_label(c, r.start_line, r.end_line);
  const int prose = prose_changed_lines(c, r.path, r.start_line, r.end_line);
  if (prose <= 0 || prose >= r.changed_lines) return out;
  if (c.zh()) return out + fmt_rt("；其中 {} 行是注释或空行", prose);
  return out + (prose == 1 ? std::string("; 1 of them a comment or blank")
                           : fmt_rt("; {} of them comments or blank", prose));
}

std::string deleted_code_clause(const Ctx& c) {
  std::set<std::string> skimmed;
  for (const auto& s : c.facts.skim) skimmed.insert(s.path);
  auto code_role = [&](const std::string& path) {
    auto it = c.facts.roles.find(path);
    return it == c.facts.roles.end() || it->second == FileRole::kCore ||
           it->second == FileRole::kKernel || it->second == FileRole::kModel;
  };
  int files = 0, lines = 0;
  for (const auto& fc : c.change.files)
    if (code_role(fc.path) && skimmed.count(fc.path) && fc.status == FileStatus::kDeleted) {
      ++files;
      lines += fc.deletions;
    }
  if (files == 0) return {};
  if (c.zh()) return fmt_rt("，另删除 {} 个文件（{} 行）", files, lines);
  return fmt_rt(", besides {} deleted in {}", plural(lines, "line"), plural(files, "file"));
}

bool raises_on_entry(const Ctx& c, const Definition& d) {
  if (!d.at.path.ends_with(".py")) return false;
  const std::string_view short_name = std::string_view(d.name).substr(d.name.rfind('.') + 1);
  const std::string def = "def " + std::string(short_name) + "(";
  bool found = false, raises = true;
  for (const auto& fc : c.change.files) {
    if (fc.path != d.at.path) continue;
    for (const auto& h : fc.hunks)
      for (size_t i = 0; i < h.lines.size(); ++i) {
        if (h.lines[i].origin == '-') continue;
        std::string_view t = trimmed(h.lines[i].text);
        if (t.starts_with("async ")) t = trimmed(t.substr(6));
        if (!t.starts_with(def)) continue;
        found = true;
        raises = raises && body_raises_first(h, i);
      }
  }
  if (found || d.at.line <= 0) return found && raises;
  // A hunk that starts inside the parameter list (the `def` line above it
  // is context git left out): read from its first line, one bracket open.
  // The first hunk after the `def` line, within what a signature spans.
  const Hunk* next = nullptr;
  for (const auto& fc : c.change.files)
    if (fc.path == d.at.path)
      for (const auto& h : fc.hunks)
        if (h.new_start > d.at.line && h.new_start <= d.at.line + 30 && !h.lines.empty() &&
            (!next || h.new_start < next->new_start))
          next = &h;
  if (!next) return false;
  for (const auto& l : next->lines) {  // no other definition before the signature closes
    const std::string_view t = trimmed(l.text);
    if (t.starts_with("def ") || t.starts_with("async def ") || t.starts_with("class "))
      return false;
    if (t.ends_with(":") && (t.starts_with(")") || t.find(") ->") != std::string_view::npos)) break;
  }
  return body_raises_first(*next, 0, 1);
}

bool public_name(const Facts& f, const Definition& d) {
  if (is_test_or_bench(f, d.at.path) || !shipped_code(f, d.at.path)) return false;
  std::string_view n = d.name;
  while (!n.empty()) {
    const size_t dot = std::min(n.find('.'), n.find("::"));
    const std::string_view part = n.substr(0, dot);
    if (part.starts_with("_") && !(part.starts_with("__") && part.ends_with("__"))) return false;
    if (dot == std::string_view::npos) break;
    n.remove_prefix(dot + (n.substr(dot).starts_with("::") ? 2 : 1));
  }
  return true;
}

// --- what a summary names: code files and definitions by weight ---

bool is_code_role(const Facts& f, const std::string& path) {
  auto it = f.roles.find(path);
  if (it == f.roles.end()) return true;
  switch (it->second) {
    case FileRole::kCore:
    case FileRole::kKernel:
    case FileRole::kModel:
      return true;
    default:
      return false;
  }
}

std::vector<const Definition*> definitions_by_weight(const Ctx& c) {
  std::map<std::string, std::int64_t> size;
  for (const FileChange& fc : c.change.files) size[fc.path] = fc.additions + fc.deletions;
  std::vector<const Definition*> out;
  for (const Definition& d : c.facts.definitions) out.push_back(&d);
  // A public name before a private one ("_helper", "Class._helper").
  auto hidden = [](const Definition* d) {
    const size_t dot = d->name.rfind('.');
    return d->name.compare(dot == std::string::npos ? 0 : dot + 1, 1, "_") == 0;
  };
  std::stable_sort(out.begin(), out.end(), [&](const Definition* a, const Definition* b) {
    if (hidden(a) != hidden(b)) return hidden(b);
    return size[a->at.path] > size[b->at.path];
  });
  return out;
}

std::string file_label(const Ctx& c, const std::string& path) {
  const std::string base = path.substr(path.rfind('/') + 1);  // npos + 1 == 0
  // Copies of one file (the same name and counts in several folders) are
  // one file to a reader; a same-named file of other content is another.
  const FileChange* self = nullptr;
  for (const FileChange& fc : c.change.files)
    if (fc.path == path) self = &fc;
  const size_t same =
      std::count_if(c.change.files.begin(), c.change.files.end(), [&](const FileChange& fc) {
        return fc.path.substr(fc.path.rfind('/') + 1) == base &&
               (!self || fc.additions != self->additions || fc.deletions != self->deletions ||
                fc.status != self->status || &fc == self);
      });
  return code(same > 1 ? path : base, std::max<size_t>(path.size(), 60));
}

std::vector<const FileChange*> whole_code_files(const Ctx& c, FileStatus status, size_t n,
                                                std::int32_t min_lines) {
  std::vector<const FileChange*> out;
  auto copy = [&](const FileChange& fc) {  // of one already taken
    return std::any_of(out.begin(), out.end(), [&](const FileChange* o) {
      return o->additions == fc.additions && o->deletions == fc.deletions &&
             o->path.substr(o->path.rfind('/') + 1) == fc.path.substr(fc.path.rfind('/') + 1);
    });
  };
  for (const FileChange& fc : c.change.files)
    if (fc.status == status && is_code_role(c.facts, fc.path) && !copy(fc) &&
        std::max(fc.additions, fc.deletions) >= min_lines)
      out.push_back(&fc);
  std::stable_sort(out.begin(), out.end(), [](const FileChange* a, const FileChange* b) {
    return std::max(a->additions, a->deletions) > std::max(b->additions, b->deletions);
  });
  if (out.size() > n) out.resize(n);
  return out;
}

}  // namespace mergelens::guide_detail
