// Threads as a reader meets them (threads.h).
#include "mergelens/report/threads.h"

#include <algorithm>
#include <numeric>
#include <set>

#include <fmt/format.h>

#include "mergelens/analysis/text/threads.h"
#include "mergelens/util/time.h"

namespace mergelens::report {

namespace {

int strength(const ThreadNote& n) {
  const std::string& r = n.relation;
  return r == "reverts"     ? 0
         : r == "relands"   ? 1
         : r == "fixes"     ? 2
         : r == "follow_up" ? 3
         : r == "series"    ? 4
                            : 5;
}

int days_apart(UnixSeconds a, UnixSeconds b) {
  const auto day = [](UnixSeconds t) { return t >= 0 ? t / 86400 : (t - 86399) / 86400; };
  const auto d = day(a) - day(b);
  return static_cast<int>(d < 0 ? -d : d);
}

std::string phrase(bool en, UnixSeconds self, const ThreadNote& n) {
  const bool dated = n.relation == "reverts" || n.relation == "relands";
  return link_phrase(en ? "en" : "zh", n.relation, n.later, link_ref(n.other), n.detail,
                     dated && n.later ? days_apart(self, n.other.merged_at) : -1);
}

}  // namespace

std::string thread_phrase(std::string_view lang, UnixSeconds merged_at, const ThreadNote& note) {
  return phrase(lang == "en", merged_at, note);
}

std::string link_ref(const LinkEnd& e) {
  return e.number ? fmt::format("#{}", *e.number) : e.sha.substr(0, 12);
}

Result<std::map<std::int64_t, std::vector<ThreadNote>>> thread_notes(
    Store& store, std::span<const std::int64_t> ids) {
  std::map<std::int64_t, std::vector<ThreadNote>> out;
  if (ids.empty()) return out;
  auto edges = store.thread_edges(ids);
  if (!edges) return std::unexpected(edges.error());
  const std::set<std::int64_t> want(ids.begin(), ids.end());
  for (const auto& e : *edges) {
    if (want.contains(e.from.id)) out[e.from.id].push_back({e.relation, false, e.to, e.detail});
    if (want.contains(e.to.id)) out[e.to.id].push_back({e.relation, true, e.from, e.detail});
  }
  for (auto& [id, notes] : out)
    std::ranges::stable_sort(
        notes, [](const ThreadNote& a, const ThreadNote& b) { return strength(a) < strength(b); });
  return out;
}

std::vector<std::string> thread_phrases(std::string_view lang, std::string_view title,
                                        UnixSeconds merged_at,
                                        const std::vector<ThreadNote>& notes) {
  const bool en = lang == "en";
  std::vector<std::string> out;
  const std::string part = series_phrase(lang, title);
  // The other parts of a series read as one phrase after "part 3 of 5".
  std::vector<std::string> parts;
  for (const auto& n : notes)
    if (n.relation == "series") parts.push_back(link_ref(n.other));
  if (!part.empty() || !parts.empty()) {
    std::string s = part.empty() ? (en ? "a series" : "系列") : part;
    if (!parts.empty())
      s += en ? fmt::format(" (with {})", fmt::join(parts, ", "))
              : fmt::format("（另见 {}）", fmt::join(parts, "、"));
    out.push_back(std::move(s));
  }
  for (const auto& n : notes)
    if (n.relation != "series") out.push_back(phrase(en, merged_at, n));
  return out;
}

nlohmann::json thread_json(std::string_view lang, std::string_view title, UnixSeconds merged_at,
                           const std::vector<ThreadNote>& notes) {
  nlohmann::json a = nlohmann::json::array();
  const bool en = lang == "en";
  for (const auto& n : notes)
    a.push_back({{"relation", n.relation},
                 {"direction", n.later ? "later" : "earlier"},
                 {"ref", link_ref(n.other)},
                 {"number", n.other.number ? nlohmann::json(*n.other.number) : nlohmann::json()},
                 {"sha", n.other.sha},
                 {"title", n.other.title},
                 {"merged_at", format_utc(n.other.merged_at)},
                 {"detail", n.detail},
                 {"phrase", phrase(en, merged_at, n)}});
  nlohmann::json j{{"links", std::move(a)}};
  if (auto m = series_marker(title))
    j["series"] = {{"part", m->part},
                   {"total", m->total ? nlohmann::json(m->total) : nlohmann::json()}};
  return j;
}

std::vector<std::vector<std::int64_t>> thread_groups(
    std::span<const std::int64_t> ids,
    const std::map<std::int64_t, std::vector<ThreadNote>>& notes) {
  std::map<std::int64_t, size_t> pos;
  for (size_t i = 0; i < ids.size(); ++i) pos.emplace(ids[i], i);
  std::vector<size_t> parent(ids.size());
  std::iota(parent.begin(), parent.end(), 0);
  auto root = [&](size_t i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
  };
  for (size_t i = 0; i < ids.size(); ++i) {
    auto it = notes.find(ids[i]);
    if (it == notes.end()) continue;
    for (const auto& n : it->second) {
      auto j = pos.find(n.other.id);
      if (j == pos.end()) continue;
      const size_t a = root(i), b = root(j->second);
      if (a != b) parent[std::max(a, b)] = std::min(a, b);
    }
  }
  std::map<size_t, std::vector<std::int64_t>> groups;
  for (size_t i = 0; i < ids.size(); ++i) groups[root(i)].push_back(ids[i]);
  std::vector<std::vector<std::int64_t>> out;
  for (auto& [r, g] : groups) out.push_back(std::move(g));
  return out;
}

}  // namespace mergelens::report
