// The fates of the definitions a change removes, adds or re-signs, read on a
// parser's tags at the parent and at the merge (see DefinitionFate in
// context.h), and their application to the outline's definitions.
#include <algorithm>
#include <cctype>
#include <set>
#include <tuple>

#include <re2/re2.h>

#include "mergelens/analysis/code/code_text.h"
#include "mergelens/analysis/code/context.h"

namespace mergelens {
namespace {

using signal_internal::Cap;

bool definition_kind(std::string_view k) {
  return k == "function" || k == "method" || k == "class" || k == "struct";
}

bool callable_kind(std::string_view k) {
  return k == "function" || k == "method";
}

// The function or method of `tags` that holds a definition scoped `scope`
// ("" when its scope is a class or the file).
std::string enclosing_callable(const std::vector<CodeTag>& tags, const std::string& scope) {
  if (scope.empty()) return "";
  for (const auto& t : tags)
    if (t.qualified() == scope && callable_kind(t.kind)) return scope;
  return "";
}

// The names a '+' line may define: after def/class/struct, or before '('.
const RE2& defined_name_pattern() {
  static const RE2* re =
      new RE2(R"re((?:\b(?:def|class|struct)\s+([A-Za-z_]\w*))|(?:\b([A-Za-z_]\w*)\s*\())re",
              signal_internal::latin1());
  return *re;
}

// One parameter of a list: its name (annotation and default dropped) and
// whether it has a default; "*" and "/" markers are kept as names.
struct Param {
  std::string name;
  bool has_default = false;
};

std::optional<std::vector<Param>> params_of(std::string_view sig) {
  const size_t open = sig.find('(');
  if (open == std::string_view::npos || sig.find(')', open) == std::string_view::npos)
    return std::nullopt;
  std::vector<Param> out;
  for (std::string_view p : signal_internal::call_args(sig, open)) {
    if (p.empty()) continue;  // a trailing comma
    const size_t eq = p.find('=');
    std::string_view head = p.substr(0, eq);
    if (const size_t colon = head.find(':'); colon != std::string_view::npos)
      head = head.substr(0, colon);  // a Python annotation
    while (!head.empty() && std::isspace(static_cast<unsigned char>(head.back())))
      head.remove_suffix(1);
    // The last identifier (C++: "const Foo& x" -> "x"), with a leading * or **.
    size_t b = head.size();
    while (b > 0 && (std::isalnum(static_cast<unsigned char>(head[b - 1])) || head[b - 1] == '_'))
      --b;
    std::string name(head.substr(b));
    const std::string_view before = head.substr(0, b);
    if (before.ends_with("**"))
      name = "**" + name;
    else if (before.ends_with("*") && before.find_first_not_of(" *") == std::string_view::npos)
      name = "*" + name;
    out.push_back({name.empty() ? std::string(head) : name, eq != std::string_view::npos});
  }
  return out;
}

// Whether one of `lines` (ascending) falls in the header of definition `t`:
// from its name's line over the next lines of a parameter list (at most 20,
// not past its end). The diff's outline calls a definition removed or added
// when a changed line falls there.
bool in_header(const std::vector<std::int32_t>& lines, const CodeTag& t) {
  const std::int32_t last = std::min(std::max(t.end, t.line), t.line + 20);
  auto it = std::lower_bound(lines.begin(), lines.end(), t.line);
  return it != lines.end() && *it <= last;
}

}  // namespace

bool signature_compatible(std::string_view before, std::string_view after) {
  auto a = params_of(before), b = params_of(after);
  if (!a || !b || b->size() < a->size()) return false;
  for (size_t i = 0; i < a->size(); ++i) {
    if ((*a)[i].name != (*b)[i].name) return false;
    if ((*a)[i].has_default && !(*b)[i].has_default) return false;
  }
  for (size_t i = a->size(); i < b->size(); ++i) {
    const auto& p = (*b)[i];
    if (!p.has_default && !p.name.starts_with("*") && p.name != "/") return false;
  }
  return true;
}

void ContextProbe::note_definitions(const SymbolIndex& parent) {
  std::set<std::string, std::less<>> looked;  // names looked up, at most 512
  for (const auto& f : change_.files) {
    if (f.binary) continue;
    const std::string& old = f.old_path.empty() ? f.path : f.old_path;
    const auto* tags = f.status == FileStatus::kAdded ? nullptr : parent.in_file(old);
    std::vector<std::int32_t> removed_lines;  // ascending
    for (const auto& h : f.hunks)
      for (const auto& l : h.lines) {
        if (l.origin == '-' && l.old_no > 0) removed_lines.push_back(l.old_no);
        if (l.origin != '+' || looked.size() >= 512) continue;
        re2::StringPiece in(l.text.data(), l.text.size());
        Cap def, call;
        while (looked.size() < 512 &&
               RE2::FindAndConsume(&in, defined_name_pattern(), &def, &call)) {
          std::string_view n = def.empty() ? std::string_view(call) : std::string_view(def);
          if (n.size() < 3 || !looked.emplace(n).second) continue;
          for (const auto& [p, t] : parent.lookup(n))
            if (definition_kind(t->kind)) {
              auto [at, fresh] = parent_named_.try_emplace(t->qualified());
              if (fresh)
                at->second.path = *p;
              else if (at->second.path != *p)
                at->second.elsewhere_too = true;
            }
        }
      }
    if (!tags) continue;
    std::sort(removed_lines.begin(), removed_lines.end());
    for (const auto& t : *tags)
      if (definition_kind(t.kind) && in_header(removed_lines, t))
        removed_.push_back({f.path, t, enclosing_callable(*tags, t.scope)});
  }
}

std::vector<DefinitionFate> ContextProbe::fates(const SymbolIndex& merge) const {
  std::vector<DefinitionFate> out;
  for (const auto& r : removed_) {
    DefinitionFate d{r.path, r.tag.qualified(), '-', "gone", r.enclosing, false};
    const auto* now = merge.in_file(r.path);
    const CodeTag* same = nullptr;
    if (now)
      for (const auto& t : *now)
        if (definition_kind(t.kind) && t.qualified() == d.name) same = &t;
    if (!r.enclosing.empty()) {
      d.fate = "nested";
    } else if (same) {
      d.fate = "kept";
      d.compatible = signature_compatible(r.tag.signature, same->signature);
    } else {
      const auto all = merge.lookup(r.tag.name);
      if (std::any_of(all.begin(), all.end(), [&](const auto& pt) {
            return *pt.first != r.path && pt.second->qualified() == d.name;
          })) {
        d.fate = "moved";
      } else if (r.tag.kind == "method" && now) {
        // The class at the merge names its bases: "class C(Base):".
        for (const auto& t : *now)
          if (t.qualified() == r.tag.scope && (t.kind == "class" || t.kind == "struct")) {
            const auto bases = base_names(t.bases);
            for (const auto& [p, m] : all)
              if (m->kind == "method" && !m->scope.empty() && m->scope != r.tag.scope &&
                  std::find(bases.begin(), bases.end(), last_part(m->scope)) != bases.end())
                d.fate = "inherited";
            break;
          }
      }
    }
    if (d.fate != "gone") out.push_back(std::move(d));  // the outline's own reading
  }
  for (const auto& f : change_.files) {
    if (f.binary || f.status == FileStatus::kDeleted) continue;
    const auto* now = merge.in_file(f.path);
    if (!now) continue;
    std::vector<std::int32_t> added_lines;  // ascending
    for (const auto& h : f.hunks)
      for (const auto& l : h.lines)
        if (l.origin == '+' && l.new_no > 0) added_lines.push_back(l.new_no);
    std::sort(added_lines.begin(), added_lines.end());
    auto was = parent_defs_.find(f.path);
    const std::string& old = f.old_path.empty() ? f.path : f.old_path;
    for (const auto& t : *now) {
      if (!definition_kind(t.kind)) continue;
      const std::string q = t.qualified();
      const CodeTag* before = nullptr;
      if (was != parent_defs_.end())
        if (auto it = was->second.find(q); it != was->second.end()) before = &it->second;
      if (in_header(added_lines, t)) {
        DefinitionFate d{f.path, q, '+', "new", enclosing_callable(*now, t.scope), false};
        if (!d.enclosing.empty()) {
          d.fate = "nested";
        } else if (before) {
          d.fate = "kept";
          d.compatible = signature_compatible(before->signature, t.signature);
        } else {
          // Named at the parent in a file other than its old one.
          if (auto it = parent_named_.find(q);
              it != parent_named_.end() && (it->second.elsewhere_too || it->second.path != old))
            d.fate = "moved";
        }
        if (d.fate != "new") out.push_back(std::move(d));  // the outline's own reading
      } else if (before && callable_kind(t.kind) && before->signature != t.signature) {
        out.push_back(
            {f.path, q, '=', "resigned", "", signature_compatible(before->signature, t.signature)});
      }
    }
  }
  std::sort(out.begin(), out.end(), [](const DefinitionFate& a, const DefinitionFate& b) {
    return std::tie(a.path, a.side, a.name) < std::tie(b.path, b.side, b.name);
  });
  return out;
}

void apply_definition_fates(const std::vector<DefinitionFate>& fates,
                            std::vector<Definition>& definitions, std::vector<Signal>& signals) {
  // The fate of `d` on `side`: the same qualified name, else the only one of
  // its last part in the file.
  auto find = [&](const Definition& d, char side) -> const DefinitionFate* {
    const DefinitionFate* only = nullptr;
    int n = 0;
    for (const auto& f : fates) {
      if (f.side != side || f.path != d.at.path) continue;
      if (f.name == d.name) return &f;
      if (last_part(f.name) == last_part(d.name)) {
        only = &f;
        ++n;
      }
    }
    return n == 1 ? only : nullptr;
  };
  std::vector<Definition> out;
  std::set<std::string> listed;  // names not removed, as kept
  for (const auto& d : definitions)
    if (d.change != "removed") listed.insert(d.name);
  std::set<std::string> no_longer_removed;
  for (auto d : definitions) {
    const char side = d.change == "removed" ? '-' : d.change == "added" ? '+' : '=';
    const DefinitionFate* f =
        side == '=' ? (d.change == "signature_changed" ? find(d, '=') : nullptr) : find(d, side);
    if (side == '=' && d.change == "signature_changed" && !f) {
      // Its own line may be the changed one: a '+' fate "kept" carries it,
      // a "nested" one says no caller outside its function sees it.
      f = find(d, '+');
      if (f && f->fate != "kept" && f->fate != "nested") f = nullptr;
      if (f && f->fate == "nested") {
        if (listed.insert(f->enclosing).second) {
          const bool method = f->enclosing.find('.') != std::string::npos;
          out.push_back({f->enclosing, method ? "method" : "function", "modified", d.at, false});
        }
        continue;
      }
    }
    if (!f) {
      out.push_back(std::move(d));
      continue;
    }
    if (side == '-') no_longer_removed.insert(d.name);
    if (side == '=') {
      d.compatible = f->compatible;
      out.push_back(std::move(d));
    } else if (f->fate == "nested") {
      if (!listed.count(f->enclosing) && listed.insert(f->enclosing).second) {
        const bool method = f->enclosing.find('.') != std::string::npos;
        out.push_back({f->enclosing, method ? "method" : "function", "modified", d.at, false});
      }
    } else if (f->fate == "kept") {
      if (side == '-' && listed.count(d.name)) continue;  // its new side is listed
      if (side == '-') listed.insert(d.name);
      d.change = "modified";
      out.push_back(std::move(d));
    } else if (f->fate == "moved" || f->fate == "inherited") {
      d.change = f->fate;
      out.push_back(std::move(d));
    } else {
      if (side == '-') no_longer_removed.erase(d.name);
      out.push_back(std::move(d));
    }
  }
  definitions = std::move(out);
  std::erase_if(signals, [&](const Signal& s) {
    return s.kind == "dead_code_removed" && no_longer_removed.count(s.detail);
  });
}

void mark_extracted_helpers(std::vector<Definition>& definitions, std::vector<Signal>& signals) {
  // The bare name: the last component, leading underscores dropped.
  auto bare = [](std::string_view n) {
    const size_t cut = n.find_last_of(":.");
    if (cut != std::string_view::npos) n = n.substr(cut + 1);
    while (!n.empty() && n.front() == '_') n.remove_prefix(1);
    return n;
  };
  auto callable = [](const Definition& d) { return d.kind == "function" || d.kind == "method"; };
  for (auto& added : definitions) {
    if (added.change != "added" || !callable(added) || bare(added.name).size() < 4) continue;
    for (auto& removed : definitions) {
      if ((removed.change != "removed" && removed.change != "moved") || !callable(removed) ||
          (removed.name == added.name && removed.at.path == added.at.path) ||
          bare(removed.name) != bare(added.name))
        continue;
      added.change = "moved";
      if (removed.change == "removed") removed.change = "moved";
      std::erase_if(signals, [&](const Signal& x) {
        return x.kind == "dead_code_removed" && x.detail == removed.name;
      });
      break;
    }
  }
}

namespace {

// The words of a test's bare name after "test": "test_keys_basic" → {keys, basic}.
std::vector<std::string_view> test_words(std::string_view bare) {
  std::vector<std::string_view> out;
  bare.remove_prefix(4);  // "test"
  size_t i = 0;
  while (i < bare.size()) {
    while (i < bare.size() && bare[i] == '_') ++i;
    size_t e = i;
    while (e < bare.size() && bare[e] != '_') ++e;
    if (e > i) out.push_back(bare.substr(i, e - i));
    i = e;
  }
  return out;
}

// How many leading words two tests' names share when they are alike (one
// name's words lead the other's, or at least two in common), else 0.
size_t alike(const std::vector<std::string_view>& a, const std::vector<std::string_view>& b) {
  size_t n = 0;
  while (n < a.size() && n < b.size() && a[n] == b[n]) ++n;
  if (n == 0) return 0;
  return n == a.size() || n == b.size() || n >= 2 ? n : 0;
}

std::string_view container_of(std::string_view name) {
  const size_t p = name.find_last_of(":.");
  return p == std::string_view::npos ? std::string_view() : name.substr(0, p);
}

}  // namespace

void mark_replaced_tests(std::vector<Definition>& definitions,
                         const std::map<std::string, FileRole>& roles) {
  auto is_test = [&](const Definition& d) {
    if (!callable_kind(d.kind) || !last_part(d.name).starts_with("test")) return false;
    auto it = roles.find(d.at.path);
    return it != roles.end() && it->second == FileRole::kTest;
  };
  std::vector<size_t> added;
  for (size_t i = 0; i < definitions.size(); ++i)
    if (definitions[i].change == "added" && is_test(definitions[i])) added.push_back(i);
  if (added.empty()) return;
  for (const Definition& r : definitions) {
    if (r.change != "removed" || !is_test(r)) continue;
    const auto rw = test_words(last_part(r.name));
    size_t best = SIZE_MAX, best_n = 0, alone = SIZE_MAX, in_class = 0;
    for (size_t i : added) {
      const Definition& a = definitions[i];
      if (a.at.path != r.at.path) continue;
      if (const size_t n = alike(test_words(last_part(a.name)), rw); n > best_n) {
        best = i;
        best_n = n;
      }
      if (!container_of(r.name).empty() && container_of(a.name) == container_of(r.name)) {
        alone = i;
        ++in_class;
      }
    }
    const size_t to = best != SIZE_MAX ? best : in_class == 1 ? alone : SIZE_MAX;
    if (to != SIZE_MAX) definitions[to].replaces.push_back(r.name);
  }
}

}  // namespace mergelens
