// The model rate limit and token budget shared by every worker: an
// llm::Gate whose state lives in the store (JobStore::take_model_slot), so
// requests per minute and tokens per UTC day hold across processes and
// machines. Requests are spaced evenly (a generic cell rate: one request per
// 60/rpm seconds, `burst` at once after a pause).
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "mergelens/llm/client.h"
#include "mergelens/store/store.h"

namespace mergelens {

class StoreGate final : public llm::Gate {
 public:
  // `store` is owned (a connection of its own: the gate is called from the
  // writer's threads). `model` names the shared limit.
  StoreGate(std::unique_ptr<Store> store, std::string model, ModelLimits limits);

  // Blocks until the shared limit grants a request. Fails (kIo) when the
  // day's token budget is spent, naming the budget; waits while the store is
  // unreachable, for at most 10 minutes.
  Result<void> acquire() override;
  void record(const llm::Usage& usage) override;

  // Milliseconds spent waiting for the limit so far.
  std::int64_t waited_ms() const;

 private:
  std::unique_ptr<Store> store_;
  std::string model_;
  ModelLimits limits_;
  mutable std::mutex mu_;
  std::int64_t waited_ms_ = 0;
};

// Milliseconds since the epoch (the clock the shared limit uses).
std::int64_t now_ms();

}  // namespace mergelens
