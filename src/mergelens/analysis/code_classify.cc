// Statement-header classification for C/C++/CUDA, Rust, Go and
// JavaScript/TypeScript. Each classifier works on a view of the header and
// reports the name's offset in it, so the scanner can tell which line the
// name sits on. Anything unrecognised is an anonymous block: control flow,
// lambdas, initialisers, struct literals.
#include "mergelens/analysis/code_classify.h"

#include <algorithm>
#include <initializer_list>

#include "mergelens/analysis/code_outline.h"

namespace mergelens::outline_internal {
namespace {

constexpr size_t npos = std::string_view::npos;

bool one_of(std::string_view w, std::initializer_list<std::string_view> set) {
  return std::find(set.begin(), set.end(), w) != set.end();
}

size_t skip_sp(std::string_view t, size_t i) {
  while (i < t.size() && t[i] == ' ') ++i;
  return i;
}

std::string_view word_at(std::string_view t, size_t i) {
  size_t e = i;
  while (e < t.size() && is_ident_char(t[e])) ++e;
  return t.substr(i, e - i);
}

bool is_upper_macro(std::string_view w) {
  if (w.size() < 2) return false;
  bool letter = false;
  for (char c : w) {
    if (c >= 'A' && c <= 'Z')
      letter = true;
    else if (!(c >= '0' && c <= '9') && c != '_')
      return false;
  }
  return letter;
}

bool has_word(std::string_view t, std::string_view w) {
  for (size_t p = t.find(w); p != npos; p = t.find(w, p + 1)) {
    const bool left = p == 0 || !is_ident_char(t[p - 1]);
    const bool right = p + w.size() >= t.size() || !is_ident_char(t[p + w.size()]);
    if (left && right) return true;
  }
  return false;
}

// Position of the bracket closing the one at `open`, or npos.
size_t match_close(std::string_view t, size_t open) {
  const char o = t[open];
  const char c = o == '(' ? ')' : o == '[' ? ']' : o == '{' ? '}' : '>';
  int depth = 0;
  for (size_t i = open; i < t.size(); ++i) {
    if (t[i] == o) {
      ++depth;
    } else if (t[i] == c) {
      if (o == '<' && i > 0 && t[i - 1] == '-') continue;
      if (--depth == 0) return i;
    }
  }
  return npos;
}

// Offset of `sub` (a view into `text`) from the start of `text`.
size_t offset_in(std::string_view text, std::string_view sub) {
  return static_cast<size_t>(sub.data() - text.data());
}

HeaderClass def(std::string_view text, std::string_view name, std::string kind,
                std::string_view params, bool exported, bool container = false) {
  HeaderClass h;
  h.what = HeaderClass::kDef;
  h.name.assign(name);
  h.kind = std::move(kind);
  h.params = squeeze_params(params);
  h.name_pos = offset_in(text, name);
  h.exported = exported;
  h.container = container;
  return h;
}

// First top-level '=' that is an assignment (not ==, !=, <=, >=, =>).
size_t top_level_assign(std::string_view t, size_t from = 0) {
  int depth = 0;
  for (size_t i = from; i < t.size(); ++i) {
    const char c = t[i];
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') depth = std::max(0, depth - 1);
    if (c != '=' || depth > 0) continue;
    const char prev = i > 0 ? t[i - 1] : 0;
    const char next = i + 1 < t.size() ? t[i + 1] : 0;
    if (next == '=' || next == '>' || prev == '=' || prev == '!' || prev == '<' || prev == '>')
      continue;
    return i;
  }
  return npos;
}

// ---------------------------------------------------------------- C / C++ / CUDA

// The ':' that starts a constructor's member initialiser list: the first
// top-level single ':' after a top-level ')' ("Foo(int a) noexcept : a_(a)"),
// in a header that is not a class ("struct alignas(8) S : Base"). npos if none.
size_t ctor_init_colon(std::string_view t) {
  int depth = 0;
  bool closed = false;
  for (size_t i = 0; i < t.size(); ++i) {
    const char c = t[i];
    if (c == '<' && depth == 0) {
      const size_t e = match_close(t, i);
      if (e != npos) i = e;
      continue;
    }
    if (c == '(' || c == '[') ++depth;
    if (c == ')' || c == ']') closed = --depth == 0 || closed;
    if (depth == 0 && (i == 0 || !is_ident_char(t[i - 1])) &&
        one_of(word_at(t, i), {"class", "struct", "union", "enum"}))
      return npos;
    if (c == ':' && depth == 0 && closed) {
      const bool single = (i + 1 >= t.size() || t[i + 1] != ':') && (i == 0 || t[i - 1] != ':');
      if (single) return i;
      if (i + 1 < t.size() && t[i + 1] == ':') ++i;
    }
  }
  return npos;
}

// `t` without its <...> and (...) groups (template and attribute arguments),
// for character checks.
std::string strip_groups(std::string_view t) {
  std::string out;
  for (size_t i = 0; i < t.size(); ++i) {
    if ((t[i] == '<' && !(i > 0 && t[i - 1] == '<')) || t[i] == '(') {
      const size_t e = match_close(t, i);
      if (e != npos) {
        i = e;
        continue;
      }
    }
    out += t[i];
  }
  return out;
}

bool cpp_param_ok(std::string_view p) {
  p = trim(p);
  if (p.empty() || p == "void" || p == "...") return true;
  if (p.find("\"\"") != npos || p.find("''") != npos) return false;
  if (p.find_first_of(" *&:<") != npos) return true;
  if (one_of(p, {"int", "char", "bool", "float", "double", "long", "short", "unsigned", "size_t",
                 "int64_t", "int32_t", "uint32_t", "uint64_t", "int8_t", "uint8_t", "half"}))
    return true;
  return p[0] >= 'A' && p[0] <= 'Z';
}

// Parameters of a prototype: each is a type, or a type and a name.
bool cpp_params_ok(std::string_view params) {
  int depth = 0;
  size_t from = 0;
  for (size_t i = 0; i <= params.size(); ++i) {
    const char c = i < params.size() ? params[i] : ',';
    if (c == '(' || c == '<' || c == '[') ++depth;
    if (c == ')' || c == '>' || c == ']') --depth;
    if (c == ',' && depth <= 0) {
      if (!cpp_param_ok(params.substr(from, i - from))) return false;
      from = i + 1;
    }
  }
  return true;
}

HeaderClass classify_cpp(std::string_view text, const HeaderContext& ctx, bool decl) {
  HeaderClass block;
  std::string_view t = trim(text);
  for (;;) {
    t = trim(t);
    const std::string_view w = word_at(t, 0);
    if (one_of(w, {"public", "private", "protected", "signals", "slots", "Q_SLOTS"})) {
      const size_t p = skip_sp(t, w.size());
      if (p < t.size() && t[p] == ':' && (p + 1 >= t.size() || t[p + 1] != ':')) {
        t = t.substr(p + 1);
        continue;
      }
    }
    if (t.starts_with("[[")) {
      const size_t e = t.find("]]");
      if (e == npos) return block;
      t = t.substr(e + 2);
      continue;
    }
    if (w == "template" || w == "typedef" || w == "export") {
      size_t p = skip_sp(t, w.size());
      if (w == "template" && p < t.size() && t[p] == '<') {
        const size_t e = match_close(t, p);
        if (e == npos) return block;
        p = e + 1;
      }
      t = t.substr(p);
      continue;
    }
    // A bare macro before a template or namespace ("CUB_NAMESPACE_BEGIN template <...>").
    if (is_upper_macro(w) && one_of(word_at(t, skip_sp(t, w.size())), {"template", "namespace"})) {
      t = t.substr(w.size());
      continue;
    }
    if (w == "inline" && word_at(t, skip_sp(t, 6)) == "namespace") {
      t = t.substr(6);
      continue;
    }
    break;
  }
  if (t.empty()) return block;
  const std::string_view first = word_at(t, 0);
  if (one_of(first, {"if", "else", "for", "while", "do", "switch", "try", "catch", "return",
                     "case", "default", "goto", "throw", "co_return", "co_yield", "co_await",
                     "sizeof", "new", "delete", "static_assert", "using", "asm", "__asm__"}))
    return block;
  if (first == "namespace" || (first == "extern" && t.find("\"\"") != npos && t.size() < 16)) {
    if (decl) return block;
    HeaderClass ns;
    ns.what = HeaderClass::kNamespace;
    const std::string_view name = trim(t.substr(first.size()));
    ns.private_ns = first == "namespace" &&
                    (name.empty() || name.find("detail") != npos || name.find("internal") != npos);
    return ns;
  }
  if (t[0] == '[') return block;  // a lambda

  // class / struct / union / enum
  {
    size_t kp = npos;
    std::string_view kw;
    for (size_t i = 0; i < t.size(); ++i) {
      if (t[i] == '<') {  // template arguments may hold '=' and '('
        const size_t e = match_close(t, i);
        if (e == npos) break;
        i = e;
        continue;
      }
      if (t[i] == '(' || t[i] == '=') break;
      if (i > 0 && is_ident_char(t[i - 1])) continue;
      const std::string_view w = word_at(t, i);
      if (one_of(w, {"class", "struct", "union", "enum"})) {
        kp = i;
        kw = w;
        break;
      }
    }
    if (kp != npos) {
      size_t i = kp + kw.size();
      if (kw == "enum") {
        const size_t p = skip_sp(t, i);
        const std::string_view w2 = word_at(t, p);
        if (w2 == "class" || w2 == "struct") i = p + w2.size();
      }
      std::string_view name;
      bool function_like = false;
      while (i < t.size()) {
        i = skip_sp(t, i);
        if (i >= t.size()) break;
        const char c = t[i];
        if (c == ':' && (i + 1 >= t.size() || t[i + 1] != ':')) break;  // base clause
        if (c == '{' || c == '=') {
          function_like = c == '=';
          break;
        }
        if (t.substr(i, 2) == "[[") {
          const size_t e = t.find("]]", i);
          if (e == npos) break;
          i = e + 2;
          continue;
        }
        if (c == '<' && !name.empty()) {  // specialisation arguments
          const size_t e = match_close(t, i);
          if (e == npos) break;
          i = e + 1;
          continue;
        }
        if (is_ident_char(c) || c == ':') {
          size_t e = i;
          while (e < t.size() && (is_ident_char(t[e]) || t[e] == ':')) ++e;
          const std::string_view w = t.substr(i, e - i);
          const size_t after = skip_sp(t, e);
          if (after < t.size() && t[after] == '(') {
            if (!(is_upper_macro(w) || one_of(w, {"alignas", "__align__", "__attribute__",
                                                  "__declspec", "__aligned__"}))) {
              function_like = true;
              break;
            }
            const size_t close = match_close(t, after);
            if (close == npos) break;
            i = close + 1;
            continue;
          }
          if (w != "final" && !is_upper_macro(w)) name = w;
          else if (w != "final" && name.empty()) name = w;
          i = e;
          continue;
        }
        if (c == '(') {
          function_like = true;
          break;
        }
        ++i;  // '*', '&', ',' ...
      }
      if (!function_like) {
        if (decl || name.empty()) return block;
        const bool exported = ctx.cpp_header && !ctx.in_class && !ctx.in_function &&
                              !ctx.private_ns && name[0] != '_';
        return def(text, name, std::string(kw), {}, exported, kw != "enum");
      }
    }
  }

  // Initialisers and lambdas assigned to something are blocks; pure-virtual,
  // defaulted and deleted prototypes are declarations.
  if (const size_t eq = top_level_assign(t); eq != npos) {
    const std::string_view rhs = trim(t.substr(eq + 1));
    const size_t op = t.rfind("operator", eq);
    const bool is_operator = op != npos && trim(t.substr(op + 8, eq - op - 8)).size() <= 2;
    if (!is_operator) {
      if (!decl || !one_of(rhs, {"0", "default", "delete"})) return block;
      t = trim(t.substr(0, eq));
    }
  }

  // Cut a constructor's member initialiser list.
  bool ctor_init = false;
  if (const size_t colon = ctor_init_colon(t); colon != npos) {
    t = trim(t.substr(0, colon));
    ctor_init = true;
  }

  // Find the name and its parameter group.
  std::string_view name;
  size_t open = npos;
  bool macro = false;
  const size_t op = [&] {
    for (size_t p = t.find("operator"); p != npos; p = t.find("operator", p + 1))
      if ((p == 0 || !is_ident_char(t[p - 1])) &&
          (p + 8 >= t.size() || !is_ident_char(t[p + 8])))
        return p;
    return npos;
  }();
  if (op != npos) {
    size_t s = op;
    while (s > 0 && (is_ident_char(t[s - 1]) || t[s - 1] == ':')) --s;
    size_t p = skip_sp(t, op + 8);
    if (t.substr(p, 2) == "()") p += 2;
    open = t.find('(', p);
    if (open == npos) return block;
    name = t.substr(s, open - s);
    while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
  } else {
    struct Candidate {
      std::string_view ident;
      size_t open;
    };
    std::vector<Candidate> cands;
    int depth = 0, angle = 0, bracket = 0;
    for (size_t i = 0; i < t.size(); ++i) {
      const char c = t[i];
      if (c == '<') ++angle;
      if (c == '>' && angle > 0 && !(i > 0 && t[i - 1] == '-')) --angle;
      if (c == '[') ++bracket;
      if (c == ']' && bracket > 0) --bracket;
      if (c == ')') depth = std::max(0, depth - 1);
      if (c != '(') continue;
      if (depth++ > 0 || angle > 0 || bracket > 0) continue;
      size_t j = i;
      while (j > 0 && t[j - 1] == ' ') --j;
      if (j > 0 && t[j - 1] == '>') {
        int d = 0;
        while (j > 0) {
          --j;
          if (t[j] == '>') ++d;
          if (t[j] == '<' && --d == 0) break;
        }
        while (j > 0 && t[j - 1] == ' ') --j;
      }
      const size_t e = j;
      while (j > 0 && (is_ident_char(t[j - 1]) || t[j - 1] == ':' || t[j - 1] == '~')) --j;
      std::string_view ident = t.substr(j, e - j);
      while (ident.starts_with(":")) ident.remove_prefix(1);
      if (!ident.empty()) cands.push_back({ident, i});
    }
    auto last_part = [](std::string_view id) {
      const size_t c = id.rfind(':');
      return c == npos ? id : id.substr(c + 1);
    };
    for (const auto& c : cands) {
      const std::string_view lp = last_part(c.ident);
      if (lp.empty() || is_upper_macro(lp) ||
          one_of(lp, {"if", "while", "for", "switch", "return", "sizeof", "alignof", "decltype",
                      "noexcept", "throw", "requires", "alignas", "__attribute__", "__declspec",
                      "__launch_bounds__", "__align__", "static_assert", "void", "int", "char",
                      "bool", "float", "double", "auto", "const", "unsigned", "signed", "long",
                      "short", "typeof", "__typeof__", "catch", "defined"}))
        continue;
      name = c.ident;
      open = c.open;
      break;
    }
    if (name.empty()) {
      for (const auto& c : cands)
        if (is_upper_macro(c.ident)) {
          name = c.ident;
          open = c.open;
          macro = true;
          break;
        }
    }
  }
  if (name.empty() || open == npos) return block;
  const size_t close = match_close(t, open);
  if (close == npos) return block;
  const std::string_view params = t.substr(open + 1, close - open - 1);
  const std::string_view tail = trim(t.substr(close + 1));
  const std::string_view prefix = trim(t.substr(0, offset_in(t, name)));
  if (ctx.in_function && !ctx.in_class) return block;
  if (macro && prefix.empty()) {  // TEST(A, B) { ... }; with a return type it is a function
    if (ctx.in_class || decl) return block;
    // TEST(Suite, Name), TORCH_LIBRARY(ops, m): keep the leading identifier arguments.
    HeaderClass h = def(text, name, "function", {}, false);
    std::string args;
    size_t from = 0;
    int depth = 0;
    for (size_t i = 0; i <= params.size(); ++i) {
      const char c = i < params.size() ? params[i] : ',';
      if (c == '(' || c == '[' || c == '<') ++depth;
      if (c == ')' || c == ']' || c == '>') --depth;
      if (c != ',' || depth > 0) continue;
      const std::string_view arg = trim(params.substr(from, i - from));
      from = i + 1;
      bool ident = !arg.empty() && args.size() + arg.size() <= 60;
      for (char a : arg) ident = ident && (is_ident_char(a) || a == ':');
      if (!ident) break;
      args += (args.empty() ? "" : ", ") + std::string(arg);
    }
    if (!args.empty()) h.name = std::string(name) + "(" + args + ")";
    return h;
  }
  if (!tail.empty()) {
    const std::string_view tw = word_at(tail, 0);
    const bool ok = one_of(tw, {"const", "volatile", "override", "final", "noexcept", "mutable",
                                "throw", "requires", "try", "__attribute__"}) ||
                    is_upper_macro(tw) || tail[0] == '&' || tail.starts_with("->") ||
                    tail.starts_with("[[") || tail[0] == ':';
    if (!ok) return block;
  }
  if (prefix.empty()) {
    if (!(name.find("::") != npos || name[0] == '~' || ctx.in_class || ctor_init)) return block;
  } else {
    if (strip_groups(prefix).find_first_of(".+/%!?|^;=-") != npos) return block;
    size_t lw = prefix.size();
    while (lw > 0 && is_ident_char(prefix[lw - 1])) --lw;
    if (one_of(prefix.substr(lw), {"return", "new", "delete", "throw", "else", "case",
                                   "co_return", "co_yield", "co_await", "sizeof", "typeid", "goto"}))
      return block;
  }
  if (decl && ((prefix.empty() && !ctx.in_class) || !cpp_params_ok(params))) return block;
  std::string kind = has_word(prefix, "__global__")                       ? "kernel"
                     : (ctx.in_class || name.find("::") != npos) ? "method"
                                                                  : "function";
  const bool exported = ctx.cpp_header && !ctx.in_class && !ctx.in_function && !ctx.private_ns &&
                        !has_word(prefix, "static") && name.find("::") == npos && name[0] != '_';
  return def(text, name, std::move(kind), params, exported);
}

// ---------------------------------------------------------------- Rust

HeaderClass classify_rust(std::string_view text, const HeaderContext& ctx, bool decl) {
  HeaderClass block;
  std::string_view t = trim(text);
  bool exported = false;
  for (;;) {
    t = trim(t);
    if (t.starts_with("#[") || t.starts_with("#![")) {
      const size_t e = match_close(t, t.find('['));
      if (e == npos) return block;
      t = t.substr(e + 1);
      continue;
    }
    const std::string_view w = word_at(t, 0);
    if (w == "pub") {
      const size_t p = skip_sp(t, 3);
      if (p < t.size() && t[p] == '(') {
        const size_t e = match_close(t, p);
        if (e == npos) return block;
        t = t.substr(e + 1);
      } else {
        exported = true;
        t = t.substr(3);
      }
      continue;
    }
    if (one_of(w, {"default", "async", "unsafe"})) {
      t = t.substr(w.size());
      continue;
    }
    if (w == "const" && one_of(word_at(t, skip_sp(t, 5)), {"fn", "unsafe", "async", "extern"})) {
      t = t.substr(5);
      continue;
    }
    if (w == "extern") {
      size_t p = skip_sp(t, 6);
      if (t.substr(p, 2) == "\"\"") p += 2;
      t = t.substr(p);
      continue;
    }
    break;
  }
  const std::string_view w = word_at(t, 0);
  if (w.empty()) return block;
  size_t p = skip_sp(t, w.size());
  if (w == "fn") {
    const std::string_view name = word_at(t, p);
    if (name.empty()) return block;
    size_t q = skip_sp(t, p + name.size());
    if (q < t.size() && t[q] == '<') {
      const size_t e = match_close(t, q);
      if (e == npos) return block;
      q = skip_sp(t, e + 1);
    }
    if (q >= t.size() || t[q] != '(') return block;
    const size_t close = match_close(t, q);
    if (close == npos) return block;
    const bool method = ctx.parent_kind == "impl" || ctx.parent_kind == "trait";
    return def(text, name, method ? "method" : "function", t.substr(q + 1, close - q - 1),
               exported);
  }
  if (decl) return block;
  if (one_of(w, {"struct", "enum", "union", "trait"})) {
    const std::string_view name = word_at(t, p);
    if (name.empty()) return block;
    return def(text, name, std::string(w), {}, exported, w == "trait");
  }
  if (w == "impl") {
    if (p < t.size() && t[p] == '<') {
      const size_t e = match_close(t, p);
      if (e == npos) return block;
      p = skip_sp(t, e + 1);
    }
    std::string_view rest = t.substr(p);
    int angle = 0;
    for (size_t i = 0; i + 5 <= rest.size(); ++i) {
      if (rest[i] == '<') ++angle;
      if (rest[i] == '>' && angle > 0) --angle;
      if (angle == 0 && rest.substr(i, 5) == " for ") {
        rest = rest.substr(i + 5);
        break;
      }
    }
    rest = trim(rest);
    while (!rest.empty() && (rest[0] == '&' || rest[0] == '!')) rest = trim(rest.substr(1));
    for (std::string_view skip : {"mut ", "dyn "})
      if (rest.starts_with(skip)) rest = trim(rest.substr(skip.size()));
    size_t e = 0;
    size_t last = 0;
    while (e < rest.size() && (is_ident_char(rest[e]) || rest[e] == ':')) {
      if (rest[e] == ':') last = e + 1;
      ++e;
    }
    const std::string_view name = rest.substr(last, e - last);
    if (name.empty()) return block;
    return def(text, name, "impl", {}, false, true);
  }
  if (w == "mod") {
    HeaderClass ns;
    ns.what = HeaderClass::kNamespace;
    return ns;
  }
  if (w == "macro_rules" && p < t.size() && t[p] == '!') {
    const std::string_view name = word_at(t, skip_sp(t, p + 1));
    if (!name.empty()) return def(text, name, "macro", {}, exported);
  }
  return block;
}

// ---------------------------------------------------------------- Go

HeaderClass classify_go(std::string_view text, const HeaderContext&, bool decl) {
  HeaderClass block;
  if (decl) return block;
  const std::string_view t = trim(text);
  const std::string_view w = word_at(t, 0);
  size_t p = skip_sp(t, w.size());
  auto exported_name = [](std::string_view n) { return !n.empty() && n[0] >= 'A' && n[0] <= 'Z'; };
  if (w == "func") {
    std::string qualifier;
    if (p < t.size() && t[p] == '(') {
      const size_t close = match_close(t, p);
      if (close == npos) return block;
      std::string_view recv = trim(t.substr(p + 1, close - p - 1));
      const size_t sp = recv.rfind(' ');
      if (sp != npos) recv = recv.substr(sp + 1);
      while (!recv.empty() && recv[0] == '*') recv.remove_prefix(1);
      const size_t br = recv.find('[');
      if (br != npos) recv = recv.substr(0, br);
      qualifier.assign(recv);
      p = skip_sp(t, close + 1);
    }
    const std::string_view name = word_at(t, p);
    if (name.empty()) return block;
    size_t q = skip_sp(t, p + name.size());
    if (q < t.size() && t[q] == '[') {
      const size_t e = match_close(t, q);
      if (e == npos) return block;
      q = skip_sp(t, e + 1);
    }
    if (q >= t.size() || t[q] != '(') return block;
    const size_t close = match_close(t, q);
    if (close == npos) return block;
    HeaderClass h = def(text, name, qualifier.empty() ? "function" : "method",
                        t.substr(q + 1, close - q - 1), exported_name(name));
    h.qualifier = std::move(qualifier);
    return h;
  }
  if (w == "type") {
    const std::string_view name = word_at(t, p);
    if (name.empty()) return block;
    size_t q = skip_sp(t, p + name.size());
    if (q < t.size() && t[q] == '[') {
      const size_t e = match_close(t, q);
      if (e == npos) return block;
      q = skip_sp(t, e + 1);
    }
    const std::string_view w2 = word_at(t, q);
    const std::string kind = w2 == "struct" ? "struct" : w2 == "interface" ? "interface" : "type";
    return def(text, name, kind, {}, exported_name(name));
  }
  return block;
}

// ---------------------------------------------------------------- JavaScript / TypeScript

// "(a, b) =>", "async x =>", "function (a)" after an '='; returns the
// parameter text or nothing.
std::optional<std::string_view> js_function_value(std::string_view rhs) {
  rhs = trim(rhs);
  if (word_at(rhs, 0) == "async") rhs = trim(rhs.substr(5));
  if (word_at(rhs, 0) == "function") {
    const size_t open = rhs.find('(');
    if (open == npos) return std::nullopt;
    const size_t close = match_close(rhs, open);
    if (close == npos) return std::nullopt;
    return rhs.substr(open + 1, close - open - 1);
  }
  if (!rhs.ends_with("=>")) return std::nullopt;
  if (!rhs.empty() && rhs[0] == '<') {
    const size_t e = match_close(rhs, 0);
    if (e == npos) return std::nullopt;
    rhs = trim(rhs.substr(e + 1));
  }
  if (!rhs.empty() && rhs[0] == '(') {
    const size_t close = match_close(rhs, 0);
    if (close == npos) return std::nullopt;
    return rhs.substr(1, close - 1);
  }
  const std::string_view param = word_at(rhs, 0);
  if (!param.empty() && trim(rhs.substr(param.size())) == "=>") return param;
  return std::nullopt;
}

HeaderClass classify_js(std::string_view text, const HeaderContext& ctx, bool decl) {
  HeaderClass block;
  if (decl) return block;
  std::string_view t = trim(text);
  bool exported = false;
  for (;;) {
    t = trim(t);
    if (!t.empty() && t[0] == '@') {  // decorator
      size_t p = 1;
      while (p < t.size() && (is_ident_char(t[p]) || t[p] == '.')) ++p;
      if (p < t.size() && t[p] == '(') {
        const size_t e = match_close(t, p);
        if (e == npos) return block;
        p = e + 1;
      }
      t = t.substr(p);
      continue;
    }
    const std::string_view w = word_at(t, 0);
    if (one_of(w, {"export", "default", "declare", "abstract", "async", "static", "public",
                   "private", "protected", "readonly", "override", "accessor", "get", "set"})) {
      const size_t p = skip_sp(t, w.size());
      if (p > w.size() && p < t.size() &&
          (is_ident_char(t[p]) || t[p] == '*' || t[p] == '#' || t[p] == '[')) {
        exported = exported || w == "export";
        t = t.substr(p);
        continue;
      }
    }
    break;
  }
  const std::string_view w = word_at(t, 0);
  if (one_of(w, {"if", "else", "for", "while", "do", "switch", "try", "catch", "finally", "with",
                 "return", "case", "new", "typeof", "await", "yield", "throw", "delete", "void"}))
    return block;
  size_t p = skip_sp(t, w.size());
  if (w == "function") {
    if (p < t.size() && t[p] == '*') p = skip_sp(t, p + 1);
    const std::string_view name = word_at(t, p);
    if (name.empty()) return block;
    const size_t open = t.find('(', p);
    if (open == npos) return block;
    const size_t close = match_close(t, open);
    if (close == npos) return block;
    return def(text, name, "function", t.substr(open + 1, close - open - 1), exported);
  }
  if (one_of(w, {"class", "interface", "enum", "type"})) {
    const std::string_view name = word_at(t, p);
    if (name.empty() || name == "extends" || name == "implements") return block;
    return def(text, name, std::string(w), {}, exported, w == "class" || w == "interface");
  }
  if (w == "namespace" || w == "module") {
    HeaderClass ns;
    ns.what = HeaderClass::kNamespace;
    return ns;
  }
  if (one_of(w, {"const", "let", "var"})) {
    const std::string_view name = word_at(t, p);
    if (name.empty()) return block;
    if (name == "enum") return def(text, word_at(t, skip_sp(t, p + 4)), "enum", {}, exported);
    const size_t eq = top_level_assign(t, p + name.size());
    if (eq == npos) return block;
    if (auto params = js_function_value(t.substr(eq + 1)))
      return def(text, name, "function", *params, exported);
    return block;
  }
  // Methods: "name(a) {", "*gen() {", "#priv() {", "name = (a) => {", "name: function () {".
  size_t s = 0;
  if (s < t.size() && (t[s] == '*' || t[s] == '#')) ++s;
  const std::string_view name = word_at(t, s);
  if (name.empty() || (name[0] >= '0' && name[0] <= '9')) return block;
  size_t q = skip_sp(t, s + name.size());
  if (q < t.size() && t[q] == '?') q = skip_sp(t, q + 1);
  if (q < t.size() && t[q] == '<') {
    const size_t e = match_close(t, q);
    if (e == npos) return block;
    q = skip_sp(t, e + 1);
  }
  if (q < t.size() && t[q] == '(') {
    const size_t close = match_close(t, q);
    if (close == npos) return block;
    const std::string_view tail = trim(t.substr(close + 1));
    if (!tail.empty() && tail[0] != ':') return block;
    return def(text, name, "method", t.substr(q + 1, close - q - 1), exported);
  }
  if (q < t.size() && (t[q] == '=' || t[q] == ':')) {
    const size_t eq = t[q] == '=' ? q : top_level_assign(t, q);
    const size_t value = (t[q] == ':' && eq == npos) ? q : eq;
    if (value == npos) return block;
    if (auto params = js_function_value(t.substr(value + 1)))
      return def(text, name, ctx.in_class ? "method" : "function", *params, exported);
  }
  return block;
}

}  // namespace

HeaderClass classify_header(std::string_view text, const HeaderContext& ctx, bool declaration) {
  switch (ctx.lang) {
    case Language::kCpp:
    case Language::kCuda:
      return classify_cpp(text, ctx, declaration);
    case Language::kRust:
      return classify_rust(text, ctx, declaration);
    case Language::kGo:
      return classify_go(text, ctx, declaration);
    case Language::kJavaScript:
    case Language::kTypeScript:
      return classify_js(text, ctx, declaration);
    default:
      return {};
  }
}

bool is_ctor_init_brace(const Header& h) {
  if (h.paren != 0) return false;
  const std::string_view t = trim(h.text);
  if (t.empty() || !(is_ident_char(t.back()) || t.back() == '>')) return false;
  return ctor_init_colon(t) != npos;
}

}  // namespace mergelens::outline_internal
