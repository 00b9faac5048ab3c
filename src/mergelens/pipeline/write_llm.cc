#include "mergelens/pipeline/write_llm.h"

#include <re2/re2.h>

#include <fmt/format.h>

#include "mergelens/analysis/facts_json.h"
#include "mergelens/guide/citations.h"
#include "mergelens/guide/guide_json.h"
#include "mergelens/guide/offline.h"
#include "mergelens/guide/prompt.h"
#include "mergelens/llm/client.h"
#include "mergelens/llm/repair.h"
#include "mergelens/model/diff.h"
#include "mergelens/model/json.h"
#include "mergelens/util/hash.h"

namespace mergelens {
namespace {

std::string clip(std::string s, size_t n) {
  if (s.size() <= n) return s;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return s.substr(0, n) + "…";
}

// Cache key: the change's content, its facts, the prompt version, the model
// and the language.
std::string cache_key(const Change& c, const Facts& f, const std::string& model,
                      const std::string& lang, size_t budget) {
  Hasher content;
  content.add(c.title).add(c.body);
  for (const auto& cm : c.commits) content.add(cm.sha).add(cm.message);
  for (const auto& fc : c.files) content.add(fc.path).add(fc.old_path).add(render_patch(fc.hunks));
  for (const auto& r : c.reviews) content.add(r.author).add(r.body);
  for (const auto& r : c.review_comments) content.add(r.author).add(r.path).add(r.body);
  Hasher facts;
  facts.add(dump_json(facts_to_json(f), -1));
  return fmt::format("{}|{}|{}|{}|{}|{}", content.hex(), facts.hex(), kPromptVersion, model, lang,
                     budget);
}

// Paragraphs of the PR's own text that try to instruct the model.
std::vector<std::string> injected_paragraphs(const Change& c) {
  static const RE2 kInjection(
      R"((?i)(ignore|disregard|forget)\s+(all\s+|any\s+)?(the\s+)?(previous|prior|above|earlier|preceding)\s+(instructions|prompts?|rules)|system\s+prompt|you\s+are\s+now\s|new\s+instructions\s*:|忽略(之前|以上|前面)的?(所有)?指令)");
  std::vector<std::string> out;
  auto scan = [&](const std::string& text) {
    size_t start = 0;
    while (start < text.size()) {
      size_t end = text.find("\n\n", start);
      if (end == std::string::npos) end = text.size();
      std::string para = text.substr(start, end - start);
      if (RE2::PartialMatch(para, kInjection)) out.push_back(para);
      start = end + 2;
    }
  };
  scan(c.title + "\n\n" + c.body);
  for (const auto& cm : c.commits) scan(cm.message);
  for (const auto& r : c.reviews) scan(r.body);
  for (const auto& r : c.review_comments) scan(r.body);
  for (const auto& r : c.comments) scan(r.body);
  return out;
}

// Why a model guide is unusable (empty when it is fine): missing fields, the
// wrong language, a verdict that contradicts the facts, or text obeying an
// instruction planted in the PR.
std::string validate(const Guide& g, const Facts& f, const std::string& lang,
                     const std::vector<std::string>& injected) {
  if (g.headline.empty()) return "the headline is empty";
  if (g.summary.empty()) return "the summary is empty";
  if (g.verdict_text.empty()) return "the verdict is empty";
  if (g.headline.size() > 400) return "the headline is longer than 400 bytes";
  const std::string prose = g.headline + g.summary + g.verdict_text;
  if (lang == "zh" && !has_cjk(prose)) return "the guide is not written in Chinese";
  if (lang == "en" && has_cjk(g.verdict_text + g.summary))
    return "the guide is not written in English";
  if (g.focus.size() > 12 || g.questions.size() > 12 || g.advice.size() > 12)
    return "too many items in a list";
  const bool worth = f.verdict == Verdict::kCloseRead || f.verdict == Verdict::kSelectiveRead;
  static const RE2 kSkipWords(R"((?i)\bskip\b|可以跳过|无需阅读|不必读)");
  if (worth && RE2::PartialMatch(g.verdict_text, kSkipWords))
    return "the verdict says skip but the analysis found it worth reading";
  const std::string text = guide_text(g);
  for (const auto& para : injected) {
    // Copying 24+ bytes of a planted instruction, or any URL only it contains.
    for (size_t i = 0; i + 24 <= para.size(); i += 8) {
      std::string_view piece(para.data() + i, 24);
      if (text.find(piece) != std::string::npos)
        return "the guide repeats text from an instruction planted in the PR";
    }
    static const RE2 kUrl(R"((https?://[^\s)>"']+))");
    re2::StringPiece in(para);
    std::string url;
    while (RE2::FindAndConsume(&in, kUrl, &url))
      if (text.find(url) != std::string::npos)
        return "the guide repeats a URL from an instruction planted in the PR";
  }
  return {};
}

}  // namespace

LlmWriter::LlmWriter(llm::Client& client, Store& store, size_t budget_tokens)
    : client_(client), store_(store), budget_(budget_tokens) {}

std::string LlmWriter::model() const {
  return client_.settings().model;
}

unsigned LlmWriter::concurrency() const {
  return static_cast<unsigned>(std::max(1, client_.settings().concurrency));
}

void LlmWriter::fill_ledger(WriteRunRecord& l) const {
  auto t = client_.totals();
  l.requests = t.requests;
  l.retries = t.retries;
  l.failures = t.failures;
  l.prompt_tokens = t.prompt_tokens;
  l.completion_tokens = t.completion_tokens;
  l.usd = t.usd;
}

Guide LlmWriter::write(const Change& change, const Facts& facts, const std::string& lang,
                       LlmOutcome* outcome) {
  LlmOutcome local;
  LlmOutcome& out = outcome ? *outcome : local;
  CitationIndex index(change, facts);
  Guide offline = write_offline_guide(change, facts, lang);
  if (auto f = check_citations(offline, index); !f.empty())
    remove_failed_citations(offline, f, offline, index);
  auto fallback = [&](std::string reason) {
    Guide g = offline;
    g.writer.fallback_reason = clip(std::move(reason), 300);
    g.writer.model = model();
    g.writer.attempts = out.requests;
    out.fallback_reason = g.writer.fallback_reason;
    return g;
  };
  auto finish = [&](Guide g) {
    g.lang = lang;
    fill_from_facts(change, facts, g);
    if (g.importance.reason.empty()) g.importance.reason = offline.importance.reason;
    if (g.insight.reason.empty()) g.insight.reason = offline.insight.reason;
    g.writer.kind = "llm";
    g.writer.model = model();
    g.writer.prompt_version = std::string(kPromptVersion);
    g.writer.attempts = out.requests;
    return g;
  };

  const std::string key = cache_key(change, facts, model(), lang, budget_);
  {
    std::lock_guard lock(store_mu_);
    auto hit = store_.cache_get(key);
    if (hit && *hit) {
      auto j = nlohmann::json::parse(**hit, nullptr, false);
      if (!j.is_discarded())
        if (auto g = guide_from_json(j); g) {
          out.cached = true;
          Guide cached = finish(std::move(*g));
          cached.writer.cached = true;
          cached.writer.attempts = 0;
          return cached;
        }
    }
  }

  const Prompt prompt = build_prompt(change, facts, lang, budget_);
  const auto injected = injected_paragraphs(change);
  llm::ChatRequest req;
  req.messages = {{"system", prompt.system}, {"user", prompt.user}};
  req.json_schema = nlohmann::json{
      {"name", "reading_guide"}, {"strict", true}, {"schema", guide_answer_schema()}};
  req.temperature = 0.2;
  req.max_tokens = 4096;

  std::vector<CitationFailure> failures;
  std::optional<Guide> best;
  std::string last_problem;
  for (int attempt = 0; attempt < 2; ++attempt) {
    auto res = client_.chat(req);
    if (!res) {
      out.requests += 1;
      return fallback(fmt::format("model request failed: {}", res.error().message));
    }
    out.requests += res->attempts;
    std::vector<std::string> steps;
    auto json = llm::parse_json_answer(res->content, &steps);
    std::string problem;
    std::optional<Guide> g;
    if (!json) {
      problem = fmt::format("the answer is not JSON ({})", json.error().message);
    } else if (auto parsed = guide_from_answer(*json); !parsed) {
      problem =
          fmt::format("the answer does not match the guide schema: {}", parsed.error().message);
    } else {
      g = std::move(*parsed);
      problem = validate(*g, facts, lang, injected);
    }
    if (!problem.empty()) {
      last_problem = problem;
      req.messages.push_back({"assistant", clip(res->content, 20000)});
      req.messages.push_back(
          {"user", fmt::format("Your answer cannot be used: {}. Write the whole guide again as "
                               "one JSON object with the keys described above, following the "
                               "rules of the system message.",
                               problem)});
      continue;
    }
    failures = check_citations(*g, index);
    if (failures.empty() || attempt == 1) {
      best = std::move(g);
      break;
    }
    best = std::move(g);  // kept in case the second answer is worse
    req.messages.push_back({"assistant", clip(res->content, 20000)});
    req.messages.push_back({"user", citation_retry_message(failures, lang)});
  }
  if (!best) return fallback(last_problem.empty() ? "no usable answer" : last_problem);
  Guide g = std::move(*best);
  if (!failures.empty()) remove_failed_citations(g, failures, offline, index);
  g = finish(std::move(g));
  {
    std::lock_guard lock(store_mu_);
    (void)store_.cache_put(key, dump_json(guide_to_json(g), -1));
  }
  return g;
}

}  // namespace mergelens
