// Strong-model stand-in answers to today's bilingual prompts for the sglang
// PRs issue 23 names (../standin/i23: answers/N.both.json and the requests
// they answer, read at test time; skipped with a message where absent),
// replayed through the model writer against the material each prompt showed:
// both languages published, items kept, one judgment in both languages,
// headlines within the examples' length, no empty skim reason; and
// fabrications planted in copies (a ghost path, a name pattern matching
// nothing, a ghost smuggled into a "not in the change" sentence) removed.
#include <filesystem>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "fake_openai.h"
#include "mergelens/guide/citations.h"
#include "mergelens/guide/guide_json.h"
#include "mergelens/guide/prose.h"
#include "mergelens/guide/validate.h"
#include "mergelens/llm/client.h"
#include "mergelens/pipeline/write_llm.h"
#include "prompt_material.h"
#include "replay_writer.h"
#include "test_helpers.h"

namespace mergelens {
namespace {

namespace fs = std::filesystem;
using llm::FakeServer;
using nlohmann::json;

struct Case {
  std::string number;
  testing::Material material;
  json answer;  // {"zh": ..., "en": ...}
};

fs::path standin_dir() {
  if (const char* d = std::getenv("MERGELENS_STANDIN")) return d;
  return fs::path(MERGELENS_SOURCE_DIR) / ".." / "standin" / "i23";
}

std::vector<Case> load_cases() {
  std::vector<Case> out;
  const fs::path dir = standin_dir();
  if (!fs::is_directory(dir / "answers") || !fs::is_directory(dir / "requests")) return out;
  for (const auto& e : fs::directory_iterator(dir / "answers")) {
    const std::string name = e.path().filename().string();
    if (!name.ends_with(".both.json") || name.find("reduce") != std::string::npos) continue;
    const std::string n = name.substr(0, name.find('.'));
    const fs::path req = dir / "requests" / (n + ".both.request.json");
    if (!fs::exists(req)) continue;
    json r = json::parse(testing::read_text(req.string()), nullptr, false);
    if (r.is_discarded() || !r.contains("messages") || r["messages"].size() < 2) continue;
    Case c;
    c.number = n;
    c.material = testing::material_from_prompt(r["messages"][1]["content"].get<std::string>());
    c.answer = json::parse(testing::read_text(e.path().string()));
    out.push_back(std::move(c));
  }
  std::sort(out.begin(), out.end(),
            [](const Case& a, const Case& b) { return a.number < b.number; });
  return out;
}

std::vector<Guide> write_both(const Case& c, const json& answer) {
  return testing::with_replayed_answer(answer, [&](LlmWriter& writer) {
    LlmOutcome out;
    return writer.write_both(c.material.change, c.material.facts, &out);
  });
}

class StandinAnswers : public ::testing::Test {
 protected:
  void SetUp() override {
    cases_ = load_cases();
    if (cases_.empty())
      GTEST_SKIP() << "no stand-in answers at " << standin_dir()
                   << " (answers/N.both.json with requests/N.both.request.json; set "
                      "MERGELENS_STANDIN)";
  }
  std::vector<Case> cases_;
};

TEST_F(StandinAnswers, BothLanguagesArePublishedAndAgreeWithThemselves) {
  size_t total = 0, kept = 0;
  for (const auto& c : cases_) {
    auto guides = write_both(c, c.answer);
    ASSERT_EQ(guides.size(), 2u);
    for (const auto& g : guides) {
      const std::string where = "#" + c.number + " " + g.lang;
      EXPECT_EQ(g.writer.kind, "llm") << where << ": " << g.writer.fallback_reason;
      total += testing::answer_items(c.answer[g.lang]);
      kept += count_items(g);
      // Within the examples' length, or the model's own words kept whole
      // when they have no phrase boundary to cut at (named back in a retry).
      const std::string asked = c.answer[g.lang]["headline"].get<std::string>();
      if (headline_width(g.headline) > kHeadlineWidth) {
        EXPECT_EQ(fit_headline(asked), asked) << where << ": " << g.headline;
      }
      EXPECT_LE(prose::width(g.digest), kDigestWidth) << where;
      for (const auto& k : g.skim) EXPECT_FALSE(k.reason.empty()) << where << " " << k.path;
      EXPECT_EQ(validate_guide(g, c.material.change, g.lang, {}), "") << where;
    }
    EXPECT_EQ(guides[0].verdict, guides[1].verdict) << "#" << c.number;
    EXPECT_EQ(guides[0].importance.value, guides[1].importance.value) << "#" << c.number;
    EXPECT_EQ(guides[0].insight.value, guides[1].insight.value) << "#" << c.number;
  }
  ASSERT_GT(total, 0u);
  EXPECT_GE(kept * 100, total * 95) << kept << " of " << total << " items kept";
}

TEST_F(StandinAnswers, PlantedFabricationsAreRemovedInBothLanguages) {
  for (const auto& c : cases_) {
    json a = c.answer;
    for (const char* lang : {"zh", "en"}) {
      a[lang]["questions"].push_back("`GHOST_EGRESS_TAG_*` 常量是否都被覆盖？");
      a[lang]["body_vs_code"].push_back(
          "`ghost_scheduler_v9.py` is not among the changed files, and its retry loop is gone.");
      a[lang]["design_decisions"].push_back(
          "`GhostDispatcherRegistry` 统一登记所有后端，是最值得借鉴的设计。");
    }
    auto guides = write_both(c, a);
    for (const auto& g : guides) {
      const std::string where = "#" + c.number + " " + g.lang;
      ASSERT_EQ(g.writer.kind, "llm") << where << ": " << g.writer.fallback_reason;
      json doc = guide_to_json(g);
      doc.erase("writer");
      const std::string text = doc.dump();
      for (const char* ghost : {"GHOST_EGRESS_TAG_", "ghost_scheduler_v9", "GhostDispatcher"})
        EXPECT_EQ(text.find(ghost), std::string::npos) << where << ": " << ghost;
    }
  }
}

}  // namespace
}  // namespace mergelens
