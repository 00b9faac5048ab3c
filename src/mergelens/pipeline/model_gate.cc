#include "mergelens/pipeline/model_gate.h"

#include <chrono>
#include <thread>

namespace mergelens {

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

StoreGate::StoreGate(std::unique_ptr<Store> store, std::string model, ModelLimits limits)
    : store_(std::move(store)), model_(std::move(model)), limits_(limits) {}

Result<void> StoreGate::acquire() {
  if (limits_.requests_per_minute <= 0 && limits_.tokens_per_day <= 0) return {};
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    Result<ModelGrant> g;
    {
      std::lock_guard lock(mu_);
      g = store_->take_model_slot(model_, limits_, now_ms());
    }
    std::int64_t wait = 0;
    if (!g) {
      if (g.error().kind != ErrorKind::kIo ||
          std::chrono::steady_clock::now() - start > std::chrono::minutes(10))
        return std::unexpected(g.error());
      wait = 1000;  // the store is unreachable: try again shortly
    } else if (g->granted) {
      return {};
    } else if (g->budget_spent) {
      return fail(ErrorKind::kIo,
                  "the daily budget of {} tokens for model {} is spent (it resets at 00:00 UTC)",
                  limits_.tokens_per_day, model_);
    } else {
      wait = std::min<std::int64_t>(g->wait_ms, 5000);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(std::max<std::int64_t>(wait, 1)));
    std::lock_guard lock(mu_);
    waited_ms_ += wait;
  }
}

void StoreGate::record(const llm::Usage& usage) {
  if (limits_.tokens_per_day <= 0) return;
  std::lock_guard lock(mu_);
  (void)store_->add_model_tokens(model_, usage.prompt_tokens + usage.completion_tokens, now_ms());
}

std::int64_t StoreGate::waited_ms() const {
  std::lock_guard lock(mu_);
  return waited_ms_;
}

}  // namespace mergelens
