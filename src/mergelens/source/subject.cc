#include "mergelens/source/subject.h"

#include <cctype>
#include <charconv>

#include "mergelens/util/strings.h"

namespace mergelens {
namespace {

bool starts_with(std::string_view s, std::string_view p) {
  return s.substr(0, p.size()) == p;
}

bool ends_with(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

std::optional<std::int64_t> parse_number(std::string_view digits) {
  if (digits.empty() || digits.size() > 12) return std::nullopt;
  std::int64_t n = 0;
  auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  if (ec != std::errc() || p != digits.data() + digits.size() || n <= 0) return std::nullopt;
  return n;
}

// Splits off the first line; the rest has leading blank lines removed.
std::pair<std::string_view, std::string_view> split_subject(std::string_view message) {
  const size_t nl = message.find('\n');
  std::string_view subject = message.substr(0, nl);
  std::string_view rest =
      nl == std::string_view::npos ? std::string_view() : message.substr(nl + 1);
  return {trim(subject), trim(rest)};
}

}  // namespace

MessageInfo classify_message(std::string_view message, bool is_merge) {
  MessageInfo info;
  auto [subject, rest] = split_subject(message);
  if (is_merge) {
    info.kind = ChangeKind::kMerge;
    constexpr std::string_view kPrefix = "Merge pull request #";
    if (starts_with(subject, kPrefix)) {
      std::string_view tail = subject.substr(kPrefix.size());
      size_t digits = 0;
      while (digits < tail.size() && std::isdigit(static_cast<unsigned char>(tail[digits])))
        ++digits;
      info.number = parse_number(tail.substr(0, digits));
      if (info.number) {
        auto [title, body] = split_subject(rest);
        info.title.assign(title.empty() ? subject : title);
        info.body.assign(body);
        return info;
      }
    }
    info.title.assign(subject);
    info.body.assign(rest);
    return info;
  }
  info.body.assign(rest);
  if (ends_with(subject, ")")) {
    const size_t open = subject.rfind("(#");
    if (open != std::string_view::npos) {
      if (auto n = parse_number(subject.substr(open + 2, subject.size() - open - 3))) {
        info.kind = ChangeKind::kSquash;
        info.number = n;
        info.title.assign(trim(subject.substr(0, open)));
        if (info.title.empty()) info.title.assign(subject);
        return info;
      }
    }
  }
  info.title.assign(subject);
  return info;
}

std::string login_from_email(std::string_view email) {
  constexpr std::string_view kDomain = "@users.noreply.github.com";
  if (email.size() <= kDomain.size()) return {};
  std::string lower(email.substr(email.size() - kDomain.size()));
  for (char& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (lower != kDomain) return {};
  std::string_view local = email.substr(0, email.size() - kDomain.size());
  if (const size_t plus = local.find('+'); plus != std::string_view::npos)
    local = local.substr(plus + 1);
  if (local.empty()) return {};
  std::string_view name = local;
  if (name.ends_with("[bot]")) name.remove_suffix(5);  // app accounts: dependabot[bot]
  if (name.empty()) return {};
  for (char ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '-' && ch != '_' && ch != '.')
      return {};
  return std::string(local);
}

std::optional<RemoteInfo> parse_remote_url(std::string_view url) {
  url = trim(url);
  std::string_view host, path;
  if (const size_t scheme = url.find("://"); scheme != std::string_view::npos) {
    std::string_view rest = url.substr(scheme + 3);
    const size_t slash = rest.find('/');
    if (slash == std::string_view::npos) return std::nullopt;
    host = rest.substr(0, slash);
    path = rest.substr(slash + 1);
    if (const size_t at = host.rfind('@'); at != std::string_view::npos) host = host.substr(at + 1);
    if (const size_t colon = host.find(':'); colon != std::string_view::npos)
      host = host.substr(0, colon);
  } else if (const size_t colon = url.find(':');
             colon != std::string_view::npos && url.find('@') < colon) {
    host = url.substr(url.find('@') + 1, colon - url.find('@') - 1);  // scp-like git@host:o/r
    path = url.substr(colon + 1);
  } else {
    return std::nullopt;
  }
  while (!path.empty() && path.back() == '/') path.remove_suffix(1);
  if (ends_with(path, ".git")) path.remove_suffix(4);
  const size_t slash = path.rfind('/');
  if (host.empty() || slash == std::string_view::npos || slash == 0 || slash + 1 == path.size())
    return std::nullopt;
  // Keep the last two components: owner/repo (GitHub Enterprise paths are the same shape).
  const size_t owner_start = path.rfind('/', slash - 1);
  std::string_view name =
      owner_start == std::string_view::npos ? path : path.substr(owner_start + 1);
  RemoteInfo info;
  info.name.assign(name);
  info.web_base = "https://" + std::string(host) + "/" + std::string(name);
  return info;
}

}  // namespace mergelens
