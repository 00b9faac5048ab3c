// The triage prompt and the reading of its answer (triage.h).
#include "mergelens/guide/triage.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>

#include <fmt/format.h>

#include "mergelens/analysis/facts_json.h"
#include "mergelens/guide/answer_check.h"
#include "mergelens/guide/prompt_excerpt.h"
#include "mergelens/guide/triage_text.h"
#include "mergelens/llm/tokens.h"
#include "mergelens/util/hash.h"
#include "mergelens/util/strings.h"

namespace mergelens {

using answer_check::backticked;
using answer_check::one_line;
using answer_check::shown_in;
using prompt_detail::clip_tokens;
using prompt_detail::replace_all;

namespace {

bool is_code_role(FileRole r) {
  return r == FileRole::kCore || r == FileRole::kKernel || r == FileRole::kModel;
}

// The first paragraph lines of a description, without Markdown headings,
// HTML comments and checklists (templates fill most PR bodies).
std::string description_head(std::string_view body, size_t chars) {
  std::string out;
  bool in_comment = false;
  size_t pos = 0;
  while (pos < body.size() && out.size() < chars) {
    size_t end = body.find('\n', pos);
    if (end == std::string_view::npos) end = body.size();
    std::string_view line = trim(body.substr(pos, end - pos));
    pos = end + 1;
    if (in_comment) {
      if (line.find("-->") != std::string_view::npos) in_comment = false;
      continue;
    }
    if (line.starts_with("<!--")) {
      in_comment = line.find("-->") == std::string_view::npos;
      continue;
    }
    if (line.empty() || line.starts_with('#') || line.starts_with("- [") || line.starts_with("* ["))
      continue;
    if (!out.empty()) out += ' ';
    out += line;
  }
  return one_line(out, chars);
}

struct Entry {
  std::string ref;
  std::string text;
};

// The comment the insight's reasons say argues the decision: the added
// comment at one of the argued places (Facts::score_inputs.argued), else the
// first comment in a focus region; null when the reasons claim none.
const RationaleNote* argued_note(const Facts& f) {
  const bool claimed = std::ranges::any_of(f.insight.reasons, [](const std::string& r) {
    return r.find("argues") != std::string::npos;
  });
  if (!claimed) return nullptr;
  for (const auto& place : f.score_inputs.argued) {
    const size_t colon = place.rfind(':');
    if (colon == std::string::npos) continue;
    const std::string path = place.substr(0, colon);
    const int line = std::atoi(place.c_str() + colon + 1);
    for (const auto& n : f.rationale)
      if (n.path == path && n.start_line <= line && line <= n.end_line) return &n;
  }
  for (const auto& n : f.rationale)
    if (n.focus >= 0) return &n;
  return nullptr;
}

// The entry of one change at a level of detail (3 = all, 1 = least).
std::string entry_text(const Change& c, const Facts& f, const std::string& ref,
                       const std::string& thread, int detail) {
  std::string t = fmt::format("[{}] {}\n", ref, one_line(c.title, detail >= 2 ? 160 : 100));
  std::string who = !c.author.login.empty() ? c.author.login : c.author.name;
  std::string line = fmt::format("by {}", one_line(who, 40));
  if (!c.labels.empty()) {
    std::vector<std::string> labels;
    for (const auto& l : c.labels)
      if (labels.size() < 6) labels.push_back(one_line(l, 30));
    line += fmt::format(" · labels: {}", fmt::join(labels, ", "));
  }
  t += line + "\n";
  // Size and the largest paths. Lines of code are counted as the analysis
  // counts them ("N lines of code changed": code files, clean-up files
  // apart), so the size line and the analysis line agree.
  long code = 0, cleanup_code = 0;
  std::set<std::string_view> skimmed;
  for (const auto& k : f.skim) skimmed.insert(k.path);
  std::vector<const FileChange*> files;
  for (const auto& fc : c.files) {
    files.push_back(&fc);
    auto r = f.roles.find(fc.path);
    if (r != f.roles.end() && !is_code_role(r->second)) continue;
    (skimmed.count(fc.path) ? cleanup_code : code) += fc.additions + fc.deletions;
  }
  std::stable_sort(files.begin(), files.end(), [](const FileChange* a, const FileChange* b) {
    return a->additions + a->deletions > b->additions + b->deletions;
  });
  long add = 0, del = 0;
  for (const auto& fc : c.files) add += fc.additions, del += fc.deletions;
  std::vector<std::string> largest;
  const size_t show = detail >= 3 ? 4 : detail == 2 ? 3 : 2;
  for (size_t i = 0; i < files.size() && i < show; ++i)
    largest.push_back(fmt::format("{} +{} −{}", one_line(files[i]->path, 90), files[i]->additions,
                                  files[i]->deletions));
  t += fmt::format(
      "size: {} files +{} −{} ({} lines of code{}); largest: {}\n", c.files.size(), add, del, code,
      cleanup_code > 0 ? fmt::format(", {} more in clean-up files", cleanup_code) : std::string(),
      largest.empty() ? std::string("none") : fmt::format("{}", fmt::join(largest, "; ")));
  // Reach and the analysis's judgment with its reasons.
  if (f.reach.known)
    t += fmt::format("reach: {} modules import the touched code directly{}\n", f.reach.direct,
                     f.reach.hub.empty() ? std::string()
                                         : fmt::format(" (most: {})", one_line(f.reach.hub, 90)));
  // The first reasons, less "changes code on the main path" when others say
  // more (the size line says it already).
  auto reasons = [&](const Score& s) {
    std::vector<std::string> r;
    const size_t n = detail >= 3 ? 4 : detail == 2 ? 2 : 1;
    for (const auto& reason : s.reasons) {
      if (r.size() >= n) break;
      if (reason == "changes code on the main path" && s.reasons.size() > 1) continue;
      r.push_back(one_line(reason, 70));
    }
    return fmt::format("{}", fmt::join(r, "; "));
  };
  t +=
      fmt::format("analysis: importance {} ({}); insight {} ({}); verdict {}\n", f.importance.value,
                  reasons(f.importance), f.insight.value, reasons(f.insight), to_string(f.verdict));
  // Where the analysis would start reading: what a scope can name.
  if (detail >= 2 && !f.focus.empty()) {
    std::vector<std::string> places;
    for (size_t i = 0; i < f.focus.size() && i < (detail >= 3 ? 2u : 1u); ++i) {
      const auto& r = f.focus[i];
      places.push_back(fmt::format("{}{} lines {}-{}", one_line(r.path, 90),
                                   r.symbol.empty() ? std::string() : " " + one_line(r.symbol, 60),
                                   r.start_line, r.end_line));
    }
    t += fmt::format("read first: {}\n", fmt::join(places, "; "));
  }
  // The author's own argument: the comment the analysis says argues the
  // decision, quoted at every level of detail (a claim a model can check);
  // else, with room, the first comment the change adds in code.
  if (const RationaleNote* note = argued_note(f)) {
    t +=
        fmt::format("argued comment in {}:{}: \"{}\"\n", one_line(note->path, 90), note->start_line,
                    one_line(note->text, detail >= 3   ? 220
                                         : detail == 2 ? 140
                                                       : 100));
  } else if (detail >= 2) {
    for (const auto& note : f.rationale) {
      auto r = f.roles.find(note.path);
      if (r != f.roles.end() && !is_code_role(r->second)) continue;
      t += fmt::format("comment added in {}: \"{}\"\n", one_line(note.path, 90),
                       one_line(note.text, detail >= 3 ? 220 : 140));
      break;
    }
  }
  // The changes it belongs with (computed by the pipeline from the store).
  if (!thread.empty()) t += "thread: " + one_line(thread, detail >= 2 ? 240 : 140) + "\n";
  const std::string desc = description_head(c.body, detail >= 3 ? 240 : detail == 2 ? 120 : 0);
  if (!desc.empty()) t += "description: " + desc + "\n";
  return t;
}

// The entries of a batch within kTriageTokensPerChange each on average: all
// in full detail when they fit, else the longest ones lose detail first
// (a quiet day shows everything; a busy one stays within its budget).
std::vector<std::string> render_entries(std::span<const TriageInput> inputs) {
  const size_t n = inputs.size();
  const std::vector<std::string> refs = triage_refs(inputs);
  std::vector<std::string> text(n);
  std::vector<int> detail(n, 3);
  std::vector<size_t> tokens(n);
  size_t total = 0;
  for (size_t i = 0; i < n; ++i) {
    text[i] = entry_text(*inputs[i].change, *inputs[i].facts, refs[i], inputs[i].thread, 3);
    tokens[i] = llm::estimate_tokens(text[i]);
    total += tokens[i];
  }
  const size_t budget = std::max(kTriageTokensPerChange * n, kTriageQuietDayTokens);
  while (total > budget) {
    size_t worst = n;
    for (size_t i = 0; i < n; ++i)
      if (detail[i] > 1 && (worst == n || tokens[i] > tokens[worst])) worst = i;
    if (worst == n) break;
    --detail[worst];
    total -= tokens[worst];
    text[worst] = entry_text(*inputs[worst].change, *inputs[worst].facts, refs[worst],
                             inputs[worst].thread, detail[worst]);
    tokens[worst] = llm::estimate_tokens(text[worst]);
    total += tokens[worst];
  }
  // Still over at the least detail: clip the longest entries to the average.
  for (size_t i = 0; i < n && total > budget; ++i)
    if (tokens[i] > kTriageTokensPerChange) {
      total -= tokens[i];
      text[i] = prompt_detail::clip_lines(text[i], kTriageTokensPerChange);
      tokens[i] = llm::estimate_tokens(text[i]);
      total += tokens[i];
    }
  return text;
}

std::optional<int> score_of(const nlohmann::json& v) {
  if (v.is_number_integer()) {
    const auto n = v.get<long long>();
    if (n >= 1 && n <= 10) return static_cast<int>(n);
  } else if (v.is_number_float()) {
    const double d = v.get<double>();
    if (d >= 1 && d <= 10 && d == static_cast<int>(d)) return static_cast<int>(d);
  }
  return std::nullopt;
}

std::string text_of(const nlohmann::json& item, const char* key, size_t chars) {
  auto it = item.find(key);
  if (it == item.end() || !it->is_string()) return {};
  return one_line(it->get<std::string>(), chars);
}

}  // namespace

std::string triage_ref(const Change& c) {
  if (c.number) return fmt::format("#{}", *c.number);
  return c.sha.substr(0, 10);
}

std::vector<std::string> triage_refs(std::span<const TriageInput> inputs) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const auto& in : inputs) {
    std::string ref = triage_ref(*in.change);
    if (seen.contains(ref)) ref = in.change->sha.substr(0, 10);  // a reused number
    seen.insert(ref);
    out.push_back(std::move(ref));
  }
  return out;
}

Prompt build_triage_prompt(std::string_view repo, std::string_view day, int batch, int batches,
                           std::span<const TriageInput> inputs,
                           std::span<const std::string> other_parts) {
  Prompt p;
  p.system = std::string(triage_text::kSystem);
  std::string data;
  Hasher h;
  for (const auto& e : render_entries(inputs)) data += e + "\n";
  for (const auto& in : inputs) h.add(in.change->sha);
  // A busy day's other parts, by title only: what this part is compared with.
  if (!other_parts.empty()) {
    data +=
        "Other PRs of this day, judged in the other parts (for comparison only; do not "
        "judge them here):\n";
    size_t used = 0;
    for (const auto& line : other_parts) {
      std::string l = one_line(line, 110);
      used += llm::estimate_tokens(l);
      if (used > kTriageOtherPartsTokens) {
        data += "…\n";
        break;
      }
      data += "- " + l + "\n";
    }
    data += "\n";
  }
  // The fence cannot be closed from inside, and its tag is not guessable
  // from any one PR.
  data = replace_all(std::move(data), "UNTRUSTED", "untrusted");
  const std::string fence = h.hex().substr(0, 12);
  p.user = fmt::format(
      "Repository: {}\nDay: {} (UTC){}\nPRs {}: {}\n\n", one_line(repo, 100), day,
      batches > 1 ? fmt::format(", part {} of {} (a busy day is split; judge on the same scale)",
                                batch, batches)
                  : std::string(),
      batches > 1 ? "in this part" : "merged that day", inputs.size());
  p.user += fmt::format("<<<UNTRUSTED {}\n{}UNTRUSTED>>> {}\n\n", fence, data, fence);
  p.user += std::string(triage_text::kFormat);
  p.max_tokens = triage_completion_budget(inputs.size());
  p.estimated_tokens =
      llm::estimate_tokens(std::vector<llm::Message>{{"system", p.system}, {"user", p.user}});
  return p;
}

int triage_completion_budget(size_t changes) {
  // Per item: the id and numbers (~12 tokens), the keys and punctuation
  // (~30), a scope of 15 words in English (~25) and in Chinese (~35), a
  // reason of 40 Chinese characters (~60) and of 20 English words (~30):
  // about 190, asked with a third more so a wordier model is not cut.
  constexpr size_t kPerItem = 190 * 4 / 3, kFixed = 200;
  return static_cast<int>(std::min<size_t>(16384, kFixed + changes * kPerItem));
}

nlohmann::json triage_answer_schema() {
  nlohmann::json item = {
      {"type", "object"},
      {"additionalProperties", false},
      {"required",
       {"pr", "importance", "insight", "verdict", "scope", "scope_zh", "reason_zh", "reason_en"}},
      {"properties",
       {{"pr", {{"type", "string"}}},
        {"importance", {{"type", "integer"}, {"minimum", 1}, {"maximum", 10}}},
        {"insight", {{"type", "integer"}, {"minimum", 1}, {"maximum", 10}}},
        {"verdict",
         {{"type", "string"}, {"enum", {"close_read", "selective_read", "skim", "skip"}}}},
        {"scope", {{"type", "string"}}},
        {"scope_zh", {{"type", "string"}}},
        {"reason_zh", {{"type", "string"}}},
        {"reason_en", {{"type", "string"}}}}}};
  return {{"type", "object"},
          {"additionalProperties", false},
          {"required", {"prs"}},
          {"properties", {{"prs", {{"type", "array"}, {"items", item}}}}}};
}

Result<TriageAnswer> parse_triage_answer(const nlohmann::json& answer,
                                         std::span<const TriageInput> inputs) {
  if (!answer.is_object() || !answer.contains("prs") || !answer["prs"].is_array())
    return fail(ErrorKind::kCorrupt, "triage answer: not an object with a \"prs\" list");
  std::map<std::string, size_t> by_ref;  // ref → index into inputs
  // What the prompt showed of each change: a reason may cite only that.
  const std::vector<std::string> entries = render_entries(inputs);
  const std::vector<std::string> refs = triage_refs(inputs);
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string& ref = refs[i];
    by_ref[ref] = i;
    if (ref.starts_with('#')) by_ref[ref.substr(1)] = i;
  }
  TriageAnswer out;
  std::set<size_t> seen;
  size_t position = 0;
  for (const auto& item : answer["prs"]) {
    ++position;
    if (!item.is_object() || !item.contains("pr")) {
      out.dropped.push_back(fmt::format("item {}: not an object with \"pr\"", position));
      continue;
    }
    std::string ref;
    if (item["pr"].is_string())
      ref = std::string(trim(item["pr"].get<std::string>()));
    else if (item["pr"].is_number_integer())
      ref = std::to_string(item["pr"].get<long long>());
    auto it = by_ref.find(ref);
    if (it == by_ref.end() && ref.size() > 10) it = by_ref.find(ref.substr(0, 10));
    if (it == by_ref.end()) {
      out.dropped.push_back(fmt::format("item {}: {} is not in this batch", position,
                                        one_line(ref.empty() ? "(no id)" : ref, 40)));
      continue;
    }
    if (!seen.insert(it->second).second) {
      out.dropped.push_back(fmt::format("item {}: {} judged twice", position, ref));
      continue;
    }
    auto imp = item.contains("importance") ? score_of(item["importance"]) : std::nullopt;
    auto ins = item.contains("insight") ? score_of(item["insight"]) : std::nullopt;
    auto verdict = item.contains("verdict") && item["verdict"].is_string()
                       ? verdict_from_string(item["verdict"].get<std::string>())
                       : std::nullopt;
    if (!imp || !ins || !verdict) {
      out.dropped.push_back(
          fmt::format("item {}: {} lacks a valid importance, insight or verdict", position, ref));
      seen.erase(it->second);
      continue;
    }
    TriageJudgment j;
    j.change_id = inputs[it->second].change_id;
    j.importance = *imp;
    j.insight = *ins;
    j.verdict = *verdict;
    j.scope = text_of(item, "scope", 200);
    j.scope_zh = text_of(item, "scope_zh", 200);
    j.reason_zh = text_of(item, "reason_zh", 200);
    j.reason_en = text_of(item, "reason_en", 300);
    if (j.verdict == Verdict::kSkim || j.verdict == Verdict::kSkip) {
      j.scope.clear();
      j.scope_zh.clear();
    }
    // A field citing a name the entry does not show is dropped, the judgment kept.
    const std::string& shown = entries[it->second];
    for (auto* field : {&j.scope, &j.scope_zh, &j.reason_zh, &j.reason_en}) {
      for (const auto& name : backticked(*field))
        if (!name.empty() && !shown_in(name, shown)) {
          out.dropped.push_back(
              fmt::format("{}: `{}` is not in its entry", ref, one_line(name, 60)));
          field->clear();
          break;
        }
    }
    out.items.push_back(std::move(j));
  }
  for (size_t i = 0; i < out.items.size(); ++i) out.items[i].rank = static_cast<int>(i + 1);
  for (size_t i = 0; i < inputs.size(); ++i)
    if (!seen.count(i)) out.missing.push_back(inputs[i].change_id);
  if (out.items.empty())
    return fail(ErrorKind::kCorrupt, "triage answer: no usable item ({})",
                out.dropped.empty() ? std::string("the list is empty") : out.dropped.front());
  return out;
}

}  // namespace mergelens
