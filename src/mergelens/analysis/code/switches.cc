// The registry of a tree's switches and the probe of a change around an
// edit of it (see switches.h); the declarations are read by switch_scan.cc.
#include "mergelens/analysis/code/switches.h"

#include <algorithm>
#include <cctype>
#include <tuple>

#include <re2/re2.h>

#include "mergelens/analysis/code/code_text.h"

namespace mergelens {
namespace {

using signal_internal::Cap;

#include "mergelens/analysis/code/switch_text.inc"

int origin_rank(std::string_view o) {
  static constexpr std::string_view kOrder[] = {"registry",    "field",        "argparse",
                                                "config_read", "read_default", "read"};
  for (size_t i = 0; i < std::size(kOrder); ++i)
    if (o == kOrder[i]) return static_cast<int>(i);
  return 9;
}

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

void SwitchRegistry::set_file(const std::string& path, std::string_view content) {
  if (!switch_scan_tracks(path)) return;
  remove_file(path);
  auto decls = scan_switches(path, content);
  if (decls.empty()) return;
  const auto& [key, stored] = *by_path_.emplace(path, std::move(decls)).first;
  for (std::uint32_t i = 0; i < stored.size(); ++i) {
    auto& refs = by_name_[stored[i].name];
    // After every declaration of an earlier path or of an earlier line here.
    auto at = std::partition_point(refs.begin(), refs.end(), [&](const DeclRef& r) {
      return *r.path < key || (r.path == &key && r.index < i);
    });
    refs.insert(at, DeclRef{&key, &stored, i});
  }
}

void SwitchRegistry::remove_file(const std::string& path) {
  auto it = by_path_.find(path);
  if (it == by_path_.end()) return;
  const std::string* key = &it->first;
  for (const auto& d : it->second) {
    auto n = by_name_.find(d.name);
    if (n == by_name_.end()) continue;
    std::erase_if(n->second, [&](const DeclRef& r) { return r.path == key; });
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
  for (const auto& r : it->second) out.push_back((*r.file)[r.index]);
  std::stable_sort(out.begin(), out.end(), decl_before);
  return out;
}

const SwitchDecl* SwitchRegistry::primary(std::string_view name, bool fields_only) const {
  auto it = by_name_.find(name);
  if (it == by_name_.end()) return nullptr;
  const SwitchDecl* best = nullptr;  // the first least one: lookup()'s front
  for (const auto& r : it->second) {
    const SwitchDecl& d = (*r.file)[r.index];
    if ((!fields_only || d.origin == "field") && (!best || decl_before(d, *best))) best = &d;
  }
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
    // Two declarations (a registry entry, a field, an option) compare; a
    // read (`os.getenv("X", 0)`) compares only with a read of the same file
    // that states a default too: the primary read moving from a test's
    // `os.environ.pop("X", None)` to the code's `os.getenv("X")` changes
    // which read is shown, not the default.
    auto declared = [](const SwitchSide& s) {
      return origin_rank(s.origin) <= origin_rank("argparse");
    };
    const bool comparable =
        (declared(f.before) && declared(f.after)) ||
        (f.before.path == f.after.path && f.before.has_default && f.after.has_default);
    f.default_changed =
        f.before.exists && f.after.exists && comparable &&
        (f.before.has_default != f.after.has_default ||
         norm_default(f.before.default_value) != norm_default(f.after.default_value));
    f.change = !f.before.exists    ? "added"
               : !f.after.exists   ? "removed"
               : f.default_changed ? "default_changed"
               : edited.count(n)   ? "redeclared"
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

void mark_unread_switches(
    std::vector<SwitchFact>& switches,
    const std::function<std::optional<std::string>(const std::string& path)>& read) {
  static const RE2 assign(R"re(^(\s*)([A-Za-z_]\w*)\s*(?::[^=]*)?=[^=])re");
  std::map<std::string, std::optional<std::string>> files;  // each read once
  for (auto& sw : switches) {
    // Only a read's value can be stored away: a registry entry, a field or an
    // option is read through its own name elsewhere.
    if (!sw.after.exists || sw.after.path.empty() || sw.after.line <= 0 || !read ||
        !(sw.after.origin.starts_with("read") || sw.after.origin == "config_read"))
      continue;
    auto it = files.find(sw.after.path);
    if (it == files.end()) {
      std::optional<std::string> content;
      try {
        content = read(sw.after.path);
      } catch (...) {
      }
      it = files.emplace(sw.after.path, std::move(content)).first;
    }
    if (!it->second) continue;
    const std::string& text = *it->second;
    // The declaring line.
    size_t pos = 0;
    for (std::int32_t n = 1; n < sw.after.line && pos != std::string::npos; ++n) {
      pos = text.find('\n', pos);
      if (pos != std::string::npos) ++pos;
    }
    if (pos == std::string::npos) continue;
    const size_t end = std::min(text.find('\n', pos), text.size());
    const std::string_view line(text.data() + pos, end - pos);
    Cap indent, name;
    if (!RE2::PartialMatch(line, assign, &indent, &name)) continue;
    if (indent.empty() && !name.starts_with("_")) continue;  // others may import it
    if (!indent.empty()) {  // a local of a function, not a class attribute
      std::string_view above(text.data(), pos);
      bool in_function = false;
      while (!above.empty()) {
        const size_t nl = above.rfind('\n', above.size() - 1);
        const std::string_view prev = nl == std::string_view::npos ? above : above.substr(nl + 1);
        above = nl == std::string_view::npos ? std::string_view() : above.substr(0, nl);
        const size_t ind = prev.find_first_not_of(" \t");
        if (ind == std::string_view::npos || ind >= indent.size() || prev[ind] == '#') continue;
        const std::string_view head = prev.substr(ind);
        in_function = head.starts_with("def ") || head.starts_with("async def ");
        break;
      }
      if (!in_function) continue;
    }
    if (line.find(sw.name) == std::string_view::npos) continue;  // the read is not on this line
    const RE2 word("\\b" + RE2::QuoteMeta(name) + "\\b");
    re2::StringPiece before(text.data(), pos), after(text.data() + end, text.size() - end);
    sw.unread = !RE2::PartialMatch(before, word) && !RE2::PartialMatch(after, word);
  }
}

}  // namespace mergelens
