// The "attribute" items of the context resolver (see context.h): where the
// attributes that a change's added Python lines read are set, in the class
// of the edited method or the bases it inherits, and where an attribute read
// on another object (`layer.w13_bias`) is set in the same file. A reader who
// doubts "is `self.stored_requests` created anywhere?" or "what dtype does
// `layer.scale_bias` have?" finds the answer there, not in the diff.
#include <algorithm>
#include <cctype>
#include <set>

#include <fmt/format.h>
#include <re2/re2.h>

#include "mergelens/analysis/code/code_text.h"
#include "mergelens/analysis/code/context.h"
#include "mergelens/analysis/code/import_graph.h"

namespace mergelens {
namespace {

using signal_internal::Cap;

constexpr size_t kMaxWanted = 16;      // reads looked up per change, of self and of others
constexpr size_t kMaxItems = 8;        // attribute items per change
constexpr int kMaxBaseDepth = 3;       // bases followed up from the edited class
constexpr std::int32_t kMaxSpan = 40;  // lines of one statement shown

// The lines of `text`, 0-based (views into it).
std::vector<std::string_view> lines_of(const std::string& text) {
  std::vector<std::string_view> out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    out.emplace_back(text.data() + pos, nl - pos);
    pos = nl + 1;
  }
  return out;
}

// The first line past the statement starting at `from` (0-based): while a
// bracket stays open, at most kMaxSpan lines.
size_t statement_end(const std::vector<std::string_view>& lines, size_t from) {
  int depth = 0;
  size_t i = from;
  for (; i < lines.size() && i < from + kMaxSpan; ++i) {
    for (char c : code_of(lines[i])) {
      if (c == '(' || c == '[' || c == '{') ++depth;
      if (c == ')' || c == ']' || c == '}') --depth;
    }
    if (depth <= 0) return i + 1;
  }
  return i;
}

// Whether `line` assigns `receiver.attr` as a statement's target: `x.attr
// = ...`, `x.attr: T = ...`, a bare `x.attr: T`, or one target of a tuple
// (`a.m, x.attr = f()`); never `==`, `+=`, nor a read that only looks like
// one (`f"{x.attr=}"`, `with x.attr:`).
bool assigns(std::string_view line, std::string_view attr, std::string_view receiver) {
  // Before the target: indentation, then other targets of a tuple.
  static const RE2 kTargetsBefore(R"re(^\s*(?:[\w.]+\s*,\s*)*$)re", signal_internal::latin1());
  // After it: more targets of the tuple, then one `=`.
  static const RE2 kTargetsAfter(R"re(^\s*,\s*(?:[\w.]+\s*,\s*)*(?:[\w.]+\s*)?=(?:[^=]|$))re",
                                 signal_internal::latin1());
  const std::string_view code = code_of(line);
  size_t at = 0;
  while ((at = code.find(attr, at)) != std::string_view::npos) {
    const size_t end = at + attr.size();
    const bool dot = at > 0 && code[at - 1] == '.';
    const bool word_end =
        end >= code.size() ||
        !(std::isalnum(static_cast<unsigned char>(code[end])) || code[end] == '_');
    at = end;
    if (!dot || !word_end) continue;
    // The receiver: the name before the dot.
    size_t r = end - attr.size() - 1;
    size_t b = r;
    while (b > 0 && (std::isalnum(static_cast<unsigned char>(code[b - 1])) || code[b - 1] == '_'))
      --b;
    if (code.substr(b, r - b) != receiver) continue;
    const std::string_view before = code.substr(0, b);
    const bool alone = before.find_first_not_of(" \t") == std::string_view::npos;
    if (!alone && !RE2::FullMatch(re2::StringPiece(before.data(), before.size()), kTargetsBefore))
      continue;
    size_t k = end;
    while (k < code.size() && code[k] == ' ') ++k;
    if (k < code.size() && code[k] == ':' && alone) {  // an annotation up to its `=`
      k = code.find('=', k);
      if (k == std::string_view::npos) return true;  // declared, `self.x: int`
    }
    if (k < code.size() && code[k] == '=' && (k + 1 >= code.size() || code[k + 1] != '='))
      return true;
    const std::string_view after = code.substr(end);
    if (k < code.size() && code[k] == ',' &&
        RE2::PartialMatch(re2::StringPiece(after.data(), after.size()), kTargetsAfter))
      return true;
  }
  return false;
}

// Whether `line` registers `attr` on `receiver` by name:
// `receiver.register_parameter("attr", p)`, `receiver.register_buffer(...)`,
// `setattr(receiver, "attr", ...)`.
bool registers(std::string_view line, std::string_view attr, std::string_view receiver) {
  if (line.find(fmt::format("{}.register_parameter(", receiver)) == std::string_view::npos &&
      line.find(fmt::format("{}.register_buffer(", receiver)) == std::string_view::npos &&
      line.find(fmt::format("setattr({},", receiver)) == std::string_view::npos)
    return false;
  return line.find(fmt::format("\"{}\"", attr)) != std::string_view::npos ||
         line.find(fmt::format("'{}'", attr)) != std::string_view::npos;
}

// Whether `line` stores a tensor under the key "attr" (`params["attr"] =
// torch.empty(..., dtype=...)`): how a quantization method declares the
// parameters its caller then registers on the layer by those names. Only a
// tensor or parameter made right there: any other dict (`kwargs["x"] = 3`)
// is some call's arguments, not the object read.
bool keyed(std::string_view line, std::string_view attr) {
  const std::string_view code = code_of(line);
  for (const std::string& key : {fmt::format("[\"{}\"]", attr), fmt::format("['{}']", attr)}) {
    size_t at = code.find(key);
    if (at == std::string_view::npos) continue;
    size_t k = code.find_first_not_of(' ', at + key.size());
    if (k == std::string_view::npos || code[k] != '=' ||
        (k + 1 < code.size() && code[k + 1] == '='))
      continue;
    const size_t v = code.find_first_not_of(' ', k + 1);
    if (v == std::string_view::npos) continue;
    const std::string_view value = code.substr(v);
    for (std::string_view maker : {"torch.", "nn.", "Parameter(", "ModelWeightParameter("})
      if (value.starts_with(maker)) return true;
  }
  return false;
}

// For a registration `register_parameter("a", v)`, the line (0-based, at
// most 12 lines up and after `floor`) where `v` was assigned; `at` when none.
size_t registered_value_start(const std::vector<std::string_view>& lines, size_t at, size_t floor) {
  static const RE2 kArg(R"re(register_(?:parameter|buffer)\(\s*["']\w+["']\s*,\s*(\w+)\s*\))re",
                        signal_internal::latin1());
  Cap value;
  const std::string_view l = lines[at];
  if (!RE2::PartialMatch(re2::StringPiece(l.data(), l.size()), kArg, &value)) return at;
  for (size_t i = at; i > floor && at - i < 12;) {
    --i;
    const std::string_view c = code_of(lines[i]);
    const size_t lead = c.find_first_not_of(" \t");
    if (lead == std::string_view::npos) continue;
    std::string_view s = c.substr(lead);
    if (s.starts_with(value) &&
        s.substr(value.size()).find_first_not_of(' ') != std::string_view::npos &&
        s.substr(value.size())[s.substr(value.size()).find_first_not_of(' ')] == '=')
      return i;
  }
  return at;
}

}  // namespace

std::vector<std::string> base_names(std::string_view bases) {
  std::vector<std::string> out;
  int depth = 0;
  std::string cur;
  auto push = [&] {
    std::string_view n = cur;
    n.remove_prefix(std::min(n.find_first_not_of(" \t"), n.size()));
    while (!n.empty() && n.back() == ' ') n.remove_suffix(1);
    if (const size_t sq = n.find('['); sq != std::string_view::npos) n = n.substr(0, sq);
    for (std::string_view access : {"public ", "protected ", "private ", "virtual "})
      if (n.starts_with(access)) n.remove_prefix(access.size());
    if (const size_t dot = n.rfind('.'); dot != std::string_view::npos) n.remove_prefix(dot + 1);
    if (const size_t colons = n.rfind("::"); colons != std::string_view::npos)
      n.remove_prefix(colons + 2);
    if (!n.empty() && n.find('=') == std::string_view::npos && n != "object") out.emplace_back(n);
    cur.clear();
  };
  for (char c : bases) {
    if (c == '[' || c == '(' || c == '<') ++depth;
    if (c == ']' || c == ')' || c == '>') --depth;
    if (c == ',' && depth == 0) {
      push();
      continue;
    }
    cur += c;
  }
  push();
  return out;
}

void ContextProbe::add_attributes(
    std::vector<ContextItem>& out, const SymbolIndex& merge, const ImportGraph& graph,
    const MergeReader& read, std::map<std::string, std::optional<std::string>>& files_read) const {
  if (!read) return;
  // Lines this change adds, per path at the merge: a site there is shown by
  // the diff (and ends the search: the change itself sets the attribute).
  std::map<std::string, std::set<std::int32_t>> added;
  for (const auto& f : change_.files)
    for (const auto& h : f.hunks)
      for (const auto& l : h.lines)
        if (l.origin == '+' && l.new_no > 0) added[f.path].insert(l.new_no);
  auto in_diff = [&](const std::string& path, std::int32_t first, std::int32_t last) {
    auto it = added.find(path);
    if (it == added.end()) return false;
    auto at = it->second.lower_bound(first);
    return at != it->second.end() && *at <= last;
  };
  // Each file's lines, split once (views into files_read, which outlives them).
  std::map<std::string, std::optional<std::vector<std::string_view>>> file_lines;
  auto lines_in =
      [&](const std::string& path) -> const std::optional<std::vector<std::string_view>>& {
    auto it = file_lines.find(path);
    if (it != file_lines.end()) return it->second;
    auto f = files_read.find(path);
    if (f == files_read.end()) f = files_read.emplace(path, read(path)).first;
    std::optional<std::vector<std::string_view>> lines;
    if (f->second) lines = lines_of(*f->second);
    return file_lines.emplace(path, std::move(lines)).first->second;
  };
  auto class_tag = [&](const std::string& path, const std::string& qualified) -> const CodeTag* {
    if (const auto* tags = merge.in_file(path))
      for (const auto& t : *tags)
        if ((t.kind == "class" || t.kind == "struct") && t.qualified() == qualified) return &t;
    return nullptr;
  };

  // The attributes read on added lines: (path, class or "" for another
  // object's, name, place), in order of first read.
  struct Wanted {
    std::string path, cls, receiver, attr, at;
  };
  std::vector<Wanted> wanted, others;  // `self.x` reads first, then other objects'
  std::set<std::string> seen;
  static const RE2 kRead(R"re((?:^|[^\w.])(\w+)\.([A-Za-z_]\w*))re", signal_internal::latin1());
  for (const auto& f : change_.files) {
    // A test's own attributes (set in its setUp) settle no reader's doubt
    // about the change; they would take the room of the code's.
    if (f.binary || !f.path.ends_with(".py") || f.path.find("test") != std::string::npos) continue;
    for (const auto& h : f.hunks)
      for (const auto& l : h.lines) {
        if (l.origin != '+' || l.new_no <= 0) continue;
        const std::string_view code = code_of(l.text);
        if (code.find('.') == std::string_view::npos) continue;
        re2::StringPiece in(code.data(), code.size());
        Cap receiver, attr;
        while (RE2::FindAndConsume(&in, kRead, &receiver, &attr)) {
          // What follows: a call is a method (the "called" items), an
          // assignment sets it here.
          const size_t after = static_cast<size_t>(attr.data() + attr.size() - code.data());
          const size_t k = code.find_first_not_of(' ', after);
          if (k != std::string_view::npos &&
              (code[k] == '(' || (code[k] == '=' && (k + 1 >= code.size() || code[k + 1] != '='))))
            continue;
          if (attr.size() < 3 || attr.starts_with("__")) continue;
          std::string cls;
          if (receiver == "self") {
            const CodeTag* m = merge.enclosing(f.path, l.new_no);
            if (!m || m->kind != "method" || m->scope.empty()) continue;
            cls = m->scope;
          } else if (receiver == "cls" || std::isupper(static_cast<unsigned char>(receiver[0]))) {
            continue;  // a class's or module's own name: the other items
          }
          const std::string key =
              f.path + '\n' + cls + '\n' + std::string(receiver) + '\n' + std::string(attr);
          auto& list = cls.empty() ? others : wanted;
          if (list.size() >= kMaxWanted || !seen.insert(key).second) continue;
          list.push_back({f.path, cls, std::string(receiver), std::string(attr),
                          fmt::format("{}:{}", f.path, l.new_no)});
        }
      }
  }

  wanted.insert(wanted.end(), others.begin(), others.end());
  std::set<std::pair<std::string, std::int32_t>> held;  // (path, first line) already given
  for (const auto& it : out) held.emplace(it.path, it.start_line);
  std::vector<ContextItem> items;
  // The sites of `w.attr` in `path` between lines [first, last] (1-based),
  // as items (at most 2); how many were found. `self_only`: only
  // `self.attr = ` (a class's own); else `w.receiver`'s assignments and
  // registrations. Sets `*in_change` when a site is on a line the change adds.
  auto sites = [&](const Wanted& w, const std::string& path, const std::string& owner,
                   std::int32_t first, std::int32_t last, bool self_only, bool* in_change) {
    const std::string_view receiver = self_only ? std::string_view("self") : w.receiver;
    const auto& held_lines = lines_in(path);
    if (!held_lines) return size_t{0};
    const auto& lines = *held_lines;
    size_t found = 0;
    const std::int32_t end = std::min<std::int32_t>(last, static_cast<std::int32_t>(lines.size()));
    for (std::int32_t no = std::max(first, 1); no <= end && found < 2; ++no) {
      const std::string_view l = lines[static_cast<size_t>(no - 1)];
      if (l.find(w.attr) == std::string_view::npos) continue;
      const bool reg = !self_only && registers(l, w.attr, receiver);
      if (!reg && !assigns(l, w.attr, receiver) && (self_only || !keyed(l, w.attr))) continue;
      const size_t stop = statement_end(lines, static_cast<size_t>(no - 1));
      size_t start = static_cast<size_t>(no - 1);
      if (reg) start = registered_value_start(lines, start, static_cast<size_t>(first - 1));
      const auto a = static_cast<std::int32_t>(start + 1), b = static_cast<std::int32_t>(stop);
      if (in_diff(path, a, b)) {
        *in_change = true;
        return found;
      }
      if (held.emplace(path, a).second)
        items.push_back({"attribute", owner.empty() ? w.attr : owner + "." + w.attr, "attribute",
                         path, a, std::max(a, b), "merge", "", w.at});
      ++found;
    }
    return found;
  };
  for (const auto& w : wanted) {
    if (items.size() >= kMaxItems) break;
    bool in_change = false;
    if (w.cls.empty()) {  // another object's attribute: set in this file
      sites(w, w.path, "", 1, 1 << 30, false, &in_change);
      continue;
    }
    // The class of the edited method, then its bases, breadth first.
    std::vector<std::pair<std::string, const CodeTag*>> level;
    if (const CodeTag* c = class_tag(w.path, w.cls)) level.emplace_back(w.path, c);
    std::set<std::pair<std::string, std::int32_t>> visited;
    for (int depth = 0; depth <= kMaxBaseDepth && !level.empty() && !in_change; ++depth) {
      size_t found = 0;
      std::vector<std::pair<std::string, const CodeTag*>> next;
      for (const auto& [path, c] : level) {
        if (!visited.emplace(path, c->line).second) continue;
        // A class-level declaration (`flag: bool = True`, a dataclass field).
        bool declared = false;
        if (const auto* tags = merge.in_file(path))
          for (const auto& t : *tags)
            if (t.kind == "variable" && t.name == w.attr && t.scope == c->qualified()) {
              // The whole declaration: `x: dict = Field(` may span lines.
              std::int32_t last = t.line;
              if (const auto& lines = lines_in(path); lines && t.line <= std::ssize(*lines))
                last = static_cast<std::int32_t>(
                    statement_end(*lines, static_cast<size_t>(t.line - 1)));
              if (in_diff(path, t.line, last)) {
                in_change = true;
              } else if (held.emplace(path, t.line).second) {
                items.push_back({"attribute", c->qualified() + "." + w.attr, "attribute", path,
                                 t.line, std::max(t.line, last), "merge", "", w.at});
              }
              declared = true;
              break;
            }
        if (in_change) break;
        found += declared;
        if (!declared) found += sites(w, path, c->qualified(), c->line, c->end, true, &in_change);
        if (in_change || found) break;
        for (const auto& base : base_names(c->bases)) {
          // The base as this file names it: here, else the one imported
          // file defining it, else the only definition outside tests.
          auto all = merge.lookup(base);
          std::erase_if(all, [](const auto& pt) {
            return pt.second->kind != "class" && pt.second->kind != "struct";
          });
          std::vector<std::string> imported;
          const DefinitionRef* pick = definition_meant(
              all, path, [&]() -> const auto& { return imported = graph.imports_of(path); });
          if (pick) next.emplace_back(*pick->first, pick->second);
        }
      }
      if (found) break;
      level = std::move(next);
    }
  }
  if (items.size() > kMaxItems) items.resize(kMaxItems);
  out.insert(out.end(), items.begin(), items.end());
}

}  // namespace mergelens
