// The e-mail renderer (render.h): the digest as HTML and as plain text, the
// two parts of one multipart/alternative message. Text from the store is
// HTML-escaped in the HTML part (code spans as <code>) and kept as written,
// backticks included, in the plain part. The subject is plain text; the
// sender encodes it (RFC 2047).
#include <nlohmann/json.hpp>

#include "mergelens/deliver/render.h"
#include "mergelens/web/pages.h"

namespace mergelens::deliver {

namespace {

std::string html(std::string_view s) {
  return web::escape_html(s);
}

std::string html_spans(const std::vector<Span>& v) {
  std::string out;
  for (const auto& s : v) out += s.code ? "<code>" + html(s.text) + "</code>" : html(s.text);
  return out;
}

std::string plain_spans(const std::vector<Span>& v) {
  std::string out;
  for (const auto& s : v) out += s.code ? "`" + s.text + "`" : s.text;
  return out;
}

std::string a(std::string_view inner, std::string_view url) {
  if (url.empty()) return std::string(inner);
  return "<a href=\"" + html(url) + "\">" + std::string(inner) + "</a>";
}

std::string sep(const Content& c) {
  return c.lang == "zh" ? "：" : ": ";
}

}  // namespace

std::string render_email(const Content& c) {
  std::string h =
      "<!DOCTYPE html>\n<html lang=\"" + std::string(c.lang == "zh" ? "zh-CN" : "en") +
      "\">\n<head><meta charset=\"utf-8\">"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>" +
      html(c.title) + "</title></head>\n<body>\n<h1>" + html(c.title) + "</h1>\n<p>" +
      html(c.figures) + "</p>\n";
  std::string t = c.title + "\n" + std::string(c.title.size() > 40 ? 40 : c.title.size(), '=') +
                  "\n\n" + c.figures + "\n";
  if (!c.themes.empty()) {
    h += "<h2>" + html(c.themes_label) + "</h2>\n<ol>\n";
    t += "\n" + c.themes_label + "\n";
    for (size_t i = 0; i < c.themes.size(); ++i) {
      h += "<li>" + html(c.themes[i]) + "</li>\n";
      t += std::to_string(i + 1) + ". " + c.themes[i] + "\n";
    }
    h += "</ol>\n";
  }
  std::string close_h, close_t;
  for (const auto& e : c.entries) {
    if (e.verdict != "close_read") continue;
    close_h += " " + a(html(e.ref), e.link);
    close_t += " " + e.ref;
  }
  if (!close_h.empty()) {
    h += "<p>" + html(c.labels.close_links) + close_h + "</p>\n";
    t += c.labels.close_links + close_t + "\n";
  }
  for (const auto& e : c.entries) {
    h += "<div class=\"entry\">\n<h2>" + a(html_spans(e.headline), e.link) + "</h2>\n";
    t += "\n" + plain_spans(e.headline) + "\n";
    if (!e.paragraph.empty()) {
      h += "<p>" + html_spans(e.paragraph) + "</p>\n";
      t += plain_spans(e.paragraph) + "\n";
    }
    if (!e.tags.empty()) {
      std::string tags;
      for (size_t i = 0; i < e.tags.size(); ++i) tags += (i ? " · " : "") + e.tags[i];
      h += "<p>" + html(c.labels.tags + sep(c) + tags) + "</p>\n";
      t += c.labels.tags + sep(c) + tags + "\n";
    }
    const std::string who =
        c.labels.author + " " + e.author + " · " + c.labels.merged_at + " " + e.merged;
    h += "<p>" + a(html(c.labels.original_pr + " " + e.ref), e.pr_url) + " · " + html(who) +
         "</p>\n</div>\n";
    t += c.labels.original_pr + " " + e.ref + (e.pr_url.empty() ? "" : " <" + e.pr_url + ">") +
         " · " + who + "\n";
  }
  if (!c.skipped.empty()) {
    h += "<h2>" + html(c.labels.skipped) + "</h2>\n<ul>\n";
    t += "\n" + c.labels.skipped + "\n";
    for (const auto& e : c.skipped) {
      h += "<li>" + a(html(e.ref), e.link) + " " + html_spans(e.headline) + "</li>\n";
      t += "- " + e.ref + " " + plain_spans(e.headline) + "\n";
    }
    h += "</ul>\n";
  }
  if (!c.day_url.empty()) {
    h += "<p>" + a(html(c.labels.more), c.day_url) + "</p>\n";
    t += "\n" + c.labels.more + sep(c) + c.day_url + "\n";
  }
  h += "</body>\n</html>\n";
  nlohmann::json j = {{"subject", c.title + " · " + c.figures}, {"text", t}, {"html", h}};
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace mergelens::deliver
