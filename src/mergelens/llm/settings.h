// Where and how the LLM client sends its requests, and how those settings are
// resolved from flags, the environment and mergelens.toml.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "mergelens/util/error.h"

namespace mergelens::llm {

struct Settings {
  // Server root, e.g. "https://api.openai.com" or "http://127.0.0.1:30000". Requests go to
  // {base}/v1/chat/completions; a base that already ends in /v1 (or in /chat/completions) is
  // accepted as is (see endpoint_url).
  std::string base_url;
  // Bearer token; may be empty (local servers). Never printed, logged, stored or put in an
  // error message by this module.
  std::string api_key;
  std::string model;
  long timeout_ms = 120000;   // per HTTP request
  int max_retries = 4;        // extra attempts for 408/409/429/5xx/timeouts/connection failures
  double max_backoff_s = 60;  // cap on any single wait; a longer Retry-After => give up
  int concurrency = 4;        // max requests in flight per Client
  // true: send response_format {type: json_schema} when the request has a schema; false: start
  // with {type: json_object}. A 400/422 that rejects it steps down json_schema -> json_object ->
  // none, once per step, and the Client remembers the step.
  bool use_json_schema = true;
  double usd_per_mtok_prompt = 0, usd_per_mtok_completion = 0;  // cost ledger; 0 = unknown
};

// The chat-completions URL for a base URL: trailing slashes removed, then
// "/v1/chat/completions" appended unless the base already ends in "/v1" (then
// "/chat/completions") or in "/chat/completions" (then nothing).
std::string endpoint_url(std::string_view base_url);

// Reads an environment variable; std::nullopt when unset. Injectable for tests.
using EnvLookup = std::function<std::optional<std::string>(const std::string& name)>;

// Resolves settings, per field: flags (the non-empty strings of `overrides`, and its numeric
// fields that differ from a default-constructed Settings) > environment (OPENAI_BASE_URL,
// OPENAI_API_KEY, OPENAI_MODEL; empty values count as unset) > the [llm] table of the
// mergelens.toml at `toml_path` (keys base_url, model, api_key_env, timeout_s, max_retries,
// max_backoff_s, concurrency, use_json_schema, usd_per_mtok_prompt, usd_per_mtok_completion;
// other keys are ignored) > defaults.
// The API key is never read from the file: `api_key_env` names the environment variable that
// holds it (used when neither the flag nor OPENAI_API_KEY gives one), and a file that contains
// `api_key` itself is rejected (without echoing the value).
// An empty `toml_path`, or one naming no file, means "no file".
// Failure: kInvalidInput naming the file (and line) on malformed TOML or a bad value;
// kInvalidInput when no base_url or model is found, saying which environment variable, flag
// (--llm-base-url, --llm-model) or key to set; kIo when the file exists but cannot be read.
// `env` defaults to std::getenv.
Result<Settings> resolve_settings(const Settings& overrides, const std::string& toml_path);
Result<Settings> resolve_settings(const Settings& overrides, const std::string& toml_path,
                                  const EnvLookup& env);

}  // namespace mergelens::llm
