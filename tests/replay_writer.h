// The model writer answering from one stored answer: a local
// OpenAI-compatible server (fake_openai.h) serves `answer` for every request
// of a fresh LlmWriter over an empty SQLite store. Used by the tests that put
// real and stand-in model answers through the writer.
#pragma once

#include <nlohmann/json.hpp>

#include "fake_openai.h"
#include "mergelens/llm/client.h"
#include "mergelens/pipeline/write_llm.h"
#include "mergelens/store/store.h"
#include "test_helpers.h"

namespace mergelens::testing {

// The list items of one language's answer (focus, skim, questions, ...).
inline size_t answer_items(const nlohmann::json& a) {
  size_t n = 0;
  for (const char* k : {"focus", "skim", "design_decisions", "questions", "number_cautions",
                        "body_vs_code", "gaps", "advice", "references"})
    if (a.contains(k)) n += a[k].size();
  return n;
}

// Runs `use(writer)` with the writer answering from `answer` and returns its
// result; `requests`, when given, receives how many requests were made. The
// server, client and store live for the call only.
template <typename F>
auto with_replayed_answer(const nlohmann::json& answer, F&& use, int* requests = nullptr) {
  llm::FakeServer server([&](int, const nlohmann::json&, httplib::Response& res) {
    llm::answer(res, answer.dump(), 1000, 500);
  });
  llm::Settings s;
  s.base_url = server.base_url();
  s.api_key = "sk-test";
  s.model = "replay";
  s.timeout_ms = 5000;
  s.max_retries = 0;
  llm::FakeSleeper sleeper;
  llm::Client client(s, &sleeper);
  TempDir dir;
  auto store = open_sqlite_store(dir / "db.sqlite");
  EXPECT_TRUE(store);
  LlmWriter writer(client, **store, LlmOptions{});
  auto result = use(writer);
  if (requests) *requests = server.requests();
  return result;
}

}  // namespace mergelens::testing
