// The model writer's plans beyond one call: a PR too large for one prompt is
// read in notes calls and written by one more (bounded by max_calls, notes
// checked before the last call sees them, cached); both languages come from
// one answer, and a language the answer lacks is asked alone; the answer
// cache moves with the prompt version.
#include <gtest/gtest.h>
#include <re2/re2.h>
#include <sqlite3.h>

#include "fake_openai.h"
#include "mergelens/analysis/analyzer.h"
#include "mergelens/guide/prompt.h"
#include "mergelens/llm/tokens.h"
#include "mergelens/pipeline/write_llm.h"
#include "test_helpers.h"

namespace mergelens {
namespace {

using llm::FakeServer;
using nlohmann::json;

// `files` files, each adding one long function full of guards: far more
// focus than one small prompt holds.
Change large_change(int files) {
  Change c;
  c.repo = "o/r";
  c.kind = ChangeKind::kSquash;
  c.number = 900;
  c.sha = "fedcba9876543210fedcba9876543210fedcba98";
  c.title = "Add the new scheduler backends (#900)";
  c.body = "Adds eight backends.";
  for (int k = 0; k < files; ++k) {
    std::string patch = fmt::format("@@ -0,0 +1,160 @@\n");
    patch += fmt::format("+def schedule_backend_{}(batch, limit):\n", k);
    for (int i = 0; i < 53; ++i)
      patch += fmt::format(
          "+    if batch.size > limit + {0}:\n+        raise ValueError(\"too large {0}\")\n"
          "+    batch.step_{0} = min(batch.size, {0})\n",
          i);
    patch += "+    return batch\n";
    c.files.push_back(testing::file_from_patch(fmt::format("python/pkg/backends/b{}.py", k), patch,
                                               FileStatus::kAdded));
  }
  return c;
}

Facts facts_of(const Change& c) {
  auto ctx = make_context(c.repo, "", "");
  EXPECT_TRUE(ctx);
  return analyze_change(c, *ctx);
}

json guide_answer(bool english) {
  return {{"headline", english ? "Eight scheduler backends" : "新增八个调度后端"},
          {"digest", english ? "Skim the first backend; the rest repeat it."
                             : "略读第一个后端即可，其余重复同一模式。"},
          {"summary", english ? "Adds backends." : "新增后端。"},
          {"verdict_text", english ? "Skim the first backend." : "略读即可，看第一个后端。"},
          {"why", ""},
          {"focus", json::array()},
          {"skim", json::array()},
          {"design_decisions", json::array()},
          {"questions", {english ? "Is the limit checked twice?" : "上限是否检查了两次？"}},
          {"number_cautions", json::array()},
          {"body_vs_code", json::array()},
          {"gaps", json::array()},
          {"advice", json::array()},
          {"audience", ""},
          {"references", json::array()},
          {"suggested_code", json::array()},
          {"importance", {{"value", 3}, {"reason", english ? "new backends" : "新后端"}}},
          {"insight", {{"value", 2}, {"reason", english ? "repetitive" : "重复"}}},
          {"judgment", {{"verdict", "skim"}, {"argument", ""}}}};
}

std::string user_of(const json& body) {
  return body["messages"][1]["content"];
}

std::string call_of(const json& body) {
  std::string call;
  RE2::PartialMatch(user_of(body), R"((?m)^Call: (\S+))", &call);
  return call;
}

struct Fixture {
  testing::TempDir dir;
  std::unique_ptr<Store> store;
  Fixture() {
    auto s = open_sqlite_store(dir / "db.sqlite");
    EXPECT_TRUE(s);
    store = std::move(*s);
  }
};

llm::Settings settings(const std::string& base) {
  llm::Settings s;
  s.base_url = base;
  s.api_key = "sk-test";
  s.model = "test-model";
  s.timeout_ms = 5000;
  s.max_retries = 0;
  return s;
}

TEST(WriteLlm, ALargePrIsReadInNotesCallsThenWrittenOnce) {
  Change c = large_change(8);
  Facts f = facts_of(c);
  ASSERT_GE(f.focus.size(), 4u);
  constexpr size_t kBudget = 3600;  // the guide system prompt and answer format are ~2.3k
  auto plan = plan_split(c, f, kBudget, 4);
  ASSERT_TRUE(plan);
  ASSERT_GE(plan->groups.size(), 2u);
  ASSERT_LE(plan->groups.size(), 3u);
  EXPECT_GT(plan->regions_planned, plan->regions_single);

  std::vector<std::string> calls;
  std::mutex mu;
  FakeServer server([&](int, const json& body, httplib::Response& res) {
    const std::string call = call_of(body);
    {
      std::lock_guard lock(mu);
      calls.push_back(call);
    }
    if (call.starts_with("notes-")) {
      // A true note on the first region shown, and one on a file that does
      // not exist.
      std::string path, line;
      RE2::PartialMatch(user_of(body), R"((?m)^--- (\S+) \(focus #\d+)", &path);
      RE2::PartialMatch(user_of(body), R"((?m)^\s+(\d+) \+)", &line);
      json notes = {{"notes",
                     {{{"path", path},
                       {"start_line", std::stoi(line)},
                       {"end_line", std::stoi(line) + 2},
                       {"symbol", ""},
                       {"what", "Each step raises `ValueError` past the limit."},
                       {"lesson", "Fail fast on oversize batches."},
                       {"question", "Is the message enough to debug?"},
                       {"risk", ""}},
                      {{"path", "python/pkg/backends/ghost_backend.py"},
                       {"start_line", 1},
                       {"end_line", 4},
                       {"symbol", ""},
                       {"what", "The ghost backend retries."},
                       {"lesson", ""},
                       {"question", ""},
                       {"risk", ""}}}},
                    {"skim", json::array()}};
      return llm::answer(res, notes.dump(), 800, 100);
    }
    llm::answer(res, guide_answer(false).dump(), 900, 300);
  });
  llm::Client client(settings(server.base_url()));
  Fixture fx;
  LlmOptions o;
  o.budget_tokens = kBudget;
  o.max_calls = 4;
  LlmWriter writer(client, *fx.store, o);
  LlmOutcome out;
  Guide g = writer.write(c, f, "zh", &out);
  EXPECT_EQ(g.writer.kind, "llm") << g.writer.fallback_reason;
  ASSERT_EQ(calls.size(), plan->groups.size() + 1);
  EXPECT_LE(static_cast<int>(calls.size()), o.max_calls);
  EXPECT_EQ(calls.back(), "reduce");
  EXPECT_EQ(g.writer.calls, static_cast<int>(calls.size()));
  EXPECT_EQ(g.writer.plan, fmt::format("split {}+1", plan->groups.size()));
  EXPECT_EQ(g.writer.prompt_tokens, 800 * static_cast<long>(plan->groups.size()) + 900);
  // The last call saw the checked notes, never the ghost one.
  const std::string reduce = user_of(server.seen(server.requests() - 1).body);
  EXPECT_NE(reduce.find("## Notes on the parts of this PR"), std::string::npos);
  EXPECT_NE(reduce.find("Fail fast on oversize batches."), std::string::npos);
  EXPECT_EQ(reduce.find("ghost_backend"), std::string::npos);
  bool ghost_recorded = false;
  for (const auto& r : g.writer.removed)
    ghost_recorded = ghost_recorded || r.find("ghost_backend.py") != std::string::npos;
  EXPECT_TRUE(ghost_recorded);
  // Every top region was shown to some notes call.
  std::string notes_prompts;
  for (int i = 0; i + 1 < server.requests(); ++i) notes_prompts += user_of(server.seen(i).body);
  for (size_t k = 0; k < std::min<size_t>(f.focus.size(), kTopRegions); ++k)
    EXPECT_NE(notes_prompts.find(fmt::format("(focus #{}", k + 1)), std::string::npos) << k;
  // Every call stayed within the budget.
  for (int i = 0; i < server.requests(); ++i) {
    const json body = server.seen(i).body;
    EXPECT_LE(llm::estimate_tokens(std::vector<llm::Message>{
                  {"system", body["messages"][0]["content"]}, {"user", user_of(body)}}),
              kBudget)
        << "call " << i << " of " << server.requests();
  }
  // A second run asks nothing.
  const int before = server.requests();
  Guide again = writer.write(c, f, "zh", nullptr);
  EXPECT_EQ(server.requests(), before);
  EXPECT_TRUE(again.writer.cached);
  EXPECT_EQ(again.headline, g.headline);
}

TEST(WriteLlm, MaxCallsBoundsTheSplit) {
  Change c = large_change(8);
  Facts f = facts_of(c);
  EXPECT_FALSE(plan_split(c, f, 3000, 2));  // a split needs at least two notes calls
  auto three = plan_split(c, f, 3000, 3);
  ASSERT_TRUE(three);
  EXPECT_EQ(three->groups.size(), 2u);
  EXPECT_FALSE(plan_split(large_change(1), facts_of(large_change(1)), 60000, 4));  // fits
}

// Both guides of `c`, written in one call to the model `server` plays, with
// a budget of 60,000 tokens.
std::vector<Guide> write_both_from(FakeServer& server, const Change& c, const Facts& f) {
  llm::Client client(settings(server.base_url()));
  Fixture fx;
  LlmOptions o;
  o.budget_tokens = 60000;
  LlmWriter writer(client, *fx.store, o);
  return writer.write_both(c, f, nullptr);
}

TEST(WriteLlm, BothLanguagesComeFromOneAnswer) {
  Change c = large_change(1);
  Facts f = facts_of(c);
  std::vector<std::string> calls;
  FakeServer server([&](int, const json& body, httplib::Response& res) {
    calls.push_back(call_of(body));
    json both = {{"zh", guide_answer(false)}, {"en", guide_answer(true)}};
    llm::answer(res, both.dump(), 1500, 700);
  });
  auto guides = write_both_from(server, c, f);
  ASSERT_EQ(guides.size(), 2u);
  EXPECT_EQ(calls, std::vector<std::string>{"both"});
  EXPECT_EQ(guides[0].lang, "zh");
  EXPECT_EQ(guides[1].lang, "en");
  EXPECT_EQ(guides[0].writer.kind, "llm") << guides[0].writer.fallback_reason;
  EXPECT_EQ(guides[1].writer.kind, "llm") << guides[1].writer.fallback_reason;
  EXPECT_EQ(guides[1].headline, "Eight scheduler backends");
  EXPECT_EQ(guides[0].writer.plan, "single both");
  // The request asked for both in one schema.
  const json body0 = server.seen(0).body;
  const json& schema = body0["response_format"]["json_schema"]["schema"];
  EXPECT_TRUE(schema["properties"].contains("zh"));
  EXPECT_TRUE(schema["properties"].contains("en"));
}

// The examples ask one sharp question, not a list of doubts: a guide keeps
// the first four, in both languages alike, and says so in its edits.
TEST(WriteLlm, AtMostFourQuestionsSharpestFirst) {
  Change c = large_change(1);
  Facts f = facts_of(c);
  FakeServer server([&](int, const json&, httplib::Response& res) {
    json zh = guide_answer(false), en = guide_answer(true);
    zh["questions"] = json::array();
    en["questions"] = json::array();
    for (int k = 1; k <= 6; ++k) {
      zh["questions"].push_back(fmt::format("第 {} 个问题：上限是否检查了两次？", k));
      en["questions"].push_back(fmt::format("Question {}: is the limit checked twice?", k));
    }
    json both = {{"zh", zh}, {"en", en}};
    llm::answer(res, both.dump(), 1500, 700);
  });
  auto guides = write_both_from(server, c, f);
  ASSERT_EQ(guides.size(), 2u);
  for (const auto& g : guides) {
    EXPECT_EQ(g.writer.kind, "llm") << g.writer.fallback_reason;
    ASSERT_EQ(g.questions.size(), 4u) << g.lang;
    EXPECT_NE(g.questions[0].find("1"), std::string::npos) << g.questions[0];
    EXPECT_NE(g.questions[3].find("4"), std::string::npos) << g.questions[3];
    EXPECT_TRUE(std::any_of(g.writer.edits.begin(), g.writer.edits.end(), [](const auto& e) {
      return e.starts_with("questions: 2 beyond the first 4 cut");
    })) << g.lang;
  }
}

TEST(WriteLlm, ALanguageTheAnswerLacksIsAskedAlone) {
  Change c = large_change(1);
  Facts f = facts_of(c);
  std::vector<std::string> calls;
  FakeServer server([&](int, const json& body, httplib::Response& res) {
    const std::string call = call_of(body);
    calls.push_back(call);
    if (call == "both")  // a model that manages only one language at a time
      return llm::answer(res, json{{"zh", guide_answer(false)}}.dump());
    llm::answer(res, guide_answer(true).dump());
  });
  llm::Client client(settings(server.base_url()));
  Fixture fx;
  LlmOptions o;
  o.budget_tokens = 60000;
  o.max_calls = 3;
  LlmWriter writer(client, *fx.store, o);
  auto guides = writer.write_both(c, f, nullptr);
  ASSERT_EQ(guides.size(), 2u);
  EXPECT_EQ(guides[0].writer.kind, "llm");
  EXPECT_EQ(guides[1].writer.kind, "llm") << guides[1].writer.fallback_reason;
  // both (answered zh only), then en alone: no retry of the whole pair.
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0], "both");
  EXPECT_EQ(calls[1], "");
  EXPECT_NE(user_of(server.seen(1).body).find("Write the prose in English"), std::string::npos);
}

TEST(WriteLlm, TheAnswerCacheMovesWithThePromptVersion) {
  Change c = large_change(1);
  Facts f = facts_of(c);
  FakeServer server([&](int, const json&, httplib::Response& res) {
    llm::answer(res, guide_answer(false).dump());
  });
  llm::Client client(settings(server.base_url()));
  Fixture fx;
  LlmOptions o;
  o.budget_tokens = 60000;
  {
    LlmWriter writer(client, *fx.store, o);
    writer.write(c, f, "zh", nullptr);
  }
  ASSERT_EQ(server.requests(), 1);
  // The key names the prompt version; an answer cached under another
  // version is not used.
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((fx.dir / "db.sqlite").c_str(), &db), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT key FROM llm_cache", -1, &st, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  std::string key = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
  sqlite3_finalize(st);
  EXPECT_NE(key.find(std::string(kPromptVersion)), std::string::npos) << key;
  std::string old = key;
  old.replace(old.find(std::string(kPromptVersion)), kPromptVersion.size(), "guide-prompt-1");
  ASSERT_EQ(
      sqlite3_exec(
          db, fmt::format("UPDATE llm_cache SET key = '{}' WHERE key = '{}'", old, key).c_str(),
          nullptr, nullptr, nullptr),
      SQLITE_OK);
  sqlite3_close(db);
  LlmWriter writer(client, *fx.store, o);
  Guide g = writer.write(c, f, "zh", nullptr);
  EXPECT_EQ(server.requests(), 2);
  EXPECT_FALSE(g.writer.cached);
}

}  // namespace
}  // namespace mergelens
