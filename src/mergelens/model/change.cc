#include "mergelens/model/change.h"

#include <fmt/format.h>

namespace mergelens {

const char* to_string(ChangeKind kind) {
  switch (kind) {
    case ChangeKind::kSquash:
      return "squash";
    case ChangeKind::kMerge:
      return "merge";
    case ChangeKind::kCommit:
      return "commit";
  }
  return "commit";
}

const char* to_string(FileStatus status) {
  switch (status) {
    case FileStatus::kAdded:
      return "added";
    case FileStatus::kModified:
      return "modified";
    case FileStatus::kDeleted:
      return "deleted";
    case FileStatus::kRenamed:
      return "renamed";
    case FileStatus::kCopied:
      return "copied";
    case FileStatus::kTypeChange:
      return "typechange";
  }
  return "modified";
}

std::optional<ChangeKind> change_kind_from_string(std::string_view s) {
  for (ChangeKind k : {ChangeKind::kSquash, ChangeKind::kMerge, ChangeKind::kCommit})
    if (s == to_string(k)) return k;
  return std::nullopt;
}

std::optional<FileStatus> file_status_from_string(std::string_view s) {
  for (FileStatus f : {FileStatus::kAdded, FileStatus::kModified, FileStatus::kDeleted,
                       FileStatus::kRenamed, FileStatus::kCopied, FileStatus::kTypeChange})
    if (s == to_string(f)) return f;
  return std::nullopt;
}

std::string Change::ref() const {
  if (number) return fmt::format("#{}", *number);
  return sha.substr(0, 12);
}

std::int64_t Change::additions() const {
  std::int64_t n = 0;
  for (const auto& f : files) n += f.additions;
  return n;
}

std::int64_t Change::deletions() const {
  std::int64_t n = 0;
  for (const auto& f : files) n += f.deletions;
  return n;
}

}  // namespace mergelens
