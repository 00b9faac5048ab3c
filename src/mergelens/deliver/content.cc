// The digest of a day for a target (content.h), from web::day_digest.
#include "mergelens/deliver/content.h"

#include <fmt/format.h>

#include "mergelens/analysis/text/glossary.h"
#include "mergelens/web/digest.h"

namespace mergelens::deliver {

size_t Content::close_reads() const {
  size_t n = 0;
  for (const auto& e : entries) n += e.verdict == "close_read";
  return n;
}

std::vector<Span> spans(std::string_view text) {
  std::vector<Span> out;
  for (const auto& seg : web::rich(text))
    out.push_back(Span{seg["t"].get<std::string>(), seg["code"].get<bool>()});
  return out;
}

Entry entry_of(const web::Site& site, const Target& target, const web::DigestEntry& d) {
  Entry e;
  e.ref = web::display_ref(d.change);
  e.headline = spans(d.headline);
  e.paragraph = spans(d.paragraph);
  for (const auto& t : d.tags) e.tags.push_back(web::clean_text(tag_display_name(t, target.lang)));
  e.pr_url = web::safe_url(d.change.url);
  e.link =
      target.site_url.empty() ? e.pr_url : target.site_url + site.links.pr(web::url_ref(d.change));
  e.author = web::author_of(d.change.author);
  e.merged = site.tz.minute(d.change.merged_at);
  e.verdict = d.change.verdict;
  e.verdict_label = web::verdict_label(site.lang, d.change.verdict);
  e.importance = d.change.importance;
  e.insight = d.change.insight;
  return e;
}

Result<web::Links> target_links(Store& store, const RepoRecord& repo, web::Lang lang) {
  // In a store of several repositories the links name the repository
  // (/r/NAME/...), which a server answers whichever one it shows at "/".
  auto repos = store.list_repos();
  if (!repos) return std::unexpected(repos.error());
  web::Links links = web::Links::server(lang);
  if (repos->size() > 1) links = links.at("r/" + repo.name);
  return links;
}

Content content_head(const RepoRecord& repo, const Target& target, std::string_view key) {
  Content c;
  c.lang = target.lang;
  c.repo = repo.name;
  c.date = std::string(key);
  c.title = fmt::format("{} · {}", web::clean_text(repo.name), key);
  return c;
}

Result<Content> build_content(Store& store, const RepoRecord& repo, const Target& target,
                              std::string_view day) {
  if (target.schedule == "weekly") return build_week_content(store, repo, target, day);
  auto tz = web::TimeZone::named(target.tz);
  if (!tz) return std::unexpected(tz.error());
  if (auto b = tz->day_bounds(day); !b) return std::unexpected(b.error());
  const web::Lang lang = web::lang_from(target.lang);
  auto links = target_links(store, repo, lang);
  if (!links) return std::unexpected(links.error());
  web::Site site{store, repo, *tz, lang, *links, {}, {}};
  if (!target.filter.empty()) site.filter = &target.filter;
  Content c = content_head(repo, target, day);
  Result<void> built;
  auto snap = store.read_snapshot([&] {
    auto d = web::day_digest(site, day);
    if (!d) {
      built = std::unexpected(d.error());
      return;
    }
    c.figures = web::day_figures(lang, *d);
    for (const auto& e : d->entries)
      (e.change.verdict == "skip" ? c.skipped : c.entries).push_back(entry_of(site, target, e));
  });
  if (!snap) return std::unexpected(snap.error());
  if (!built) return std::unexpected(built.error());
  if (!target.site_url.empty())
    c.day_url = web::with_filter(site, target.site_url + site.links.day(day));
  c.labels = labels_of(lang);
  return c;
}

Labels labels_of(web::Lang lang) {
  auto tr = [&](std::string_view key) { return std::string(web::tr(lang, key)); };
  return Labels{tr("original_pr"),
                tr("author"),
                tr("merged_at"),
                tr("tags"),
                tr("close_links"),
                tr("skipped"),
                tr("importance"),
                tr("insight"),
                lang == web::Lang::kEn ? "The whole day on the web" : "在网页上查看这一天",
                lang == web::Lang::kEn ? "part" : "第"};
}

}  // namespace mergelens::deliver
