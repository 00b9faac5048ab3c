// Recognising pull requests in commit messages, logins in e-mail addresses,
// and repositories in remote URLs. Pure functions: no git, no I/O.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "mergelens/model/change.h"

namespace mergelens {

struct MessageInfo {
  ChangeKind kind = ChangeKind::kCommit;
  std::optional<std::int64_t> number;
  std::string title;
  std::string body;
};

// Classifies a commit message.
//  - "Merge pull request #N from owner/branch" with `is_merge`: kMerge, number
//    N, title = first non-blank body line, body = the rest.
//  - any other merge commit: kMerge without a number, title = subject.
//  - a subject ending in "(#N)" (the last one, e.g. "Fix x (#12) (#34)" → 34):
//    kSquash, title = subject without it.
//  - otherwise kCommit, title = subject.
// Body is the message after the subject with surrounding blank lines removed.
MessageInfo classify_message(std::string_view message, bool is_merge);

// GitHub login from a noreply address: "123+octo@users.noreply.github.com" or
// "octo@users.noreply.github.com" → "octo" (app accounts keep their "[bot]"
// suffix: "dependabot[bot]"); empty for any other address.
std::string login_from_email(std::string_view email);

// Web base of a repository from its remote URL, e.g.
//   https://github.com/o/r.git, git@github.com:o/r.git, ssh://git@host/o/r
//   → {"https://github.com/o/r", "o/r"}.
// nullopt when the URL is not of that shape (a local path, for instance).
struct RemoteInfo {
  std::string web_base;  // "https://host/owner/repo"
  std::string name;      // "owner/repo"
};
std::optional<RemoteInfo> parse_remote_url(std::string_view url);

}  // namespace mergelens
