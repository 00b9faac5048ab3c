#include "mergelens/analysis/facts_json.h"

namespace mergelens {
namespace {

using nlohmann::json;

template <class E, size_t N>
std::optional<E> enum_from(std::string_view s, const E (&all)[N]) {
  for (E e : all)
    if (s == to_string(e)) return e;
  return std::nullopt;
}

json place_json(const Place& p) {
  return {{"path", p.path}, {"line", p.line}, {"symbol", p.symbol}};
}
Place place_from(const json& j) {
  return {j.value("path", ""), j.value("line", 0), j.value("symbol", "")};
}

json side_json(const SwitchSide& s) {
  if (!s.exists) return nullptr;
  return {{"path", s.path},
          {"line", s.line},
          {"origin", s.origin},
          {"default", s.default_value},
          {"has_default", s.has_default},
          {"text", s.text}};
}
SwitchSide side_from(const json& j) {
  SwitchSide s;
  if (!j.is_object()) return s;
  s.exists = true;
  s.path = j.value("path", "");
  s.line = j.value("line", 0);
  s.origin = j.value("origin", "");
  s.default_value = j.value("default", "");
  s.has_default = j.value("has_default", false);
  s.text = j.value("text", "");
  return s;
}

json switches_json(const std::vector<SwitchFact>& v) {
  json out = json::array();
  for (const auto& s : v)
    out.push_back(
        {{"name", s.name},
         {"kind", s.kind},
         {"change", s.change},
         {"existed_at_parent", s.existed_at_parent},
         {"default_changed", s.default_changed},
         {"default_before", s.before.exists ? json(s.before.default_value) : json(nullptr)},
         {"default_after", s.after.exists ? json(s.after.default_value) : json(nullptr)},
         {"before", side_json(s.before)},
         {"after", side_json(s.after)},
         {"introduced_by", s.introduced_by}});
  for (size_t i = 0; i < v.size(); ++i)
    if (v[i].unread) out[i]["unread"] = true;
  return out;
}
std::vector<SwitchFact> switches_from(const json& j) {
  std::vector<SwitchFact> out;
  for (const auto& s : j) {
    SwitchFact f;
    f.name = s.value("name", "");
    f.kind = s.value("kind", "");
    f.change = s.value("change", "");
    f.existed_at_parent = s.value("existed_at_parent", false);
    f.default_changed = s.value("default_changed", false);
    f.before = side_from(s.value("before", json()));
    f.after = side_from(s.value("after", json()));
    f.introduced_by = s.value("introduced_by", "");
    f.unread = s.value("unread", false);
    out.push_back(std::move(f));
  }
  return out;
}

json context_json(const std::vector<ContextItem>& v) {
  json out = json::array();
  for (const auto& c : v) {
    json one = {{"why", c.why},
                {"name", c.name},
                {"kind", c.kind},
                {"path", c.path},
                {"start_line", c.start_line},
                {"end_line", c.end_line},
                {"revision", c.revision},
                {"signature", c.signature},
                {"at", c.at}};
    if (!c.target.empty()) one["target"] = c.target;
    out.push_back(std::move(one));
  }
  return out;
}
std::vector<ContextItem> context_from(const json& j) {
  std::vector<ContextItem> out;
  for (const auto& c : j)
    out.push_back({c.value("why", ""), c.value("name", ""), c.value("kind", ""),
                   c.value("path", ""), c.value("start_line", 0), c.value("end_line", 0),
                   c.value("revision", ""), c.value("signature", ""), c.value("at", ""),
                   c.value("target", "")});
  return out;
}

}  // namespace

std::optional<Verdict> verdict_from_string(std::string_view s) {
  static constexpr Verdict kAll[] = {Verdict::kCloseRead, Verdict::kSelectiveRead, Verdict::kSkim,
                                     Verdict::kSkip};
  return enum_from(s, kAll);
}

std::optional<FileRole> role_from_string(std::string_view s) {
  static constexpr FileRole kAll[] = {FileRole::kCore,     FileRole::kKernel, FileRole::kModel,
                                      FileRole::kConfig,   FileRole::kTest,   FileRole::kBenchmark,
                                      FileRole::kDocs,     FileRole::kCi,     FileRole::kBuild,
                                      FileRole::kGenerated};
  return enum_from(s, kAll);
}

std::optional<Language> language_from_string(std::string_view s) {
  static constexpr Language kAll[] = {
      Language::kUnknown,  Language::kPython, Language::kCpp,        Language::kCuda,
      Language::kRust,     Language::kGo,     Language::kJavaScript, Language::kTypeScript,
      Language::kMarkdown, Language::kJson,   Language::kYaml,       Language::kToml,
      Language::kShell,    Language::kCMake,  Language::kText};
  return enum_from(s, kAll);
}

json facts_to_json(const Facts& f) {
  json roles = json::object(), languages = json::object();
  for (const auto& [path, role] : f.roles) roles[path] = to_string(role);
  for (const auto& [path, lang] : f.languages) languages[path] = to_string(lang);
  json hunks = json::array();
  for (const auto& h : f.hunks)
    hunks.push_back({{"file", h.file},
                     {"hunk", h.hunk},
                     {"new_start", h.new_start},
                     {"new_end", h.new_end},
                     {"added", h.added},
                     {"removed", h.removed},
                     {"symbol", h.symbol},
                     {"moved", h.moved},
                     {"score", h.score},
                     {"reasons", h.reasons}});
  json signals = json::array();
  for (const auto& s : f.signals)
    signals.push_back(
        {{"kind", s.kind}, {"detail", s.detail}, {"at", place_json(s.at)}, {"added", s.added}});
  json defs = json::array();
  for (const auto& d : f.definitions) {
    json one = {{"name", d.name}, {"kind", d.kind}, {"change", d.change}, {"at", place_json(d.at)}};
    if (d.compatible) one["compatible"] = true;
    if (!d.replaces.empty()) one["replaces"] = d.replaces;
    defs.push_back(std::move(one));
  }
  json skim = json::array(), skim_reasons = json::object();
  for (const auto& s : f.skim) {
    skim.push_back(s.path);
    skim_reasons[s.path] = s.reason;
  }
  json numbers = json::array();
  for (const auto& n : f.numbers)
    numbers.push_back({{"text", n.text},
                       {"kind", n.kind},
                       {"value", n.value},
                       {"sentence", n.sentence},
                       {"source", n.source}});
  json cautions = json::array();
  for (const auto& c : f.number_cautions)
    cautions.push_back({{"kind", c.kind}, {"detail", c.detail}});
  json mismatches = json::array();
  for (const auto& m : f.body_mismatches)
    mismatches.push_back({{"kind", m.kind}, {"subject", m.subject}, {"detail", m.detail}});
  json tests = json::array();
  for (const auto& t : f.tests) tests.push_back({{"path", t.path}, {"covers", t.covers}});
  json test_gaps = json::array(), bench_gaps = json::array();
  for (const auto& g : f.gaps) {
    json gap = {{"kind", g.kind}, {"subject", g.subject}, {"detail", g.detail}};
    if (!g.symbol.empty()) gap["symbol"] = g.symbol;
    (g.kind == "benchmark" ? bench_gaps : test_gaps).push_back(std::move(gap));
  }
  json focus = json::array();
  for (const auto& r : f.focus)
    focus.push_back({{"path", r.path},
                     {"start_line", r.start_line},
                     {"end_line", r.end_line},
                     {"symbol", r.symbol},
                     {"score", r.score},
                     {"reasons", r.reasons},
                     {"changed_lines", r.changed_lines}});
  json tags = json::array();
  for (const auto& t : f.tags)
    tags.push_back({{"name", t.name},
                    {"source", t.source},
                    {"rule", t.rule},
                    {"share", t.share},
                    {"weight", t.weight},
                    {"evidence", t.evidence}});
  json refs = json::array();
  for (const auto& r : f.references)
    refs.push_back({{"kind", r.kind},
                    {"relation", r.relation},
                    {"repo", r.repo},
                    {"number", r.number},
                    {"sha", r.sha},
                    {"text", r.text},
                    {"source", r.source}});
  json backlinks = json::array();
  for (const auto& b : f.referenced_by)
    backlinks.push_back({{"ref", b.ref},
                         {"title", b.title},
                         {"relation", b.relation},
                         {"merged_at", b.merged_at},
                         {"change_id", b.change_id}});
  json thread = json::array();
  for (const auto& l : f.thread)
    thread.push_back(
        {{"relation", l.relation}, {"sha", l.sha}, {"number", l.number}, {"detail", l.detail}});
  json points = json::array();
  for (const auto& p : f.review_points)
    points.push_back({{"reviewer", p.reviewer},
                      {"kind", p.kind},
                      {"path", p.path},
                      {"line", p.line},
                      {"excerpt", p.excerpt}});
  json rationale = json::array();
  for (const auto& n : f.rationale)
    rationale.push_back({{"path", n.path},
                         {"start_line", n.start_line},
                         {"end_line", n.end_line},
                         {"kind", n.kind},
                         {"text", n.text},
                         {"symbol", n.symbol},
                         {"focus", n.focus}});
  json replacements = json::array();
  for (const auto& r : f.replacements)
    replacements.push_back({{"path", r.path},
                            {"old_line", r.old_line},
                            {"new_line", r.new_line},
                            {"old_text", r.old_text},
                            {"new_text", r.new_text},
                            {"symbol", r.symbol},
                            {"focus", r.focus}});
  return {{"analyzer_version", f.version},
          {"open", f.open},
          {"reviewers", f.reviewers},
          {"review_points", std::move(points)},
          {"referenced_by", std::move(backlinks)},
          {"thread", std::move(thread)},
          {"roles", std::move(roles)},
          {"languages", std::move(languages)},
          {"hunk_facts", std::move(hunks)},
          {"signals", std::move(signals)},
          {"definitions", std::move(defs)},
          {"skim", std::move(skim)},
          {"skim_reasons", std::move(skim_reasons)},
          {"cleanup", f.cleanup},
          {"numbers", std::move(numbers)},
          {"number_cautions", std::move(cautions)},
          {"body_mismatches", std::move(mismatches)},
          {"tests", std::move(tests)},
          {"test_gaps", std::move(test_gaps)},
          {"benchmark_gaps", std::move(bench_gaps)},
          {"focus", std::move(focus)},
          {"lines_worth_reading", f.lines_worth_reading},
          {"tags", std::move(tags)},
          {"scores",
           {{"importance", f.importance.value},
            {"insight", f.insight.value},
            {"importance_reasons", f.importance.reasons},
            {"insight_reasons", f.insight.reasons},
            {"importance_raw", f.importance.raw},
            {"insight_raw", f.insight.raw},
            {"importance_features", f.score_inputs.importance_features},
            {"code_lines", f.score_inputs.code_lines},
            {"argued", f.score_inputs.argued}}},
          {"verdict", to_string(f.verdict)},
          {"verdict_scope", f.verdict_scope},
          {"references", std::move(refs)},
          {"rationale", std::move(rationale)},
          {"reach",
           {{"known", f.reach.known},
            {"importers", f.reach.importers},
            {"direct", f.reach.direct},
            {"hub", f.reach.hub},
            {"hub_importers", f.reach.hub_importers}}},
          {"unread_files", f.unread_files},
          {"switches_known", f.switches_known},
          {"switches", switches_json(f.switches)},
          {"context_known", f.context_known},
          {"context", context_json(f.context)},
          {"replacements", std::move(replacements)}};
}

Result<Facts> facts_from_json(const json& j) {
  try {
    Facts f;
    f.version = j.at("analyzer_version").get<int>();
    for (const auto& [path, role] : j.at("roles").items())
      f.roles[path] = role_from_string(role.get<std::string>()).value_or(FileRole::kCore);
    const json languages = j.value("languages", json::object());  // items() needs a live object
    for (const auto& [path, lang] : languages.items())
      f.languages[path] =
          language_from_string(lang.get<std::string>()).value_or(Language::kUnknown);
    for (const auto& h : j.value("hunk_facts", json::array())) {
      HunkFacts hf;
      hf.file = h.at("file").get<size_t>();
      hf.hunk = h.at("hunk").get<size_t>();
      hf.new_start = h.value("new_start", 0);
      hf.new_end = h.value("new_end", 0);
      hf.added = h.value("added", 0);
      hf.removed = h.value("removed", 0);
      hf.symbol = h.value("symbol", "");
      hf.moved = h.value("moved", false);
      hf.score = h.value("score", 0.0);
      hf.reasons = h.value("reasons", std::vector<std::string>{});
      f.hunks.push_back(std::move(hf));
    }
    for (const auto& s : j.value("signals", json::array()))
      f.signals.push_back({s.value("kind", ""), s.value("detail", ""), place_from(s.at("at")),
                           s.value("added", true)});
    for (const auto& d : j.value("definitions", json::array()))
      f.definitions.push_back({d.value("name", ""), d.value("kind", ""), d.value("change", ""),
                               place_from(d.at("at")), d.value("compatible", false),
                               d.value("replaces", std::vector<std::string>{})});
    const json reasons = j.value("skim_reasons", json::object());
    for (const auto& p : j.value("skim", json::array())) {
      const std::string path = p.get<std::string>();
      f.skim.push_back({path, reasons.value(path, "")});
    }
    f.cleanup = j.value("cleanup", "");
    for (const auto& n : j.value("numbers", json::array()))
      f.numbers.push_back({n.value("text", ""), n.value("kind", ""), n.value("value", 0.0),
                           n.value("sentence", ""), n.value("source", "")});
    for (const auto& c : j.value("number_cautions", json::array()))
      f.number_cautions.push_back({c.value("kind", ""), c.value("detail", "")});
    for (const auto& m : j.value("body_mismatches", json::array()))
      f.body_mismatches.push_back(
          {m.value("kind", ""), m.value("subject", ""), m.value("detail", "")});
    for (const auto& t : j.value("tests", json::array()))
      f.tests.push_back({t.value("path", ""), t.value("covers", "")});
    for (const char* key : {"test_gaps", "benchmark_gaps"})
      for (const auto& g : j.value(key, json::array()))
        f.gaps.push_back({g.value("kind", ""), g.value("subject", ""), g.value("detail", ""),
                          g.value("symbol", "")});
    for (const auto& r : j.value("focus", json::array())) {
      FocusRegion fr;
      fr.path = r.value("path", "");
      fr.start_line = r.value("start_line", 0);
      fr.end_line = r.value("end_line", 0);
      fr.symbol = r.value("symbol", "");
      fr.score = r.value("score", 0.0);
      fr.reasons = r.value("reasons", std::vector<std::string>{});
      fr.changed_lines = r.value("changed_lines", 0);
      f.focus.push_back(std::move(fr));
    }
    f.lines_worth_reading = j.value("lines_worth_reading", 0);
    for (const auto& t : j.value("tags", json::array()))
      f.tags.push_back({t.value("name", ""), t.value("source", ""), t.value("rule", ""),
                        t.value("share", 0.0), t.value("weight", 0.0), t.value("evidence", "")});
    const json& sc = j.at("scores");
    f.importance = {sc.at("importance").get<int>(),
                    sc.value("importance_reasons", std::vector<std::string>{})};
    f.insight = {sc.at("insight").get<int>(),
                 sc.value("insight_reasons", std::vector<std::string>{})};
    f.importance.raw = sc.value("importance_raw", 0.0);
    f.insight.raw = sc.value("insight_raw", 0.0);
    f.score_inputs.importance_features =
        sc.value("importance_features", std::map<std::string, double>{});
    f.score_inputs.code_lines = sc.value("code_lines", 0);
    f.score_inputs.argued = sc.value("argued", std::vector<std::string>{});
    f.verdict = verdict_from_string(j.at("verdict").get<std::string>()).value_or(Verdict::kSkim);
    f.verdict_scope = j.value("verdict_scope", std::vector<std::string>{});
    for (const auto& r : j.value("references", json::array()))
      f.references.push_back({r.value("kind", ""), r.value("relation", ""), r.value("repo", ""),
                              r.value("number", std::int64_t{0}), r.value("sha", ""),
                              r.value("text", ""), r.value("source", "")});
    for (const auto& b : j.value("referenced_by", json::array()))
      f.referenced_by.push_back({b.value("change_id", std::int64_t{0}), b.value("ref", ""),
                                 b.value("title", ""), b.value("relation", ""),
                                 b.value("merged_at", std::int64_t{0})});
    for (const auto& l : j.value("thread", json::array()))
      f.thread.push_back({l.value("relation", ""), l.value("sha", ""),
                          l.value("number", std::int64_t{0}), l.value("detail", "")});
    f.open = j.value("open", false);
    f.reviewers = j.value("reviewers", std::vector<std::string>{});
    for (const auto& p : j.value("review_points", json::array()))
      f.review_points.push_back({p.value("reviewer", ""), p.value("kind", ""), p.value("path", ""),
                                 p.value("line", 0), p.value("excerpt", "")});
    for (const auto& n : j.value("rationale", json::array()))
      f.rationale.push_back({n.value("path", ""), n.value("start_line", 0), n.value("end_line", 0),
                             n.value("kind", ""), n.value("text", ""), n.value("symbol", ""),
                             n.value("focus", -1)});
    for (const auto& r : j.value("replacements", json::array()))
      f.replacements.push_back({r.value("path", ""), r.value("old_line", 0), r.value("new_line", 0),
                                r.value("old_text", ""), r.value("new_text", ""),
                                r.value("symbol", ""), r.value("focus", -1)});
    const json reach = j.value("reach", json::object());
    f.reach = {reach.value("known", false), reach.value("importers", 0), reach.value("direct", 0),
               reach.value("hub", ""), reach.value("hub_importers", 0)};
    f.unread_files = j.value("unread_files", std::vector<std::string>{});
    f.switches_known = j.value("switches_known", false);
    f.switches = switches_from(j.value("switches", json::array()));
    f.context_known = j.value("context_known", false);
    f.context = context_from(j.value("context", json::array()));
    return f;
  } catch (const json::exception& e) {
    return fail(ErrorKind::kCorrupt, "stored facts are malformed: {}", e.what());
  }
}

}  // namespace mergelens
