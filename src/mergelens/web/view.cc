// Links and the helpers shared by the page families.
#include <algorithm>

#include <fmt/format.h>

#include "mergelens/analysis/text/glossary.h"
#include "mergelens/util/utf8.h"
#include "mergelens/web/pages.h"

namespace mergelens::web {

namespace {

// File-name form of a path element in the static export: [A-Za-z0-9._-]
// kept, every other byte as _XX, so no name needs escaping in a link.
std::string slug(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (std::isalnum(c) || c == '-' || (c == '.' && i > 0))
      out += static_cast<char>(c);
    else
      out += fmt::format("_{:02x}", c);
  }
  return out;
}

std::string repeat_up(int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += "../";
  return s;
}

}  // namespace

Links Links::server(Lang lang, Lang default_lang, std::string_view root) {
  Links l;
  l.lang_ = lang;
  l.default_ = default_lang;
  l.root_ = std::string(root);
  return l;
}

Links Links::exported(Lang lang, int depth, std::string_view scope) {
  Links l;
  l.lang_ = lang;
  l.static_ = true;
  l.depth_ = depth;
  l.here_ = l.there_ = std::string(scope);
  return l;
}

Links Links::at(std::string_view scope) const {
  Links l = *this;
  l.there_ = std::string(scope);
  return l;
}

namespace {

// "r/NAME" → "r/" + each element of NAME as a file name; "all" stays.
std::string static_dir(std::string_view scope) {
  if (scope.empty()) return "";
  if (!scope.starts_with("r/")) return std::string(scope) + "/";
  std::string out = "r/";
  std::string_view name = scope.substr(2);
  while (!name.empty()) {
    const size_t slash = name.find('/');
    const std::string_view part = name.substr(0, slash);
    if (!part.empty()) out += slug(part) + "/";
    name = slash == std::string_view::npos ? "" : name.substr(slash + 1);
  }
  return out;
}

int dir_depth(std::string_view dir) {
  return static_cast<int>(std::count(dir.begin(), dir.end(), '/'));
}

std::string server_prefix(std::string_view scope) {
  if (scope.empty()) return "";
  if (scope.starts_with("r/")) return "/r/" + url_encode(scope.substr(2), /*path=*/true);
  return "/" + std::string(scope);
}

}  // namespace

std::string Links::up() const {
  return repeat_up(depth_ + dir_depth(static_dir(here_)));
}

std::string Links::page(std::string_view path_server, std::string_view path_static) const {
  if (static_) {
    if (there_ == here_) return repeat_up(depth_) + std::string(path_static);
    return up() + static_dir(there_) + std::string(path_static);
  }
  std::string out = root_ + server_prefix(there_) + std::string(path_server);
  if (lang_ != default_)
    out +=
        fmt::format("{}lang={}", out.find('?') == std::string::npos ? '?' : '&', lang_code(lang_));
  return out;
}

Result<std::string> site_base_url(std::string_view url) {
  if (url.empty()) return std::string();
  std::string u(url);
  while (u.ends_with('/')) u.pop_back();
  if (safe_url(u).empty() || u.find_first_of("?#") != std::string::npos)
    return fail(ErrorKind::kInvalidInput,
                "--base-url must be an http(s) URL without query or fragment, not \"{}\"",
                clean_text(url));
  return u;
}

std::string Links::home() const {
  return page("/", "index.html");
}
std::string Links::day(std::string_view date) const {
  return page(fmt::format("/day/{}", url_encode(date)), fmt::format("day/{}.html", slug(date)));
}
std::string Links::week(std::string_view w) const {
  return page(fmt::format("/week/{}", url_encode(w)), fmt::format("week/{}.html", slug(w)));
}
std::string Links::week_latest() const {
  return page("/week", "week/index.html");
}
std::string Links::pr(std::string_view ref) const {
  return page(fmt::format("/pr/{}", url_encode(ref)), fmt::format("pr/{}.html", slug(ref)));
}
std::string Links::tags(std::string_view sort) const {
  return page(sort.empty() ? std::string("/tags") : fmt::format("/tags?sort={}", url_encode(sort)),
              "tags/index.html");
}
std::string Links::tag(std::string_view names) const {
  return page(fmt::format("/tags/{}", url_encode(names)), fmt::format("tags/{}.html", slug(names)));
}
std::string Links::search(std::string_view q) const {
  if (static_) return "";
  return page(q.empty() ? std::string("/search") : fmt::format("/search?q={}", url_encode(q)), "");
}
std::string Links::action(std::string_view path) const {
  if (static_) return "";
  return root_ + server_prefix(there_) + std::string(path);
}
std::string Links::css() const {
  if (static_) return up() + (lang_ == Lang::kEn ? "../" : "") + "static/style.css";
  return root_ + "/static/style.css";
}
std::string Links::favicon() const {
  if (static_) return up() + (lang_ == Lang::kEn ? "../" : "") + "favicon.ico";
  return root_ + "/favicon.ico";
}
std::string Links::feed_all() const {
  return page("/feed.xml", "feed.xml");
}
std::string Links::feed_close() const {
  return page("/feed/close.xml", "feed/close.xml");
}
std::string Links::feed_tag(std::string_view tag) const {
  return page(fmt::format("/feed/tags/{}.xml", url_encode(tag)),
              fmt::format("feed/tags/{}.xml", slug(tag)));
}
std::string Links::feed_week() const {
  return page("/week.xml", "week.xml");
}
std::string Links::other_lang(std::string_view self, std::string_view query) const {
  if (static_)
    return up() + (lang_ == Lang::kEn ? "../" : "en/") + static_dir(here_) + std::string(self);
  const Lang other = lang_ == Lang::kZh ? Lang::kEn : Lang::kZh;
  std::string out = root_ + std::string(self);
  if (!query.empty()) out += "?" + std::string(query);
  if (other != default_)
    out += fmt::format("{}lang={}", query.empty() ? '?' : '&', lang_code(other));
  return out;
}

std::string Scopes::scope_of(std::int64_t repo_id) const {
  if (repo_id == root) return "";
  if (repo_id == kAllRepos) return "all";
  const RepoRecord* r = find(repo_id);
  return r ? "r/" + r->name : "";
}

const RepoRecord* Scopes::find(std::int64_t repo_id) const {
  for (const auto& r : repos)
    if (r.id == repo_id) return &r;
  return nullptr;
}

std::optional<Scopes::Match> Scopes::match(std::string_view path) const {
  auto rest_of = [](std::string_view p) { return p.empty() ? std::string("/") : std::string(p); };
  if (path == "/all" || path.starts_with("/all/"))
    return Match{kAllRepos, "/all", rest_of(path.substr(4))};
  if (!path.starts_with("/r/")) return std::nullopt;
  const std::string_view tail = path.substr(3);
  const RepoRecord* best = nullptr;
  for (const auto& r : repos) {
    const bool whole = tail == r.name || (tail.starts_with(r.name) && tail.size() > r.name.size() &&
                                          tail[r.name.size()] == '/');
    if (!r.name.empty() && whole && (!best || r.name.size() > best->name.size())) best = &r;
  }
  if (!best) return std::nullopt;
  return Match{best->id, "/r/" + best->name, rest_of(tail.substr(best->name.size()))};
}

Links Site::links_of(std::int64_t repo_id) const {
  if (!all() || scopes.repos.empty()) return links;
  return links.at(scopes.scope_of(repo_id));
}

std::string Site::repo_name(std::int64_t repo_id) const {
  if (repo_id == repo.id) return repo.name;
  const RepoRecord* r = scopes.find(repo_id);
  return r ? r->name : "";
}

RepoRecord all_repos_record(Lang lang) {
  RepoRecord r;
  r.id = kAllRepos;
  r.name = tr(lang, "all_repos");
  return r;
}

std::string url_encode(std::string_view s, bool path) {
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' || (path && c == '/'))
      out += static_cast<char>(c);
    else
      out += fmt::format("%{:02X}", c);
  }
  return out;
}

std::string clean_text(std::string_view s) {
  return clean_utf8_text(s);
}

std::string escape_html(std::string_view s) {
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
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

nlohmann::json rich(std::string_view text) {
  nlohmann::json out = nlohmann::json::array();
  const std::string t = clean_text(text);
  size_t pos = 0;
  while (pos < t.size()) {
    const size_t open = t.find('`', pos);
    const size_t close = open == std::string::npos ? open : t.find('`', open + 1);
    if (close == std::string::npos) {
      out.push_back({{"t", t.substr(pos)}, {"code", false}});
      break;
    }
    if (open > pos) out.push_back({{"t", t.substr(pos, open - pos)}, {"code", false}});
    out.push_back({{"t", t.substr(open + 1, close - open - 1)}, {"code", true}});
    pos = close + 1;
  }
  return out;
}

std::string display_ref(const ChangeSummary& s) {
  return s.number ? fmt::format("#{}", *s.number) : s.sha.substr(0, 12);
}
std::string url_ref(const ChangeSummary& s) {
  return s.number && !s.number_reused ? std::to_string(*s.number) : s.sha.substr(0, 12);
}
std::string author_of(const Person& p) {
  return clean_text(p.login.empty() ? p.name : p.login);
}

nlohmann::json change_item(const Site& site, const ChangeSummary& s,
                           const std::vector<std::string>& tags, const std::string& headline) {
  // Built key by key: an initializer list of pairs makes a two-element array
  // per pair first (twice the allocations, on every entry of every list).
  nlohmann::json tag_list = nlohmann::json::array();
  for (const auto& t : tags) {
    nlohmann::json tag = nlohmann::json::object();
    tag["name"] = clean_text(tag_display_name(t, lang_code(site.lang)));
    tag["tag"] = clean_text(t);
    tag["href"] = site.links.tag(t);
    tag_list.push_back(std::move(tag));
  }
  const std::string title = clean_text(s.title);
  const Links links = site.links_of(s.repo_id);
  nlohmann::json item = nlohmann::json::object();
  item["id"] = s.id;
  item["ref"] = display_ref(s);
  item["href"] = links.pr(url_ref(s));
  item["title"] = title;
  item["headline"] = headline.empty() ? title : clean_text(headline);
  item["has_guide"] = !headline.empty();
  item["verdict"] = s.verdict;
  item["verdict_label"] = verdict_label(site.lang, s.verdict);
  item["verdict_class"] = s.verdict.empty() ? "none" : s.verdict;
  item["close_read"] = s.verdict == "close_read";
  item["open"] = s.open;
  item["importance"] = s.importance;
  item["insight"] = s.insight;
  item["scored"] = !s.verdict.empty();
  item["tags"] = std::move(tag_list);
  item["author"] = author_of(s.author);
  item["merged"] = site.tz.minute(s.merged_at);
  item["merged_utc"] = format_utc(s.merged_at);
  item["url"] = safe_url(s.url);
  item["additions"] = s.additions;
  item["deletions"] = s.deletions;
  item["files"] = s.file_count;
  // On the pages of every repository each entry names its own (always set:
  // an empty value stops a template's lookup from reaching the page's).
  item["repo_name"] = site.all() ? clean_text(site.repo_name(s.repo_id)) : "";
  item["repo_href"] = site.all() ? links.home() : "";
  return item;
}

Result<nlohmann::json> change_items(const Site& site, const std::vector<ChangeSummary>& rows) {
  std::vector<std::int64_t> ids;
  for (const auto& r : rows) ids.push_back(r.id);
  auto tags = site.store.tags_of(ids);
  if (!tags) return std::unexpected(tags.error());
  auto lines = site.store.guide_lines(ids);
  if (!lines) return std::unexpected(lines.error());
  static const std::vector<std::string> kNone;
  nlohmann::json out = nlohmann::json::array();
  for (const auto& r : rows) {
    std::string headline;
    if (auto it = lines->find(r.id); it != lines->end()) {
      for (const auto& g : it->second)
        if (g.lang == lang_code(site.lang) || headline.empty()) headline = g.headline;
    }
    auto t = tags->find(r.id);
    out.push_back(change_item(site, r, t == tags->end() ? kNone : t->second, headline));
  }
  return out;
}

Page message_page(const Site& site, std::string_view title_key, std::string_view detail) {
  Page p;
  p.template_name = "message";
  p.title = tr(site.lang, title_key);
  p.model = {{"heading", p.title}, {"detail", clean_text(detail)}};
  return p;
}

std::string rich_html(std::string_view text) {
  std::string out;
  for (const auto& seg : rich(text)) {
    const std::string t = escape_html(clean_text(seg["t"].get<std::string>()));
    out += seg["code"].get<bool>() ? "<code>" + t + "</code>" : t;
  }
  return out;
}

std::string rich_plain(std::string_view text) {
  std::string out;
  for (const auto& seg : rich(text)) out += seg["t"].get<std::string>();
  return out;
}

std::string absolute_url(std::string_view base, std::string_view self, std::string_view href) {
  if (base.empty() || href.starts_with("http://") || href.starts_with("https://"))
    return std::string(href);
  if (href.starts_with("/")) return std::string(base) + std::string(href);
  std::string_view dir = self.substr(0, self.find('?'));
  if (dir.starts_with("/")) dir.remove_prefix(1);
  dir = dir.substr(0, dir.rfind('/') == std::string_view::npos ? 0 : dir.rfind('/') + 1);
  std::vector<std::string> parts;
  std::string joined = std::string(dir) + std::string(href);
  std::string query;
  if (const size_t q = joined.find_first_of("?#"); q != std::string::npos) {
    query = joined.substr(q);
    joined.resize(q);
  }
  size_t pos = 0;
  while (pos <= joined.size()) {
    const size_t slash = std::min(joined.find('/', pos), joined.size());
    const std::string part = joined.substr(pos, slash - pos);
    if (part == "..") {
      if (!parts.empty()) parts.pop_back();
    } else if (!part.empty() && part != ".") {
      parts.push_back(part);
    }
    pos = slash + 1;
  }
  std::string out(base);
  for (const auto& p : parts) out += "/" + p;
  return out + query;
}

}  // namespace mergelens::web
