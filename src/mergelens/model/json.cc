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
        {"deletions", f.deletions},
        {"unavailable",
         f.unavailable.empty() ? nlohmann::json(nullptr) : nlohmann::json(f.unavailable)}};
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
  nlohmann::json reviews = nlohmann::json::array();
  for (const auto& r : c.reviews)
    reviews.push_back({{"id", r.id},
                       {"author", r.author},
                       {"state", r.state},
                       {"body", r.body},
                       {"submitted_at", format_utc(r.submitted_at)}});
  nlohmann::json review_comments = nlohmann::json::array();
  for (const auto& r : c.review_comments)
    review_comments.push_back(
        {{"id", r.id},
         {"in_reply_to", r.in_reply_to ? nlohmann::json(r.in_reply_to) : nlohmann::json(nullptr)},
         {"author", r.author},
         {"path", r.path},
         {"line", r.line ? nlohmann::json(r.line) : nlohmann::json(nullptr)},
         {"original_line", r.original_line},
         {"diff_hunk", r.diff_hunk},
         {"body", r.body},
         {"created_at", format_utc(r.created_at)}});
  nlohmann::json comments = nlohmann::json::array();
  for (const auto& r : c.comments)
    comments.push_back({{"id", r.id},
                        {"author", r.author},
                        {"body", r.body},
                        {"created_at", format_utc(r.created_at)}});
  auto opt_text = [](const std::string& s) {
    return s.empty() ? nlohmann::json(nullptr) : nlohmann::json(s);
  };
  return {
      {"repo", c.repo},
      {"state", c.open ? "open" : "merged"},
      {"open", c.open},
      {"draft", c.draft},
      {"head_sha", opt_text(c.head_sha)},
      {"base_ref", opt_text(c.base_ref)},
      {"merged_by", opt_text(c.merged_by)},
      {"updated_at",
       c.updated_at ? nlohmann::json(format_utc(c.updated_at)) : nlohmann::json(nullptr)},
      {"reviews", std::move(reviews)},
      {"review_comments", std::move(review_comments)},
      {"comments", std::move(comments)},
      {"ref", c.ref()},
      {"kind", to_string(c.kind)},
      {"number", c.number ? nlohmann::json(*c.number) : nlohmann::json(nullptr)},
      {"sha", c.sha},
      {"parent_sha", c.parent_sha.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.parent_sha)},
      {"title", c.title},
      {"body", c.body},
      {"author", person_json(c.author)},
      {"merged_at", c.open ? nlohmann::json(nullptr) : nlohmann::json(format_utc(c.merged_at))},
      {"url", c.url},
      {"labels", c.labels},
      {"additions", c.additions()},
      {"deletions", c.deletions()},
      {"files_truncated", c.files_truncated},
      {"shallow", c.shallow},
      {"commits", std::move(commits)},
      {"files", std::move(files)}};
}

std::string dump_json(const nlohmann::json& j, int indent) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace mergelens
