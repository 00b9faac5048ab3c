// Decoders for GitHub REST v3 responses (nlohmann-json), one per endpoint.
//
// Every decoder takes one response body and the endpoint it came from
// ("GET /repos/o/r/pulls/12/files"), and fails with kCorrupt naming that
// endpoint when the body is not JSON or lacks a required field. Nothing here
// throws. Timestamps are ISO 8601 UTC ("2026-09-03T10:00:00Z").
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "mergelens/model/change.h"
#include "mergelens/util/error.h"

namespace mergelens::github {

// One entry of GET /repos/{o}/{r}/pulls.
struct PullSummary {
  std::int64_t number = 0;
  bool open = false;  // state == "open"
  UnixSeconds updated_at = 0;
  UnixSeconds merged_at = 0;  // 0 when not merged
  std::string merge_commit_sha;
  std::string head_sha;
};

// GitHub caps a pull request's files list at this many entries.
inline constexpr size_t kMaxFiles = 3000;

// GET /repos/{o}/{r}/pulls (one page).
Result<std::vector<PullSummary>> decode_pulls(std::string_view body, std::string_view endpoint);

// GET /repos/{o}/{r}/pulls/{n}: a Change with number, title, body, labels,
// author login, merged_at, merge sha (as `sha`; the head sha while open),
// merged_by, url, draft, open, head_sha, base_ref and updated_at. No files,
// commits or conversation. `changed_files` receives the PR's file count.
Result<Change> decode_pull(std::string_view body, std::string_view endpoint,
                           std::int64_t* changed_files = nullptr);

// GET .../pulls/{n}/files (one page). `patch` is parsed with parse_patch; a
// file whose patch is missing while it has changed lines, or whose patch is
// cut short, is marked truncated.
Result<std::vector<FileChange>> decode_files(std::string_view body, std::string_view endpoint);

// GET .../pulls/{n}/commits (one page).
Result<std::vector<Commit>> decode_commits(std::string_view body, std::string_view endpoint);

// GET .../pulls/{n}/reviews (one page). Reviews still PENDING are dropped.
Result<std::vector<Review>> decode_reviews(std::string_view body, std::string_view endpoint);

// GET .../pulls/{n}/comments (one page).
Result<std::vector<ReviewComment>> decode_review_comments(std::string_view body,
                                                          std::string_view endpoint);

// GET /repos/{o}/{r}/issues/{n}/comments (one page).
Result<std::vector<IssueComment>> decode_issue_comments(std::string_view body,
                                                        std::string_view endpoint);

}  // namespace mergelens::github
