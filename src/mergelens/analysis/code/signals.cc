// Line-level signal detectors (see code_signals.h); environment variables
// and flags are in code_env_flags.cc, changed numbers in code_numbers.cc, the
// reading of an `if` and of the lines around it in code_if.cc.
//
// Each detector is a cheap substring test followed, when it passes, by one or
// two RE2 patterns compiled once in Latin-1 mode (so invalid UTF-8 is just
// bytes). Guards, try/except and fallbacks look at the neighbouring lines of
// the same side: the body of an `if` is the next code line (or the text after
// the condition), the branch an `else` belongs to is the nearest `if` above
// it at the same indentation.
#include <algorithm>
#include <bitset>
#include <initializer_list>
#include <optional>

#include <re2/re2.h>

#include "mergelens/analysis/code/code_if.h"
#include "mergelens/analysis/code/code_outline.h"
#include "mergelens/analysis/code/code_signals.h"
#include "mergelens/analysis/code/code_text.h"
#include "mergelens/analysis/code/language.h"

namespace mergelens {

namespace {

using outline_internal::is_ident_char;
using outline_internal::trim;
using namespace signal_internal;
using namespace if_internal;

#include "mergelens/analysis/code/signal_patterns.inc"

// "assert x > 0, 'msg'" or "TORCH_CHECK(x.is_cuda(), \"msg\")": the check as
// written, a call cut at its closing parenthesis (marked "..." when the call
// continues on the next line).
std::string assert_detail(std::string_view macro, std::string_view rest) {
  if (!rest.starts_with("(")) {
    rest = trim(rest);
    while (!rest.empty() && (rest.back() == ';' || rest.back() == '{'))
      rest = trim(rest.substr(0, rest.size() - 1));
    return std::string(macro) + " " + std::string(rest);
  }
  int depth = 0;
  for (size_t i = 0; i < rest.size(); ++i) {
    if (rest[i] == '(') ++depth;
    if (rest[i] == ')' && --depth == 0)
      return std::string(macro) + std::string(rest.substr(0, i + 1));
  }
  std::string_view open = trim(rest);
  while (!open.empty() && open.back() == ',') open.remove_suffix(1);
  return std::string(macro) + std::string(open) + "...)";
}

class SideScanner {
 public:
  SideScanner(Language lang, std::span<const SideLine> side, bool added,
              std::vector<RawSignal>& out)
      : lang_(lang), side_(side), added_(added), out_(out), first_(out.size()) {}

  void run() {
    if (lang_ == Language::kPython) mark_docstrings();
    for (int i = 0; i < static_cast<int>(side_.size()); ++i) {
      if (!side_[i].changed) continue;
      const std::string_view text = side_[i].text;
      const std::string_view t = trim(text);
      if (t.empty() || text.size() > 2000) continue;
      lower_.assign(text);
      for (char& c : lower_)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
      bigrams_.reset();
      for (size_t k = 0; k + 1 < lower_.size(); ++k) bigrams_.set(bigram(lower_[k], lower_[k + 1]));
      const bool comment = is_comment_line(lang_, t) && !(c_family(lang_) && t.starts_with("#"));
      if (added_ && contains_any(text, {"TODO", "FIXME", "XXX", "HACK"})) todo(i, text);
      // The word alone ("fall back to ...") is a mention, not a checked
      // fallback: what the code falls back to is not known from it.
      if (has("fall") && RE2::PartialMatch(text, fallback_word()))
        emit("fallback_mention", short_text(t), i);
      if (comment || (!prose_.empty() && prose_[i])) continue;
      const std::string_view code = code_part(lang_, text);
      if (c_family(lang_) && code.starts_with("#")) preprocessor_line(i, code);
      guards(i, code);
      try_except(i, code);
      if (has("else")) else_fallback(i, code);
      if (has("env")) {
        names_.clear();
        env_var_names(code, names_);
        for (auto& n : names_) emit("env_var", std::move(n), i);
      }
      if ((lang_ == Language::kPython && !side_[i].class_body.empty()) ||
          has_any({"add_argument", "option(", "define_", "absl_flag", "#[", "flag", "\"-", "'-"})) {
        names_.clear();
        flag_names(lang_, side_, i, code, names_);
        for (auto& n : names_) emit("cli_flag", std::move(n), i);
      }
      branches(i, code);
      Cap conc;
      std::string bare;  // the code without its string literals' text
      if (has_any({"lock",     "thread",  "asyncio", "multiprocessing", "concurrent",
                   "executor", "acquire", "mutex",   "atomic",          "sync",
                   "barrier",  "stream",  "event",   "chan ",           "go func",
                   "condvar",  "tokio",   "promise", "future",          "memory_order"}) &&
          RE2::PartialMatch(bare = without_strings(code), concurrency(), &conc)) {
        // A pattern that ends at the call's bracket ("current_stream(")
        // names the call: closed, it does not read as cut code.
        std::string what(static_cast<std::string_view>(conc));
        if (what.ends_with('(')) what += ')';
        emit("concurrency", short_text(what), i);
      }
    }
  }

 private:
  // Python: marks the lines that are docstring or other triple-quoted text
  // (prose, where "and"/"not" are words, not operators). The side may start
  // inside such a string: a first triple quote that closes something (alone
  // on its line, or after plain words) means it did.
  void mark_docstrings() {
    prose_.assign(side_.size(), 0);
    char open = 0;  // quote character of the open triple-quoted string
    bool first_seen = false;
    for (size_t i = 0; i < side_.size(); ++i) {
      const std::string_view t = trim(side_[i].text);
      const bool starts_inside = open != 0;
      std::string_view head = t;  // text before the first triple quote of the line
      int quotes = 0;
      for (size_t k = 0; k + 2 < t.size(); ++k) {
        if ((t[k] != '"' && t[k] != '\'') || t[k + 1] != t[k] || t[k + 2] != t[k]) continue;
        if (open == 0 || open == t[k]) {
          if (quotes++ == 0) head = t.substr(0, k);
          open = open ? 0 : t[k];
        }
        k += 2;
      }
      if (quotes > 0 && !first_seen) {
        first_seen = true;
        const bool code_like = head.find_first_of("=([,") != std::string_view::npos ||
                               head.starts_with("return") || head.ends_with("r") ||
                               head.ends_with("f") || head.ends_with("b");
        const bool closes = t.size() == 3 || (!head.empty() && !code_like);
        if (!starts_inside && quotes % 2 == 1 && closes && i > 0) {
          // It closed a string that was open before the side began.
          for (size_t j = 0; j < i; ++j) prose_[j] = 1;
          prose_[i] = 1;
          open = 0;
          continue;
        }
      }
      const bool opens_docstring =
          t.starts_with("\"\"\"") || t.starts_with("'''") ||
          ((t.starts_with("r\"\"\"") || t.starts_with("r'''")) && quotes > 0);
      prose_[i] = starts_inside || opens_docstring;
    }
  }

  // Substring tests on the lower-cased current line (cheap filters before the patterns).
  static size_t bigram(char a, char b) {
    return (static_cast<unsigned char>(a) * 31u + static_cast<unsigned char>(b)) & 4095u;
  }
  bool has(std::string_view needle) const {
    if (needle.size() >= 2 && (!bigrams_.test(bigram(needle[0], needle[1])) ||
                               !bigrams_.test(bigram(needle[needle.size() - 2], needle.back()))))
      return false;
    return lower_.find(needle) != std::string::npos;
  }
  bool has_any(std::initializer_list<std::string_view> needles) const {
    for (auto n : needles)
      if (has(n)) return true;
    return false;
  }

  void emit(std::string kind, std::string detail, int index) {
    for (size_t j = out_.size(); j > first_ && out_[j - 1].index == index; --j)
      if (out_[j - 1].kind == kind && out_[j - 1].detail == detail) return;
    out_.push_back({std::move(kind), std::move(detail), index});
  }

  void todo(int i, std::string_view text) {
    Cap tag, owner, rest;  // "TODO(name): text" keeps its owner: "TODO(name): text"
    if (!RE2::PartialMatch(text, todo_tag(), &tag, &owner, &rest)) return;
    // Only in a comment: a comment marker must precede the tag.
    const size_t at = static_cast<size_t>(tag.data() - text.data());
    const std::string_view before = text.substr(0, at);
    bool in_comment = false;
    if (lang_ == Language::kPython)
      in_comment = before.find('#') != std::string_view::npos;
    else
      in_comment = contains_any(before, {"//", "/*"}) || trim(before).starts_with("*");
    if (!in_comment) return;
    emit("todo", short_text(std::string(tag) + std::string(owner) + ": " + std::string(rest)), i);
  }

  void preprocessor_line(int i, std::string_view code) {
    Cap word, cond;
    if (RE2::FullMatch(code, preprocessor(), &word, &cond))
      emit("preprocessor", short_text("#" + std::string(word) + " " + std::string(cond)), i);
  }

  void guards(int i, std::string_view code) {
    bool under_guard = false;
    std::optional<IfInfo> own;
    if (starts_if(code)) own = parse_if(lang_, side_, i);
    if (own) {
      const auto& info = own;
      const std::string kind = guard_kind(info->body);
      if (!kind.empty()) emit(kind, short_text("if " + info->cond + ": " + info->body), i);
    } else {
      // A changed body line whose `if` is context.
      const int p = prev_code(lang_, side_, i);
      if (p >= 0 && starts_if(code_part(lang_, side_[p].text))) {
        if (auto info = parse_if(lang_, side_, p); info && info->body_index == i) {
          under_guard = true;
          const std::string kind = guard_kind(info->body);
          if (!side_[p].changed && !kind.empty())
            emit(kind, short_text("if " + info->cond + ": " + info->body), i);
        }
      }
    }
    const std::string_view fw = first_word(code);
    Cap a, b, c, d, e;
    if (!under_guard &&
        (fw == "raise" || fw == "throw" || fw == "panic" || fw == "bail" || fw == "return") &&
        RE2::PartialMatch(code, raise_stmt(), &a, &b, &c, &d, &e)) {
      const std::string_view what = !a.empty()   ? a
                                    : !b.empty() ? b
                                    : !c.empty() ? c
                                    : !d.empty() ? d
                                                 : e;
      emit("raise", std::string(what), i);
    }
    Cap macro, rest;
    if (has_any({"assert", "check", "ensure!", "invariant"}) &&
        RE2::PartialMatch(code, assert_stmt(), &macro, &rest))
      emit("assert", short_text(assert_detail(macro, rest)), i);
  }

  // Body of a handler starting after line i: the first statement that is not
  // logging, or empty.
  std::string handler_body(int i, std::string_view inline_body) {
    if (!trim(inline_body).empty()) return std::string(trim(inline_body));
    int j = i;
    for (int n = 0; n < 3; ++n) {
      j = next_code(lang_, side_, j);
      if (j < 0) return {};
      const std::string_view t = trim(code_part(lang_, side_[j].text));
      if (lang_ == Language::kPython && indentation(side_[j].text) <= indentation(side_[i].text))
        return {};
      if (t == "}") return {};
      if (!RE2::PartialMatch(t, log_line())) return std::string(t);
    }
    return {};
  }

  // Whether the handler block opened at line i ends by propagating: its last
  // statement at the block's own depth is `raise` (`throw`), so the handler
  // only cleans up and the caller still sees the error. False when the side
  // ends before the block does (not known), or for a one-line handler.
  bool handler_reraises(int i) const {
    const int n = static_cast<int>(side_.size());
    const int own = indentation(side_[i].text);
    int depth = -1;
    std::string_view last;
    for (int j = i + 1; j < n; ++j) {
      if (!is_code_line(lang_, side_[j].text)) continue;
      const int ind = indentation(side_[j].text);
      const std::string_view t = trim(code_part(lang_, side_[j].text));
      if (ind <= own) {
        if (lang_ != Language::kPython && t != "}" && !t.starts_with("} ")) return false;
        return last.starts_with(lang_ == Language::kPython ? "raise" : "throw");
      }
      if (depth < 0) depth = ind;
      if (ind == depth) last = t;
    }
    return false;
  }

  void try_except(int i, std::string_view code) {
    if (!has_any({"except", "finally", "catch", "recover()"})) return;
    Cap what, inline_body;
    if (lang_ == Language::kPython && RE2::FullMatch(code, py_except(), &what, &inline_body)) {
      const std::string label = what.empty() ? "except" : "except " + std::string(what);
      emit("try", short_text(label), i);
      const std::string body = handler_body(i, inline_body);
      if (!body.empty() && !body.starts_with("raise") && body != "pass" && body != "..." &&
          !body.starts_with("continue") && !body.starts_with("break") && !handler_reraises(i))
        emit("handler", short_text(label + ": " + statement_text(body)), i);
      return;
    }
    if (RE2::PartialMatch(code, finally_stmt())) {
      emit("try", "finally", i);
      return;
    }
    if (lang_ != Language::kPython && lang_ != Language::kRust && lang_ != Language::kGo &&
        RE2::PartialMatch(code, catch_stmt(), &what, &inline_body)) {
      const std::string label = "catch (" + std::string(trim(what)) + ")";
      emit("try", short_text(label), i);
      std::string_view ib = inline_body;
      if (ib.ends_with("}")) ib = trim(ib.substr(0, ib.size() - 1));
      const std::string body = handler_body(i, ib);
      if (!body.empty() && !body.starts_with("throw") && body != "}" && !handler_reraises(i))
        emit("handler", short_text(label + ": " + statement_text(body)), i);
      return;
    }
    if (lang_ == Language::kGo && code.find("recover()") != std::string_view::npos)
      emit("try", "recover()", i);
  }

  // The lines of the block an `else` at side line `i` opens (Python: by
  // indentation; brace languages: to its closing brace), or nullopt when the
  // side ends before the block does or the block is empty.
  std::optional<std::pair<int, int>> else_block(int i) {
    const int n = static_cast<int>(side_.size());
    if (lang_ == Language::kPython) {
      const int ind = indentation(side_[i].text);
      int last = -1;
      for (int k = i + 1; k < n; ++k) {
        const std::string_view t = trim(side_[k].text);
        if (t.empty() || is_comment_line(lang_, t)) continue;
        if (indentation(side_[k].text) <= ind) {
          if (last < 0) return std::nullopt;
          return std::pair(i + 1, last);
        }
        last = k;
      }
      return std::nullopt;
    }
    int depth = 0;
    bool opened = false;
    for (int k = i; k < n; ++k) {
      const std::string_view c = code_part(lang_, side_[k].text);
      size_t p = 0;
      if (k == i)
        p = std::min(c.size(), c.find("else") == std::string_view::npos ? 0 : c.find("else"));
      for (; p < c.size(); ++p) {
        if (c[p] == '{') ++depth, opened = true;
        if (c[p] == '}' && opened && --depth == 0) {
          if (k <= i + 1) return std::nullopt;
          return std::pair(i + 1, k - 1);
        }
      }
    }
    return std::nullopt;
  }

  // Whether every code line of side lines [first, last] is code from before
  // the change: a context line, or a changed line written as one of the
  // hunk's removed lines (re-indented under the new `else`). Each removed
  // line vouches for one line.
  bool old_code(int first, int last) const {
    if (!removed_) return false;
    std::vector<std::string_view> pool(*removed_);
    int code_lines = 0;
    for (int k = first; k <= last; ++k) {
      const std::string_view t = trim(side_[k].text);
      if (t.empty() || is_comment_line(lang_, t)) continue;
      ++code_lines;
      if (!side_[k].changed) continue;
      auto it = std::find(pool.begin(), pool.end(), t);
      if (it == pool.end()) return false;
      pool.erase(it);
    }
    return code_lines > 0;
  }

  // An `else` whose `if` tests a capability. It is a checked fallback
  // ("fallback", detail the condition) when the `if` is new and the `else`
  // keeps the code that ran before the change: the new path is added beside
  // the old one. Otherwise it is only a mention of one ("fallback_mention").
  void else_fallback(int i, std::string_view code) {
    if (!RE2::FullMatch(code, else_stmt())) return;
    const int ind = indentation(side_[i].text);
    for (int j = i - 1; j >= 0 && j >= i - 60; --j) {
      const std::string_view t = trim(side_[j].text);
      if (t.empty() || is_comment_line(lang_, t)) continue;
      const int jind = indentation(side_[j].text);
      if (jind > ind) continue;
      if (jind < ind) return;
      const std::string_view c = code_part(lang_, side_[j].text);
      Cap cond;
      const bool is_if = lang_ == Language::kPython
                             ? RE2::FullMatch(c, py_if(), &cond)
                             : RE2::PartialMatch(c, c_if()) || RE2::FullMatch(c, rs_go_if(), &cond);
      if (!is_if) {
        if (t.starts_with("}")) continue;  // "} else if (...) {" chains close here
        return;
      }
      if (!RE2::PartialMatch(c, capability())) return;
      const auto block = else_block(i);
      if (side_[j].changed && block && old_code(block->first, block->second)) {
        auto info = parse_if(lang_, side_, j);
        emit("fallback", info ? info->cond : short_text(trim(c), 80), i);
      } else {
        emit("fallback_mention", short_text("else of " + std::string(trim(c))), i);
      }
      return;
    }
  }

  void branches(int i, std::string_view code) {
    const bool maybe_dtype =
        has_any({"float", "fp8", "fp4", "fp16", "fp32", "bf16", "half", "int4", "int8", "e4m3",
                 "e5m2", "dispatch", "scalartype", "w8a8", "w4a", "mxfp", "dtype"});
    const bool maybe_device = has_any(
        {"cuda",   "hip",    "npu",    "xpu", "cpu",        "hpu",      "mps",    "rocm",
         "musa",   "tpu",    "sm",     "gfx", "capability", "platform", "device", "blackwell",
         "hopper", "ampere", "nvidia", "amd", "gaudi",      "mlu"});
    const bool maybe_platform =
        has_any({"platform", "os.name", "goos", "goarch", "cfg", "_win", "apple", "linux", "_msc",
                 "aarch64", "x86_64", "arm_neon", "avx", "is_windows", "is_macos"});
    if (!maybe_dtype && !maybe_device && !maybe_platform) return;
    // Operators and words inside string literals do not make a condition.
    std::string blanked(code);
    char quote = 0;
    for (size_t k = 0; k < blanked.size(); ++k) {
      const char c = blanked[k];
      if (quote) {
        if (c == '\\' && k + 1 < blanked.size())
          blanked[k++] = ' ', blanked[k] = ' ';
        else if (c == quote)
          quote = 0;
        else
          blanked[k] = ' ';
      } else if (c == '"' || (c == '\'' && lang_ != Language::kRust)) {
        quote = c;
      }
    }
    // Where a branch token must sit: the condition of an `if`/`elif`/`while`,
    // of a ternary, a line continuing a condition, a `case`/`match`/`#if`,
    // or a dispatch macro. A dtype or device named elsewhere on the line (an
    // argument, the value a ternary picks) is not a branch, and a check whose
    // body only raises is a guard (reported as such), not a second path.
    std::string region;
    const std::string_view bl = trim(std::string_view(blanked));
    auto starts_word = [&](std::string_view w) {
      return bl.starts_with(w) && (bl.size() == w.size() || !is_ident_char(bl[w.size()]));
    };
    if (starts_if(code)) {
      auto info = parse_if(lang_, side_, i);
      if (info && guard_kind(info->body) == "guard") return;
      region = info ? info->cond : std::string(code);
    } else if (starts_word("while") || starts_word("case") || starts_word("switch") ||
               starts_word("match") || starts_word("when") || starts_word("and") ||
               starts_word("or") || starts_word("not") || bl.starts_with("&&") ||
               bl.starts_with("||") || bl.starts_with("#")) {
      region = std::string(code);
    } else if (const size_t q = bl.find(" if ");
               q != std::string_view::npos && lang_ == Language::kPython &&
               bl.find(" else", q + 4) != std::string_view::npos) {
      const size_t e = bl.find(" else", q + 4);
      region = std::string(code.substr(q + 4, e - q - 4));
    } else if (const size_t q = bl.find(" ? "); q != std::string_view::npos &&
                                                lang_ != Language::kPython &&
                                                bl.find(" : ", q) != std::string_view::npos) {
      size_t b = bl.find_last_of("=(,", q);
      b = b == std::string_view::npos ? 0 : b + 1;
      region = std::string(code.substr(b, q - b));
    } else if (contains_any(code, {"DISPATCH"})) {
      region = std::string(code);
    }
    Cap tok;
    if (!maybe_dtype || region.empty()) {
    } else if (RE2::PartialMatch(region, dtype(), &tok)) {
      emit("dtype_branch", short_text(tok, 60), i);
    } else if (RE2::PartialMatch(region, dtype_compare())) {
      emit("dtype_branch", "dtype", i);
    }
    if (!maybe_device) {
    } else if (RE2::PartialMatch(code, arch_compare(), &tok)) {
      emit("device_branch", short_text(tok, 60), i);
    } else if (RE2::PartialMatch(code, device(), &tok) && tok.starts_with("__CUDA_ARCH__")) {
      emit("device_branch", short_text(tok, 60), i);
    } else if (!region.empty() && RE2::PartialMatch(region, device(), &tok)) {
      emit("device_branch", short_text(tok, 60), i);
    }
    if (maybe_platform && RE2::PartialMatch(code, platform(), &tok) && tok.starts_with("cfg"))
      emit("platform_branch", short_text(tok, 60), i);
    else if (maybe_platform && !region.empty() && RE2::PartialMatch(region, platform(), &tok))
      emit("platform_branch", short_text(tok, 60), i);
  }

 public:
  const std::vector<std::string_view>* removed_ = nullptr;  // the hunk's removed lines, trimmed

 private:
  const Language lang_;
  const std::span<const SideLine> side_;
  const bool added_;
  std::vector<RawSignal>& out_;
  const size_t first_;
  std::vector<char> prose_;         // per side line: triple-quoted text (Python)
  std::vector<std::string> names_;  // scratch for env vars and flags
  std::string lower_;               // the current line, lower-cased
  std::bitset<4096> bigrams_;       // hashed pairs of adjacent characters of lower_
};

}  // namespace

void detect_side_signals(Language lang, std::span<const SideLine> side, bool added,
                         std::vector<RawSignal>& out,
                         const std::vector<std::string_view>* removed) {
  if (!is_code_language(lang) && lang != Language::kCMake) return;
  if (lang == Language::kCMake) {
    for (int i = 0; i < static_cast<int>(side.size()); ++i) {
      Cap name;
      if (side[i].changed && RE2::PartialMatch(side[i].text, cmake_option(), &name))
        out.push_back({"cli_flag", std::string(name), i});
    }
    return;
  }
  SideScanner scanner(lang, side, added, out);
  scanner.removed_ = removed;
  scanner.run();
}

bool signal_patterns_ok() {
  const RE2* all[] = {&py_if(),        &c_if(),        &rs_go_if(),     &raise_like(),
                      &return_like(),  &raise_stmt(),  &assert_stmt(),  &py_except(),
                      &finally_stmt(), &catch_stmt(),  &else_stmt(),    &fallback_word(),
                      &capability(),   &log_line(),    &preprocessor(), &todo_tag(),
                      &cmake_option(), &conditional(), &dtype(),        &dtype_compare(),
                      &arch_compare(), &device(),      &platform(),     &concurrency()};
  for (const RE2* re : all)
    if (!re->ok()) return false;
  return signal_internal::env_flag_patterns_ok();
}

}  // namespace mergelens
