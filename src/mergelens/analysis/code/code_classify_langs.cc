// Statement-header classification for Rust, Go and JavaScript/TypeScript
// (see code_classify.h). Each classifier reports the name's offset in the
// header; anything unrecognised is an anonymous block (control flow,
// closures, struct and object literals).
#include <optional>

#include "mergelens/analysis/code/code_classify_util.h"

namespace mergelens::outline_internal {

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

namespace {

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

}  // namespace

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

}  // namespace mergelens::outline_internal
