// One listwise model exchange, shared by the triage and the theme pass: the
// request written to a file instead of asked (--dump-requests), the answer
// cache, one retry naming why an answer could not be used, and the tokens
// counted. What the answer means is the caller's: `check` reads it.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "mergelens/guide/prompt.h"
#include "mergelens/store/store.h"

namespace mergelens {
namespace llm {
class Client;
}

struct ListwiseRequest {
  const Prompt* prompt = nullptr;  // not owned
  std::string schema_name;         // "triage", "themes"
  nlohmann::json schema;           // the answer's JSON schema
  std::string cache_key;           // the answer cache's key
  std::string again;               // the retry's request: "Answer again with ..."
  std::string where;               // names the exchange in problems
  bool force = false;              // ask even when the cache holds an answer
  // An answer cut off at its token limit is not asked again: the outcome says
  // `cut_off` and the caller asks in fewer items (the triage splits a batch).
  bool stop_when_cut_off = false;
};

struct ListwiseOutcome {
  std::optional<nlohmann::json> answer;  // a usable answer (`check` passed)
  bool cached = false;                   // from the cache: no request
  bool cut_off = false;                  // stop_when_cut_off and the answer hit its token limit
  size_t calls = 0;                      // chat completions made (a retry is one more)
  long prompt_tokens = 0, completion_tokens = 0;
  std::string problem;  // why there is no answer: the call failed, or the answer was unusable
};

// A request for `prompt` (not owned: it must outlive the request) answered
// under `schema_name` with `schema`, cached under "SCHEMA_NAME|VERSION|MODEL|
// hash of the system and user messages", so that a new prompt version, another
// model or another prompt is asked again. The rest of the fields keep their
// defaults.
ListwiseRequest make_listwise_request(const Prompt& prompt, std::string_view schema_name,
                                      nlohmann::json schema, std::string_view prompt_version,
                                      std::string_view model, std::string again, std::string where,
                                      bool force);

// The request as `--dump-requests` writes it: messages, response_format and
// the estimated tokens.
nlohmann::json listwise_request_json(const ListwiseRequest& request);

// Writes listwise_request_json(request) to `path` (creating its folder).
// Returns an error message, or empty on success.
std::string write_listwise_request(const ListwiseRequest& request, const std::string& path);

// Asks `request` (the cache first unless force): `check` returns the reason
// an answer cannot be used, or nullopt when it can. An unusable answer is
// asked once more with that reason; a usable one is cached. Never fails:
// the outcome says what happened. `client` is not owned.
ListwiseOutcome ask_listwise(
    Store& store, llm::Client& client, const ListwiseRequest& request,
    const std::function<std::optional<std::string>(const nlohmann::json&)>& check);

}  // namespace mergelens
