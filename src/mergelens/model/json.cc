#include "mergelens/model/json.h"

namespace mergelens {
namespace {

nlohmann::json person_json(const Person& p) {
  nlohmann::json j = {{"name", p.name}, {"email", p.email}};
  j["login"] = p.login.empty() ? nlohmann::json(nullptr) : nlohmann::json(p.login);
  return j;
}

nlohmann::json hunk_json(const Hunk& h) {
  nlohmann::json lines = nlohmann::json::array();
  for (const auto& l : h.lines) {
    lines.push_back({{"origin", std::string(1, l.origin)},
                     {"old", l.old_no ? nlohmann::json(l.old_no) : nlohmann::json(nullptr)},
                     {"new", l.new_no ? nlohmann::json(l.new_no) : nlohmann::json(nullptr)},
                     {"text", l.text}});
  }
  return {{"old_start", h.old_start}, {"old_lines", h.old_lines}, {"new_start", h.new_start},
          {"new_lines", h.new_lines}, {"section", h.section},     {"lines", std::move(lines)}};
}

}  // namespace

nlohmann::json to_json(const Change& c, bool with_hunks) {
  nlohmann::json files = nlohmann::json::array();
  for (const auto& f : c.files) {
    nlohmann::json jf = {
        {"path", f.path},
        {"old_path", f.old_path.empty() ? nlohmann::json(nullptr) : nlohmann::json(f.old_path)},
        {"status", to_string(f.status)},
        {"binary", f.binary},
        {"truncated", f.truncated},
        {"additions", f.additions},
        {"deletions", f.deletions}};
    if (with_hunks) {
      nlohmann::json hunks = nlohmann::json::array();
      for (const auto& h : f.hunks) hunks.push_back(hunk_json(h));
      jf["hunks"] = std::move(hunks);
    }
    files.push_back(std::move(jf));
  }
  nlohmann::json commits = nlohmann::json::array();
  for (const auto& cm : c.commits) {
    commits.push_back({{"sha", cm.sha},
                       {"author", person_json(cm.author)},
                       {"authored_at", format_utc(cm.authored_at)},
                       {"committed_at", format_utc(cm.committed_at)},
                       {"message", cm.message}});
  }
  return {
      {"repo", c.repo},
      {"ref", c.ref()},
      {"kind", to_string(c.kind)},
      {"number", c.number ? nlohmann::json(*c.number) : nlohmann::json(nullptr)},
      {"sha", c.sha},
      {"parent_sha", c.parent_sha.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.parent_sha)},
      {"title", c.title},
      {"body", c.body},
      {"author", person_json(c.author)},
      {"merged_at", format_utc(c.merged_at)},
      {"url", c.url},
      {"labels", c.labels},
      {"additions", c.additions()},
      {"deletions", c.deletions()},
      {"files_truncated", c.files_truncated},
      {"commits", std::move(commits)},
      {"files", std::move(files)}};
}

std::string dump_json(const nlohmann::json& j, int indent) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace mergelens
