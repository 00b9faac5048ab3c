#include "mergelens/store/store.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace mergelens {

Result<RepoRecord> resolve_repo(Store& store, std::string_view name) {
  auto repos = store.list_repos();
  if (!repos) return std::unexpected(repos.error());
  std::string names;
  for (const auto& r : *repos) names += (names.empty() ? "" : ", ") + r.name;
  if (!name.empty()) {
    for (const auto& r : *repos)
      if (r.name == name) return r;
    return fail(ErrorKind::kNotFound, "repository '{}' is not in the store (it holds: {})", name,
                names.empty() ? "nothing yet" : names);
  }
  if (repos->empty())
    return fail(ErrorKind::kNotFound, "the store holds no repository yet (run `mergelens ingest`)");
  if (repos->size() > 1)
    return fail(ErrorKind::kInvalidInput,
                "the store holds several repositories ({}): choose one "
                "with --repo",
                names);
  return repos->front();
}

Result<Change> find_change(Store& store, const RepoRecord& repo, std::string_view ref) {
  std::string_view s = ref;
  const bool hashed = !s.empty() && s.front() == '#';
  if (hashed) s.remove_prefix(1);
  const bool digits = !s.empty() && std::all_of(s.begin(), s.end(), [](char ch) {
    return std::isdigit(static_cast<unsigned char>(ch));
  });
  const bool hex = s.size() >= 7 && s.size() <= 40 && std::all_of(s.begin(), s.end(), [](char ch) {
                     return std::isxdigit(static_cast<unsigned char>(ch));
                   });
  // An all-digit ref of up to 18 digits is a PR number first; it is read as a
  // sha prefix only when no PR has that number and it has 7 or more digits.
  if (digits && (hashed || s.size() <= 18)) {
    std::int64_t n = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
    if (ec != std::errc()) return fail(ErrorKind::kInvalidInput, "'{}' is not a PR number", ref);
    auto c = store.get_change_by_number(repo.id, n);
    if (!c) return std::unexpected(c.error());
    if (*c) return std::move(**c);
    if (hashed || !hex) return fail(ErrorKind::kNotFound, "no change #{} in {}", n, repo.name);
  }
  if (!hex)
    return fail(ErrorKind::kInvalidInput,
                "'{}' is neither a PR number (#N) nor a commit sha (7-40 hex digits)", ref);
  std::string lower(s);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](char ch) { return static_cast<char>(std::tolower(ch)); });
  auto shas = store.find_shas(repo.id, lower);
  if (!shas) return std::unexpected(shas.error());
  if (shas->empty())
    return fail(ErrorKind::kNotFound, "no change with sha {} in {}", lower, repo.name);
  if (shas->size() > 1)
    return fail(ErrorKind::kInvalidInput, "sha prefix {} is ambiguous in {} ({} matches)", lower,
                repo.name, shas->size());
  auto c = store.get_change_by_sha(repo.id, shas->front());
  if (!c) return std::unexpected(c.error());
  if (!*c) return fail(ErrorKind::kNotFound, "no change with sha {} in {}", lower, repo.name);
  return std::move(**c);
}

}  // namespace mergelens
