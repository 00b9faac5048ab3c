// The model writer's plan per change: the cache, the split into notes calls
// for a large PR, one bilingual call or one per language, and the fallback
// (see write_llm.h; one exchange is in write_llm_answer.cc).
#include "mergelens/pipeline/write_llm.h"

#include <fmt/format.h>

#include "mergelens/analysis/facts_json.h"
#include "mergelens/guide/guide_json.h"
#include "mergelens/guide/languages.h"
#include "mergelens/guide/notes.h"
#include "mergelens/guide/offline.h"
#include "mergelens/guide/triage_guide.h"
#include "mergelens/guide/validate.h"
#include "mergelens/llm/client.h"
#include "mergelens/llm/repair.h"
#include "mergelens/model/diff.h"
#include "mergelens/model/json.h"
#include "mergelens/pipeline/context_text.h"
#include "mergelens/pipeline/repo_lookup.h"
#include "mergelens/pipeline/write_llm_job.h"
#include "mergelens/util/hash.h"

namespace mergelens {

using write_llm_detail::Answer;
using write_llm_detail::ask;
using write_llm_detail::from_cached;

namespace write_llm_detail {

Job::Job(const Change& c, const Facts& f, llm::Client& cl, const LlmOptions& o, std::string m,
         LlmOutcome& outcome, const TriageJudgment* t)
    : change(c), facts(f), client(cl), options(o), model(std::move(m)), out(outcome) {
  if (!o.clone_path.empty() && !c.sha.empty())
    if (auto t = TreeLookup::open(o.clone_path, c.sha); t) tree = std::move(*t);
  index = std::make_unique<CitationIndex>(c, f, repo_lookup(tree.get(), c));
  // The code around the change the prompts show may be cited like the change's own.
  context = read_context(o.clone_path, c, f);
  for (const auto& x : context) index->add_context_code(x.text);
  if (t) triage = *t;
  // The triage's texts were checked when it was stored; a record older than
  // that check is checked here, so its reason never reaches a guide unchecked.
  if (triage) (void)check_triage_texts(*triage, *index);
  injected = injected_paragraphs(c);
  calls_left = std::max(1, o.max_calls);
}

const Facts& Job::start_facts(const std::string& lang) {
  if (!triage) return facts;
  auto it = start.find(lang);
  if (it != start.end()) return it->second;
  return start.emplace(lang, mergelens::start_facts(facts, *triage, lang)).first->second;
}

const Guide& Job::offline_guide(const std::string& lang) {
  auto it = offline.find(lang);
  if (it != offline.end()) return it->second;
  Guide g = write_offline_guide(change, start_facts(lang), lang);
  if (auto f = check_citations(g, *index); !f.empty()) remove_failed_citations(g, f, g, *index);
  record_judgments(g, facts, triage_or_null());
  return offline.emplace(lang, std::move(g)).first->second;
}

}  // namespace write_llm_detail

namespace {

// What the cache key is made of, besides what is asked: the change's
// content and its facts.
std::string content_hash(const Change& c, const Facts& f, const TriageJudgment* t) {
  Hasher content;
  content.add(c.title).add(c.body);
  for (const auto& cm : c.commits) content.add(cm.sha).add(cm.message);
  for (const auto& fc : c.files) content.add(fc.path).add(fc.old_path).add(render_patch(fc.hunks));
  for (const auto& r : c.reviews) content.add(r.author).add(r.body);
  for (const auto& r : c.review_comments) content.add(r.author).add(r.path).add(r.body);
  Hasher facts;
  facts.add(dump_json(facts_to_json(f), -1));
  // The triage the guide starts from is part of what it was asked.
  if (t)
    facts.add(to_string(t->verdict))
        .add(std::to_string(t->importance))
        .add(std::to_string(t->insight))
        .add(t->scope)
        .add(t->scope_zh)
        .add(t->reason_zh)
        .add(t->reason_en);
  return content.hex() + "|" + facts.hex();
}

// `what`: "zh", "en" (a guide asked alone), "both:zh", "both:en" (one part of
// a bilingual answer), "notes-2/3" (a notes call).
std::string cache_key(const std::string& hash, const std::string& model, const std::string& what,
                      const LlmOptions& o) {
  return fmt::format("{}|{}|{}|{}|{}|calls={}", hash, kPromptVersion, model, what, o.budget_tokens,
                     o.max_calls);
}

}  // namespace

LlmWriter::LlmWriter(llm::Client& client, Store& store, LlmOptions options)
    : client_(client), store_(store), options_(std::move(options)) {}

std::string LlmWriter::model() const {
  return client_.settings().model;
}

unsigned LlmWriter::concurrency() const {
  return static_cast<unsigned>(std::max(1, client_.settings().concurrency));
}

void LlmWriter::fill_ledger(WriteRunRecord& l) const {
  fill_ledger_from(client_, l);
}

void fill_ledger_from(const llm::Client& client, WriteRunRecord& l) {
  auto t = client.totals();
  l.requests = t.requests;
  l.retries = t.retries;
  l.failures = t.failures;
  l.prompt_tokens = t.prompt_tokens;
  l.completion_tokens = t.completion_tokens;
  l.usd = t.usd;
}

Guide LlmWriter::write(const Change& change, const Facts& facts, const std::string& lang,
                       LlmOutcome* outcome, const TriageJudgment* triage) {
  return write_langs(change, facts, {lang}, outcome, triage).front();
}

std::vector<Guide> LlmWriter::write_both(const Change& change, const Facts& facts,
                                         LlmOutcome* outcome, const TriageJudgment* triage) {
  return write_langs(change, facts, {"zh", "en"}, outcome, triage);
}

std::vector<Guide> LlmWriter::write_langs(const Change& change, const Facts& facts,
                                          const std::vector<std::string>& langs,
                                          LlmOutcome* outcome, const TriageJudgment* triage) {
  LlmOutcome local;
  LlmOutcome& out = outcome ? *outcome : local;
  write_llm_detail::Job job(change, facts, client_, options_, model(), out, triage);
  const std::string hash = content_hash(change, facts, triage);
  std::map<std::string, write_llm_detail::Pruned> pruned;  // by language, for agree_items
  // The cache keeps the model's answers, not the guides made of them: a
  // newer checker or judgment applies to a cached answer without a request.
  auto cache_get = [&](const std::string& what, const std::string& lang,
                       write_llm_detail::Pruned* report) -> std::optional<Guide> {
    std::optional<std::string> text;
    {
      std::lock_guard lock(store_mu_);
      auto hit = store_.cache_get(cache_key(hash, job.model, what, options_));
      if (!hit || !*hit) return std::nullopt;
      text = std::move(**hit);
    }
    auto j = nlohmann::json::parse(*text, nullptr, false);
    if (j.is_discarded()) return std::nullopt;
    return from_cached(job, j, lang, report);
  };
  auto cache_put = [&](const std::string& what, const nlohmann::json& raw) {
    std::lock_guard lock(store_mu_);
    (void)store_.cache_put(cache_key(hash, job.model, what, options_), dump_json(raw, -1));
  };

  std::map<std::string, Guide> done;
  std::vector<std::string> missing;
  for (const auto& lang : langs) {
    auto hit = cache_get(lang, lang, nullptr);
    if (!hit) hit = cache_get("both:" + lang, lang, &pruned[lang]);
    if (hit) {
      Guide g = std::move(*hit);
      g.writer.cached = true;
      g.writer.attempts = 0;
      done[lang] = std::move(g);
    } else {
      missing.push_back(lang);
    }
  }
  out.cached = missing.empty();

  auto fallback = [&](const std::string& lang, std::string reason) {
    Guide g = job.offline_guide(lang);
    if (reason.size() > 300) reason = reason.substr(0, 300) + "…";
    g.writer.fallback_reason = std::move(reason);
    g.writer.model = job.model;
    if (out.fallback_reason.empty()) out.fallback_reason = g.writer.fallback_reason;
    return g;
  };

  if (!missing.empty()) {
    // A large PR: notes on groups of regions first.
    std::string notes;
    std::string plan_name = "single";
    std::optional<SplitPlan> plan;
    if (options_.max_calls >= 3)
      plan = plan_split(change, facts, options_.budget_tokens, options_.max_calls);
    if (plan) {
      std::vector<PartNotes> parts;
      const size_t n = plan->groups.size();
      for (size_t k = 0; k < n && job.calls_left > 1; ++k) {
        const std::string what = fmt::format("notes-{}/{}", k + 1, n);
        const std::string key = cache_key(hash, job.model, what, options_);
        std::optional<PartNotes> part;
        {
          std::lock_guard lock(store_mu_);
          if (auto hit = store_.cache_get(key); hit && *hit) {
            auto j = nlohmann::json::parse(**hit, nullptr, false);
            if (auto p = notes_from_answer(j); p) part = std::move(*p);
          }
        }
        if (part) check_notes(*part, *job.index, job.notes_removed, fmt::format("notes-{}", k + 1));
        if (!part) {
          // An answer cut off at its token limit is asked again for half as
          // many notes while a call is left for the guide.
          std::optional<nlohmann::json> json;
          for (size_t max_notes = kMaxNotes; job.calls_left > 1;) {
            Prompt prompt = build_notes_prompt(change, facts, *plan, k, options_.budget_tokens,
                                               job.context, max_notes);
            llm::ChatRequest req;
            req.messages = {{"system", prompt.system}, {"user", prompt.user}};
            req.json_schema = nlohmann::json{
                {"name", "part_notes"}, {"strict", true}, {"schema", notes_answer_schema()}};
            req.temperature = 0.2;
            req.max_tokens = prompt.max_tokens;
            --job.calls_left;
            ++out.calls;
            auto res = client_.chat(req);
            if (!res) {
              ++out.requests;
              break;
            }
            out.requests += res->attempts;
            out.prompt_tokens += res->usage.prompt_tokens;
            out.completion_tokens += res->usage.completion_tokens;
            if (res->finish_reason == "length" && max_notes > 2) {
              job.notes_removed.push_back(fmt::format(
                  "notes-{}: the answer was cut off at its {} token limit: asked again for at "
                  "most {} notes",
                  k + 1, req.max_tokens, max_notes / 2));
              max_notes /= 2;
              continue;
            }
            if (auto j = llm::parse_json_answer(res->content, nullptr); j) json = std::move(*j);
            break;
          }
          if (!json) continue;
          auto p = notes_from_answer(*json);
          if (!p) continue;
          {
            std::lock_guard lock(store_mu_);
            (void)store_.cache_put(key, dump_json(*json, -1));
          }
          check_notes(*p, *job.index, job.notes_removed, fmt::format("notes-{}", k + 1));
          part = std::move(*p);
        }
        parts.push_back(std::move(*part));
      }
      if (!parts.empty()) {
        notes = render_notes(parts);
        plan_name = fmt::format("split {}+1", parts.size());
      }
    }
    const bool bilingual = missing.size() == 2 && options_.bilingual;
    auto prompt_for = [&](const std::string& lang) {
      return notes.empty()
                 ? build_prompt(change, facts, lang, options_.budget_tokens, job.context, triage)
                 : build_reduce_prompt(change, facts, lang, notes, options_.budget_tokens,
                                       job.context, triage);
    };
    Answer first;
    if (bilingual) {
      first = ask(job, prompt_for("both"), missing);
      plan_name += " both";
    }
    for (const auto& lang : missing) {
      std::string what = bilingual ? "both:" + lang : lang;
      if (bilingual && first.guides.count(lang)) {
        cache_put(what, first.raw[lang]);
        done[lang] = std::move(first.guides[lang]);
        pruned[lang] = std::move(first.pruned[lang]);
        continue;
      }
      if (bilingual && first.transport_failed) {
        done[lang] = fallback(lang, first.problems[lang]);
        continue;
      }
      // Asked alone: the bilingual answer lacked this language or got it wrong.
      if (job.calls_left <= 0) {
        done[lang] = fallback(lang, bilingual ? first.problems[lang] : "no model call left");
        continue;
      }
      if (bilingual) plan_name += " +" + lang;
      Answer a = ask(job, prompt_for(lang), {lang});
      if (a.guides.count(lang)) {
        cache_put(lang, a.raw[lang]);
        done[lang] = std::move(a.guides[lang]);
      } else {
        std::string reason = a.problems.count(lang) ? a.problems[lang] : "no usable answer";
        done[lang] = fallback(lang, reason);
      }
    }
    out.plan = plan_name;
  } else {
    out.plan = "cached";
  }

  // Both languages show one judgment: a move that went back in one goes
  // back in the other (its verdict text and digest with it).
  if (done.count("zh") && done.count("en") && done["zh"].writer.kind == "llm" &&
      done["en"].writer.kind == "llm" && done["zh"].writer.fallback_reason.empty() &&
      done["en"].writer.fallback_reason.empty()) {
    agree_judgments(done["zh"], job.offline_guide("zh"), done["en"], job.offline_guide("en"));
    // What the check removed whole in one language of one answer does not
    // stand in the other.
    if (pruned.count("zh") && pruned.count("en"))
      agree_items(done["zh"], pruned["zh"], done["en"], pruned["en"]);
  }

  std::vector<Guide> result;
  for (const auto& lang : langs) {
    Guide g = std::move(done[lang]);
    if (!g.writer.cached) {
      g.writer.attempts = out.requests;
      g.writer.calls = out.calls;
      g.writer.prompt_tokens = out.prompt_tokens;
      g.writer.completion_tokens = out.completion_tokens;
      g.writer.plan = out.plan;
      for (const auto& r : job.notes_removed) g.writer.removed.push_back(r);
    }
    result.push_back(std::move(g));
  }
  return result;
}

}  // namespace mergelens
