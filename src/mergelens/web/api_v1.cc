// /api/v1/: data, not view models (see api_v1.h and templates/openapi.json).
#include "mergelens/web/api_v1.h"

#include <algorithm>
#include <charconv>

#include <fmt/format.h>

#include "mergelens/analysis/text/glossary.h"
#include "mergelens/report/notes.h"
#include "mergelens/report/week.h"
#include "mergelens/web/digest.h"
#include "mergelens/web/search.h"

namespace mergelens::web {

namespace {

using nlohmann::json;

json null_if_empty(const std::string& s) {
  return s.empty() ? json(nullptr) : json(s);
}

json iso_time(UnixSeconds t, bool open) {
  return open || t == 0 ? json(nullptr) : json(format_utc(t));
}

std::string repo_of(const ApiContext& c, std::int64_t repo_id) {
  return clean_text(c.site.all() ? c.site.repo_name(repo_id) : c.site.repo.name);
}

// Absolute link to a server path, or null without a base URL.
json absolute(const ApiContext& c, const std::string& path) {
  return c.base_url.empty() ? json(nullptr) : json(c.base_url + path);
}

std::string lang_query(const ApiContext& c) {
  return fmt::format("lang={}", lang_code(c.site.lang));
}

json api_link(const ApiContext& c, std::string_view path, std::string_view repo) {
  return absolute(c, fmt::format("/api/v1{}?repo={}&{}", path, url_encode(repo), lang_query(c)));
}

json tag_names(const std::vector<std::string>& tags) {
  json out = json::array();
  for (const auto& t : tags) out.push_back(clean_text(t));
  return out;
}

// The change on its host: the stored URL, else built from the repository's
// web address (".../pull/N", or ".../commit/SHA" without a PR number); null
// when neither is known.
json host_url(const ApiContext& c, const ChangeSummary& s) {
  if (std::string url = safe_url(s.url); !url.empty()) return url;
  const RepoRecord* r = c.site.scopes.find(s.repo_id);
  const std::string base = safe_url(r ? r->web_base : c.site.repo.web_base);
  if (base.empty()) return nullptr;
  if (s.number) return fmt::format("{}/pull/{}", base, *s.number);
  if (s.sha.empty()) return nullptr;
  return fmt::format("{}/commit/{}", base, s.sha);
}

// One change as data.
json change_json(const ApiContext& c, const ChangeSummary& s, const std::vector<std::string>& tags,
                 const std::string& headline) {
  const std::string repo = repo_of(c, s.repo_id);
  const std::string ref = url_ref(s);
  const std::string title = clean_text(s.title);
  return {{"repo", repo},
          {"number", s.number ? json(*s.number) : json(nullptr)},
          {"sha", s.sha},
          {"title", title},
          {"headline", headline.empty() ? title : clean_text(headline)},
          {"has_guide", !headline.empty()},
          {"verdict", null_if_empty(s.verdict)},
          {"importance", s.importance},
          {"insight", s.insight},
          {"tags", tag_names(tags)},
          {"author", clean_text(author_of(s.author))},
          {"merged_at", iso_time(s.merged_at, s.open)},
          {"open", s.open},
          {"url", host_url(c, s)},
          {"page_url", absolute(c, c.site.links_of(s.repo_id).pr(ref))},
          {"api_url", api_link(c, "/pr/" + url_encode(ref), repo)},
          {"additions", s.additions},
          {"deletions", s.deletions},
          {"files", s.file_count}};
}

json digest_change(const ApiContext& c, const DigestEntry& e) {
  json j = change_json(c, e.change, e.tags, e.has_guide ? e.headline : "");
  j["headline"] = clean_text(e.headline);
  j["digest"] = clean_text(e.paragraph);
  j["triage"] = e.triage ? json{{"rank", e.triage->rank}, {"reason", clean_text(e.triage_reason)}}
                         : json(nullptr);
  return j;
}

Result<json> changes_json(const ApiContext& c, const std::vector<ChangeSummary>& rows) {
  std::vector<std::int64_t> ids;
  for (const auto& r : rows) ids.push_back(r.id);
  auto tags = c.site.store.tags_of(ids);
  if (!tags) return std::unexpected(tags.error());
  auto lines = c.site.store.guide_lines(ids);
  if (!lines) return std::unexpected(lines.error());
  static const std::vector<std::string> kNone;
  json out = json::array();
  for (const auto& r : rows) {
    std::string headline;
    if (auto it = lines->find(r.id); it != lines->end())
      for (const auto& g : it->second)
        if (g.lang == lang_code(c.site.lang) || headline.empty()) headline = g.headline;
    auto t = tags->find(r.id);
    out.push_back(change_json(c, r, t == tags->end() ? kNone : t->second, headline));
  }
  return out;
}

json strings(const std::vector<std::string>& v) {
  json out = json::array();
  for (const auto& s : v)
    if (!s.empty()) out.push_back(clean_text(s));
  return out;
}

json score_json(int value, const std::string& reason) {
  return {{"value", value}, {"reason", clean_text(reason)}};
}

json guide_json(const Site& site, const Change& ch, const Guide& g) {
  json focus = json::array(), skim = json::array(), advice = json::array(), refs = json::array();
  for (const auto& f : g.focus)
    focus.push_back({{"path", clean_text(f.path)},
                     {"start_line", f.start_line > 0 ? json(f.start_line) : json(nullptr)},
                     {"end_line", f.end_line > 0     ? json(std::max(f.end_line, f.start_line))
                                  : f.start_line > 0 ? json(f.start_line)
                                                     : json(nullptr)},
                     {"symbol", clean_text(f.symbol)},
                     {"question", clean_text(f.question)},
                     {"why", clean_text(f.why)},
                     {"url", null_if_empty(blob_url(site, ch, f.path, f.start_line, f.end_line))}});
  for (const auto& k : g.skim)
    skim.push_back({{"path", clean_text(k.path)}, {"reason", clean_text(k.reason)}});
  for (const auto& a : g.advice)
    advice.push_back({{"role", clean_text(a.role)}, {"text", clean_text(a.text)}});
  for (const auto& r : g.references)
    refs.push_back({{"ref", clean_text(r.ref)},
                    {"relation", clean_text(r.relation)},
                    {"note", clean_text(r.note)}});
  return {{"lang", g.lang},
          {"writer", clean_text(g.writer.kind)},
          {"model", null_if_empty(clean_text(g.writer.model))},
          {"headline", clean_text(g.headline)},
          {"digest", clean_text(digest_paragraph(g))},
          {"summary", clean_text(g.summary)},
          {"verdict", null_if_empty(g.verdict)},
          {"verdict_text", clean_text(g.verdict_text)},
          {"why", clean_text(g.why)},
          {"audience", clean_text(g.audience)},
          {"importance", score_json(g.importance.value, g.importance.reason)},
          {"insight", score_json(g.insight.value, g.insight.reason)},
          {"focus", focus},
          {"skim", skim},
          {"design_decisions", strings(g.design_decisions)},
          {"questions", strings(g.questions)},
          {"number_cautions", strings(g.number_cautions)},
          {"body_vs_code", strings(g.body_vs_code)},
          {"gaps", strings(g.gaps)},
          {"advice", advice},
          {"references", refs}};
}

Result<size_t> count_param(std::string_view text, size_t fallback, size_t max, const char* name) {
  if (text.empty()) return fallback;
  size_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < 1 || v > max)
    return fail(ErrorKind::kInvalidInput, "{} must be a number from 1 to {}", name, max);
  return v;
}

}  // namespace

Result<std::int64_t> root_repo(Store& store, std::string_view name) {
  auto repos = store.list_repos();
  if (!repos) return std::unexpected(repos.error());
  if (name.empty() && repos->size() > 1) return kAllRepos;
  auto repo = resolve_repo(store, name);
  if (!repo) return std::unexpected(repo.error());
  return repo->id;
}

Result<Site> api_site(Store& store, const TimeZone& tz, Lang lang, Lang default_lang,
                      std::int64_t root, std::string_view name) {
  auto repos = store.list_repos();
  if (!repos) return std::unexpected(repos.error());
  Scopes scopes{std::move(*repos), root};
  std::int64_t id = root;
  if (name == "all") {
    id = kAllRepos;
  } else if (!name.empty()) {
    auto it = std::find_if(scopes.repos.begin(), scopes.repos.end(),
                           [&](const RepoRecord& r) { return r.name == name; });
    if (it == scopes.repos.end()) {
      std::string names;
      for (const auto& r : scopes.repos) names += (names.empty() ? "" : ", ") + r.name;
      return fail(ErrorKind::kNotFound, "no repository named \"{}\" (the store holds: {})",
                  clean_text(name), names);
    }
    id = it->id;
  }
  const RepoRecord* found = scopes.find(id);
  RepoRecord repo = found ? *found : all_repos_record(lang);
  const Links links = Links::server(lang, default_lang).at(scopes.scope_of(id));
  return Site{store, std::move(repo), tz, lang, links, std::move(scopes), {}};
}

Result<json> v1_repos(const ApiContext& c) {
  json out = json::array();
  for (const auto& r : c.site.scopes.repos)
    out.push_back({{"name", clean_text(r.name)},
                   {"web_url", null_if_empty(safe_url(r.web_base))},
                   {"api_url", api_link(c, "/day", r.name)}});
  return json{{"repos", out}};
}

Result<json> v1_day(const ApiContext& c, std::string_view date) {
  auto d = day_digest(c.site, date);
  if (!d) return std::unexpected(d.error());
  json changes = json::array(), open = json::array();
  for (const auto& e : d->entries) changes.push_back(digest_change(c, e));
  for (const auto& e : d->open) open.push_back(digest_change(c, e));
  const std::string repo = clean_text(c.site.repo.name);
  return json{
      {"repo", c.site.all() ? json(nullptr) : json(repo)},
      {"date", null_if_empty(d->date)},
      {"time_zone", c.site.tz.name()},
      {"lang", lang_code(c.site.lang)},
      {"counts",
       {{"merged", d->entries.size()},
        {"close_read", d->close_reads},
        {"selective_read", d->selective_reads},
        {"skim", d->skims},
        {"skip", d->skips},
        {"open", d->open.size()},
        {"triaged", d->triaged}}},
      {"previous", d->prev ? json(*d->prev) : json(nullptr)},
      {"next", d->next ? json(*d->next) : json(nullptr)},
      {"page_url", d->date.empty() ? json(nullptr) : absolute(c, c.site.links.day(d->date))},
      {"changes", changes},
      {"open", open}};
}

Result<json> v1_pr(const ApiContext& c, std::string_view ref) {
  if (c.site.all())
    return fail(ErrorKind::kInvalidInput,
                "a PR belongs to one repository: name it (repo=OWNER/NAME)");
  auto change = find_change(c.site.store, c.site.repo, ref);
  if (!change) return std::unexpected(change.error());
  const Change& ch = *change;
  auto facts = c.site.store.get_facts(ch.id);
  if (!facts) return std::unexpected(facts.error());
  auto guide = guide_for(c.site, ch.id);
  if (!guide) return std::unexpected(guide.error());
  ChangeSummary s;
  s.id = ch.id;
  s.repo_id = c.site.repo.id;
  s.kind = ch.kind;
  s.number = ch.number;
  s.sha = ch.sha;
  s.title = ch.title;
  s.author = ch.author;
  s.merged_at = ch.merged_at;
  s.url = ch.url;
  s.file_count = static_cast<std::int32_t>(ch.files.size());
  s.additions = ch.additions();
  s.deletions = ch.deletions();
  s.open = ch.open;
  std::vector<std::string> tags;
  json referenced_by = json::array();
  if (*facts) {
    const Facts& f = **facts;
    s.verdict = to_string(f.verdict);
    s.importance = f.importance.value;
    s.insight = f.insight.value;
    for (const auto& t : f.tags) tags.push_back(t.name);
    for (const auto& b : f.referenced_by)
      referenced_by.push_back({{"ref", clean_text(b.ref)},
                               {"title", clean_text(b.title)},
                               {"relation", clean_text(b.relation)}});
  }
  // The guide's judgment is the one the reader sees (it follows the triage).
  if (*guide) {
    const Guide& g = **guide;
    if (!g.verdict.empty()) s.verdict = g.verdict;
    if (g.importance.value > 0) s.importance = g.importance.value;
    if (g.insight.value > 0) s.insight = g.insight.value;
    if (!g.tags.empty()) tags = g.tags;
  }
  json out = change_json(c, s, tags, *guide ? (*guide)->headline : "");
  out["body"] = clean_text(ch.body);
  out["analysed"] = facts->has_value();
  out["guide"] = *guide ? guide_json(c.site, ch, **guide) : json(nullptr);
  out["referenced_by"] = referenced_by;
  return out;
}

Result<json> v1_tags(const ApiContext& c) {
  constexpr size_t kWeeks = 26;
  auto stats = c.site.store.tag_stats(c.site.repo.id, kWeeks);
  if (!stats) return std::unexpected(stats.error());
  json tags = json::array();
  const std::string repo = c.site.all() ? "all" : c.site.repo.name;
  for (const auto& t : *stats)
    tags.push_back({{"tag", clean_text(t.name)},
                    {"name", clean_text(tag_display_name(t.name, lang_code(c.site.lang)))},
                    {"count", t.count},
                    {"close_reads", t.close_reads},
                    {"weekly", t.weekly},
                    {"api_url", api_link(c, "/tags/" + url_encode(t.name), repo)}});
  return json{{"repo", c.site.all() ? json(nullptr) : json(clean_text(c.site.repo.name))},
              {"weeks", kWeeks},
              {"tags", tags}};
}

Result<json> v1_tag(const ApiContext& c, const AggregateParams& p, size_t limit) {
  auto q = aggregate_query(c.site, p);
  if (!q) return std::unexpected(q.error());
  q->limit = limit;
  auto agg = c.site.store.aggregate(c.site.repo.id, *q);
  if (!agg) return std::unexpected(agg.error());
  auto top = changes_json(c, agg->top);
  if (!top) return std::unexpected(top.error());
  auto all = changes_json(c, agg->changes);
  if (!all) return std::unexpected(all.error());
  json weeks = json::array();
  for (const auto& w : agg->weeks)
    weeks.push_back({{"week", format_day(w.week)},
                     {"count", w.count},
                     {"mean_importance", w.importance},
                     {"mean_insight", w.insight}});
  json names = json::array();
  for (const auto& t : q->tags)
    names.push_back({{"tag", clean_text(t)},
                     {"name", clean_text(tag_display_name(t, lang_code(c.site.lang)))}});
  return json{{"repo", c.site.all() ? json(nullptr) : json(clean_text(c.site.repo.name))},
              {"tags", names},
              {"filters",
               {{"from", null_if_empty(p.from)},
                {"to", null_if_empty(p.to)},
                {"verdict", null_if_empty(p.verdict)},
                {"min", q->min_score}}},
              {"count", agg->count},
              {"close_reads", agg->close_reads},
              {"mean_importance", agg->mean_importance},
              {"mean_insight", agg->mean_insight},
              {"weeks", weeks},
              {"top", *top},
              {"changes", *all}};
}

Result<json> v1_search(const ApiContext& c, std::string_view q, size_t limit) {
  auto parsed = parse_query(q);
  if (!parsed) return std::unexpected(parsed.error());
  const auto terms = expand_terms(std::move(*parsed));
  auto hits = c.site.store.search(c.site.repo.id, terms, lang_code(c.site.lang), limit);
  if (!hits) return std::unexpected(hits.error());
  std::vector<std::int64_t> ids;
  for (const auto& h : *hits) ids.push_back(h.change.id);
  auto tags = c.site.store.tags_of(ids);
  if (!tags) return std::unexpected(tags.error());
  static const std::vector<std::string> kNone;
  json results = json::array();
  for (const auto& h : *hits) {
    auto t = tags->find(h.change.id);
    json item = change_json(c, h.change, t == tags->end() ? kNone : t->second, h.headline);
    std::string text;
    for (const auto& seg : snippet({h.text, h.headline, h.change.title}, terms))
      text += seg["t"].get<std::string>();
    item["snippet"] = text;
    results.push_back(std::move(item));
  }
  return json{{"repo", c.site.all() ? json(nullptr) : json(clean_text(c.site.repo.name))},
              {"q", clean_text(q)},
              {"count", hits->size()},
              {"results", results}};
}

Result<json> v1_week(const ApiContext& c, std::string_view week, const ApiParams& params) {
  std::vector<std::pair<std::string, std::string>> wanted;
  for (const auto& [k, v] : params)
    if (k == "tags" || k == "paths" || k == "min") wanted.emplace_back(k, v);
  auto filter = report::parse_filter(wanted);
  if (!filter) return std::unexpected(filter.error());
  auto w = report::load_week(c.site.store, c.site.repo.id, week, lang_code(c.site.lang),
                             filter->empty() ? nullptr : &*filter);
  if (!w) return std::unexpected(w.error());
  if (w->week.empty()) return fail(ErrorKind::kNotFound, "the store holds no merged change");
  json out = report::week_json(*w);
  out["repo"] = c.site.all() ? json(nullptr) : json(clean_text(c.site.repo.name));
  out["page_url"] = absolute(c, c.site.links.week(w->week));
  return out;
}

Result<json> v1_notes(const ApiContext& c, std::string_view since, std::string_view until,
                      size_t highlights) {
  if (c.site.all())
    return fail(ErrorKind::kInvalidInput,
                "release notes are one repository's: name it (repo=OWNER/NAME)");
  if (since.empty())
    return fail(ErrorKind::kInvalidInput, "since is required (YYYY-MM-DD or ISO 8601)");
  report::NotesRange range;
  range.from_label = std::string(since);
  range.to_label = std::string(until);
  auto from = parse_instant(since);
  if (!from) return wrap(from.error(), "since");
  range.since = *from;
  if (!until.empty()) {
    auto to = parse_instant(until);
    if (!to) return wrap(to.error(), "until");
    if (*to <= *from) return fail(ErrorKind::kInvalidInput, "until must be after since");
    range.until = *to;
  }
  report::NotesOptions o;
  o.lang = lang_code(c.site.lang);
  o.max_highlights = highlights;
  auto notes = report::draft_notes(c.site.store, c.site.repo, range, o);
  if (!notes) return std::unexpected(notes.error());
  return report::notes_json(*notes);
}

int v1_status(ErrorKind kind) {
  return kind == ErrorKind::kInvalidInput ? 400 : kind == ErrorKind::kNotFound ? 404 : 500;
}

json v1_error(const Error& e) {
  const int status = v1_status(e.kind);
  return {{"error",
           {{"status", status},
            {"code", status == 400   ? "bad_request"
                     : status == 404 ? "not_found"
                                     : "server_error"},
            {"message", clean_text(e.message)}}}};
}

ApiAnswer answer_v1(Store& store, const TimeZone& tz, Lang default_lang, std::int64_t root,
                    std::string_view path, const ApiParams& params, const std::string& base_url,
                    const ApiRoute& more) {
  auto param = [&](std::string_view name) {
    for (const auto& [k, v] : params)
      if (k == name) return v;
    return std::string();
  };
  auto answer = [](Result<json> r) {
    if (!r) return ApiAnswer{v1_status(r.error().kind), v1_error(r.error())};
    return ApiAnswer{200, std::move(*r)};
  };
  try {
    const std::string lang_text = param("lang");
    if (!lang_text.empty() && lang_text != "zh" && lang_text != "en")
      return answer(fail(ErrorKind::kInvalidInput, "lang must be zh or en"));
    const Lang lang = lang_text.empty() ? default_lang : lang_from(lang_text);
    auto site = api_site(store, tz, lang, default_lang, root, param("repo"));
    if (!site) return answer(std::unexpected(site.error()));
    const ApiContext c{*site, base_url};
    // One segment after /day/, /pr/ or /week/: a deeper path is no API path.
    for (std::string_view family : {"/day/", "/pr/", "/week/"})
      if (path.starts_with(family) && path.find('/', family.size()) != std::string_view::npos)
        return answer(fail(ErrorKind::kNotFound, "no API path /api/v1{}", clean_text(path)));
    if (path == "/repos") return answer(v1_repos(c));
    if (path == "/day") return answer(v1_day(c, ""));
    if (path.starts_with("/day/") && path.size() > 5) return answer(v1_day(c, path.substr(5)));
    if (path.starts_with("/pr/") && path.size() > 4) return answer(v1_pr(c, path.substr(4)));
    if (path == "/week") return answer(v1_week(c, "", params));
    if (path.starts_with("/week/") && path.size() > 6)
      return answer(v1_week(c, path.substr(6), params));
    if (path == "/release-notes") {
      auto highlights = count_param(param("highlights"), 10, 50, "highlights");
      if (!highlights) return answer(std::unexpected(highlights.error()));
      return answer(v1_notes(c, param("since"), param("until"), *highlights));
    }
    if (path == "/tags") return answer(v1_tags(c));
    if (path.starts_with("/tags/") && path.size() > 6) {
      auto limit = count_param(param("limit"), 50, 200, "limit");
      if (!limit) return answer(std::unexpected(limit.error()));
      AggregateParams p{std::string(path.substr(6)), param("from"), param("to"), param("verdict"),
                        param("min")};
      return answer(v1_tag(c, p, *limit));
    }
    if (path == "/search") {
      auto limit = count_param(param("limit"), 20, 50, "limit");
      if (!limit) return answer(std::unexpected(limit.error()));
      return answer(v1_search(c, param("q"), *limit));
    }
    if (more)
      if (auto r = more(c, path, params)) return answer(std::move(*r));
    return answer(fail(ErrorKind::kNotFound, "no API path /api/v1{}", clean_text(path)));
  } catch (const std::exception& e) {
    return answer(fail(ErrorKind::kInternal, "internal error: {}", e.what()));
  }
}

}  // namespace mergelens::web
