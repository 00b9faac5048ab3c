#include "mergelens/llm/settings.h"

#include <cstdlib>
#include <exception>

#include <toml++/toml.h>

#include "mergelens/util/http.h"
#include "mergelens/util/toml_file.h"

namespace mergelens::llm {
namespace {

std::optional<std::string> real_env(const std::string& name) {
  const char* v = std::getenv(name.c_str());
  if (!v) return std::nullopt;
  return std::string(v);
}

// Values found in the [llm] table; unset fields were not in the file.
struct FileSettings {
  std::optional<std::string> base_url, model, api_key_env;
  std::optional<long> timeout_ms;
  std::optional<int> max_retries, concurrency;
  std::optional<double> max_backoff_s, usd_prompt, usd_completion;
  std::optional<bool> use_json_schema;
};

class LlmTableReader {
 public:
  explicit LlmTableReader(const std::string& path) : path_(path) {}

  Result<FileSettings> read(const toml::table& root) {
    FileSettings out;
    const toml::node* llm = root.get("llm");
    if (!llm) return out;
    const toml::table* t = llm->as_table();
    if (!t) return error(*llm, "[llm] must be a table");
    for (const auto& [key, node] : *t) {
      std::string_view k = key.str();
      Result<void> r;
      if (k == "base_url") {
        r = text(node, k, out.base_url);
      } else if (k == "model") {
        r = text(node, k, out.model);
      } else if (k == "api_key_env") {
        r = text(node, k, out.api_key_env);
      } else if (k == "api_key") {
        // The value is never read, copied or echoed.
        return error(node,
                     "[llm] api_key is not read from files; put the key in an environment "
                     "variable and name that variable with api_key_env");
      } else if (k == "timeout_s") {
        std::optional<double> s;
        r = number(node, k, 0.001, 86400, s);
        if (s) out.timeout_ms = static_cast<long>(*s * 1000 + 0.5);
      } else if (k == "max_retries") {
        r = integer(node, k, 0, 100, out.max_retries);
      } else if (k == "concurrency") {
        r = integer(node, k, 1, 1024, out.concurrency);
      } else if (k == "max_backoff_s") {
        r = number(node, k, 0, 86400, out.max_backoff_s);
      } else if (k == "usd_per_mtok_prompt") {
        r = number(node, k, 0, 1e6, out.usd_prompt);
      } else if (k == "usd_per_mtok_completion") {
        r = number(node, k, 0, 1e6, out.usd_completion);
      } else if (k == "use_json_schema") {
        if (!node.is_boolean()) return error(node, "[llm] use_json_schema must be true or false");
        out.use_json_schema = node.as_boolean()->get();
      }
      if (!r) return std::unexpected(r.error());
    }
    return out;
  }

 private:
  std::unexpected<Error> error(const toml::node& n, std::string_view what) const {
    return fail(ErrorKind::kInvalidInput, "{}:{}: {}", path_, n.source().begin.line, what);
  }
  Result<void> text(const toml::node& n, std::string_view key, std::optional<std::string>& out) {
    const auto* s = n.as_string();
    if (!s || s->get().empty()) {
      return error(n, fmt::format("[llm] {} must be a non-empty string", key));
    }
    out = s->get();
    return {};
  }
  Result<void> number(const toml::node& n, std::string_view key, double lo, double hi,
                      std::optional<double>& out) {
    std::optional<double> v;
    if (const auto* i = n.as_integer()) v = static_cast<double>(i->get());
    if (const auto* f = n.as_floating_point()) v = f->get();
    if (!v || !(*v >= lo && *v <= hi)) {
      return error(n, fmt::format("[llm] {} must be a number from {} to {}", key, lo, hi));
    }
    out = v;
    return {};
  }
  Result<void> integer(const toml::node& n, std::string_view key, int lo, int hi,
                       std::optional<int>& out) {
    const auto* i = n.as_integer();
    if (!i || i->get() < lo || i->get() > hi) {
      return error(n, fmt::format("[llm] {} must be an integer from {} to {}", key, lo, hi));
    }
    out = static_cast<int>(i->get());
    return {};
  }

  const std::string& path_;
};

Result<FileSettings> read_file_settings(const std::string& path) {
  auto root = read_toml_file(path);
  if (!root) return std::unexpected(root.error());
  if (!*root) return FileSettings{};
  try {
    return LlmTableReader(path).read(**root);
  } catch (const std::exception& e) {
    return fail(ErrorKind::kInternal, "{}: {}", path, e.what());
  }
}

// First non-empty of flag, environment variable, file value.
std::string pick(const std::string& flag, const EnvLookup& env, const std::string& var,
                 const std::optional<std::string>& file) {
  if (!flag.empty()) return flag;
  if (auto v = env(var); v && !v->empty()) return *v;
  return file.value_or("");
}

template <class T>
T pick_value(T flag, T default_value, const std::optional<T>& file) {
  if (flag != default_value) return flag;
  return file.value_or(default_value);
}

}  // namespace

std::string endpoint_url(std::string_view base_url) {
  std::string base(base_url);
  while (!base.empty() && base.back() == '/') base.pop_back();
  if (base.ends_with("/chat/completions")) return base;
  if (base.ends_with("/v1")) return base + "/chat/completions";
  return base + "/v1/chat/completions";
}

Result<Settings> resolve_settings(const Settings& overrides, const std::string& toml_path) {
  return resolve_settings(overrides, toml_path, real_env);
}

Result<Settings> resolve_settings(const Settings& overrides, const std::string& toml_path,
                                  const EnvLookup& env) {
  auto file = read_file_settings(toml_path);
  if (!file) return std::unexpected(file.error());
  const Settings defaults;
  Settings s;
  std::string where = toml_path.empty() ? std::string("mergelens.toml") : toml_path;
  s.base_url = pick(overrides.base_url, env, "OPENAI_BASE_URL", file->base_url);
  if (s.base_url.empty()) {
    return fail(ErrorKind::kInvalidInput,
                "no LLM endpoint: set OPENAI_BASE_URL, pass --llm-base-url, or set base_url in "
                "the [llm] table of {}",
                where);
  }
  if (!s.base_url.starts_with("http://") && !s.base_url.starts_with("https://")) {
    return fail(ErrorKind::kInvalidInput, "LLM base URL {} must start with http:// or https://",
                http::redact_url(s.base_url));
  }
  s.model = pick(overrides.model, env, "OPENAI_MODEL", file->model);
  if (s.model.empty()) {
    return fail(ErrorKind::kInvalidInput,
                "no LLM model: set OPENAI_MODEL, pass --llm-model, or set model in the [llm] "
                "table of {}",
                where);
  }
  s.api_key = pick(overrides.api_key, env, "OPENAI_API_KEY", std::nullopt);
  if (s.api_key.empty() && file->api_key_env) {
    if (auto v = env(*file->api_key_env)) s.api_key = *v;
  }
  s.timeout_ms = pick_value(overrides.timeout_ms, defaults.timeout_ms, file->timeout_ms);
  s.max_retries = pick_value(overrides.max_retries, defaults.max_retries, file->max_retries);
  s.max_backoff_s =
      pick_value(overrides.max_backoff_s, defaults.max_backoff_s, file->max_backoff_s);
  s.concurrency = pick_value(overrides.concurrency, defaults.concurrency, file->concurrency);
  s.use_json_schema =
      pick_value(overrides.use_json_schema, defaults.use_json_schema, file->use_json_schema);
  s.usd_per_mtok_prompt =
      pick_value(overrides.usd_per_mtok_prompt, defaults.usd_per_mtok_prompt, file->usd_prompt);
  s.usd_per_mtok_completion = pick_value(overrides.usd_per_mtok_completion,
                                         defaults.usd_per_mtok_completion, file->usd_completion);
  if (s.timeout_ms <= 0) return fail(ErrorKind::kInvalidInput, "LLM timeout must be positive");
  if (s.max_retries < 0) return fail(ErrorKind::kInvalidInput, "LLM max_retries must be >= 0");
  if (s.concurrency < 1) return fail(ErrorKind::kInvalidInput, "LLM concurrency must be >= 1");
  if (s.max_backoff_s < 0) return fail(ErrorKind::kInvalidInput, "LLM max_backoff_s must be >= 0");
  return s;
}

}  // namespace mergelens::llm
