// User-visible changes from stored facts (visible.h).
#include "mergelens/report/visible.h"

#include <algorithm>

namespace mergelens::report {

namespace {

constexpr size_t kMaxNames = 8;

bool in_tests(const std::string& path) {
  return path.starts_with("test") || path.find("/test") != std::string::npos ||
         path.find("_test.") != std::string::npos || path.find("benchmark") != std::string::npos;
}

void add(std::vector<std::string>& into, const std::string& name) {
  if (name.empty() || into.size() >= kMaxNames) return;
  if (std::ranges::find(into, name) == into.end()) into.push_back(name);
}

std::string list(std::string_view label, const std::vector<std::string>& plus,
                 const std::vector<std::string>& minus) {
  std::string s;
  for (const auto& n : plus) s += (s.empty() ? "" : ", ") + ("+" + n);
  for (const auto& n : minus) s += (s.empty() ? "" : ", ") + ("-" + n);
  return s.empty() ? s : std::string(label) + ": " + s;
}

}  // namespace

std::string Visible::summary() const {
  std::string out;
  for (const std::string& part :
       {list("flags", flags_added, flags_removed), list("env", env_added, env_removed),
        list("API", api_changed, {})})
    if (!part.empty()) out += (out.empty() ? "" : "; ") + part;
  return out;
}

std::optional<Visible> visible_of(const std::vector<Signal>& signals) {
  Visible v;
  for (const auto& s : signals) {
    if (in_tests(s.at.path)) continue;
    if (s.kind == "cli_flag") add(s.added ? v.flags_added : v.flags_removed, s.detail);
    if (s.kind == "env_var") add(s.added ? v.env_added : v.env_removed, s.detail);
    if (s.kind == "public_api" && !s.added) add(v.api_changed, s.detail);
  }
  // A name both added and removed moved within the change: not a change for users.
  auto moved = [](std::vector<std::string>& a, std::vector<std::string>& b) {
    std::vector<std::string> both;
    for (const auto& n : a)
      if (std::ranges::find(b, n) != b.end()) both.push_back(n);
    std::erase_if(a,
                  [&](const std::string& n) { return std::ranges::find(both, n) != both.end(); });
    std::erase_if(b,
                  [&](const std::string& n) { return std::ranges::find(both, n) != both.end(); });
  };
  moved(v.flags_added, v.flags_removed);
  moved(v.env_added, v.env_removed);
  if (v.empty()) return std::optional<Visible>();
  return std::optional<Visible>(std::move(v));
}

Result<std::map<std::int64_t, Visible>> visible_changes(Store& store,
                                                        std::span<const std::int64_t> ids) {
  // The facts' briefs carry the user-visible signals: no document is decoded.
  auto briefs = store.facts_briefs(ids);
  if (!briefs) return std::unexpected(briefs.error());
  std::map<std::int64_t, Visible> out;
  for (const auto& [id, brief] : *briefs)
    if (auto v = visible_of(brief.signals)) out.emplace(id, std::move(*v));
  return out;
}

Result<std::optional<Visible>> visible_changes(Store& store, std::int64_t id) {
  auto all = visible_changes(store, std::span<const std::int64_t>(&id, 1));
  if (!all) return std::unexpected(all.error());
  auto it = all->find(id);
  if (it == all->end()) return std::optional<Visible>();
  return std::optional<Visible>(std::move(it->second));
}

}  // namespace mergelens::report
