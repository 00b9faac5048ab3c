#include "mergelens/mcp/tools.h"

#include <regex>

#include <fmt/format.h>

#include "mergelens/report/notes.h"
#include "mergelens/report/week.h"
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

json object_schema(json properties, json required = json::array()) {
  return {{"type", "object"},
          {"properties", std::move(properties)},
          {"required", std::move(required)},
          {"additionalProperties", false}};
}

// A result's schema: its fields may grow (new fields are added, never renamed).
json result_schema(json properties, json required) {
  return {
      {"type", "object"}, {"properties", std::move(properties)}, {"required", std::move(required)}};
}

json nullable(const char* type) {
  return {{"type", json::array({type, "null"})}};
}

// One change as web/api_v1.cc writes it (the fields a model needs).
json change_schema() {
  return {{"type", "object"},
          {"required",
           {"repo", "number", "sha", "title", "headline", "verdict", "importance", "insight",
            "tags", "author", "merged_at", "url"}},
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
}

json changes_schema() {
  return {{"type", "array"}, {"items", change_schema()}};
}

// Runs a web/api_v1.h function on the site the arguments name.
template <typename F>
Result<json> on_site(const ToolContext& c, const json& args, F&& f) {
  const std::string lang_text = args.value("lang", std::string());
  const web::Lang lang = lang_text.empty() ? c.default_lang : web::lang_from(lang_text);
  auto site =
      web::api_site(c.store, c.tz, lang, c.default_lang, c.root, args.value("repo", std::string()));
  if (!site) return std::unexpected(site.error());
  const web::ApiContext api{*site, c.base_url};
  return f(api);
}

std::vector<Tool> build() {
  std::vector<Tool> t;
  t.push_back(
      {"repos", "Repositories",
       "The repositories this mergelens store holds (OWNER/NAME), to pass as `repo` to the other "
       "tools.",
       object_schema(json::object()),
       result_schema({{"repos",
                       {{"type", "array"},
                        {"items",
                         {{"type", "object"},
                          {"required", {"name"}},
                          {"properties", {{"name", {{"type", "string"}}}}}}}}}},
                     {"repos"}),
       [](const ToolContext& c, const json& args) {
         return on_site(c, args, [](const web::ApiContext& a) { return web::v1_repos(a); });
       }});
  t.push_back(
      {"search", "Search merged PRs",
       "Full-text search over merged pull requests: titles, reading-guide headlines and guide "
       "text, in Chinese and English (a term in either language finds both). Words are ANDed; "
       "\"a phrase\", -excluded, prefix*. Best matches first.",
       object_schema(
           site_arguments({{"q",
                            {{"type", "string"},
                             {"minLength", 1},
                             {"maxLength", 256},
                             {"description",
                              "The query, e.g. \"scheduler\" or "
                              "\"KV cache -test\"."}}},
                           {"limit",
                            {{"type", "integer"},
                             {"minimum", 1},
                             {"maximum", 50},
                             {"description", "At most this many results (default 20)."}}}}),
           {"q"}),
       result_schema({{"q", {{"type", "string"}}},
                      {"count", {{"type", "integer"}}},
                      {"results", changes_schema()}},
                     {"q", "count", "results"}),
       [](const ToolContext& c, const json& args) {
         return on_site(c, args, [&](const web::ApiContext& a) {
           return web::v1_search(a, args.at("q").get<std::string>(), args.value("limit", 20));
         });
       }});
  t.push_back(
      {"day", "A day's digest",
       "The digest of one repository-day: every PR merged that local day, most worth reading "
       "first (close reads, selective reads, skims, skips), each with its headline, verdict, "
       "importance and insight scores (1-10), tags, author, merge time and the digest paragraph. "
       "Without `date`: the newest day with merges.",
       object_schema(site_arguments(
           {{"date",
             {{"type", "string"},
              {"pattern", "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"},
              {"description", "The local day, YYYY-MM-DD (default: the newest day)."}}}})),
       result_schema({{"date", nullable("string")},
                      {"counts", {{"type", "object"}}},
                      {"previous", nullable("string")},
                      {"next", nullable("string")},
                      {"changes", changes_schema()}},
                     {"date", "counts", "changes"}),
       [](const ToolContext& c, const json& args) {
         return on_site(c, args, [&](const web::ApiContext& a) {
           return web::v1_day(a, args.value("date", std::string()));
         });
       }});
  t.push_back(
      {"pr", "A PR's reading guide",
       "One merged PR with its reading guide: what it does, the verdict (how much of it to read) "
       "and why, the places worth reading with the question to ask at each (with links to the "
       "lines), design decisions, gaps, and the PR's facts (author, merge time, size, tags, "
       "later PRs that fix or revert it).",
       object_schema(site_arguments({{"ref",
                                      {{"type", "string"},
                                       {"minLength", 1},
                                       {"maxLength", 64},
                                       {"description",
                                        "The PR number (\"1234\" or \"#1234\") or a commit sha "
                                        "prefix of at least 7 hex digits."}}}}),
                     {"ref"}),
       [] {
         json s = change_schema();
         s["required"].push_back("guide");
         s["properties"]["guide"] = {{"type", json::array({"object", "null"})}};
         return s;
       }(),
       [](const ToolContext& c, const json& args) {
         return on_site(c, args, [&](const web::ApiContext& a) {
           return web::v1_pr(a, args.at("ref").get<std::string>());
         });
       }});
  t.push_back(
      {"tags", "Tags",
       "Every tag (area of the code: quantization, scheduler, ...) with how many merged "
       "PRs carry it, how many of them are close reads, and its weekly counts over the "
       "last 26 weeks (oldest first).",
       object_schema(site_arguments(json::object())),
       result_schema({{"tags",
                       {{"type", "array"},
                        {"items",
                         {{"type", "object"},
                          {"required", {"tag", "count"}},
                          {"properties",
                           {{"tag", {{"type", "string"}}}, {"count", {{"type", "integer"}}}}}}}}}},
                     {"tags"}),
       [](const ToolContext& c, const json& args) {
         return on_site(c, args, [](const web::ApiContext& a) { return web::v1_tags(a); });
       }});
  t.push_back(
      {"tag", "A tag's aggregation",
       "The merged PRs carrying a tag (or every one of several, comma-separated), filtered by "
       "date range, verdict and minimum importance: how many, how many close reads, mean scores, "
       "weekly counts, the top PRs by importance + insight and the newest ones.",
       object_schema(
           site_arguments(
               {{"tags",
                 {{"type", "string"},
                  {"minLength", 1},
                  {"maxLength", 400},
                  {"description", "One tag or several, comma-separated (\"quantization,moe\")."}}},
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
                  {"description", "Minimum importance (0-10)."}}},
                {"limit",
                 {{"type", "integer"},
                  {"minimum", 1},
                  {"maximum", 200},
                  {"description", "At most this many listed PRs (default 50)."}}}}),
           {"tags"}),
       result_schema({{"count", {{"type", "integer"}}},
                      {"close_reads", {{"type", "integer"}}},
                      {"mean_importance", {{"type", "number"}}},
                      {"mean_insight", {{"type", "number"}}},
                      {"weeks", {{"type", "array"}}},
                      {"top", changes_schema()},
                      {"changes", changes_schema()}},
                     {"count", "close_reads", "top", "changes"}),
       [](const ToolContext& c, const json& args) {
         return on_site(c, args, [&](const web::ApiContext& a) {
           web::AggregateParams p{
               args.at("tags").get<std::string>(), args.value("from", std::string()),
               args.value("to", std::string()), args.value("verdict", std::string()),
               args.contains("min") ? std::to_string(args["min"].get<int>()) : std::string()};
           return web::v1_tag(a, p, args.value("limit", 50));
         });
       }});
  t.push_back(
      {"week", "A week's close reads",
       "One repository's ISO week (UTC): every PR merged that week, most worth reading first, "
       "the close reads grouped by tag, how each tag moved against the four weeks before, and "
       "the PRs that changed flags, environment variables or public API. Without `week`: the "
       "week of the newest merge.",
       object_schema(site_arguments(
           {{"week",
             {{"type", "string"},
              {"pattern", "^[0-9]{4}-W[0-9]{2}$"},
              {"description", "The ISO week, YYYY-Www (default: the newest week)."}}}})),
       result_schema({{"week", {{"type", "string"}}},
                      {"since", {{"type", "string"}}},
                      {"until", {{"type", "string"}}},
                      {"merged", {{"type", "integer"}}},
                      {"close_reads", {{"type", "integer"}}},
                      {"entries", {{"type", "array"}}},
                      {"close_by_tag", {{"type", "array"}}},
                      {"moves", {{"type", "array"}}},
                      {"visible", {{"type", "array"}}}},
                     {"week", "merged", "entries", "close_by_tag", "moves"}),
       [](const ToolContext& c, const json& args) {
         return on_site(c, args, [&](const web::ApiContext& a) -> Result<json> {
           auto week = report::load_week(c.store, a.site.repo.id, args.value("week", ""),
                                         web::lang_code(a.site.lang));
           if (!week) return std::unexpected(week.error());
           return report::week_json(*week);
         });
       }});
  t.push_back(
      {"release_notes", "A release-notes draft",
       "A draft of release notes for the PRs of one repository merged in a date range: "
       "highlights (the most important), sections by tag, changed flags and environment "
       "variables, new contributors, each line linking its PR. A starting point to edit, not "
       "the notes. (`mergelens notes --from REV --to REV` drafts a range of revisions.)",
       object_schema(
           site_arguments(
               {{"since",
                 {{"type", "string"},
                  {"maxLength", 40},
                  {"description", "First day or instant (YYYY-MM-DD or ISO 8601), inclusive."}}},
                {"until",
                 {{"type", "string"},
                  {"maxLength", 40},
                  {"description", "End day or instant, exclusive (default: now)."}}},
                {"highlights",
                 {{"type", "integer"},
                  {"minimum", 1},
                  {"maximum", 50},
                  {"description", "Highlights at most (default 10)."}}}}),
           {"since"}),
       result_schema({{"repo", {{"type", "string"}}},
                      {"from", {{"type", "string"}}},
                      {"to", {{"type", "string"}}},
                      {"lang", {{"type", "string"}}},
                      {"highlights", {{"type", "array"}}}},
                     {"repo", "highlights"}),
       [](const ToolContext& c, const json& args) {
         return on_site(c, args, [&](const web::ApiContext& a) -> Result<json> {
           if (a.site.all())
             return fail(ErrorKind::kInvalidInput,
                         "release_notes drafts one repository's notes: name it in `repo`");
           report::NotesRange range;
           range.from_label = args.at("since").get<std::string>();
           range.to_label = args.value("until", "");
           auto since = parse_instant(range.from_label);
           if (!since) return wrap(since.error(), "since");
           range.since = *since;
           if (!range.to_label.empty()) {
             auto until = parse_instant(range.to_label);
             if (!until) return wrap(until.error(), "until");
             range.until = *until;
           }
           if (auto r = check_range(range.since, range.until, "since " + range.from_label,
                                    "until " + range.to_label);
               !r)
             return std::unexpected(r.error());
           report::NotesOptions o;
           o.lang = web::lang_code(a.site.lang);
           o.max_highlights = args.value("highlights", 10);
           auto notes = report::draft_notes(c.store, a.site.repo, range, o);
           if (!notes) return std::unexpected(notes.error());
           return report::notes_json(*notes);
         });
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

const Tool* find_tool(std::string_view name) {
  for (const auto& t : tools())
    if (t.name == name) return &t;
  return nullptr;
}

std::string check_arguments(const json& schema, const json& args) {
  if (!args.is_object()) return "arguments must be an object";
  const json& props = schema.at("properties");
  for (const auto& r : schema.value("required", json::array()))
    if (!args.contains(r.get<std::string>()))
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
