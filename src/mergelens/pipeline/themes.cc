// The theme pass (themes.h): candidates, the call with its cache and one
// retry, the stored document.
#include "mergelens/pipeline/themes.h"

#include <algorithm>
#include <cctype>
#include <ctime>
#include <filesystem>
#include <map>
#include <set>
#include <unordered_set>

#include <fmt/format.h>

#include "mergelens/analysis/text/threads.h"
#include "mergelens/llm/client.h"
#include "mergelens/model/json.h"
#include "mergelens/pipeline/listwise.h"
#include "mergelens/util/hash.h"
#include "mergelens/util/time.h"

namespace mergelens {

namespace {

int verdict_rank(std::string_view v) {
  return v == "close_read" ? 0 : v == "selective_read" ? 1 : v == "skim" ? 2 : v == "skip" ? 4 : 3;
}

std::string ref_of(const ChangeSummary& c) {
  return c.number ? fmt::format("#{}", *c.number) : c.sha.substr(0, 10);
}

std::string end_ref(const LinkEnd& e) {
  return e.number ? fmt::format("#{}", *e.number) : e.sha.substr(0, 10);
}

int days_apart(UnixSeconds a, UnixSeconds b) {
  const auto d = a / 86400 - b / 86400;
  return static_cast<int>(d < 0 ? -d : d);
}

}  // namespace

Result<std::vector<ThemeCandidate>> theme_candidates(Store& store, const RepoRecord& repo,
                                                     const ThemeOptions& o, size_t& merged) {
  ListQuery q;
  if (!o.shas) {
    q.since = o.since;
    q.until = o.until;
  }
  auto rows = store.list_changes(repo.id, q);
  if (!rows) return std::unexpected(rows.error());
  std::erase_if(*rows, [](const ChangeSummary& c) { return c.open || c.merged_at <= 0; });
  if (o.shas) {
    const std::unordered_set<std::string> want(o.shas->begin(), o.shas->end());
    std::erase_if(*rows, [&](const ChangeSummary& c) { return !want.contains(c.sha); });
  }
  merged = rows->size();
  std::vector<std::int64_t> ids;
  std::map<std::int64_t, const ChangeSummary*> by_id;
  for (const auto& r : *rows) {
    ids.push_back(r.id);
    by_id[r.id] = &r;
  }
  auto triage = store.triage_of(ids);
  if (!triage) return std::unexpected(triage.error());
  auto tags = store.tags_of(ids);
  if (!tags) return std::unexpected(tags.error());
  auto edges = store.thread_edges(ids);
  if (!edges) return std::unexpected(edges.error());
  // Thread neighbours inside the window, and each change's links as a line.
  // A link to a change merged after the window's last one is left out: the
  // window's request is what was known when it closed (a past release is
  // asked what its maintainers could see, and a later merge does not change
  // the request, so its cached answer still holds).
  UnixSeconds last = 0;
  for (const auto& r : *rows) last = std::max(last, r.merged_at);
  std::map<std::int64_t, std::vector<std::int64_t>> next;
  std::map<std::int64_t, std::vector<std::string>> links;
  for (const auto& e : *edges) {
    const bool from_in = by_id.contains(e.from.id), to_in = by_id.contains(e.to.id);
    if ((!from_in && e.from.merged_at > last) || (!to_in && e.to.merged_at > last)) continue;
    if (from_in && to_in) {
      next[e.from.id].push_back(e.to.id);
      next[e.to.id].push_back(e.from.id);
    }
    const int days = days_apart(e.from.merged_at, e.to.merged_at);
    if (from_in)
      links[e.from.id].push_back(link_phrase("en", e.relation, false, end_ref(e.to), e.detail, -1));
    if (to_in)
      links[e.to.id].push_back(
          link_phrase("en", e.relation, true, end_ref(e.from), e.detail,
                      e.relation == "reverts" || e.relation == "relands" ? days : -1));
  }
  // Each day's changes, most worth reading first.
  std::map<std::string, std::vector<const ChangeSummary*>> days;
  for (const auto& r : *rows) days[format_day(r.merged_at)].push_back(&r);
  for (auto& [day, list] : days)
    std::ranges::stable_sort(list, [&](const ChangeSummary* a, const ChangeSummary* b) {
      auto ta = triage->find(a->id), tb = triage->find(b->id);
      const bool ha = ta != triage->end(), hb = tb != triage->end();
      const int va = verdict_rank(a->verdict), vb = verdict_rank(b->verdict);
      if (ha && hb && ta->second.day == tb->second.day) return ta->second.rank < tb->second.rank;
      if (va != vb) return va < vb;
      if (a->importance != b->importance) return a->importance > b->importance;
      if (a->insight != b->insight) return a->insight > b->insight;
      return a->merged_at < b->merged_at;
    });
  // A place at a time across the days, each seed with its thread.
  std::vector<std::int64_t> order;
  std::set<std::int64_t> taken;
  auto take_thread = [&](std::int64_t seed) {
    std::vector<std::int64_t> stack{seed};
    while (!stack.empty()) {
      const auto id = stack.back();
      stack.pop_back();
      if (!taken.insert(id).second) continue;
      order.push_back(id);
      if (auto it = next.find(id); it != next.end())
        for (auto n : it->second) stack.push_back(n);
    }
  };
  for (size_t place = 0; place < o.per_day; ++place)
    for (const auto& [day, list] : days) {
      if (place >= list.size()) continue;
      const ChangeSummary* c = list[place];
      if (c->verdict == "skip" || taken.contains(c->id)) continue;
      take_thread(c->id);
    }
  std::vector<ThemeCandidate> out;
  std::set<std::string> refs;
  for (auto id : order) {
    const ChangeSummary& c = *by_id[id];
    ThemeCandidate t;
    t.change_id = id;
    t.ref = ref_of(c);
    if (!refs.insert(t.ref).second) t.ref = c.sha.substr(0, 10);  // a reused number
    refs.insert(t.ref);
    t.title = c.title;
    t.author = c.author.login.empty() ? c.author.name : c.author.login;
    t.day = format_day(c.merged_at);
    if (auto it = tags->find(id); it != tags->end()) t.tags = it->second;
    if (auto it = triage->find(id); it != triage->end()) {
      const TriageRecord& tr = it->second;
      t.judgment = fmt::format("triage of its day: importance {}, insight {}, {}{}", tr.importance,
                               tr.insight, tr.verdict,
                               tr.reason_en.empty() ? std::string() : ": " + tr.reason_en);
    } else if (!c.verdict.empty()) {
      t.judgment = fmt::format("analysis: importance {}, insight {}, {}", c.importance, c.insight,
                               c.verdict);
    }
    t.size = fmt::format("{} files +{} −{}", c.file_count, c.additions, c.deletions);
    auto facts = store.get_facts(id);
    if (!facts) return std::unexpected(facts.error());
    if (*facts && !(*facts)->focus.empty()) t.size += "; read first: " + (*facts)->focus[0].path;
    std::vector<std::string> thread;
    if (auto p = series_phrase("en", c.title); !p.empty()) thread.push_back(p);
    if (auto it = links.find(id); it != links.end())
      for (const auto& l : it->second)
        if (thread.size() < 6) thread.push_back(l);
    t.thread = fmt::format("{}", fmt::join(thread, "; "));
    out.push_back(std::move(t));
  }
  return out;
}

Result<ThemeReport> theme_window(Store& store, const RepoRecord& repo, llm::Client& client,
                                 const ThemeOptions& o) {
  ThemeReport report;
  auto cands = theme_candidates(store, repo, o, report.merged);
  if (!cands) return std::unexpected(cands.error());
  report.candidates = cands->size();
  if (cands->empty()) return report;
  ThemeWindow w{repo.name, o.label, report.merged};
  const Prompt prompt = build_theme_prompt(w, *cands, o.max_themes, o.budget, report.shown);
  report.estimated_tokens = prompt.estimated_tokens;
  const std::span<const ThemeCandidate> shown(cands->data(), report.shown);
  std::vector<std::int64_t> shown_ids;
  for (const auto& c : shown) shown_ids.push_back(c.change_id);
  const std::string where = fmt::format("themes of {} {}", repo.name, o.label);
  ListwiseRequest request = make_listwise_request(
      prompt, "themes", theme_answer_schema(), kThemePromptVersion, client.settings().model,
      "Answer again with one JSON object {\"themes\": [...]} naming only PRs of the list.", where,
      o.force);
  // The answer's key as stored: the cache key without its "themes|".
  const std::string key = request.cache_key.substr(sizeof("themes|") - 1);
  if (!o.dump_dir.empty()) {
    // Named by the window's label, byte by byte (bench/replay_llm.py reads
    // the prompt's "Window:" line the same way to find the answer).
    std::string name = o.label;
    for (char& c : name)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '.') c = '_';
    const auto path = std::filesystem::path(o.dump_dir) / ("themes-" + name + ".request.json");
    if (auto e = write_listwise_request(request, path.string()); !e.empty())
      report.problems.push_back(e);
    return report;
  }
  auto outcome = ask_listwise(store, client, request, [&](const nlohmann::json& j) {
    auto parsed = parse_theme_answer(j, shown);
    return parsed ? std::nullopt : std::optional<std::string>(parsed.error().message);
  });
  report.calls = outcome.calls;
  report.cached = outcome.cached;
  report.prompt_tokens = outcome.prompt_tokens;
  report.completion_tokens = outcome.completion_tokens;
  if (!outcome.answer) {
    report.problems.push_back(fmt::format("{}: {}", where, outcome.problem));
    return report;
  }
  auto parsed = parse_theme_answer(*outcome.answer, shown);
  for (const auto& d : parsed->dropped) report.problems.push_back(where + ": " + d);
  ThemeSet set;
  set.span = o.span;
  set.key = key;
  set.model = client.settings().model;
  set.at = static_cast<UnixSeconds>(std::time(nullptr));
  set.doc = dump_json(
      themes_doc(*parsed, shown_ids, cands->size() - report.shown, prompt.estimated_tokens), -1);
  report.stored = true;
  report.themes = parsed->themes.size();
  // An unchanged answer keeps its time: a re-run writes nothing new.
  auto before = store.get_themes(repo.id, o.span);
  if (!before) return std::unexpected(before.error());
  if (*before && (*before)->key == set.key && (*before)->doc == set.doc) return report;
  if (auto r = store.put_themes(repo.id, set); !r) return std::unexpected(r.error());
  return report;
}

}  // namespace mergelens
