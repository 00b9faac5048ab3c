// The domain model: one change (a merged pull request, a merge commit or a
// plain commit) with its commits, files and hunks.
//
// These are plain values: every stage reads them, none owns behaviour. Text
// fields hold the bytes as found in the source (git does not promise UTF-8);
// printers replace invalid sequences when they must emit UTF-8.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mergelens/util/time.h"

namespace mergelens {

enum class ChangeKind {
  kSquash,  // squash-merged PR: one commit whose subject ends with "(#N)"
  kMerge,   // merge commit ("Merge pull request #N from ..."), diffed against its first parent
  kCommit,  // a commit on the branch that names no pull request
};

enum class FileStatus { kAdded, kModified, kDeleted, kRenamed, kCopied, kTypeChange };

const char* to_string(ChangeKind kind);
const char* to_string(FileStatus status);
std::optional<ChangeKind> change_kind_from_string(std::string_view s);
std::optional<FileStatus> file_status_from_string(std::string_view s);

struct DiffLine {
  char origin = ' ';        // ' ' context, '+' added, '-' removed, '\\' "no newline at end of file"
  std::int32_t old_no = 0;  // line number in the old file, 0 when the line is added
  std::int32_t new_no = 0;  // line number in the new file, 0 when the line is removed
  std::string text;         // without the origin character and without the newline
};

struct Hunk {
  std::int32_t old_start = 0, old_lines = 0;
  std::int32_t new_start = 0, new_lines = 0;
  std::string section;  // text after the second "@@": the enclosing context git found
  std::vector<DiffLine> lines;
};

struct FileChange {
  std::string path;      // path in the new tree (the old path for deletions)
  std::string old_path;  // set for renames and copies, empty otherwise
  FileStatus status = FileStatus::kModified;
  bool binary = false;     // binary files carry no hunks
  bool truncated = false;  // hunks were capped: additions/deletions still count everything
  std::int32_t additions = 0, deletions = 0;
  // Non-empty when the diff of this file could not be read, saying why (a
  // blob absent from a partial or filtered clone, memory, a file too large to
  // diff): no hunks, counts of 0, a known gap in this one file, not an empty
  // diff. A later ingest reads the change again and rewrites it once the
  // file can be read (see Store::put_changes).
  std::string unavailable;
  std::vector<Hunk> hunks;
};

struct Person {
  std::string name, email;
  std::string login;  // GitHub login when known, empty otherwise
};

struct Commit {
  std::string sha;
  Person author;
  UnixSeconds authored_at = 0;
  UnixSeconds committed_at = 0;
  std::string message;
};

// Pull-request conversation, from the GitHub REST source (empty for changes
// read from git alone).
struct Review {
  std::int64_t id = 0;
  std::string author;  // login
  std::string state;   // "APPROVED", "CHANGES_REQUESTED", "COMMENTED", "DISMISSED"
  std::string body;
  UnixSeconds submitted_at = 0;
};

struct ReviewComment {  // a comment placed on a line of the diff
  std::int64_t id = 0;
  std::int64_t in_reply_to = 0;  // id of the thread's first comment, 0 when it starts one
  std::string author;
  std::string path;
  std::int32_t line = 0;           // new-file line, 0 when the comment is outdated
  std::int32_t original_line = 0;  // line in the commit the comment was written on
  std::string diff_hunk;
  std::string body;
  UnixSeconds created_at = 0;
};

struct IssueComment {  // a comment on the PR's conversation tab
  std::int64_t id = 0;
  std::string author;
  std::string body;
  UnixSeconds created_at = 0;
};

struct Change {
  std::int64_t id = 0;  // row id in the store; 0 until stored
  std::string repo;     // repository name in the store, e.g. "sgl-project/sglang"
  ChangeKind kind = ChangeKind::kCommit;
  std::optional<std::int64_t> number;  // pull-request number when known
  std::string sha;                     // the commit on the branch (squash or merge commit)
  std::string parent_sha;              // first parent, empty for a root commit
  std::string title;
  std::string body;
  Person author;
  UnixSeconds merged_at = 0;  // committer time of `sha`, a UTC instant
  std::string url;            // the original PR (or commit) on the host
  std::vector<Commit> commits;
  std::vector<FileChange> files;
  std::vector<std::string> labels;
  bool files_truncated = false;  // more files than the cap: the rest were dropped
  // The commit is the boundary of a shallow clone: its parent (`parent_sha`)
  // is not in the clone, so the change carries no files. Its diff is unknown,
  // not empty; a later ingest of the deepened clone fills it in.
  bool shallow = false;

  // Pull-request state and conversation (GitHub source). An open PR has
  // `open` set, `merged_at` 0 and `updated_at` its last update; its `sha` is
  // the head commit until it merges.
  bool open = false;
  bool draft = false;
  std::string head_sha;
  std::string base_ref;
  std::string merged_by;
  UnixSeconds updated_at = 0;
  std::vector<Review> reviews;
  std::vector<ReviewComment> review_comments;
  std::vector<IssueComment> comments;

  // "#1234" when the change has a PR number, otherwise the 12-character short sha.
  std::string ref() const;
  std::int64_t additions() const;
  std::int64_t deletions() const;
};

}  // namespace mergelens
