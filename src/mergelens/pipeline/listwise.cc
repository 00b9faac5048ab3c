// One listwise model exchange (listwise.h).
#include "mergelens/pipeline/listwise.h"

#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "mergelens/llm/client.h"
#include "mergelens/llm/repair.h"
#include "mergelens/model/json.h"
#include "mergelens/util/hash.h"

namespace mergelens {

namespace {

nlohmann::json schema_of(const ListwiseRequest& r) {
  return {{"name", r.schema_name}, {"strict", true}, {"schema", r.schema}};
}

}  // namespace

ListwiseRequest make_listwise_request(const Prompt& prompt, std::string_view schema_name,
                                      nlohmann::json schema, std::string_view prompt_version,
                                      std::string_view model, std::string again, std::string where,
                                      bool force) {
  Hasher h;
  h.add(prompt.system).add(prompt.user);
  ListwiseRequest r;
  r.prompt = &prompt;
  r.schema_name = schema_name;
  r.schema = std::move(schema);
  r.cache_key = fmt::format("{}|{}|{}|{}", schema_name, prompt_version, model, h.hex());
  r.again = std::move(again);
  r.where = std::move(where);
  r.force = force;
  return r;
}

nlohmann::json listwise_request_json(const ListwiseRequest& r) {
  return {{"messages",
           {{{"role", "system"}, {"content", r.prompt->system}},
            {{"role", "user"}, {"content", r.prompt->user}}}},
          {"response_format", {{"type", "json_schema"}, {"json_schema", schema_of(r)}}},
          {"estimated_tokens", r.prompt->estimated_tokens}};
}

std::string write_listwise_request(const ListwiseRequest& r, const std::string& path) {
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  std::ofstream out(path, std::ios::binary);
  out << dump_json(listwise_request_json(r), 2) << "\n";
  return out ? std::string() : fmt::format("{}: cannot write {}", r.where, path);
}

ListwiseOutcome ask_listwise(
    Store& store, llm::Client& client, const ListwiseRequest& r,
    const std::function<std::optional<std::string>(const nlohmann::json&)>& check) {
  ListwiseOutcome out;
  if (!r.force) {
    auto hit = store.cache_get(r.cache_key);
    if (hit && *hit) {
      auto j = nlohmann::json::parse(**hit, nullptr, false);
      if (!j.is_discarded() && !check(j)) {
        out.answer = std::move(j);
        out.cached = true;
        return out;
      }
    }
  }
  llm::ChatRequest req;
  req.messages = {{"system", r.prompt->system}, {"user", r.prompt->user}};
  req.json_schema = schema_of(r);
  req.temperature = 0.2;
  req.max_tokens = r.prompt->max_tokens;
  for (int attempt = 0; attempt < 2; ++attempt) {
    ++out.calls;
    auto res = client.chat(req);
    if (!res) {
      out.problem = res.error().message;  // the client has retried what can be retried
      return out;
    }
    out.prompt_tokens += res->usage.prompt_tokens;
    out.completion_tokens += res->usage.completion_tokens;
    if (r.stop_when_cut_off && res->finish_reason == "length") {
      out.cut_off = true;
      out.problem = fmt::format("the answer was cut off at its {} token limit", req.max_tokens);
      return out;
    }
    auto json = llm::parse_json_answer(res->content, nullptr);
    std::optional<std::string> problem;
    if (json) {
      problem = check(*json);
      if (!problem) {
        (void)store.cache_put(r.cache_key, dump_json(*json, -1));
        out.answer = std::move(*json);
        return out;
      }
    } else {
      problem = json.error().message;
    }
    out.problem = "unusable answer: " + problem->substr(0, 300);
    req.messages.push_back({"assistant", res->content.substr(0, 2000)});
    req.messages.push_back({"user", fmt::format("That answer could not be used ({}). {}",
                                                problem->substr(0, 300), r.again)});
  }
  return out;
}

}  // namespace mergelens
