#include "mergelens/guide/guide_json.h"

#include <fmt/format.h>

namespace mergelens {
namespace {

using nlohmann::json;

json focus_json(const GuideFocus& f) {
  return {{"path", f.path},     {"start_line", f.start_line}, {"end_line", f.end_line},
          {"symbol", f.symbol}, {"question", f.question},     {"why", f.why}};
}

// Reads fields with clear errors: a present field of the wrong type is named.
class Reader {
 public:
  Reader(const json& j, std::string where) : j_(j), where_(std::move(where)) {}

  bool str(const char* key, std::string& out) {
    auto it = j_.find(key);
    if (it == j_.end() || it->is_null()) return true;
    if (!it->is_string()) return bad(key, "a string");
    out = it->get<std::string>();
    return true;
  }
  template <class Int>
  bool integer(const char* key, Int& out) {
    auto it = j_.find(key);
    if (it == j_.end() || it->is_null()) return true;
    if (it->is_number_integer()) {
      out = static_cast<Int>(it->get<std::int64_t>());
      return true;
    }
    if (it->is_number_float()) {  // models sometimes write 7.0
      out = static_cast<Int>(it->get<double>());
      return true;
    }
    return bad(key, "an integer");
  }
  bool boolean(const char* key, bool& out) {
    auto it = j_.find(key);
    if (it == j_.end() || it->is_null()) return true;
    if (!it->is_boolean()) return bad(key, "true or false");
    out = it->get<bool>();
    return true;
  }
  bool strings(const char* key, std::vector<std::string>& out) {
    auto it = j_.find(key);
    if (it == j_.end() || it->is_null()) return true;
    if (!it->is_array()) return bad(key, "an array of strings");
    for (const auto& v : *it) {
      if (!v.is_string()) return bad(key, "an array of strings");
      out.push_back(v.get<std::string>());
    }
    return true;
  }
  // Calls fn(Reader&) for each object of an array field.
  template <class Fn>
  bool objects(const char* key, Fn fn) {
    auto it = j_.find(key);
    if (it == j_.end() || it->is_null()) return true;
    if (!it->is_array()) return bad(key, "an array of objects");
    size_t i = 0;
    for (const auto& v : *it) {
      if (!v.is_object()) return bad(key, "an array of objects");
      Reader r(v, fmt::format("{}.{}[{}]", where_, key, i++));
      if (!fn(r)) {
        error_ = r.error_;
        return false;
      }
    }
    return true;
  }
  template <class Fn>
  bool object(const char* key, Fn fn) {
    auto it = j_.find(key);
    if (it == j_.end() || it->is_null()) return true;
    if (!it->is_object()) return bad(key, "an object");
    Reader r(*it, fmt::format("{}.{}", where_, key));
    if (!fn(r)) {
      error_ = r.error_;
      return false;
    }
    return true;
  }
  const std::string& error() const { return error_; }

 private:
  bool bad(const char* key, const char* want) {
    error_ = fmt::format("field {}.{} must be {}", where_, key, want);
    return false;
  }
  const json& j_;
  std::string where_;
  std::string error_;
};

bool read_score(Reader& r, GuideScore& s) {
  return r.integer("value", s.value) && r.str("reason", s.reason);
}

// Reads the content fields shared by stored guides and model answers.
bool read_content(Reader& r, Guide& g) {
  return r.str("headline", g.headline) && r.str("digest", g.digest) &&
         r.str("summary", g.summary) && r.str("verdict_text", g.verdict_text) &&
         r.str("why", g.why) &&
         r.objects("focus",
                   [&](Reader& f) {
                     GuideFocus x;
                     bool ok = f.str("path", x.path) && f.integer("start_line", x.start_line) &&
                               f.integer("end_line", x.end_line) && f.str("symbol", x.symbol) &&
                               f.str("question", x.question) && f.str("why", x.why);
                     g.focus.push_back(std::move(x));
                     return ok;
                   }) &&
         r.objects("skim",
                   [&](Reader& f) {
                     GuideSkim x;
                     bool ok = f.str("path", x.path) && f.str("reason", x.reason);
                     g.skim.push_back(std::move(x));
                     return ok;
                   }) &&
         r.strings("design_decisions", g.design_decisions) && r.strings("questions", g.questions) &&
         r.strings("number_cautions", g.number_cautions) &&
         r.strings("body_vs_code", g.body_vs_code) && r.strings("gaps", g.gaps) &&
         r.objects("advice",
                   [&](Reader& f) {
                     GuideAdvice x;
                     bool ok = f.str("role", x.role) && f.str("text", x.text);
                     g.advice.push_back(std::move(x));
                     return ok;
                   }) &&
         r.str("audience", g.audience) &&
         r.objects("references",
                   [&](Reader& f) {
                     GuideReference x;
                     bool ok = f.str("ref", x.ref) && f.str("relation", x.relation) &&
                               f.str("note", x.note);
                     g.references.push_back(std::move(x));
                     return ok;
                   }) &&
         r.strings("suggested_code", g.suggested_code) &&
         r.object("importance", [&](Reader& f) { return read_score(f, g.importance); }) &&
         r.object("insight", [&](Reader& f) { return read_score(f, g.insight); });
}

json string_array_schema() {
  return {{"type", "array"}, {"items", {{"type", "string"}}}};
}

json object_schema(std::initializer_list<std::pair<const char*, json>> props) {
  return strict_object_schema(props);
}

}  // namespace

json guide_to_json(const Guide& g) {
  json focus = json::array(), skim = json::array(), advice = json::array(), refs = json::array();
  for (const auto& f : g.focus) focus.push_back(focus_json(f));
  for (const auto& s : g.skim) skim.push_back({{"path", s.path}, {"reason", s.reason}});
  for (const auto& a : g.advice) advice.push_back({{"role", a.role}, {"text", a.text}});
  for (const auto& r : g.references)
    refs.push_back({{"ref", r.ref}, {"relation", r.relation}, {"note", r.note}});
  return {
      {"schema", g.schema},
      {"lang", g.lang},
      {"headline", g.headline},
      {"digest", g.digest},
      {"summary", g.summary},
      {"verdict", g.verdict},
      {"verdict_text", g.verdict_text},
      {"why", g.why},
      {"focus", focus},
      {"skim", skim},
      {"design_decisions", g.design_decisions},
      {"questions", g.questions},
      {"number_cautions", g.number_cautions},
      {"body_vs_code", g.body_vs_code},
      {"gaps", g.gaps},
      {"advice", advice},
      {"audience", g.audience},
      {"references", refs},
      {"suggested_code", g.suggested_code},
      {"limits", g.limits},
      {"importance", {{"value", g.importance.value}, {"reason", g.importance.reason}}},
      {"insight", {{"value", g.insight.value}, {"reason", g.insight.reason}}},
      {"analysis",
       {{"verdict", g.analysis.verdict},
        {"importance",
         {{"value", g.analysis.importance.value}, {"reason", g.analysis.importance.reason}}},
        {"insight", {{"value", g.analysis.insight.value}, {"reason", g.analysis.insight.reason}}},
        {"argument", g.analysis.argument}}},
      {"triage",
       {{"verdict", g.triage.verdict},
        {"importance", g.triage.importance},
        {"insight", g.triage.insight},
        {"scope", g.triage.scope},
        {"reason", g.triage.reason}}},
      {"tags", g.tags},
      {"source",
       {{"repo", g.source.repo},
        {"number", g.source.number},
        {"sha", g.source.sha},
        {"url", g.source.url},
        {"title", g.source.title},
        {"author", g.source.author},
        {"merged_at", g.source.merged_at},
        {"open", g.source.open}}},
      {"writer",
       {{"kind", g.writer.kind},
        {"model", g.writer.model},
        {"prompt_version", g.writer.prompt_version},
        {"fallback_reason", g.writer.fallback_reason},
        {"removed", g.writer.removed},
        {"edits", g.writer.edits},
        {"attempts", g.writer.attempts},
        {"cached", g.writer.cached},
        {"calls", g.writer.calls},
        {"prompt_tokens", g.writer.prompt_tokens},
        {"completion_tokens", g.writer.completion_tokens},
        {"plan", g.writer.plan}}},
  };
}

Result<Guide> guide_from_json(const json& j) {
  if (!j.is_object()) return fail(ErrorKind::kCorrupt, "a stored guide is not a JSON object");
  Guide g;
  Reader r(j, "guide");
  bool ok =
      r.integer("schema", g.schema) && r.str("lang", g.lang) && r.str("verdict", g.verdict) &&
      read_content(r, g) &&
      r.object("analysis",
               [&](Reader& a) {
                 return a.str("verdict", g.analysis.verdict) &&
                        a.object("importance",
                                 [&](Reader& f) { return read_score(f, g.analysis.importance); }) &&
                        a.object("insight",
                                 [&](Reader& f) { return read_score(f, g.analysis.insight); }) &&
                        a.str("argument", g.analysis.argument);
               }) &&
      r.object("triage",
               [&](Reader& t) {
                 return t.str("verdict", g.triage.verdict) &&
                        t.integer("importance", g.triage.importance) &&
                        t.integer("insight", g.triage.insight) && t.str("scope", g.triage.scope) &&
                        t.str("reason", g.triage.reason);
               }) &&
      r.strings("tags", g.tags) && r.strings("limits", g.limits) &&
      r.object("source",
               [&](Reader& s) {
                 return s.str("repo", g.source.repo) && s.integer("number", g.source.number) &&
                        s.str("sha", g.source.sha) && s.str("url", g.source.url) &&
                        s.str("title", g.source.title) && s.str("author", g.source.author) &&
                        s.str("merged_at", g.source.merged_at) && s.boolean("open", g.source.open);
               }) &&
      r.object("writer", [&](Reader& w) {
        return w.str("kind", g.writer.kind) && w.str("model", g.writer.model) &&
               w.str("prompt_version", g.writer.prompt_version) &&
               w.str("fallback_reason", g.writer.fallback_reason) &&
               w.strings("removed", g.writer.removed) && w.strings("edits", g.writer.edits) &&
               w.integer("attempts", g.writer.attempts) && w.boolean("cached", g.writer.cached) &&
               w.integer("calls", g.writer.calls) &&
               w.integer("prompt_tokens", g.writer.prompt_tokens) &&
               w.integer("completion_tokens", g.writer.completion_tokens) &&
               w.str("plan", g.writer.plan);
      });
  if (!ok) return fail(ErrorKind::kCorrupt, "stored guide: {}", r.error());
  return g;
}

const json& guide_answer_schema() {
  static const json schema = [] {
    json str = {{"type", "string"}};
    json integer = {{"type", "integer"}};
    json score = object_schema(
        {{"value", {{"type", "integer"}, {"minimum", 1}, {"maximum", 10}}}, {"reason", str}});
    json verdict = {{"type", "string"}, {"enum", {"close_read", "selective_read", "skim", "skip"}}};
    return object_schema({
        {"headline", str},
        {"digest", str},
        {"summary", str},
        {"verdict_text", str},
        {"why", str},
        {"focus",
         {{"type", "array"},
          {"items", object_schema({{"path", str},
                                   {"start_line", integer},
                                   {"end_line", integer},
                                   {"symbol", str},
                                   {"question", str},
                                   {"why", str}})}}},
        {"skim", {{"type", "array"}, {"items", object_schema({{"path", str}, {"reason", str}})}}},
        {"design_decisions", string_array_schema()},
        {"questions", string_array_schema()},
        {"number_cautions", string_array_schema()},
        {"body_vs_code", string_array_schema()},
        {"gaps", string_array_schema()},
        {"advice",
         {{"type", "array"},
          {"items", object_schema({{"role",
                                    {{"type", "string"},
                                     {"enum", {"user", "maintainer", "reviewer", "operator"}}}},
                                   {"text", str}})}}},
        {"audience", str},
        {"references",
         {{"type", "array"},
          {"items", object_schema({{"ref", str}, {"relation", str}, {"note", str}})}}},
        {"suggested_code", string_array_schema()},
        {"importance", score},
        {"insight", score},
        {"judgment", object_schema({{"verdict", verdict}, {"argument", str}})},
    });
  }();
  return schema;
}

json guide_document_schema() {
  json s = guide_answer_schema();
  json str = {{"type", "string"}};
  json props = s["properties"];
  props.erase("judgment");  // stored as verdict + analysis
  props["schema"] = {{"type", "integer"}, {"const", kGuideSchemaVersion}};
  props["lang"] = {{"type", "string"}, {"enum", {"zh", "en"}}};
  props["verdict"] = {{"type", "string"},
                      {"enum", {"close_read", "selective_read", "skim", "skip"}}};
  props["digest"] = str;
  props["tags"] = string_array_schema();
  props["limits"] = string_array_schema();

  props["source"] = object_schema({{"repo", str},
                                   {"number", {{"type", "integer"}}},
                                   {"sha", str},
                                   {"url", str},
                                   {"title", str},
                                   {"author", str},
                                   {"merged_at", str},
                                   {"open", {{"type", "boolean"}}}});
  props["writer"] = object_schema({{"kind", {{"type", "string"}, {"enum", {"offline", "llm"}}}},
                                   {"model", str},
                                   {"prompt_version", str},
                                   {"fallback_reason", str},
                                   {"removed", string_array_schema()},
                                   {"edits", string_array_schema()},
                                   {"attempts", {{"type", "integer"}}},
                                   {"cached", {{"type", "boolean"}}},
                                   {"calls", {{"type", "integer"}}},
                                   {"prompt_tokens", {{"type", "integer"}}},
                                   {"completion_tokens", {{"type", "integer"}}},
                                   {"plan", str}});
  // Scores of a stored guide may be 0 (not scored).
  for (const char* k : {"importance", "insight"})
    props[k]["properties"]["value"] = {{"type", "integer"}, {"minimum", 0}, {"maximum", 10}};
  // The analysis's judgment; all empty in a guide stored before it existed.
  props["analysis"] = object_schema(
      {{"verdict",
        {{"type", "string"}, {"enum", {"close_read", "selective_read", "skim", "skip", ""}}}},
       {"importance", props["importance"]},
       {"insight", props["insight"]},
       {"argument", str}});
  // The day's triage the guide started from; verdict "" when none.
  props["triage"] = object_schema(
      {{"verdict",
        {{"type", "string"}, {"enum", {"close_read", "selective_read", "skim", "skip", ""}}}},
       {"importance", {{"type", "integer"}, {"minimum", 0}, {"maximum", 10}}},
       {"insight", {{"type", "integer"}, {"minimum", 0}, {"maximum", 10}}},
       {"scope", str},
       {"reason", str}});
  json required = json::array();
  for (const auto& [key, value] : props.items()) required.push_back(key);
  return {{"$schema", "https://json-schema.org/draft/2020-12/schema"},
          {"title", "mergelens reading guide"},
          {"description",
           "One reading guide for one change in one language. Written by the offline writer or "
           "a model (writer.kind); read by every publisher. Empty strings and arrays mean the "
           "change does not support the element."},
          {"type", "object"},
          {"properties", props},
          {"required", required},
          {"additionalProperties", false}};
}

Result<Guide> guide_from_answer(const json& answer) {
  if (!answer.is_object()) return fail(ErrorKind::kInvalidInput, "the answer is not a JSON object");
  Guide g;
  Reader r(answer, "answer");
  if (!read_content(r, g)) return fail(ErrorKind::kInvalidInput, "{}", r.error());
  // The judgment the model argues: its verdict lands in `verdict`, its
  // argument in `analysis.argument`; the writer weighs them against the facts.
  bool ok = r.object("judgment", [&](Reader& j) {
    return j.str("verdict", g.verdict) && j.str("argument", g.analysis.argument);
  });
  if (!ok) return fail(ErrorKind::kInvalidInput, "{}", r.error());
  return g;
}

json strict_object_schema(std::initializer_list<std::pair<const char*, json>> props) {
  json p = json::object(), req = json::array();
  for (const auto& [k, v] : props) {
    p[k] = v;
    req.push_back(k);
  }
  return {
      {"type", "object"}, {"properties", p}, {"required", req}, {"additionalProperties", false}};
}

std::string guide_text(const Guide& g) {
  std::string out;
  auto add = [&](const std::string& s) {
    if (s.empty()) return;
    if (!out.empty()) out += '\n';
    out += s;
  };
  add(g.headline);
  add(g.digest);
  add(g.summary);
  add(g.verdict_text);
  add(g.why);
  for (const auto& f : g.focus) {
    add(f.question);
    add(f.why);
  }
  for (const auto& s : g.skim) add(s.path + " " + s.reason);
  for (const auto* list :
       {&g.design_decisions, &g.questions, &g.number_cautions, &g.body_vs_code, &g.gaps})
    for (const auto& s : *list) add(s);
  for (const auto& a : g.advice) add(a.text);
  add(g.audience);
  for (const auto& r : g.references) add(r.ref + " " + r.note);
  add(g.importance.reason);
  add(g.insight.reason);
  return out;
}

}  // namespace mergelens
