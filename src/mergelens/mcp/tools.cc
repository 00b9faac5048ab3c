#include "mergelens/mcp/tools.h"

#include <regex>

#include <fmt/format.h>

#include "mergelens/mcp/paging.h"
#include "mergelens/report/filter.h"
#include "mergelens/report/week.h"
#include "mergelens/util/strings.h"
#include "mergelens/web/api_v1.h"

namespace mergelens::mcp {

namespace {

using nlohmann::json;

const json kVerdicts = json::array({"close_read", "selective_read", "skim", "skip"});

// The arguments every tool takes: which repository and which language.
json site_arguments(json properties) {
  properties["repo"] = {
      {"type", "string"},
      {"maxLength", 200},
      {"description",
       "Repository as OWNER/NAME (the `repos` tool lists them); \"all\" for every repository. "
       "Default: the server's repository (with several and none chosen: every one)."}};
  properties["lang"] = {{"type", "string"},
                        {"enum", {"zh", "en"}},
                        {"description", "Language of headlines and guides (zh or en)."}};
  return properties;
}

// The arguments of a tool returning lists: one page at a time.
json page_arguments(json properties, size_t default_limit, size_t max_limit) {
  properties["limit"] = {
      {"type", "integer"},
      {"minimum", 1},
      {"maximum", max_limit},
      {"description",
       fmt::format("Items per page at most (default {}); a page also stops before about 8,000 "
                   "tokens.",
                   default_limit)}};
  properties["cursor"] = {
      {"type", "string"},
      {"maxLength", 4000},
      {"description",
       "The `page.next_cursor` of the previous result: the next page of the same list (the "
       "other arguments may be left out)."}};
  properties["fields"] = {
      {"type", "string"},
      {"maxLength", 400},
      {"description",
       "Comma-separated fields to keep in each listed item (e.g. \"headline,verdict,url\"); "
       "identifying fields (number, sha, ref, tag, name) are always kept. Default: all."}};
  return properties;
}

// A reader's filter for day and week: which of the changes to list.
json filter_arguments(json properties) {
  properties["tags"] = {{"type", "string"},
                        {"maxLength", 400},
                        {"description",
                         "Only changes carrying one of these tags, comma-separated (\"scheduler\" "
                         "or \"quantization,moe\"; the `tags` tool lists them)."}};
  properties["paths"] = {
      {"type", "string"},
      {"maxLength", 1000},
      {"description",
       "Only changes touching a file one of these globs matches, comma-separated "
       "(\"python/sglang/srt/managers/**\")."}};
  properties["min"] = {{"type", "string"},
                       {"maxLength", 20},
                       {"description",
                        "Only changes worth this much reading or more: a verdict (close_read, "
                        "selective_read, skim) or an importance 1-10."}};
  return properties;
}

json object_schema(json properties, json required = json::array()) {
  return {{"type", "object"},
          {"properties", std::move(properties)},
          {"required", std::move(required)},
          {"additionalProperties", false}};
}

// A result's schema: its fields may grow (new fields are added, never
// renamed); a paged one has `page`.
json result_schema(json properties, json required, bool paged = true) {
  if (paged) {
    properties["page"] = page_schema();
    required.push_back("page");
  }
  return {
      {"type", "object"}, {"properties", std::move(properties)}, {"required", std::move(required)}};
}

json nullable(const char* type) {
  return {{"type", json::array({type, "null"})}};
}

// One change as web/api_v1.cc writes it (the fields a model needs). Listed
// items require nothing: `fields` may leave any out.
json change_schema(bool listed = true) {
  json s = {{"type", "object"},
            {"properties",
             {{"repo", {{"type", "string"}}},
              {"number", nullable("integer")},
              {"sha", {{"type", "string"}}},
              {"title", {{"type", "string"}}},
              {"headline", {{"type", "string"}}},
              {"verdict", {{"enum", {"close_read", "selective_read", "skim", "skip", nullptr}}}},
              {"importance", {{"type", "integer"}, {"minimum", 0}, {"maximum", 10}}},
              {"insight", {{"type", "integer"}, {"minimum", 0}, {"maximum", 10}}},
              {"tags", {{"type", "array"}, {"items", {{"type", "string"}}}}},
              {"author", {{"type", "string"}}},
              {"merged_at", nullable("string")},
              {"url", nullable("string")},
              {"page_url", nullable("string")}}}};
  if (!listed)
    s["required"] = {"repo",       "number",  "sha",  "title",  "headline",  "verdict",
                     "importance", "insight", "tags", "author", "merged_at", "url"};
  return s;
}

json changes_schema() {
  return {{"type", "array"}, {"items", change_schema()}};
}

json array_of_objects() {
  return {{"type", "array"}, {"items", {{"type", "object"}}}};
}

// The site the `repo` and `lang` arguments name; with `filtered`, the
// reader's filter of `tags`, `paths` and `min` (day and week).
template <typename F>
Result<json> on_site(const ToolContext& c, const json& args, F&& f, bool filtered = false) {
  const std::string lang_text = args.value("lang", std::string());
  const web::Lang lang = lang_text.empty() ? c.default_lang : web::lang_from(lang_text);
  auto site =
      web::api_site(c.store, c.tz, lang, c.default_lang, c.root, args.value("repo", std::string()));
  if (!site) return std::unexpected(site.error());
  std::vector<std::pair<std::string, std::string>> params;
  if (filtered)
    for (const char* k : {"tags", "paths", "min"})
      if (args.contains(k) && args[k].is_string())
        params.emplace_back(k, args[k].get<std::string>());
  auto filter = report::parse_filter(params);
  if (!filter) return std::unexpected(filter.error());
  if (!filter->empty()) site->filter = &*filter;
  const web::ApiContext api{*site, c.base_url};
  return f(api);
}

// Runs `fetch` (the whole result) and keeps one page of its `lists`. The
// next page's cursor pins the arguments given, and those `resolved` names
// from the result (the date the newest day turned out to be).
template <typename F>
auto paged(std::string name, std::vector<std::string> lists, size_t default_limit,
           std::vector<std::string> resolved, F fetch) {
  return [=](const ToolContext& c, const json& given) -> Result<json> {
    json args = given;
    auto page = read_page_request(name, args, default_limit);
    if (!page) return std::unexpected(page.error());
    if (std::string wrong = check_arguments(find_tool(name)->input_schema, args); !wrong.empty())
      return fail(ErrorKind::kInvalidInput, "{}", wrong);
    auto full = fetch(c, args);
    if (!full) return std::unexpected(full.error());
    json pinned = args;
    for (const auto& k : resolved)
      if (full->contains(k) && (*full)[k].is_string()) pinned[k] = (*full)[k];
    return page_result(name, *full, lists, *page, pinned);
  };
}

// "sglang · 2026-09-10: 121 changes (4 close reads)." and the page's sentence.
std::string describe(std::string_view tool, const json& r, std::string head) {
  std::string out = std::move(head);
  if (std::string p = page_sentence(tool, r); !p.empty()) out += (out.empty() ? "" : " ") + p;
  return out;
}

std::string str(const json& r, const char* key) {
  return r.contains(key) && r[key].is_string() ? r[key].get<std::string>() : "";
}

std::string num(const json& r, const char* key) {
  return r.contains(key) && r[key].is_number() ? r[key].dump() : "?";
}

// "3 close reads" from r[key].
std::string count(const json& r, const char* key, std::string_view one,
                  std::string_view many = {}) {
  const std::int64_t n =
      r.contains(key) && r[key].is_number_integer() ? r[key].get<std::int64_t>() : 0;
  return plural(n, one, many);
}

std::vector<Tool> build() {
  std::vector<Tool> t;
  t.push_back(
      {"repos", "Repositories",
       "The repositories this mergelens store holds (OWNER/NAME), to pass as `repo` to the other "
       "tools.",
       object_schema(page_arguments(site_arguments(json::object()), 100, 500)),
       result_schema(
           {{"repos",
             {{"type", "array"},
              {"items", {{"type", "object"}, {"properties", {{"name", {{"type", "string"}}}}}}}}}},
           {"repos"}),
       paged("repos", {"repos"}, 100, {},
             [](const ToolContext& c, const json& args) {
               return on_site(c, args, [](const web::ApiContext& a) { return web::v1_repos(a); });
             }),
       [](const json& r) { return describe("repos", r, "The repositories of this store."); }});
  t.push_back(
      {"search", "Search merged PRs",
       "Full-text search over merged pull requests: titles, reading-guide headlines and guide "
       "text, in Chinese and English (a term in either language finds both). Words are ANDed; "
       "\"a phrase\", -excluded, prefix*. Best matches first; the 200 best at most, a page at a "
       "time.",
       object_schema(page_arguments(site_arguments({{"q",
                                                     {{"type", "string"},
                                                      {"minLength", 1},
                                                      {"maxLength", 256},
                                                      {"description",
                                                       "The query, e.g. \"scheduler\" or "
                                                       "\"KV cache -test\"."}}}}),
                                    20, 50),
                     {"q"}),
       result_schema({{"q", {{"type", "string"}}},
                      {"count", {{"type", "integer"}}},
                      {"results", changes_schema()}},
                     {"q", "count", "results"}),
       paged("search", {"results"}, 20, {},
             [](const ToolContext& c, const json& args) {
               return on_site(c, args, [&](const web::ApiContext& a) {
                 return web::v1_search(a, args.at("q").get<std::string>(), 200);
               });
             }),
       [](const json& r) {
         return describe(
             "search", r,
             fmt::format("{} for \"{}\".", count(r, "count", "match", "matches"), str(r, "q")));
       }});
  t.push_back(
      {"day", "A day's digest",
       "The digest of one repository-day: every PR merged that local day, most worth reading "
       "first (close reads, selective reads, skims, skips), each with its headline, verdict, "
       "importance and insight scores (1-10), tags, author, merge time and the digest paragraph. "
       "Without `date`: the newest day with merges. `tags`, `paths` and `min` keep only what a "
       "reader follows.",
       object_schema(page_arguments(
           site_arguments(filter_arguments(
               {{"date",
                 {{"type", "string"},
                  {"pattern", "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"},
                  {"description", "The local day, YYYY-MM-DD (default: the newest day)."}}}})),
           25, 200)),
       result_schema({{"date", nullable("string")},
                      {"counts", {{"type", "object"}}},
                      {"previous", nullable("string")},
                      {"next", nullable("string")},
                      {"changes", changes_schema()},
                      {"open", changes_schema()}},
                     {"date", "counts", "changes"}),
       paged("day", {"changes", "open"}, 25, {"date"},
             [](const ToolContext& c, const json& args) {
               return on_site(
                   c, args,
                   [&](const web::ApiContext& a) {
                     return web::v1_day(a, args.value("date", std::string()));
                   },
                   /*filtered=*/true);
             }),
       [](const json& r) {
         const json counts = r.value("counts", json::object());
         return describe("day", r,
                         fmt::format("{} · {}: {} merged ({}, {}).",
                                     r.value("repo", json()).is_string() ? str(r, "repo") : "all",
                                     str(r, "date"), count(counts, "merged", "PR"),
                                     count(counts, "close_read", "close read"),
                                     count(counts, "selective_read", "selective read")));
       }});
  t.push_back(
      {"pr", "A PR's reading guide",
       "One merged PR with its reading guide: what it does, the verdict (how much of it to read) "
       "and why, the places worth reading with the question to ask at each (with links to the "
       "lines), design decisions, gaps, and the PR's facts (author, merge time, size, tags, "
       "later PRs that fix or revert it). `fields` keeps only some of them "
       "(\"headline,guide\").",
       object_schema(site_arguments({{"ref",
                                      {{"type", "string"},
                                       {"minLength", 1},
                                       {"maxLength", 64},
                                       {"pattern", "^(#?[0-9]{1,18}|[0-9a-fA-F]{7,40})$"},
                                       {"description",
                                        "The PR number (\"1234\" or \"#1234\") or a commit sha "
                                        "prefix of at least 7 hex digits."}}},
                                     {"fields",
                                      {{"type", "string"},
                                       {"maxLength", 400},
                                       {"description",
                                        "Comma-separated fields of the result to keep (e.g. "
                                        "\"headline,verdict,guide\"). Default: all."}}}}),
                     {"ref"}),
       [] {
         json s = change_schema();
         s["properties"]["guide"] = {{"type", json::array({"object", "null"})}};
         return s;
       }(),
       paged("pr", {}, 1, {},
             [](const ToolContext& c, const json& args) {
               return on_site(c, args, [&](const web::ApiContext& a) {
                 return web::v1_pr(a, args.at("ref").get<std::string>());
               });
             }),
       [](const json& r) {
         return fmt::format("{} {}: {} (verdict {}, importance {}, insight {}).", str(r, "repo"),
                            r.contains("number") ? "#" + num(r, "number") : "", str(r, "headline"),
                            str(r, "verdict"), num(r, "importance"), num(r, "insight"));
       }});
  t.push_back(
      {"tags", "Tags",
       "Every tag (area of the code: quantization, scheduler, ...) with how many merged "
       "PRs carry it, how many of them are close reads, and its weekly counts over the "
       "last 26 weeks (oldest first). Busiest first.",
       object_schema(page_arguments(site_arguments(json::object()), 40, 200)),
       result_schema({{"tags",
                       {{"type", "array"},
                        {"items",
                         {{"type", "object"},
                          {"required", {"tag"}},
                          {"properties",
                           {{"tag", {{"type", "string"}}}, {"count", {{"type", "integer"}}}}}}}}}},
                     {"tags"}),
       paged("tags", {"tags"}, 40, {},
             [](const ToolContext& c, const json& args) {
               return on_site(c, args, [](const web::ApiContext& a) { return web::v1_tags(a); });
             }),
       [](const json& r) { return describe("tags", r, "Tags with their counts."); }});
  t.push_back(
      {"tag", "A tag's aggregation",
       "The merged PRs carrying a tag (or every one of several, comma-separated), filtered by "
       "date range, verdict and minimum importance: how many, how many close reads, mean scores, "
       "weekly counts, the top 10 PRs by importance + insight, and the newest ones (1,000 at "
       "most, a page at a time).",
       object_schema(
           page_arguments(
               site_arguments({{"tags",
                                {{"type", "string"},
                                 {"minLength", 1},
                                 {"maxLength", 400},
                                 {"description",
                                  "One tag or several, comma-separated (\"quantization,moe\")."}}},
                               {"from",
                                {{"type", "string"},
                                 {"pattern", "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"},
                                 {"description", "First local day (YYYY-MM-DD)."}}},
                               {"to",
                                {{"type", "string"},
                                 {"pattern", "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"},
                                 {"description", "Last local day (YYYY-MM-DD)."}}},
                               {"verdict", {{"type", "string"}, {"enum", kVerdicts}}},
                               {"min",
                                {{"type", "integer"},
                                 {"minimum", 0},
                                 {"maximum", 10},
                                 {"description", "Minimum importance (0-10)."}}}}),
               25, 200),
           {"tags"}),
       result_schema({{"count", {{"type", "integer"}}},
                      {"close_reads", {{"type", "integer"}}},
                      {"mean_importance", {{"type", "number"}}},
                      {"mean_insight", {{"type", "number"}}},
                      {"weeks", {{"type", "array"}}},
                      {"top", changes_schema()},
                      {"changes", changes_schema()}},
                     {"count", "close_reads", "top", "changes"}),
       paged("tag", {"changes"}, 25, {},
             [](const ToolContext& c, const json& args) {
               return on_site(c, args, [&](const web::ApiContext& a) {
                 web::AggregateParams p{
                     args.at("tags").get<std::string>(), args.value("from", std::string()),
                     args.value("to", std::string()), args.value("verdict", std::string()),
                     args.contains("min") ? std::to_string(args["min"].get<int>()) : std::string()};
                 return web::v1_tag(a, p, 1000);
               });
             }),
       [](const json& r) {
         return describe(
             "tag", r,
             fmt::format("{}, {}; `top` lists the strongest, `changes` the newest.",
                         count(r, "count", "PR"), count(r, "close_reads", "close read")));
       }});
  t.push_back(
      {"week", "A week's close reads",
       "One repository's ISO week (UTC): every PR merged that week, most worth reading first, "
       "the close reads grouped by tag, how each tag moved against the four weeks before, and "
       "the PRs that changed flags, environment variables or public API. Without `week`: the "
       "week of the newest merge. For \"what changed in the scheduler this week?\": "
       "{\"tags\": \"scheduler\"}.",
       object_schema(page_arguments(
           site_arguments(filter_arguments(
               {{"week",
                 {{"type", "string"},
                  {"pattern", "^[0-9]{4}-W[0-9]{2}$"},
                  {"description", "The ISO week, YYYY-Www (default: the newest week)."}}}})),
           20, 200)),
       result_schema({{"week", {{"type", "string"}}},
                      {"since", {{"type", "string"}}},
                      {"until", {{"type", "string"}}},
                      {"merged", {{"type", "integer"}}},
                      {"close_reads", {{"type", "integer"}}},
                      {"entries", array_of_objects()},
                      {"close_by_tag", {{"type", "array"}}},
                      {"moves", {{"type", "array"}}},
                      {"visible", {{"type", "array"}}},
                      {"themes", {{"type", "array"}}},
                      {"themes_total", {{"type", "integer"}}}},
                     {"week", "merged", "entries", "close_by_tag", "moves"}),
       paged("week", {"entries"}, 20, {"week"},
             [](const ToolContext& c, const json& args) {
               return on_site(
                   c, args,
                   [&](const web::ApiContext& a) -> Result<json> {
                     auto week = report::load_week(c.store, a.site.repo.id, args.value("week", ""),
                                                   web::lang_code(a.site.lang), a.site.filter);
                     if (!week) return std::unexpected(week.error());
                     // The week's themes in rank order, at most what a
                     // reader's summary holds (a busy week's would fill a
                     // model's budget alone).
                     return report::week_json(*week, report::kWeekThemes);
                   },
                   /*filtered=*/true);
             }),
       [](const json& r) {
         return describe("week", r,
                         fmt::format("Week {}: {} merged, {} (grouped by tag in close_by_tag; "
                                     "tags against the four weeks before in moves).",
                                     str(r, "week"), count(r, "merged", "PR"),
                                     count(r, "close_reads", "close read")));
       }});
  t.push_back(
      {"release_notes", "A release-notes draft",
       "A draft of release notes for the PRs of one repository merged in a date range: "
       "highlights (the most important themes, each citing its PRs), sections by kind with a "
       "line per theme, changed flags and environment variables, new contributors, each PR "
       "linked once, a page at a time. A starting point to edit, not the notes. (`mergelens "
       "notes --from REV --to REV` drafts a range of revisions.)",
       object_schema(
           page_arguments(
               site_arguments(
                   {{"since",
                     {{"type", "string"},
                      {"maxLength", 40},
                      {"description",
                       "First day or instant (YYYY-MM-DD or ISO 8601), inclusive."}}},
                    {"until",
                     {{"type", "string"},
                      {"maxLength", 40},
                      {"description", "End day or instant, exclusive (default: now)."}}},
                    {"highlights",
                     {{"type", "integer"},
                      {"minimum", 1},
                      {"maximum", 50},
                      {"description", "Highlight bullets (themes) at most (default 8)."}}}}),
               40, 500),
           {"since"}),
       result_schema({{"repo", {{"type", "string"}}},
                      {"from", {{"type", "string"}}},
                      {"to", {{"type", "string"}}},
                      {"lang", {{"type", "string"}}},
                      {"highlights", {{"type", "array"}}}},
                     {"repo", "highlights"}),
       paged(
           "release_notes", {"highlights", "sections[].lines", "visible", "new_contributors"}, 40,
           {},
           [](const ToolContext& c, const json& args) {
             return on_site(c, args, [&](const web::ApiContext& a) -> Result<json> {
               auto notes = web::v1_notes(a, args.at("since").get<std::string>(),
                                          args.value("until", ""), args.value("highlights", 8));
               if (!notes) return notes;
               // A theme's PRs as a line of the notes names them: ref,
               // headline, link, judgment (the whole entry is `pr`'s).
               auto slim = [](json& theme) {
                 if (!theme.contains("entries")) return;
                 for (auto& e : theme["entries"]) {
                   json s = json::object();
                   for (const char* k : {"ref", "sha", "headline", "url", "verdict", "importance"})
                     if (e.contains(k)) s[k] = e[k];
                   e = std::move(s);
                 }
               };
               for (auto& h : (*notes)["highlights"]) slim(h);
               for (auto& sec : (*notes)["sections"])
                 for (auto& line : sec["lines"]) slim(line);
               return notes;
             });
           }),
       [](const json& r) {
         return describe("release_notes", r,
                         fmt::format("Release-notes draft for {} from {} to {}.", str(r, "repo"),
                                     str(r, "from"), str(r, "to").empty() ? "now" : str(r, "to")));
       }});
  return t;
}

std::string type_of(const json& v) {
  if (v.is_string()) return "string";
  if (v.is_number_integer() || v.is_number_unsigned()) return "integer";
  if (v.is_number()) return "number";
  if (v.is_boolean()) return "boolean";
  if (v.is_object()) return "object";
  if (v.is_array()) return "array";
  return "null";
}

}  // namespace

const std::vector<Tool>& tools() {
  static const std::vector<Tool> table = build();
  return table;
}

std::string result_text(const Tool& tool, const json& result) {
  if (tool.summary) return tool.summary(result);
  return result.dump(-1, ' ', false, json::error_handler_t::replace);
}

const Tool* find_tool(std::string_view name) {
  for (const auto& t : tools())
    if (t.name == name) return &t;
  return nullptr;
}

std::string check_arguments(const json& schema, const json& args) {
  if (!args.is_object()) return "arguments must be an object";
  const json& props = schema.at("properties");
  // A cursor stands for the arguments it pinned (the tool checks them again).
  const bool cursor = args.contains("cursor") && props.contains("cursor");
  for (const auto& r : schema.value("required", json::array()))
    if (!cursor && !args.contains(r.get<std::string>()))
      return fmt::format("missing required argument \"{}\"", r.get<std::string>());
  for (const auto& [name, value] : args.items()) {
    if (!props.contains(name)) return fmt::format("unknown argument \"{}\"", name);
    const json& p = props.at(name);
    const std::string want = p.value("type", std::string());
    const std::string got = type_of(value);
    if (!want.empty() && want != got && !(want == "number" && got == "integer"))
      return fmt::format("argument \"{}\" must be a {}, not a {}", name, want, got);
    if (p.contains("enum") &&
        std::find(p["enum"].begin(), p["enum"].end(), value) == p["enum"].end())
      return fmt::format("argument \"{}\" must be one of {}", name, p["enum"].dump());
    if (value.is_number()) {
      if (p.contains("minimum") && value.get<double>() < p["minimum"].get<double>())
        return fmt::format("argument \"{}\" must be at least {}", name, p["minimum"].dump());
      if (p.contains("maximum") && value.get<double>() > p["maximum"].get<double>())
        return fmt::format("argument \"{}\" must be at most {}", name, p["maximum"].dump());
    }
    if (value.is_string()) {
      const auto& s = value.get_ref<const std::string&>();
      if (p.contains("minLength") && s.size() < p["minLength"].get<size_t>())
        return fmt::format("argument \"{}\" must not be empty", name);
      if (p.contains("maxLength") && s.size() > p["maxLength"].get<size_t>())
        return fmt::format("argument \"{}\" is longer than {} bytes", name, p["maxLength"].dump());
      if (p.contains("pattern") &&
          !std::regex_search(s, std::regex(p["pattern"].get<std::string>())))
        return fmt::format("argument \"{}\" must match {}", name, p["pattern"].get<std::string>());
    }
  }
  return "";
}

}  // namespace mergelens::mcp
