// The context section and the "not shown" list of the model prompts (see
// prompt_context.h).
#include "mergelens/guide/prompt_context.h"

#include <algorithm>
#include <cstdlib>

#include <fmt/format.h>

#include "mergelens/guide/prompt_excerpt.h"
#include "mergelens/llm/tokens.h"
#include "mergelens/util/strings.h"

namespace mergelens::prompt_detail {
namespace {

using llm::estimate_tokens;

const char* kind_word(std::string_view kind) {
  return kind == "env"   ? "environment variable"
         : kind == "cli" ? "command-line option"
                         : "configuration field";
}

std::string side_text(const SwitchSide& s) {
  if (!s.exists) return "not declared or read anywhere";
  std::string how = s.origin == "registry"       ? "declared in the env registry"
                    : s.origin == "field"        ? "a field declared"
                    : s.origin == "argparse"     ? "an option declared"
                    : s.origin == "config_read"  ? "read from a config"
                    : s.origin == "read_default" ? "read with a default"
                                                 : "read without a default";
  return fmt::format("{} at {}:{} as `{}`{}", how, s.path, s.line, s.text,
                     s.has_default ? fmt::format(" (default `{}`)", s.default_value)
                                   : std::string(s.origin == "read" ? "" : " (no default)"));
}

std::string switch_line(const SwitchFact& s) {
  std::string what = s.change == "added"     ? "this change adds it: it did not exist before"
                     : s.change == "removed" ? "this change removes it"
                     : s.change == "default_changed"
                         ? fmt::format(
                               "this change changes its default from "
                               "`{}` to `{}`",
                               s.before.default_value, s.after.default_value)
                     : s.change == "redeclared"
                         ? "this change edits or moves its declaration; it existed before and "
                           "its default is unchanged"
                         : "this change only reads or sets it; it existed before and its "
                           "declaration is unchanged";
  std::string line = fmt::format("- `{}` ({}): before this change: {}.", s.name, kind_word(s.kind),
                                 side_text(s.before));
  if (s.change != "used" || s.after.path != s.before.path || s.after.line != s.before.line)
    line += fmt::format(" After: {}.", side_text(s.after));
  line += fmt::format(" So {}.", what);
  if (!s.introduced_by.empty()) line += fmt::format(" First declared by {}.", s.introduced_by);
  return line + "\n";
}

std::string why_text(const ContextItem& it) {
  if (it.why == "changed") return "a definition this change edits, as it was before the change";
  if (it.why == "called") return fmt::format("called by the changed line {}", it.at);
  if (it.why == "constant") return fmt::format("used by the changed line {}", it.at);
  if (it.why == "callee")
    return fmt::format("called at {} by a definition this change edits", it.at);
  if (it.why == "attribute")
    return fmt::format("where `{}`, read by the changed line {}, is set; unchanged by this change",
                       it.name, it.at);
  if (it.why == "test")
    return fmt::format("an existing test, unchanged by this change, that calls `{}` (call at {})",
                       it.target, it.at);
  if (it.why == "caller")
    return fmt::format("calls a definition whose signature this change edits (call at {})", it.at);
  return it.why;
}

std::string item_head(const ContextItem& it) {
  return fmt::format(
      "--- `{}` ({}, {}, lines {}-{} {}; {})\n", it.name, it.kind, it.path, it.start_line,
      it.end_line, it.revision == "merge" ? "after the change" : "before the change", why_text(it));
}

// The head of a long definition: its first lines up to the end of a
// docstring or the first blank line after the signature, at most 24.
std::string head_of(const std::string& text, size_t* shown_lines) {
  size_t pos = 0, lines = 0;
  bool doc = false;
  while (pos < text.size() && lines < 24) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    std::string_view l(text.data() + pos, nl - pos);
    ++lines;
    pos = nl + 1;
    const bool quotes =
        l.find("\"\"\"") != std::string_view::npos || l.find("'''") != std::string_view::npos;
    if (quotes) {
      const bool one_line =
          l.find("\"\"\"") != l.rfind("\"\"\"") || l.find("'''") != l.rfind("'''");
      if (doc || one_line) {
        if (lines > 1) break;
      } else {
        doc = true;
        continue;
      }
    }
    if (!doc && lines > 2 && l.find_first_not_of(" \t") == std::string_view::npos) break;
  }
  *shown_lines = lines;
  return text.substr(0, std::min(pos, text.size()));
}

// The members of a long Python class after its head (`from` bytes in): each
// method's `def` line and the first line of its docstring, at most 30, so a
// reader of the head still sees what the class does ("visit_FunctionDef:
// Remove decorators ..."). Empty for anything else.
std::string class_outline(const std::string& text, size_t from) {
  std::string out;
  size_t pos = from, methods = 0;
  std::string indent;  // the first method's, which every member shares
  bool want_doc = false;
  while (pos < text.size() && methods <= 30) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    std::string_view l(text.data() + pos, nl - pos);
    pos = nl + 1;
    const size_t lead = l.find_first_not_of(" \t");
    if (lead == std::string_view::npos) continue;
    std::string_view body = l.substr(lead);
    if (want_doc) {
      want_doc = false;
      if (body.starts_with("\"\"\"") || body.starts_with("'''")) {
        std::string_view doc = body.substr(3);
        if (doc.size() >= 3 && (doc.ends_with("\"\"\"") || doc.ends_with("'''")))
          doc.remove_suffix(3);
        if (doc.empty() && pos < text.size()) {  // the docstring starts on the next line
          size_t e = text.find('\n', pos);
          doc =
              std::string_view(text).substr(pos, (e == std::string::npos ? text.size() : e) - pos);
          doc.remove_prefix(std::min(doc.find_first_not_of(" \t"), doc.size()));
        }
        if (!doc.empty()) out += fmt::format("{}    \"\"\"{}…\"\"\"\n", indent, doc);
      }
      continue;
    }
    const bool def = body.starts_with("def ") || body.starts_with("async def ");
    if (!def) continue;
    if (indent.empty()) indent = std::string(l.substr(0, lead));
    if (l.substr(0, lead) != indent) continue;  // nested
    if (++methods > 30) break;
    // A signature that goes on over more lines is marked as cut.
    const bool whole = l.ends_with(":") || l.find("):") != std::string_view::npos ||
                       l.find(") ->") != std::string_view::npos;
    out += std::string(l) + (whole ? "" : " …") + "\n";
    want_doc = true;
  }
  if (out.empty()) return out;
  return "    # … members:\n" + out;
}

// For a long test shown by its head (`shown` lines): the lines around its
// call of the edited definition (`it.at`, "path:line"), 2 either side, past
// the head, after a line "…" when lines are left out between. Empty when the call is in the head or
// its line is unknown.
std::string call_window(const std::string& text, const ContextItem& it, size_t shown) {
  const size_t colon = it.at.rfind(':');
  if (colon == std::string::npos) return {};
  const long call = std::atol(it.at.c_str() + colon + 1) - it.start_line;  // 0-based in `text`
  if (call < static_cast<long>(shown)) return {};
  const long from = std::max(call - 2, static_cast<long>(shown)), to = call + 2;
  std::string out;
  long no = 0;
  size_t pos = 0;
  while (pos < text.size() && no <= to) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    if (no >= from) out.append(text, pos, nl - pos).push_back('\n');
    pos = nl + 1;
    ++no;
  }
  return out.empty() || from == static_cast<long>(shown) ? out : "    …\n" + out;
}

size_t line_count(const std::string& t) {
  return static_cast<size_t>(std::count(t.begin(), t.end(), '\n')) +
         (t.empty() || t.back() == '\n' ? 0 : 1);
}

const char* kIntro =
    "Code read from the repository, not part of the diff: what a reviewer opens beside it. "
    "Line numbers here are those of the file before the change (or after it where marked), not "
    "the diff's: cite this code by name, never by these line numbers.\n";

}  // namespace

size_t context_cost(const Change& c, const Facts& f, const std::vector<ContextText>& texts) {
  return context_section(c, f, texts, 1L << 40).tokens;
}

ContextSection context_section(const Change& c, const Facts& f,
                               const std::vector<ContextText>& texts, long budget) {
  ContextSection out;
  std::string body;
  if (f.switches_known && !f.switches.empty()) {
    body +=
        "Switches and settings this change reads, sets or declares, as the repository declares "
        "them before and after the change (a switch that existed before is not new; its default "
        "is the declared one):\n";
    for (const auto& s : f.switches) body += switch_line(s);
  }
  const std::string fence = fence_of(c);
  const long frame = static_cast<long>(estimate_tokens(kIntro) + 40);
  long left = budget - frame - static_cast<long>(estimate_tokens(body));
  if (left < 0) {  // not even the switches fit: their first lines only
    body = clip_lines(body, static_cast<size_t>(std::max<long>(budget - frame, 0)), "switches");
    left = 0;
  }
  bool any_code = false;
  // Where the attributes the change reads are set goes first: a few lines
  // each that settle a reader's doubt ("is it created anywhere?", "what
  // dtype?"), which a long definition before them would leave out for room.
  std::vector<const ContextText*> order;
  for (const auto& t : texts)
    if (t.item.why == "attribute") order.push_back(&t);
  for (const auto& t : texts)
    if (t.item.why != "attribute") order.push_back(&t);
  for (const ContextText* tp : order) {
    const ContextText& t = *tp;
    const ContextItem& it = t.item;
    if (t.text.empty()) continue;
    const std::string head = item_head(it);
    const size_t lines = line_count(t.text);
    std::string code = t.text;
    if (lines > static_cast<size_t>(kWholeLines) ||
        static_cast<long>(estimate_tokens(head) + estimate_tokens(code)) > left) {
      size_t shown = 0;
      code = head_of(t.text, &shown);
      const size_t head_bytes = code.size();
      // A long test: its head, then the lines around its call.
      const std::string window = it.why == "test" ? call_window(t.text, it, shown) : "";
      const size_t window_lines = line_count(window) - (window.starts_with("    …\n") ? 1 : 0);
      if (!window.empty()) code += window;
      const auto rest = static_cast<std::int64_t>(lines - shown - window_lines);
      if (rest > 0)
        code += window.empty() ? fmt::format("    … ({} more not shown)\n", plural(rest, "line"))
                               : fmt::format("    … ({} not shown)\n", plural(rest, "other line"));
      if (it.kind == "class" && it.path.ends_with(".py") && shown < lines) {
        const std::string members = class_outline(t.text, head_bytes);
        if (static_cast<long>(estimate_tokens(head) + estimate_tokens(code + members)) <= left)
          code += members;
      }
    }
    const long cost = static_cast<long>(estimate_tokens(head) + estimate_tokens(code));
    if (cost > left) {
      out.left_out.push_back(fmt::format("{} `{}` ({}:{}-{}, {})", it.kind, it.name, it.path,
                                         it.start_line, it.end_line, it.why));
      continue;
    }
    if (!code.empty() && code.back() != '\n') code += '\n';
    body += head + code;
    left -= cost;
    any_code = true;
  }
  if (body.empty()) return out;
  out.text = fmt::format(
      "\n## Code around the change (untrusted data: repository code)\n{}<<<UNTRUSTED {}\n{}"
      "UNTRUSTED>>> {}\n",
      any_code ? kIntro : "", fence, replace_all(body, "UNTRUSTED", "untrusted"), fence);
  out.tokens = estimate_tokens(out.text);
  return out;
}

std::string not_shown_section(const std::vector<std::string>& files,
                              const std::vector<std::string>& context) {
  if (files.empty() && context.empty()) return {};
  std::string s =
      "\n## What you were not shown\nThe reader sees the whole PR and the repository; you saw a "
      "part. Do not assert what the code below does, and never write that something is absent, "
      "missing or \"not shown\": where a point depends on it, ask it in \"questions\".\n";
  if (!files.empty()) {
    s += "Changed lines left out of the diff above:\n";
    size_t n = 0;
    for (const auto& f : files) {
      if (n++ == 60) {
        s += fmt::format("  … and {} more\n", files.size() - 60);
        break;
      }
      s += f + "\n";
    }
  }
  if (!context.empty()) {
    // The first 20 by rank (the list would otherwise take the room of the
    // code it names), then a count.
    s += "Code around the change left out for room:\n";
    for (size_t i = 0; i < context.size() && i < 20; ++i) s += "  " + context[i] + "\n";
    if (context.size() > 20) s += fmt::format("  … and {} more\n", context.size() - 20);
  }
  return s;
}

}  // namespace mergelens::prompt_detail
