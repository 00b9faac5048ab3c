#include "mergelens/guide/notes.h"

#include <fmt/format.h>

#include "mergelens/guide/guide_json.h"

namespace mergelens {
namespace {

using nlohmann::json;

json obj(std::initializer_list<std::pair<const char*, json>> props) {
  return strict_object_schema(props);
}

bool get_str(const json& j, const char* key, std::string& out, std::string& err,
             const std::string& where) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return true;
  if (!it->is_string()) {
    err = fmt::format("field {}.{} must be a string", where, key);
    return false;
  }
  out = it->get<std::string>();
  return true;
}

bool get_int(const json& j, const char* key, std::int32_t& out, std::string& err,
             const std::string& where) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return true;
  if (it->is_number()) {
    out = static_cast<std::int32_t>(it->get<double>());
    return true;
  }
  err = fmt::format("field {}.{} must be an integer", where, key);
  return false;
}

}  // namespace

const json& notes_answer_schema() {
  static const json schema = [] {
    json str = {{"type", "string"}}, integer = {{"type", "integer"}};
    return obj({{"notes",
                 {{"type", "array"},
                  {"items", obj({{"path", str},
                                 {"start_line", integer},
                                 {"end_line", integer},
                                 {"symbol", str},
                                 {"what", str},
                                 {"lesson", str},
                                 {"question", str},
                                 {"risk", str}})}}},
                {"skim", {{"type", "array"}, {"items", obj({{"path", str}, {"reason", str}})}}}});
  }();
  return schema;
}

Result<PartNotes> notes_from_answer(const json& a) {
  if (!a.is_object()) return fail(ErrorKind::kInvalidInput, "the notes answer is not an object");
  PartNotes out;
  std::string err;
  if (auto it = a.find("notes"); it != a.end() && !it->is_null()) {
    if (!it->is_array()) return fail(ErrorKind::kInvalidInput, "field notes must be an array");
    size_t i = 0;
    for (const auto& n : *it) {
      std::string where = fmt::format("notes[{}]", i++);
      if (!n.is_object()) return fail(ErrorKind::kInvalidInput, "{} must be an object", where);
      RegionNote r;
      if (!(get_str(n, "path", r.path, err, where) &&
            get_int(n, "start_line", r.start_line, err, where) &&
            get_int(n, "end_line", r.end_line, err, where) &&
            get_str(n, "symbol", r.symbol, err, where) && get_str(n, "what", r.what, err, where) &&
            get_str(n, "lesson", r.lesson, err, where) &&
            get_str(n, "question", r.question, err, where) &&
            get_str(n, "risk", r.risk, err, where)))
        return fail(ErrorKind::kInvalidInput, "{}", err);
      out.notes.push_back(std::move(r));
    }
  }
  if (auto it = a.find("skim"); it != a.end() && !it->is_null()) {
    if (!it->is_array()) return fail(ErrorKind::kInvalidInput, "field skim must be an array");
    size_t i = 0;
    for (const auto& s : *it) {
      std::string where = fmt::format("skim[{}]", i++);
      if (!s.is_object()) return fail(ErrorKind::kInvalidInput, "{} must be an object", where);
      GuideSkim k;
      if (!(get_str(s, "path", k.path, err, where) && get_str(s, "reason", k.reason, err, where)))
        return fail(ErrorKind::kInvalidInput, "{}", err);
      out.skim.push_back(std::move(k));
    }
  }
  return out;
}

size_t check_notes(PartNotes& p, const CitationIndex& index, std::vector<std::string>& removed,
                   std::string_view call) {
  // Each note is checked as small guides: the place with its "what" (as a
  // focus point's question) and lesson (as its why), then the question and
  // the risk each as a guide's question, so the guide's checker and pruner
  // apply unchanged and every field comes back to its own place.
  size_t failures = 0;
  std::vector<RegionNote> kept;
  for (size_t i = 0; i < p.notes.size(); ++i) {
    auto& n = p.notes[i];
    const std::string where = fmt::format("{} notes[{}] (`{}`)", call, i, n.path);
    // Checks one part; false when the note's place itself failed.
    auto check = [&](Guide g, auto&& take,
                     std::initializer_list<std::pair<std::string_view, std::string_view>> names) {
      auto report = check_guide(g, index, /*published=*/false);  // notes reach no reader
      if (report.failures.empty()) return true;
      failures += report.failures.size();
      remove_failed_citations(g, report.failures, Guide{}, index, report.suggested);
      for (const auto& r : g.writer.removed) {
        std::string line = r;
        for (auto [from, to] : names)
          if (line.starts_with(from)) {
            line = where + std::string(to) + line.substr(from.size());
            break;
          }
        removed.push_back(std::move(line));
      }
      return take(g);
    };
    Guide place;
    place.focus.push_back({n.path, n.start_line, n.end_line, n.symbol, n.what, n.lesson});
    const bool stays = check(place,
                             [&](const Guide& g) {
                               if (g.focus.empty()) return false;
                               const auto& f = g.focus[0];
                               n.path = f.path;
                               n.start_line = f.start_line;
                               n.end_line = f.end_line;
                               n.symbol = f.symbol;
                               n.what = f.question;
                               n.lesson = f.why;
                               return true;
                             },
                             {{"focus[0].question", ".what"},
                              {"focus[0].why", ".lesson"},
                              {"focus[0].path", ".path"},
                              {"focus[0].range", ".range"},
                              {"focus[0].symbol", ".symbol"}});
    if (!stays) continue;
    for (auto [field, name] : {std::pair{&n.question, ".question"}, std::pair{&n.risk, ".risk"}}) {
      if (field->empty()) continue;
      Guide q;
      q.questions = {*field};
      check(q,
            [&](const Guide& g) {
              *field = g.questions.empty() ? std::string() : g.questions[0];
              return true;
            },
            {{"questions[0]", name}});
    }
    kept.push_back(std::move(n));
  }
  p.notes = std::move(kept);
  std::vector<GuideSkim> skim;
  for (size_t i = 0; i < p.skim.size(); ++i) {
    auto& s = p.skim[i];
    if (index.resolve_path(s.path).empty()) {
      removed.push_back(fmt::format(
          "{} skim[{}].path: {} (no such file in the change): item removed", call, i, s.path));
      ++failures;
      continue;
    }
    skim.push_back(std::move(s));
  }
  p.skim = std::move(skim);
  return failures;
}

std::string render_notes(const std::vector<PartNotes>& parts) {
  std::string out;
  for (size_t k = 0; k < parts.size(); ++k) {
    out += fmt::format("Part {}:\n", k + 1);
    for (const auto& n : parts[k].notes) {
      std::string place = "`" + n.path + "`";
      if (n.start_line > 0) place += fmt::format(":{}-{}", n.start_line, n.end_line);
      if (!n.symbol.empty()) place += " `" + n.symbol + "`";
      auto flat = [](std::string s) {
        for (auto& ch : s)
          if (ch == '\n') ch = ' ';
        return s;
      };
      out += fmt::format("- {}: {}", place, flat(n.what));
      if (!n.question.empty()) out += " Ask: " + flat(n.question);
      if (!n.lesson.empty()) out += " Lesson: " + flat(n.lesson);
      if (!n.risk.empty()) out += " Risk: " + flat(n.risk);
      out += "\n";
    }
    for (const auto& s : parts[k].skim) out += fmt::format("- skim `{}`: {}\n", s.path, s.reason);
  }
  return out;
}

}  // namespace mergelens
