// The triage job (triage.h): batches per UTC day, the cache, one retry, the
// day's order across batches.
#include "mergelens/pipeline/triage.h"

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include <fmt/format.h>

#include "mergelens/analysis/facts_json.h"
#include "mergelens/analysis/judgment/scores.h"
#include "mergelens/analysis/text/threads.h"
#include "mergelens/guide/citations.h"
#include "mergelens/guide/triage.h"
#include "mergelens/guide/triage_guide.h"
#include "mergelens/llm/client.h"
#include "mergelens/model/json.h"
#include "mergelens/pipeline/listwise.h"
#include "mergelens/pipeline/repo_lookup.h"
#include "mergelens/source/tree_lookup.h"
#include "mergelens/util/hash.h"
#include "mergelens/util/time.h"

namespace mergelens {

namespace {

int verdict_level(Verdict v) {
  switch (v) {
    case Verdict::kCloseRead:
      return 0;
    case Verdict::kSelectiveRead:
      return 1;
    case Verdict::kSkim:
      return 2;
    case Verdict::kSkip:
      return 3;
  }
  return 2;
}

struct Loaded {
  std::int64_t id = 0;
  Change change;
  Facts facts;
};

// Batches of at most `size` consecutive changes, of equal sizes.
std::vector<std::vector<size_t>> split(size_t n, size_t size) {
  std::vector<std::vector<size_t>> out;
  if (n == 0) return out;
  const size_t k = (n + size - 1) / size;
  size_t start = 0;
  for (size_t b = 0; b < k; ++b) {
    const size_t len = n / k + (b < n % k ? 1 : 0);
    std::vector<size_t> v;
    for (size_t i = start; i < start + len; ++i) v.push_back(i);
    out.push_back(std::move(v));
    start += len;
  }
  return out;
}

struct BatchResult {
  std::vector<TriageJudgment> items;
  std::string key;
  size_t batch = 0;
};

// Asks for one batch (cache first, one retry on an unusable answer).
std::optional<BatchResult> ask_batch(Store& store, llm::Client& client, const RepoRecord& repo,
                                     const std::string& day, size_t batch, size_t batches,
                                     const std::vector<TriageInput>& inputs,
                                     const std::vector<std::string>& other_parts,
                                     const TriageOptions& options, TriageReport& report,
                                     bool* truncated) {
  const Prompt prompt = build_triage_prompt(repo.name, day, static_cast<int>(batch + 1),
                                            static_cast<int>(batches), inputs, other_parts);
  report.max_prompt_tokens = std::max(report.max_prompt_tokens, prompt.estimated_tokens);
  const std::string where =
      fmt::format("triage of {} {} batch {}/{}", repo.name, day, batch + 1, batches);
  ListwiseRequest request = make_listwise_request(
      prompt, "triage", triage_answer_schema(), kTriagePromptVersion, client.settings().model,
      "Answer again with one JSON object {\"prs\": [...]} judging every PR of the list once.",
      where, options.force);
  // The answer's key as stored: the cache key without its "triage|".
  const std::string key = request.cache_key.substr(sizeof("triage|") - 1);
  // Cut off at the token limit: the last items are cut too. A batch of
  // several is asked again in halves (the caller splits it).
  request.stop_when_cut_off = inputs.size() > 1;
  if (!options.dump_dir.empty()) {
    const auto path =
        std::filesystem::path(options.dump_dir) / fmt::format("{}-{}.request.json", day, batch + 1);
    if (auto e = write_listwise_request(request, path.string()); !e.empty())
      report.problems.push_back(e);
    return std::nullopt;
  }
  auto outcome = ask_listwise(store, client, request, [&](const nlohmann::json& j) {
    auto parsed = parse_triage_answer(j, inputs);
    return parsed ? std::nullopt : std::optional<std::string>(parsed.error().message);
  });
  report.calls += outcome.calls;
  report.cached += outcome.cached;
  report.prompt_tokens += outcome.prompt_tokens;
  report.completion_tokens += outcome.completion_tokens;
  if (outcome.cut_off) {
    report.problems.push_back(
        fmt::format("{}: {}: asked again in two halves", where, outcome.problem));
    *truncated = true;
    return std::nullopt;
  }
  if (!outcome.answer) {
    report.problems.push_back(fmt::format("{}: {}", where, outcome.problem));
    return std::nullopt;
  }
  auto parsed = parse_triage_answer(*outcome.answer, inputs);
  for (const auto& d : parsed->dropped) report.problems.push_back(where + ": " + d);
  report.missing += parsed->missing.size();
  return BatchResult{std::move(parsed->items), key, batch};
}

// Triages one day's changes (loaded, in merge order) and stores the records.
Result<void> triage_day(Store& store, llm::Client& client, const RepoRecord& repo,
                        const std::string& day, const std::vector<Loaded>& day_changes,
                        const TriageOptions& options, TriageReport& report) {
  auto batches = split(day_changes.size(), std::max<size_t>(1, options.batch_size));
  std::vector<BatchResult> results;
  std::map<std::int64_t, const Loaded*> by_id;
  for (const auto& l : day_changes) by_id[l.id] = &l;
  // Each change's thread as one line: the links it has, both ways.
  std::vector<std::int64_t> day_ids;
  for (const auto& l : day_changes) day_ids.push_back(l.id);
  auto edges = store.thread_edges(day_ids);
  if (!edges) return std::unexpected(edges.error());
  std::map<std::int64_t, std::vector<std::string>> links;
  auto ref = [](const LinkEnd& e) {
    return e.number ? fmt::format("#{}", *e.number) : e.sha.substr(0, 10);
  };
  for (const auto& e : *edges) {
    const auto days = static_cast<int>(e.from.merged_at / 86400 - e.to.merged_at / 86400);
    const bool dated = e.relation == "reverts" || e.relation == "relands";
    links[e.from.id].push_back(link_phrase("en", e.relation, false, ref(e.to), e.detail, -1));
    links[e.to.id].push_back(
        link_phrase("en", e.relation, true, ref(e.from), e.detail, dated ? days : -1));
  }
  std::vector<std::string> threads(day_changes.size());
  for (size_t i = 0; i < day_changes.size(); ++i) {
    std::vector<std::string> parts;
    if (auto p = series_phrase("en", day_changes[i].change.title); !p.empty()) parts.push_back(p);
    if (auto it = links.find(day_changes[i].id); it != links.end())
      for (const auto& l : it->second)
        if (parts.size() < 5) parts.push_back(l);
    threads[i] = fmt::format("{}", fmt::join(parts, "; "));
  }
  for (size_t b = 0; b < batches.size(); ++b) {
    const std::vector<size_t> batch = batches[b];
    std::vector<TriageInput> inputs;
    for (size_t i : batch)
      inputs.push_back(
          {day_changes[i].id, &day_changes[i].change, &day_changes[i].facts, threads[i]});
    // The other parts of a busy day, by title.
    std::vector<std::string> others;
    for (size_t o = 0; o < batches.size(); ++o)
      if (o != b)
        for (size_t i : batches[o])
          others.push_back(
              fmt::format("{} {}", triage_ref(day_changes[i].change), day_changes[i].change.title));
    ++report.batches;
    bool truncated = false;
    auto r = ask_batch(store, client, repo, day, b, batches.size(), inputs, others, options, report,
                       &truncated);
    if (r) {
      results.push_back(std::move(*r));
    } else if (truncated) {
      // Fewer items a call: the two halves join the day's batches.
      ++report.split_truncated;
      const size_t half = batch.size() / 2;
      batches.emplace_back(batch.begin(), batch.begin() + static_cast<long>(half));
      batches.emplace_back(batch.begin() + static_cast<long>(half), batch.end());
    } else if (options.dump_dir.empty()) {
      ++report.failed;
    }
  }
  // The scopes and reasons readers will see pass the guides' citation check,
  // against each change and the repository at its merge commit.
  for (auto& r : results)
    for (auto& j : r.items) {
      auto l = by_id.find(j.change_id);
      if (l == by_id.end()) continue;
      std::unique_ptr<TreeLookup> tree;
      if (!repo.path.empty() && !l->second->change.sha.empty())
        if (auto t = TreeLookup::open(repo.path, l->second->change.sha); t) tree = std::move(*t);
      const CitationIndex index(l->second->change, l->second->facts,
                                repo_lookup(tree.get(), l->second->change));
      for (const auto& line : check_triage_texts(j, index)) {
        ++report.texts_removed;
        report.problems.push_back(fmt::format("triage of {} {} {}: {}", repo.name, day,
                                              triage_ref(l->second->change), line));
      }
    }
  // The day's order: one batch keeps the model's; several interleave by
  // verdict, importance and insight, each batch's order breaking ties.
  struct Ranked {
    const TriageJudgment* j;
    const BatchResult* b;
  };
  std::vector<Ranked> all;
  for (const auto& r : results)
    for (const auto& j : r.items) all.push_back({&j, &r});
  if (results.size() > 1)
    std::stable_sort(all.begin(), all.end(), [](const Ranked& a, const Ranked& b) {
      const int va = verdict_level(a.j->verdict), vb = verdict_level(b.j->verdict);
      if (va != vb) return va < vb;
      if (a.j->importance != b.j->importance) return a.j->importance > b.j->importance;
      if (a.j->insight != b.j->insight) return a.j->insight > b.j->insight;
      if (a.j->rank != b.j->rank) return a.j->rank < b.j->rank;
      return a.b->batch < b.b->batch;
    });
  std::vector<TriageRecord> records;
  const auto now = static_cast<UnixSeconds>(std::time(nullptr));
  for (size_t i = 0; i < all.size(); ++i) {
    const TriageJudgment& j = *all[i].j;
    TriageRecord t;
    t.change_id = j.change_id;
    t.day = day;
    t.key = all[i].b->key;
    t.rank = static_cast<int>(i + 1);
    t.importance = j.importance;
    t.insight = j.insight;
    t.verdict = to_string(j.verdict);
    t.scope = j.scope;
    t.scope_zh = j.scope_zh;
    t.reason_zh = j.reason_zh;
    t.reason_en = j.reason_en;
    t.model = client.settings().model;
    t.at = now;
    records.push_back(std::move(t));
  }
  report.judged += records.size();
  // A record whose judgment and place are unchanged keeps its time, so a
  // re-run writes nothing new.
  std::vector<std::int64_t> ids;
  for (const auto& t : records) ids.push_back(t.change_id);
  auto before = store.triage_of(ids);
  if (!before) return std::unexpected(before.error());
  std::vector<TriageRecord> changed;
  for (auto& t : records) {
    auto old = before->find(t.change_id);
    if (old != before->end() && old->second.key == t.key && old->second.rank == t.rank &&
        old->second.day == t.day && old->second.scope == t.scope &&
        old->second.scope_zh == t.scope_zh && old->second.reason_zh == t.reason_zh &&
        old->second.reason_en == t.reason_en)
      continue;
    changed.push_back(std::move(t));
  }
  return store.put_triage(changed);
}

}  // namespace

Result<std::vector<std::string>> triage_days_of(Store& store, std::span<const std::int64_t> ids) {
  std::set<std::string> days;
  for (auto id : ids) {
    auto c = store.get_change_by_id(id);
    if (!c) return std::unexpected(c.error());
    if (*c && !(*c)->open && (*c)->merged_at > 0) days.insert(format_day((*c)->merged_at));
  }
  return std::vector<std::string>(days.begin(), days.end());
}

Result<TriageReport> triage_days(Store& store, const RepoRecord& repo, llm::Client& client,
                                 const TriageOptions& options) {
  TriageReport report;
  ListQuery q;
  q.since = options.since;
  q.until = options.until;
  auto rows = store.list_changes(repo.id, q);
  if (!rows) return std::unexpected(rows.error());
  // Merge order, then the day each falls in (UTC).
  std::vector<ChangeSummary> merged;
  for (auto& r : *rows)
    if (!r.open && r.merged_at > 0) merged.push_back(std::move(r));
  std::stable_sort(merged.begin(), merged.end(), [](const auto& a, const auto& b) {
    return a.merged_at != b.merged_at ? a.merged_at < b.merged_at : a.id < b.id;
  });
  const std::set<std::string> wanted(options.days.begin(), options.days.end());
  std::map<std::string, std::vector<std::int64_t>> by_day;
  for (const auto& r : merged) {
    std::string day = format_day(r.merged_at);
    if (!wanted.empty() && !wanted.count(day)) continue;
    by_day[day].push_back(r.id);
  }
  for (const auto& [day, ids] : by_day) {
    std::vector<Loaded> loaded;
    std::set<std::int64_t> seen;  // each change once, however the rows came
    for (auto id : ids) {
      if (!seen.insert(id).second) continue;
      auto c = store.get_change_by_id(id);
      if (!c) return std::unexpected(c.error());
      auto f = store.get_facts(id);
      if (!f) return std::unexpected(f.error());
      if (!*c || !*f) continue;  // not analysed yet
      loaded.push_back({id, std::move(**c), std::move(**f)});
    }
    if (loaded.empty()) continue;
    ++report.days;
    if (auto r = triage_day(store, client, repo, day, loaded, options, report); !r)
      return std::unexpected(r.error());
  }
  return report;
}

std::optional<TriageJudgment> triage_judgment_of(const TriageRecord& t) {
  auto verdict = verdict_from_string(t.verdict);
  if (!verdict || t.importance < 1 || t.importance > 10 || t.insight < 1 || t.insight > 10)
    return std::nullopt;
  TriageJudgment j;
  j.change_id = t.change_id;
  j.rank = t.rank;
  j.importance = t.importance;
  j.insight = t.insight;
  j.verdict = *verdict;
  j.scope = t.scope;
  j.scope_zh = t.scope_zh;
  j.reason_zh = t.reason_zh;
  j.reason_en = t.reason_en;
  return j;
}

}  // namespace mergelens
