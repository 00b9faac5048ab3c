#include "mergelens/source/github_json.h"

#include <nlohmann/json.hpp>

#include "mergelens/model/diff.h"
#include "mergelens/util/time_range.h"

namespace mergelens::github {
namespace {

using nlohmann::json;

// Thrown inside this file only, caught by decode_with().
struct FieldError {
  std::string what;
};

std::string str(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return {};
  if (!it->is_string()) throw FieldError{fmt::format("field \"{}\" is not a string", key)};
  return it->get<std::string>();
}

std::int64_t num(const json& j, const char* key, bool required = false) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) {
    if (required) throw FieldError{fmt::format("field \"{}\" is missing", key)};
    return 0;
  }
  if (!it->is_number_integer()) throw FieldError{fmt::format("field \"{}\" is not a number", key)};
  return it->get<std::int64_t>();
}

UnixSeconds time_of(const json& j, const char* key) {
  const std::string s = str(j, key);
  if (s.empty()) return 0;
  auto t = parse_instant(s);
  if (!t) throw FieldError{fmt::format("field \"{}\": {}", key, t.error().message)};
  return clamp_instant(*t);
}

std::string login_of(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_object()) return {};
  return str(*it, "login");
}

const json& object(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_object())
    throw FieldError{fmt::format("field \"{}\" is not an object", key)};
  return *it;
}

// Parses `body` and runs `fn` on the document; any JSON or field error
// becomes kCorrupt naming the endpoint.
template <class T, class Fn>
Result<T> decode_with(std::string_view body, std::string_view endpoint, Fn fn) {
  try {
    json doc = json::parse(body.begin(), body.end());
    return fn(doc);
  } catch (const json::exception& e) {
    return fail(ErrorKind::kCorrupt, "{}: malformed JSON from GitHub: {}", endpoint, e.what());
  } catch (const FieldError& e) {
    return fail(ErrorKind::kCorrupt, "{}: unexpected JSON from GitHub: {}", endpoint, e.what);
  }
}

// Runs `one` on every element of a JSON array body.
template <class T, class Fn>
Result<std::vector<T>> decode_array(std::string_view body, std::string_view endpoint, Fn one) {
  return decode_with<std::vector<T>>(body, endpoint, [&](const json& doc) {
    if (!doc.is_array()) throw FieldError{"expected a JSON array"};
    std::vector<T> out;
    out.reserve(doc.size());
    for (const json& item : doc) {
      if (!item.is_object()) throw FieldError{"expected an array of objects"};
      if (auto v = one(item)) out.push_back(std::move(*v));
    }
    return out;
  });
}

std::optional<FileStatus> file_status(const std::string& s) {
  if (s == "added") return FileStatus::kAdded;
  if (s == "removed") return FileStatus::kDeleted;
  if (s == "modified" || s == "changed" || s == "unchanged") return FileStatus::kModified;
  if (s == "renamed") return FileStatus::kRenamed;
  if (s == "copied") return FileStatus::kCopied;
  return std::nullopt;
}

}  // namespace

Result<std::vector<PullSummary>> decode_pulls(std::string_view body, std::string_view endpoint) {
  return decode_array<PullSummary>(body, endpoint, [](const json& j) {
    PullSummary p;
    p.number = num(j, "number", true);
    p.open = str(j, "state") == "open";
    p.updated_at = time_of(j, "updated_at");
    p.merged_at = time_of(j, "merged_at");
    p.merge_commit_sha = str(j, "merge_commit_sha");
    p.head_sha = str(object(j, "head"), "sha");
    return std::optional(std::move(p));
  });
}

Result<Change> decode_pull(std::string_view body, std::string_view endpoint,
                           std::int64_t* changed_files) {
  return decode_with<Change>(body, endpoint, [&](const json& j) {
    if (!j.is_object()) throw FieldError{"expected a JSON object"};
    Change c;
    c.number = num(j, "number", true);
    c.title = str(j, "title");
    c.body = str(j, "body");
    c.author.login = login_of(j, "user");
    c.author.name = c.author.login;
    c.url = str(j, "html_url");
    c.open = str(j, "state") == "open";
    c.draft = j.value("draft", false);
    c.merged_at = time_of(j, "merged_at");
    c.updated_at = time_of(j, "updated_at");
    c.merged_by = login_of(j, "merged_by");
    c.head_sha = str(object(j, "head"), "sha");
    c.base_ref = str(object(j, "base"), "ref");
    c.sha = c.merged_at ? str(j, "merge_commit_sha") : c.head_sha;
    c.kind = ChangeKind::kSquash;  // the API does not say how it merged
    if (auto it = j.find("labels"); it != j.end() && it->is_array())
      for (const json& l : *it)
        if (l.is_object()) c.labels.push_back(str(l, "name"));
    if (changed_files) *changed_files = num(j, "changed_files");
    return c;
  });
}

Result<std::vector<FileChange>> decode_files(std::string_view body, std::string_view endpoint) {
  return decode_array<FileChange>(body, endpoint, [&](const json& j) {
    FileChange f;
    f.path = str(j, "filename");
    if (f.path.empty()) throw FieldError{"a file has no \"filename\""};
    f.status = file_status(str(j, "status")).value_or(FileStatus::kModified);
    if (f.status == FileStatus::kRenamed || f.status == FileStatus::kCopied)
      f.old_path = str(j, "previous_filename");
    f.additions = static_cast<std::int32_t>(num(j, "additions"));
    f.deletions = static_cast<std::int32_t>(num(j, "deletions"));
    const std::string patch = str(j, "patch");
    if (!patch.empty()) {
      auto parsed = parse_patch(patch);
      if (!parsed) throw FieldError{fmt::format("patch of {}: {}", f.path, parsed.error().message)};
      f.hunks = std::move(parsed->hunks);
      f.truncated = parsed->short_hunk;
    } else if (f.additions + f.deletions > 0) {
      f.truncated = true;  // GitHub leaves `patch` out of diffs too large to show
    }
    return std::optional(std::move(f));
  });
}

Result<std::vector<Commit>> decode_commits(std::string_view body, std::string_view endpoint) {
  return decode_array<Commit>(body, endpoint, [](const json& j) {
    Commit c;
    c.sha = str(j, "sha");
    const json& inner = object(j, "commit");
    if (auto a = inner.find("author"); a != inner.end() && a->is_object()) {
      c.author.name = str(*a, "name");
      c.author.email = str(*a, "email");
      c.authored_at = time_of(*a, "date");
    }
    if (auto cm = inner.find("committer"); cm != inner.end() && cm->is_object())
      c.committed_at = time_of(*cm, "date");
    c.author.login = login_of(j, "author");
    c.message = str(inner, "message");
    return std::optional(std::move(c));
  });
}

Result<std::vector<Review>> decode_reviews(std::string_view body, std::string_view endpoint) {
  return decode_array<Review>(body, endpoint, [](const json& j) -> std::optional<Review> {
    Review r;
    r.id = num(j, "id", true);
    r.author = login_of(j, "user");
    r.state = str(j, "state");
    if (r.state == "PENDING") return std::nullopt;
    r.body = str(j, "body");
    r.submitted_at = time_of(j, "submitted_at");
    return r;
  });
}

Result<std::vector<ReviewComment>> decode_review_comments(std::string_view body,
                                                          std::string_view endpoint) {
  return decode_array<ReviewComment>(body, endpoint, [](const json& j) {
    ReviewComment c;
    c.id = num(j, "id", true);
    c.in_reply_to = num(j, "in_reply_to_id");
    c.author = login_of(j, "user");
    c.path = str(j, "path");
    c.line = static_cast<std::int32_t>(num(j, "line"));
    c.original_line = static_cast<std::int32_t>(num(j, "original_line"));
    c.diff_hunk = str(j, "diff_hunk");
    c.body = str(j, "body");
    c.created_at = time_of(j, "created_at");
    return std::optional(std::move(c));
  });
}

Result<std::vector<IssueComment>> decode_issue_comments(std::string_view body,
                                                        std::string_view endpoint) {
  return decode_array<IssueComment>(body, endpoint, [](const json& j) {
    IssueComment c;
    c.id = num(j, "id", true);
    c.author = login_of(j, "user");
    c.body = str(j, "body");
    c.created_at = time_of(j, "created_at");
    return std::optional(std::move(c));
  });
}

}  // namespace mergelens::github
