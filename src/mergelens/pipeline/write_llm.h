// Writing one guide with a model: prompt (guide/prompt.h) → chat completion
// (llm/client.h) → JSON repair → schema validation → citation check
// (guide/citations.h), asking once more with the failures named, and the
// offline writer as the fallback. Answers are cached in the store by
// (change content, facts, prompt version, model, language).
#pragma once

#include <cstdint>
#include <mutex>
#include <string>

#include "mergelens/guide/guide.h"
#include "mergelens/store/store.h"

namespace mergelens {

namespace llm {
class Client;
}

struct LlmOutcome {
  int requests = 0;
  bool cached = false;
  std::string fallback_reason;  // empty when the model's guide was used
};

class LlmWriter {
 public:
  // Neither `client` nor `store` is owned; both must outlive the writer.
  // Store calls are serialised by the writer.
  LlmWriter(llm::Client& client, Store& store, size_t budget_tokens);

  // Always returns a guide: the model's (checked) or the offline writer's
  // with `writer.fallback_reason` set. Thread-safe.
  Guide write(const Change& change, const Facts& facts, const std::string& lang,
              LlmOutcome* outcome);

  std::string model() const;
  unsigned concurrency() const;
  // Adds the client's request, retry, failure, token and cost totals.
  void fill_ledger(WriteRunRecord& ledger) const;

 private:
  llm::Client& client_;
  Store& store_;
  size_t budget_;
  std::mutex store_mu_;
};

}  // namespace mergelens
