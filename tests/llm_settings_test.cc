// Tests for llm/settings: precedence of flags, environment and mergelens.toml.
#include <map>

#include <gtest/gtest.h>

#include "mergelens/llm/settings.h"
#include "test_helpers.h"

namespace mergelens::llm {
namespace {

using mergelens::testing::TempDir;
using mergelens::testing::write_file;

EnvLookup env_of(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

constexpr const char* kToml = R"(
[llm]
base_url = "http://file.example:8000"
model = "file-model"
api_key_env = "MY_LLM_KEY"
timeout_s = 30
max_retries = 2
concurrency = 8
usd_per_mtok_prompt = 0.5
usd_per_mtok_completion = 1.5
)";

TEST(LlmSettings, EndpointUrl) {
  EXPECT_EQ(endpoint_url("https://api.openai.com"), "https://api.openai.com/v1/chat/completions");
  EXPECT_EQ(endpoint_url("http://127.0.0.1:30000/"), "http://127.0.0.1:30000/v1/chat/completions");
  EXPECT_EQ(endpoint_url("http://h/v1"), "http://h/v1/chat/completions");
  EXPECT_EQ(endpoint_url("http://h/v1/"), "http://h/v1/chat/completions");
  EXPECT_EQ(endpoint_url("http://h/api/v1/chat/completions"), "http://h/api/v1/chat/completions");
}

TEST(LlmSettings, FileGivesEverythingWhenAloneAndTheKeyComesFromTheNamedVariable) {
  TempDir dir;
  write_file(dir / "mergelens.toml", kToml);
  auto s = resolve_settings({}, dir / "mergelens.toml", env_of({{"MY_LLM_KEY", "sk-from-env"}}));
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->base_url, "http://file.example:8000");
  EXPECT_EQ(s->model, "file-model");
  EXPECT_EQ(s->api_key, "sk-from-env");
  EXPECT_EQ(s->timeout_ms, 30000);
  EXPECT_EQ(s->max_retries, 2);
  EXPECT_EQ(s->concurrency, 8);
  EXPECT_DOUBLE_EQ(s->usd_per_mtok_prompt, 0.5);
  EXPECT_DOUBLE_EQ(s->usd_per_mtok_completion, 1.5);
  EXPECT_TRUE(s->use_json_schema);
  EXPECT_DOUBLE_EQ(s->max_backoff_s, 60);
}

TEST(LlmSettings, FlagsBeatEnvironmentBeatsFile) {
  TempDir dir;
  write_file(dir / "mergelens.toml", kToml);
  auto env = env_of({{"OPENAI_BASE_URL", "http://env.example"},
                     {"OPENAI_MODEL", "env-model"},
                     {"OPENAI_API_KEY", "sk-openai-env"},
                     {"MY_LLM_KEY", "sk-named"}});
  auto s = resolve_settings({}, dir / "mergelens.toml", env);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->base_url, "http://env.example");
  EXPECT_EQ(s->model, "env-model");
  EXPECT_EQ(s->api_key, "sk-openai-env");
  EXPECT_EQ(s->max_retries, 2);  // only in the file

  Settings flags;
  flags.base_url = "http://flag.example";
  flags.model = "flag-model";
  flags.api_key = "sk-flag";
  flags.max_retries = 7;
  flags.concurrency = 1;
  s = resolve_settings(flags, dir / "mergelens.toml", env);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->base_url, "http://flag.example");
  EXPECT_EQ(s->model, "flag-model");
  EXPECT_EQ(s->api_key, "sk-flag");
  EXPECT_EQ(s->max_retries, 7);
  EXPECT_EQ(s->concurrency, 1);
  EXPECT_EQ(s->timeout_ms, 30000);  // not given as a flag: the file's

  // Empty environment values count as unset.
  s = resolve_settings({}, dir / "mergelens.toml", env_of({{"OPENAI_MODEL", ""}}));
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->model, "file-model");
  EXPECT_EQ(s->api_key, "");
}

TEST(LlmSettings, MissingBaseOrModelSaysWhatToSet) {
  auto s = resolve_settings({}, "", env_of({}));
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().kind, ErrorKind::kInvalidInput);
  EXPECT_NE(s.error().message.find("OPENAI_BASE_URL"), std::string::npos) << s.error().message;
  EXPECT_NE(s.error().message.find("--llm-base-url"), std::string::npos);
  EXPECT_NE(s.error().message.find("base_url"), std::string::npos);

  s = resolve_settings({}, "/nonexistent/mergelens.toml",
                       env_of({{"OPENAI_BASE_URL", "http://127.0.0.1:1"}}));
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().kind, ErrorKind::kInvalidInput);
  EXPECT_NE(s.error().message.find("OPENAI_MODEL"), std::string::npos) << s.error().message;
  EXPECT_NE(s.error().message.find("--llm-model"), std::string::npos);
  EXPECT_NE(s.error().message.find("/nonexistent/mergelens.toml"), std::string::npos);
}

TEST(LlmSettings, MalformedTomlNamesTheFile) {
  TempDir dir;
  write_file(dir / "mergelens.toml", "[llm]\nmodel = \"x\"\nbase_url = http://oops\n");
  auto s = resolve_settings({}, dir / "mergelens.toml", env_of({}));
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().kind, ErrorKind::kInvalidInput);
  EXPECT_NE(s.error().message.find(dir / "mergelens.toml:3"), std::string::npos)
      << s.error().message;

  write_file(dir / "mergelens.toml", "[llm]\ntimeout_s = \"soon\"\n");
  s = resolve_settings({}, dir / "mergelens.toml", env_of({}));
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find(dir / "mergelens.toml:2: [llm] timeout_s"), std::string::npos)
      << s.error().message;

  write_file(dir / "mergelens.toml", "llm = 3\n");
  s = resolve_settings({}, dir / "mergelens.toml", env_of({}));
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("mergelens.toml"), std::string::npos);
}

TEST(LlmSettings, TheKeyIsNeverReadFromTheFile) {
  TempDir dir;
  write_file(dir / "mergelens.toml",
             "[llm]\nbase_url = \"http://h\"\nmodel = \"m\"\napi_key = \"sk-in-file-123456789\"\n");
  auto s = resolve_settings({}, dir / "mergelens.toml", env_of({}));
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().kind, ErrorKind::kInvalidInput);
  EXPECT_NE(s.error().message.find("api_key_env"), std::string::npos) << s.error().message;
  EXPECT_EQ(s.error().message.find("sk-in-file"), std::string::npos) << s.error().message;

  // api_key_env names a variable; its value is not a key.
  write_file(dir / "mergelens.toml",
             "[llm]\nbase_url = \"http://h\"\nmodel = \"m\"\napi_key_env = \"UNSET_VAR\"\n");
  s = resolve_settings({}, dir / "mergelens.toml", env_of({}));
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->api_key, "");
}

TEST(LlmSettings, RejectsABaseUrlWithoutScheme) {
  auto s = resolve_settings({}, "",
                            env_of({{"OPENAI_BASE_URL", "api.openai.com"}, {"OPENAI_MODEL", "m"}}));
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("http://"), std::string::npos);
}

}  // namespace
}  // namespace mergelens::llm
