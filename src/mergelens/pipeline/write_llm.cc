#include "mergelens/pipeline/write_llm.h"

#include "mergelens/guide/offline.h"

namespace mergelens {

LlmWriter::LlmWriter(llm::Client& client, Store& store, size_t budget_tokens)
    : client_(client), store_(store), budget_(budget_tokens) {}

Guide LlmWriter::write(const Change& change, const Facts& facts, const std::string& lang,
                       LlmOutcome* outcome) {
  Guide g = write_offline_guide(change, facts, lang);
  g.writer.fallback_reason = "model writer not available in this build";
  if (outcome) outcome->fallback_reason = g.writer.fallback_reason;
  return g;
}

std::string LlmWriter::model() const {
  return {};
}
unsigned LlmWriter::concurrency() const {
  return 1;
}
void LlmWriter::fill_ledger(WriteRunRecord&) const {}

}  // namespace mergelens
