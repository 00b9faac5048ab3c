// Chat renderers (render.h): the markdown dialects of Feishu/Lark cards,
// DingTalk, WeCom and Slack mrkdwn, and the packer that splits a digest into
// messages within each service's limits.
//
// Escaping. Feishu, DingTalk and WeCom render a Markdown subset that decodes
// HTML entities, so '<', '>' and '&' become entities (no tag, <at> mention or
// <font> can start) and '[', ']', '*' and '`' outside our own markup become
// numeric entities (no link, emphasis or code can start). Slack's mrkdwn
// only needs '&', '<' and '>' escaped: every link and mention there is
// written <...>. A code span whose text holds a character that would need
// escaping inside it is written as escaped text instead.
#include "mergelens/deliver/render.h"

#include <nlohmann/json.hpp>

namespace mergelens::deliver {

std::string cut_utf8(std::string_view s, size_t max_bytes) {
  if (s.size() <= max_bytes) return std::string(s);
  static constexpr std::string_view kEllipsis = "…";
  size_t n = max_bytes > kEllipsis.size() ? max_bytes - kEllipsis.size() : 0;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return std::string(s.substr(0, n)) + std::string(kEllipsis);
}

Limits limits_of(Kind kind) {
  switch (kind) {
    case Kind::kFeishu:
    case Kind::kLark:
      return Limits{19500, 0, 0, 250};  // body < 20 KB; 5 requests per second
    case Kind::kDingTalk:
      return Limits{18000, 0, 0, 3100};  // 20 messages per minute
    case Kind::kWeCom:
      return Limits{4096, 0, 0, 3100};  // content <= 4096 bytes; 20 messages per minute
    case Kind::kSlack:
      return Limits{0, 50, 3000, 1100};  // 50 blocks, 3000 per section; 1 per second
    case Kind::kEmail:
      return Limits{0, 0, 0, 0};
  }
  return {};
}

namespace {

constexpr size_t kMaxHeadlineBytes = 300;

struct Dialect {
  Kind kind;

  bool slack() const { return kind == Kind::kSlack; }

  std::string esc(std::string_view s) const {
    std::string out;
    out.reserve(s.size());
    for (char c : s) {
      switch (c) {
        case '&':
          out += "&amp;";
          break;
        case '<':
          out += "&lt;";
          break;
        case '>':
          out += "&gt;";
          break;
        case '\n':
        case '\r':
          out += ' ';
          break;
        case '[':
          out += slack() ? "[" : "&#91;";
          break;
        case ']':
          out += slack() ? "]" : "&#93;";
          break;
        case '*':
          out += slack() ? "*" : "&#42;";
          break;
        case '`':
          out += slack() ? "'" : "&#96;";
          break;
        default:
          out += c;
      }
    }
    return out;
  }

  // A code span in this service's dialect: `x` where Markdown has inline
  // code; DingTalk's Markdown has none (backticks show as typed), so there
  // it is the text alone.
  std::string code(std::string_view s) const {
    if (kind == Kind::kDingTalk) return esc(s);
    if (s.empty() || s.find_first_of("<>&[]*`|\n\r") != std::string_view::npos) return esc(s);
    return "`" + std::string(s) + "`";
  }

  std::string text(const std::vector<Span>& v) const {
    std::string out;
    for (const auto& s : v) out += s.code ? code(s.text) : esc(s.text);
    return out;
  }

  std::string bold(std::string_view m) const {
    return slack() ? "*" + std::string(m) + "*" : "**" + std::string(m) + "**";
  }

  std::string link(std::string_view m, std::string_view url) const {
    if (url.empty()) return std::string(m);
    std::string u;
    for (char c : url) {
      if (c == '(' || c == ')' || c == '|' || c == ' ')
        u += c == '(' ? "%28" : c == ')' ? "%29" : c == '|' ? "%7C" : "%20";
      else
        u += c;
    }
    if (slack()) return "<" + u + "|" + std::string(m) + ">";
    return "[" + std::string(m) + "](" + u + ")";
  }

  // A line break inside a block (DingTalk needs Markdown's hard break).
  std::string nl() const { return kind == Kind::kDingTalk ? "  \n" : "\n"; }
};

struct Block {
  std::string text;
  bool tight = false;  // joined to the previous block by a line break, not a blank line
  int section = 0;     // 0 the day's figures, 1 entries, 2 skipped ones, 3 the link to the day
};

std::vector<Span> cut_spans(const std::vector<Span>& v, size_t max_bytes) {
  std::vector<Span> out;
  size_t used = 0;
  for (const auto& s : v) {
    if (used + s.text.size() <= max_bytes) {
      out.push_back(s);
      used += s.text.size();
      continue;
    }
    out.push_back(Span{cut_utf8(s.text, max_bytes - used), false});
    return out;
  }
  return out;
}

size_t span_bytes(const std::vector<Span>& v) {
  size_t n = 0;
  for (const auto& s : v) n += s.text.size();
  return n;
}

std::string entry_text(const Dialect& d, const Content& c, const Entry& e,
                       const std::vector<Span>& paragraph) {
  std::string out = d.bold(d.link(d.text(cut_spans(e.headline, kMaxHeadlineBytes)), e.link));
  if (!paragraph.empty()) out += d.nl() + d.text(paragraph);
  if (!e.tags.empty()) {
    out += d.nl() + d.esc(c.labels.tags) + (c.lang == "zh" ? "：" : ": ");
    for (size_t i = 0; i < e.tags.size(); ++i) out += (i ? " · " : "") + d.esc(e.tags[i]);
  }
  out += d.nl() + d.link(d.esc(c.labels.original_pr + " " + e.ref), e.pr_url) + " · " +
         d.esc(c.labels.author + " " + e.author) + " · " +
         d.esc(c.labels.merged_at + " " + e.merged);
  return out;
}

// The entry within `budget` bytes: its paragraph is cut when needed.
std::string entry_block(const Dialect& d, const Content& c, const Entry& e, size_t budget) {
  std::string out = entry_text(d, c, e, e.paragraph);
  size_t para = span_bytes(e.paragraph);
  for (int i = 0; i < 4 && out.size() > budget && para > 0; ++i) {
    const size_t excess = out.size() - budget + 16;
    para = para > excess ? para - excess : 0;
    out = entry_text(d, c, e, cut_spans(e.paragraph, para));
  }
  return out.size() > budget ? cut_utf8(out, budget) : out;
}

std::vector<Block> blocks_of(const Dialect& d, const Content& c, size_t budget) {
  std::vector<Block> out;
  std::string top = d.esc(c.figures);
  std::string close;
  for (const auto& e : c.entries)
    if (e.verdict == "close_read") close += " " + d.link(d.esc(e.ref), e.link);
  if (!close.empty()) top += d.nl() + d.esc(c.labels.close_links) + close;
  out.push_back({top, false, 0});
  if (!c.themes.empty()) {
    out.push_back({d.bold(d.esc(c.themes_label)), false, 0});
    for (size_t i = 0; i < c.themes.size(); ++i)
      out.push_back({cut_utf8(std::to_string(i + 1) + ". " + d.esc(c.themes[i]), budget), true, 0});
  }
  for (const auto& e : c.entries) out.push_back({entry_block(d, c, e, budget), false, 1});
  if (!c.skipped.empty()) {
    out.push_back({d.bold(d.esc(c.labels.skipped)), false, 2});
    for (const auto& e : c.skipped)
      out.push_back({cut_utf8("- " + d.link(d.esc(e.ref), e.link) + " " +
                                  d.text(cut_spans(e.headline, kMaxHeadlineBytes)),
                              budget),
                     true, 2});
  }
  if (!c.day_url.empty()) out.push_back({d.link(d.esc(c.labels.more), c.day_url), false, 3});
  return out;
}

std::string join(const Dialect& d, std::span<const Block> blocks) {
  std::string out;
  for (size_t i = 0; i < blocks.size(); ++i) {
    if (i) out += blocks[i].tight ? d.nl() : "\n\n";
    out += blocks[i].text;
  }
  return out;
}

using json = nlohmann::json;

std::string dump(const json& j) {
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

// The payload of one part, and whether it is within the limits.
struct Part {
  std::string payload;
  bool fits = true;
};

Part render_part(const Dialect& d, const Content& c, std::string_view label,
                 std::span<const Block> blocks) {
  const Limits lim = limits_of(d.kind);
  const std::string title = c.title + std::string(label);
  switch (d.kind) {
    case Kind::kDingTalk: {
      const std::string text = "### " + d.esc(title) + "\n\n" + join(d, blocks);
      return {dump({{"msgtype", "markdown"}, {"markdown", {{"title", title}, {"text", text}}}}),
              text.size() <= lim.max_bytes};
    }
    case Kind::kWeCom: {
      const std::string text = "### " + d.esc(title) + "\n" + join(d, blocks);
      return {dump({{"msgtype", "markdown"}, {"markdown", {{"content", text}}}}),
              text.size() <= lim.max_bytes};
    }
    case Kind::kSlack: {
      json out = json::array();
      out.push_back(
          {{"type", "header"}, {"text", {{"type", "plain_text"}, {"text", cut_utf8(title, 150)}}}});
      std::string section;
      auto flush = [&] {
        if (section.empty()) return;
        out.push_back({{"type", "section"}, {"text", {{"type", "mrkdwn"}, {"text", section}}}});
        section.clear();
      };
      for (const auto& b : blocks) {
        if (b.tight && !section.empty() &&
            section.size() + 1 + b.text.size() <= lim.max_block_bytes) {
          section += "\n" + b.text;
          continue;
        }
        flush();
        section = cut_utf8(b.text, lim.max_block_bytes);
      }
      flush();
      const std::string fallback = title + " · " + c.figures;
      const size_t n = out.size();
      return {dump({{"text", d.esc(fallback)}, {"blocks", out}}), n <= lim.max_blocks};
    }
    case Kind::kEmail:
      return {render_email(c), true};
    case Kind::kFeishu:
    case Kind::kLark: {
      json elements = json::array();
      std::vector<Block> group;
      auto flush = [&] {
        if (group.empty()) return;
        if (!elements.empty()) elements.push_back({{"tag", "hr"}});
        elements.push_back({{"tag", "markdown"}, {"content", join(d, group)}});
        group.clear();
      };
      // One markdown element per section, a rule between them.
      int section = -1;
      for (const auto& b : blocks) {
        if (b.section != section) flush();
        section = b.section;
        group.push_back(b);
      }
      flush();
      const std::string body =
          dump({{"msg_type", "interactive"},
                {"card",
                 {{"config", {{"wide_screen_mode", true}}},
                  {"header",
                   {{"template", "blue"}, {"title", {{"tag", "plain_text"}, {"content", title}}}}},
                  {"elements", elements}}}});
      return {body, body.size() <= lim.max_bytes};
    }
  }
  return {};
}

}  // namespace

std::vector<std::string> render_parts(const Target& target, const Content& content) {
  if (target.is_email()) return {render_email(content)};
  const Dialect d{target.kind};
  const Limits lim = limits_of(target.kind);
  // What one entry may take when it is alone in a message, with room for the
  // title and the JSON around it.
  const size_t budget = lim.max_block_bytes
                            ? lim.max_block_bytes
                            : lim.max_bytes - std::min<size_t>(lim.max_bytes / 4, 1500);
  const std::vector<Block> blocks = blocks_of(d, content, budget);
  // Pack greedily with room for the longest label, then render the labels.
  constexpr std::string_view kRoom = " (99/99)";
  std::vector<std::vector<Block>> parts(1);
  for (const auto& b : blocks) {
    parts.back().push_back(b);
    if (parts.back().size() > 1 && !render_part(d, content, kRoom, parts.back()).fits) {
      parts.back().pop_back();
      parts.push_back({b});
    }
  }
  std::vector<std::string> out;
  for (size_t i = 0; i < parts.size(); ++i) {
    const std::string label =
        parts.size() == 1 ? ""
                          : " (" + std::to_string(i + 1) + "/" + std::to_string(parts.size()) + ")";
    out.push_back(render_part(d, content, label, parts[i]).payload);
  }
  return out;
}

}  // namespace mergelens::deliver
