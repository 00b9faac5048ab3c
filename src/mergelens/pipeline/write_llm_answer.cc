// One exchange with the model and what becomes of its answer: repair, schema,
// the citation check and pruning, the judgment, validation, and the retry.
#include <fmt/format.h>

#include "mergelens/guide/claims.h"
#include "mergelens/guide/digest.h"
#include "mergelens/guide/guide_json.h"
#include "mergelens/guide/offline.h"
#include "mergelens/guide/prompt_leaks.h"
#include "mergelens/guide/prose.h"
#include "mergelens/guide/triage_guide.h"
#include "mergelens/guide/validate.h"
#include "mergelens/llm/repair.h"
#include "mergelens/pipeline/write_llm_job.h"

namespace mergelens::write_llm_detail {
namespace {

std::string clip(std::string s, size_t n) {
  if (s.size() <= n) return s;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return s.substr(0, n) + "…";
}

constexpr size_t kMaxItems = 12;
constexpr size_t kMaxQuestions = 4;

// The answer's guide for one language, checked and finished.
struct Processed {
  Guide guide;
  nlohmann::json raw;                     // the answer's part it came from
  std::string problem;                    // why it is unusable; empty when fine
  std::vector<CitationFailure> failures;  // what the check removed
  bool costly = false;                    // the removal lost a headline, a focus point, ...
  std::vector<std::string> retry_notes;   // what else to name in a retry (a long headline)
  Pruned pruned;                          // what the check removed, for the other language
};

Guide finish(Job& job, Guide g, const std::string& lang) {
  // The model's judgment survives fill_from_facts, which writes the facts'.
  const std::string verdict = g.verdict;
  const GuideScore importance = g.importance, insight = g.insight;
  const std::string argument = g.analysis.argument;
  const Facts& start = job.start_facts(lang);
  fill_from_facts(job.change, start, g);
  g.verdict = verdict;
  g.importance = importance;
  g.insight = insight;
  g.analysis.argument = argument;
  const Guide& offline = job.offline_guide(lang);
  // The judgment moves from where the guide started (the triage's, else the
  // analysis's); then each judgment is recorded as whose it is.
  settle_judgment(g, start, offline);
  g.lang = lang;
  record_judgments(g, job.facts, job.triage_or_null());
  align_score_texts(g);
  if (g.digest.empty()) g.digest = compose_digest(g);
  g.limits = offline.limits;
  g.writer.kind = "llm";
  g.writer.model = job.model;
  g.writer.prompt_version = std::string(kPromptVersion);
  return g;
}

Processed process(Job& job, Guide g, const std::string& lang) {
  Processed p;
  if (const size_t cut = trim_lists(g, kMaxItems); cut > 0)
    g.writer.edits.push_back(
        fmt::format("lists: {} item(s) beyond the first {} of a list cut", cut, kMaxItems));
  // The questions are the few the examples ask, sharpest first: a long list
  // of doubts is mostly doubts the diff settles.
  if (g.questions.size() > kMaxQuestions) {
    g.writer.edits.push_back(fmt::format("questions: {} beyond the first {} cut",
                                         g.questions.size() - kMaxQuestions, kMaxQuestions));
    g.questions.resize(kMaxQuestions);
  }
  // Lengths as in the examples: a headline is shortened at a phrase
  // boundary, or named back to the model when it has none (never cut
  // mid-word); a digest paragraph keeps its first sentences that fit.
  if (std::string h = fit_headline(g.headline); h != g.headline) {
    g.writer.edits.push_back(fmt::format(
        "headline: {:.0f} wide, over the examples' length: shortened at a phrase boundary (was "
        "\"{}\")",
        headline_width(g.headline), g.headline));
    g.headline = std::move(h);
  }
  if (std::string d = fit_digest(g.digest); d != g.digest) {
    g.writer.edits.push_back(fmt::format(
        "digest: {:.0f} wide, over the examples' length: cut to its first whole sentences",
        prose::width(g.digest)));
    g.digest = std::move(d);
  }
  if (headline_width(g.headline) > kHeadlineWidth) {
    p.costly = true;
    p.retry_notes.push_back(fmt::format(
        "headline: {:.0f} characters wide, over the examples' length (at most 40 Chinese or 90 "
        "Latin characters): write a shorter headline",
        headline_width(g.headline)));
  }
  rewrite_prompt_words(g);  // "According to the facts, X" → "X"; the rest the check removes
  g.lang = lang;
  fix_reference_order(g, *job.index);
  auto report = check_guide(g, *job.index);
  const Guide& offline = job.offline_guide(lang);
  const size_t before = count_items(g);
  const size_t focus_before = g.focus.size();
  remove_failed_citations(g, report.failures, offline, *job.index, report.suggested, &p.pruned);
  bool scalar_lost = false;
  for (const auto& r : g.writer.removed)
    if (r.ends_with("replaced by the offline text") &&
        (r.starts_with("headline") || r.starts_with("summary") || r.starts_with("verdict_text") ||
         r.starts_with("why")))
      scalar_lost = true;
  const size_t lost = before - std::min(before, count_items(g));
  p.costly = p.costly || scalar_lost || g.focus.size() < focus_before || lost * 10 > before;
  p.failures = std::move(report.failures);
  p.guide = finish(job, std::move(g), lang);
  p.problem = validate_guide(p.guide, job.change, lang, job.injected);
  return p;
}

}  // namespace

nlohmann::json answer_schema(const std::vector<std::string>& langs) {
  if (langs.size() == 1) return guide_answer_schema();
  nlohmann::json props = nlohmann::json::object(), req = nlohmann::json::array();
  for (const auto& l : langs) {
    props[l] = guide_answer_schema();
    req.push_back(l);
  }
  return {{"type", "object"},
          {"properties", props},
          {"required", req},
          {"additionalProperties", false}};
}

std::optional<Guide> from_cached(Job& job, const nlohmann::json& raw, const std::string& lang,
                                 Pruned* pruned) {
  auto parsed = guide_from_answer(raw);
  if (!parsed) return std::nullopt;
  Processed p = process(job, std::move(*parsed), lang);
  if (!p.problem.empty()) return std::nullopt;
  if (pruned) *pruned = std::move(p.pruned);
  return std::move(p.guide);
}

Answer ask(Job& job, const Prompt& prompt, const std::vector<std::string>& langs) {
  Answer answer;
  llm::ChatRequest req;
  req.messages = {{"system", prompt.system}, {"user", prompt.user}};
  req.json_schema = nlohmann::json{{"name", langs.size() == 1 ? "reading_guide" : "reading_guides"},
                                   {"strict", true},
                                   {"schema", answer_schema(langs)}};
  req.temperature = 0.2;
  req.max_tokens = prompt.max_tokens;
  std::map<std::string, Processed> best;  // usable guides, by language
  for (int attempt = 0; attempt < 2 && job.calls_left > 0; ++attempt) {
    --job.calls_left;
    auto res = job.client.chat(req);
    ++job.out.calls;
    if (!res) {
      job.out.requests += 1;
      for (const auto& l : langs)
        if (!best.count(l))
          answer.problems[l] = fmt::format("model request failed: {}", res.error().message);
      answer.transport_failed = true;
      break;
    }
    job.out.requests += res->attempts;
    job.out.prompt_tokens += res->usage.prompt_tokens;
    job.out.completion_tokens += res->usage.completion_tokens;
    std::vector<std::string> steps;
    auto json = llm::parse_json_answer(res->content, &steps);
    std::vector<std::string> retry;  // what to name back to the model
    // Cut off at the token limit: the repaired answer ends mid-sentence, so
    // it is not used; the retry asks for fewer items.
    const bool cut_off = res->finish_reason == "length";
    if (cut_off) {
      for (const auto& lang : langs)
        if (!best.count(lang))
          answer.problems[lang] =
              fmt::format("the answer was cut off at its {} token limit", req.max_tokens);
      retry.push_back(fmt::format(
          "the answer was cut off at its {} token limit: write it again shorter, with at most 3 "
          "focus points, at most 3 items in each list and one-sentence items",
          req.max_tokens));
    }
    for (const auto& lang : langs) {
      if (cut_off) break;
      if (best.count(lang) && !best[lang].costly) continue;  // already good
      std::string problem;
      if (!json) {
        problem = fmt::format("the answer is not JSON ({})", json.error().message);
      } else {
        const nlohmann::json* part = &*json;
        if (langs.size() > 1) {
          auto it = json->find(lang);
          part = it != json->end() && it->is_object() ? &*it : nullptr;
          if (!part) problem = fmt::format("the answer has no \"{}\" guide", lang);
        }
        if (part) {
          if (auto parsed = guide_from_answer(*part); !parsed) {
            problem = fmt::format("the answer does not match the guide schema: {}",
                                  parsed.error().message);
          } else {
            Processed p = process(job, std::move(*parsed), lang);
            p.raw = *part;
            problem = p.problem;
            if (problem.empty()) {
              if (p.costly) {
                for (const auto& n : p.retry_notes)
                  retry.push_back((langs.size() > 1 ? lang + "." : "") + n);
              }
              if (p.costly)
                for (const auto& f : p.failures)
                  retry.push_back(fmt::format("{}{}{}: {} ({})", langs.size() > 1 ? lang + "." : "",
                                              f.field, f.part.empty() ? "" : "." + f.part,
                                              f.citation, f.reason));
              // A first answer is kept in case the second is worse.
              if (!best.count(lang) || !p.costly) best[lang] = std::move(p);
            }
          }
        }
      }
      if (!problem.empty()) {
        answer.problems[lang] = problem;
        retry.push_back(langs.size() > 1 ? lang + ": " + problem : problem);
      } else {
        answer.problems.erase(lang);
      }
    }
    if (retry.empty()) break;
    // A bilingual answer that lacks a language is not asked again as a
    // whole: the language is asked alone (cheaper than the conversation).
    bool only_missing = langs.size() > 1;
    for (const auto& [lang, problem] : answer.problems)
      only_missing = only_missing && problem.starts_with("the answer has no");
    if (only_missing && !answer.problems.empty()) break;
    req.messages.push_back({"assistant", clip(res->content, 20000)});
    req.messages.push_back(
        {"user",
         fmt::format("Your answer cannot be used as it is:\n- {}\nWrite the whole answer again as "
                     "one JSON object with the keys described above, following the rules of the "
                     "system message; cite only what the material shows, and put code you "
                     "propose in \"suggested_code\".{}",
                     fmt::join(retry, "\n- "),
                     langs.size() > 1 ? " Keep both \"zh\" and \"en\"." : "")});
  }
  for (auto& [lang, p] : best) {
    answer.problems.erase(lang);
    answer.guides[lang] = std::move(p.guide);
    answer.raw[lang] = std::move(p.raw);
    answer.pruned[lang] = std::move(p.pruned);
  }
  return answer;
}

}  // namespace mergelens::write_llm_detail
