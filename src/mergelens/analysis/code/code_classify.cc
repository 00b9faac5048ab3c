// Statement-header classification: the dispatcher and C/C++/CUDA (Rust, Go
// and JavaScript/TypeScript are in code_classify_langs.cc). Each classifier
// works on a view of the header and reports the name's offset in it, so the
// scanner can tell which line the name sits on. Anything unrecognised is an
// anonymous block: control flow, lambdas, initialisers, struct literals.
#include "mergelens/analysis/code/code_classify.h"

#include <algorithm>
#include <initializer_list>

#include "mergelens/analysis/code/code_classify_util.h"

namespace mergelens::outline_internal {
namespace {

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
  if (one_of(first, {"if",     "else",          "for",      "while",    "do",      "switch",
                     "try",    "catch",         "return",   "case",     "default", "goto",
                     "throw",  "co_return",     "co_yield", "co_await", "sizeof",  "new",
                     "delete", "static_assert", "using",    "asm",      "__asm__"}))
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
          if (w != "final" && !is_upper_macro(w))
            name = w;
          else if (w != "final" && name.empty())
            name = w;
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
      if ((p == 0 || !is_ident_char(t[p - 1])) && (p + 8 >= t.size() || !is_ident_char(t[p + 8])))
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
          one_of(lp,
                 {"if",         "while",         "for",           "switch",     "return",
                  "sizeof",     "alignof",       "decltype",      "noexcept",   "throw",
                  "requires",   "alignas",       "__attribute__", "__declspec", "__launch_bounds__",
                  "__align__",  "static_assert", "void",          "int",        "char",
                  "bool",       "float",         "double",        "auto",       "const",
                  "unsigned",   "signed",        "long",          "short",      "typeof",
                  "__typeof__", "catch",         "defined"}))
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
    if (one_of(prefix.substr(lw), {"return", "new", "delete", "throw", "else", "case", "co_return",
                                   "co_yield", "co_await", "sizeof", "typeid", "goto"}))
      return block;
  }
  if (decl && ((prefix.empty() && !ctx.in_class) || !cpp_params_ok(params))) return block;
  std::string kind = has_word(prefix, "__global__")              ? "kernel"
                     : (ctx.in_class || name.find("::") != npos) ? "method"
                                                                 : "function";
  const bool exported = ctx.cpp_header && !ctx.in_class && !ctx.in_function && !ctx.private_ns &&
                        !has_word(prefix, "static") && name.find("::") == npos && name[0] != '_';
  return def(text, name, std::move(kind), params, exported);
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
