// Issue 33: the model path end to end. One test per finding of the live
// run it reports, on answers in the shape a strong model gives: the
// triage's words have their own place in the prompt and pass the guides'
// check; a removal is a clean edit in both languages; labels say whose
// judgment they show, in words; the triage's scope and both reasons reach
// the guide; budgets follow the schema and a cut-off answer is asked again
// in fewer items; the facts never clip inside a sentence and the triage's
// size line agrees with its analysis line; a rejected line range goes from
// the item's text too; long headlines are shortened.
#include <gtest/gtest.h>

#include "fake_openai.h"
#include "mergelens/analysis/analyzer.h"
#include "mergelens/guide/citations.h"
#include "mergelens/guide/guide_json.h"
#include "mergelens/guide/markdown.h"
#include "mergelens/guide/prompt.h"
#include "mergelens/guide/prompt_excerpt.h"
#include "mergelens/guide/prose.h"
#include "mergelens/guide/triage.h"
#include "mergelens/guide/triage_guide.h"
#include "mergelens/guide/validate.h"
#include "mergelens/llm/client.h"
#include "mergelens/pipeline/write_llm.h"
#include "replay_writer.h"
#include "test_helpers.h"

namespace mergelens {
namespace {

using nlohmann::json;

// #34304 as the issue tells it: `--torchao-config` removed without a
// deprecation step. Nothing in it names #34869.
Change torchao_change() {
  Change c;
  c.repo = "o/r";
  c.kind = ChangeKind::kSquash;
  c.number = 34304;
  c.sha = "3430434304343043430434304343043430434304";
  c.title = "Remove the --torchao-config flag";
  c.body = "The torchao path is replaced by --quantization; the flag goes.";
  c.files.push_back(testing::file_from_patch(
      "python/pkg/srt/server_args.py",
      "@@ -120,10 +120,4 @@ class ServerArgs:\n"
      "     def add_cli_args(parser):\n"
      "         parser.add_argument(\"--quantization\", type=str, default=None)\n"
      "-        parser.add_argument(\n"
      "-            \"--torchao-config\",\n"
      "-            type=str,\n"
      "-            default=\"\",\n"
      "-        )\n"
      "-        # torchao is applied after the weights are loaded\n"
      "         parser.add_argument(\"--dtype\", type=str, default=\"auto\")\n"
      "         parser.add_argument(\"--seed\", type=int, default=0)\n"
      "         return parser\n"));
  c.files.push_back(
      testing::file_from_patch("python/pkg/srt/model_loader/loader.py",
                               "@@ -40,8 +40,6 @@ def load_model(model, args):\n"
                               "     model = build(args)\n"
                               "     model.load_weights(args.path)\n"
                               "-    if args.torchao_config:\n"
                               "-        apply_torchao_config(model, args.torchao_config)\n"
                               "     zero_buffers(model)\n"
                               "     model.eval()\n"
                               "     return model\n"
                               "@@ -90,3 +88,7 @@ def zero_buffers(model):\n"
                               "     for b in model.buffers():\n"
                               "         b.zero_()\n"
                               "+    # one fill for every buffer instead of one per tensor\n"
                               "+    flat = torch.cat([b.view(-1) for b in model.buffers()])\n"
                               "+    flat.zero_()\n"
                               "+    return flat\n"));
  return c;
}

Facts facts_of(const Change& c) {
  auto ctx = make_context(c.repo, "", "");
  EXPECT_TRUE(ctx);
  return analyze_change(c, *ctx);
}

// A strong model's bilingual answer to that PR, in the answer schema, with
// the triage's claim "#34869 follows up" repeated where a model repeats it.
json guide_answer(const std::string& lang) {
  const bool zh = lang == "zh";
  return {
      {"headline", zh ? "移除 `--torchao-config`，torchao 量化只走 `--quantization`"
                      : "`--torchao-config` removed; torchao quantization goes through "
                        "`--quantization`"},
      {"digest",
       zh ? "浏览即可：`server_args.py` 与 `loader.py` 各一处删除。`--torchao-config` "
            "被直接移除，没有弃用步骤；#34869 随后跟进了替代方案。"
          : "Skim: one removal each in `server_args.py` and `loader.py`. The flag "
            "`--torchao-config` is removed without a deprecation step, and #34869 follows up "
            "on its replacement."},
      {"summary", zh ? "删除 `--torchao-config` 参数及其在 `load_model` 中的调用。"
                     : "Deletes the `--torchao-config` flag and its call in `load_model`."},
      {"verdict_text", zh ? "浏览即可：两处删除，各几行。" : "Skim: two deletions of a few lines."},
      {"why", zh ? "直接删掉命令行参数会让所有传这个参数的启动脚本报错，先加弃用警告更稳妥。"
                 : "Removing a CLI flag outright breaks every launch script that passes it; a "
                   "deprecation warning first is the safer path."},
      {"focus",
       {{{"path", "python/pkg/srt/model_loader/loader.py"},
         {"start_line", 40},
         {"end_line", 45},
         {"symbol", "load_model"},
         {"question", zh ? "`--quantization` 未设置时，`load_model` 是否还会做任何量化？"
                         : "When `--quantization` is unset, does `load_model` still quantize?"},
         {"why", zh ? "`apply_torchao_config` 唯一的调用在这里。"
                    : "The only call of `apply_torchao_config` was here."}}}},
      {"skim", json::array()},
      {"design_decisions", json::array()},
      {"questions",
       {zh ? "仓库里是否还有启动脚本传 `--torchao-config`？"
           : "Do launch scripts in the repository still pass `--torchao-config`?"}},
      {"number_cautions", json::array()},
      {"body_vs_code", json::array()},
      {"gaps",
       {zh ? "补一个测试：传 `--torchao-config` 时给出明确的错误。"
           : "Add a test that passing `--torchao-config` fails with a clear error."}},
      {"advice",
       {{{"role", "maintainer"},
         {"text", zh ? "在下个版本为 `--torchao-config` 加弃用警告，像 #34869 对其他参数做的那样。"
                     : "Add a deprecation warning for `--torchao-config` in the next release, "
                       "as #34869 does for the other flags."}},
        {{"role", "user"},
         {"text", zh ? "如果你的启动命令带 `--torchao-config`，升级前改用 `--quantization`。"
                     : "If you launch with `--torchao-config`, switch to `--quantization` "
                       "before upgrading."}}}},
      {"audience", zh ? "使用 torchao 量化的部署者。" : "Operators who quantize with torchao."},
      {"references",
       {{{"ref", "#34869"},
         {"relation", "follow_up"},
         {"note", zh ? "#34869 跟进了替代方案。" : "#34869 follows up with the replacement."}}}},
      {"suggested_code", json::array()},
      {"importance",
       {{"value", 5},
        {"reason", zh ? "面向用户的参数消失；#34869 完成迁移。"
                      : "A user-facing flag disappears; #34869 completes the migration."}}},
      {"insight",
       {{"value", 3},
        {"reason", zh ? "常规删除，没有新机制。" : "Routine removal, no new mechanism."}}},
      {"judgment", {{"verdict", "skim"}, {"argument", ""}}}};
}

// The day's triage of #34304 as the live run had it: a reason that names a
// later PR the change does not, a scope in each language.
TriageJudgment triage_of(const Facts& f) {
  TriageJudgment t;
  t.verdict = Verdict::kSkim;
  t.importance = std::min(10, f.importance.value + 2);
  t.insight = f.insight.value;
  t.scope = "";
  t.scope_zh = "";
  t.reason_en = "Removes `--torchao-config` without a deprecation step; #34869 follows up.";
  t.reason_zh = "直接移除 `--torchao-config` 而没有弃用期，#34869 跟进替代方案";
  return t;
}

// Both languages, keeping the triage's scores (the model agrees with it).
json answer_both(const TriageJudgment& t, json zh = guide_answer("zh"),
                 json en = guide_answer("en")) {
  for (json* a : {&zh, &en}) {
    (*a)["importance"]["value"] = t.importance;
    (*a)["insight"]["value"] = t.insight;
  }
  return {{"zh", zh}, {"en", en}};
}

std::string all_text(const Guide& g) {
  json doc = guide_to_json(g);
  doc.erase("writer");
  return doc.dump();
}

std::vector<Guide> write_both(const Change& c, const Facts& f, const TriageJudgment* t,
                              const json& answer) {
  return testing::with_replayed_answer(answer, [&](LlmWriter& writer) {
    LlmOutcome out;
    return writer.write_both(c, f, &out, t);
  });
}

bool logged(const std::vector<std::string>& log, std::string_view prefix) {
  for (const auto& l : log)
    if (l.starts_with(prefix)) return true;
  return false;
}

class ModelPath : public ::testing::Test {
 protected:
  Change c = torchao_change();
  Facts f = facts_of(c);
  TriageJudgment t = triage_of(f);
};

// "The triage's words are fed back as facts": the prompt gives them a section
// of their own, labelled as a model's earlier judgment; the facts keep the
// analysis's reasons.
TEST_F(ModelPath, TheTriageHasItsOwnPlaceInThePromptNeverTheFacts) {
  Prompt p = build_prompt(c, f, "both", 12000, {}, &t);
  const size_t facts = p.user.find("## Facts (deterministic analysis)");
  const size_t earlier = p.user.find("## The model's earlier judgment");
  const size_t text = p.user.find("## The PR's own text");
  ASSERT_NE(facts, std::string::npos);
  ASSERT_NE(earlier, std::string::npos);
  ASSERT_LT(facts, earlier);
  ASSERT_LT(earlier, text);
  const std::string facts_block = p.user.substr(facts, earlier - facts);
  EXPECT_EQ(facts_block.find("#34869"), std::string::npos) << facts_block;
  EXPECT_EQ(facts_block.find("deprecation step"), std::string::npos);
  EXPECT_NE(facts_block.find(fmt::format("importance {}", f.importance.value)), std::string::npos)
      << "the facts show the analysis's own score";
  const std::string section = p.user.substr(earlier, text - earlier);
  EXPECT_NE(section.find("not a fact"), std::string::npos);
  EXPECT_NE(section.find(t.reason_en), std::string::npos);
  EXPECT_NE(section.find(t.reason_zh), std::string::npos)
      << "the Chinese reason reaches the writer";
  EXPECT_NE(p.user.find(fmt::format("The starting judgment is the day's triage's")),
            std::string::npos);
  // Without a triage, no such section.
  EXPECT_EQ(build_prompt(c, f, "both", 12000).user.find("earlier judgment"), std::string::npos);
}

// "… the day page still shows the same claim in the triage line, which
// nothing checks": the triage's texts pass the guides' check.
TEST_F(ModelPath, TheTriagesTextsPassTheGuidesCheck) {
  CitationIndex index(c, f);
  TriageJudgment j = t;
  j.scope = "the flag in `server_args.py` and its call in `GhostLoader`";
  auto removed = check_triage_texts(j, index);
  EXPECT_EQ(j.reason_en, "Removes `--torchao-config` without a deprecation step.");
  EXPECT_EQ(j.reason_zh, "直接移除 `--torchao-config` 而没有弃用期");
  EXPECT_TRUE(j.scope.empty()) << j.scope;
  EXPECT_TRUE(logged(removed, "reason_en: #34869")) << ::testing::PrintToString(removed);
  EXPECT_TRUE(logged(removed, "reason_zh: #34869")) << ::testing::PrintToString(removed);
  EXPECT_TRUE(logged(removed, "scope: `GhostLoader`")) << ::testing::PrintToString(removed);
}

// "A removal breaks the text around it": the English digest keeps its
// warning, the Chinese one ends cleanly, the advice keeps its unrelated half,
// the score reasons are never blank and every change is logged.
TEST_F(ModelPath, ARemovalIsACleanEditInBothLanguages) {
  auto guides = write_both(c, f, &t, answer_both(t));
  ASSERT_EQ(guides.size(), 2u);
  for (const auto& g : guides) {
    const std::string where = g.lang;
    ASSERT_EQ(g.writer.kind, "llm") << where << ": " << g.writer.fallback_reason;
    EXPECT_EQ(all_text(g).find("34869"), std::string::npos) << where << ": " << all_text(g);
    for (std::string_view dangling : {"；。", "；\"", ", .", "；", ";"})
      EXPECT_FALSE(g.digest.ends_with(dangling)) << where << ": " << g.digest;
    EXPECT_NE(g.digest.find("`--torchao-config`"), std::string::npos) << where << ": " << g.digest;
    ASSERT_EQ(g.advice.size(), 2u) << where << ": the maintainer advice keeps its own half";
    EXPECT_TRUE(g.references.empty());
    EXPECT_FALSE(g.importance.reason.empty()) << where;
    EXPECT_FALSE(g.insight.reason.empty()) << where;
    EXPECT_NE(g.importance.reason, g.insight.reason) << where;
    EXPECT_TRUE(logged(g.writer.removed, "importance.reason: #34869")) << where;
    EXPECT_TRUE(logged(g.writer.edits, "importance.reason: blank"))
        << where << ": " << ::testing::PrintToString(g.writer.edits);
    EXPECT_TRUE(logged(g.writer.removed, "advice[0].text: #34869")) << where;
  }
  const Guide& zh = guides[0];
  const Guide& en = guides[1];
  EXPECT_NE(en.digest.find("without a deprecation step"), std::string::npos) << en.digest;
  EXPECT_NE(zh.digest.find("没有弃用步骤"), std::string::npos) << zh.digest;
  EXPECT_TRUE(zh.digest.ends_with("。")) << zh.digest;
  EXPECT_TRUE(en.digest.ends_with(".")) << en.digest;
  EXPECT_EQ(en.advice[0].text,
            "Add a deprecation warning for `--torchao-config` in the next release.");
  EXPECT_EQ(zh.advice[0].text, "在下个版本为 `--torchao-config` 加弃用警告。");
}

// A list item the check removes whole in one language goes in the other
// too, when the other's wording escaped the check.
TEST_F(ModelPath, AnItemRemovedInOneLanguageGoesInTheOther) {
  json zh = guide_answer("zh"), en = guide_answer("en");
  zh["questions"].push_back("`GhostLoader` 的缓存在并发加载时是否安全？");
  en["questions"].push_back("Is the loader's ghost cache safe under concurrent loads?");
  auto guides = write_both(c, f, &t, answer_both(t, zh, en));
  ASSERT_EQ(guides.size(), 2u);
  EXPECT_EQ(guides[0].questions.size(), 1u);
  EXPECT_EQ(guides[1].questions.size(), 1u) << ::testing::PrintToString(guides[1].questions);
  EXPECT_TRUE(logged(guides[1].writer.edits, "questions[1]: removed, as in the zh guide"))
      << ::testing::PrintToString(guides[1].writer.edits);
}

// "Labels that say the wrong thing": the analysis's line shows the
// analysis's values, the triage's its own, every verdict in words.
TEST_F(ModelPath, LabelsSayWhoseJudgmentTheyShowInWords) {
  auto guides = write_both(c, f, &t, answer_both(t));
  ASSERT_EQ(guides.size(), 2u);
  for (const auto& g : guides) {
    EXPECT_EQ(g.analysis.importance.value, f.importance.value) << g.lang;
    EXPECT_EQ(g.analysis.insight.value, f.insight.value) << g.lang;
    EXPECT_EQ(g.analysis.verdict, to_string(f.verdict)) << g.lang;
    EXPECT_EQ(g.triage.importance, t.importance) << g.lang;
    EXPECT_EQ(g.triage.verdict, "skim") << g.lang;
  }
  const std::string en = guide_to_markdown(guides[1]);
  EXPECT_NE(en.find(fmt::format("The analysis judged: {} · importance {} · insight {}",
                                verdict_words(to_string(f.verdict), "en"), f.importance.value,
                                f.insight.value)),
            std::string::npos)
      << en;
  EXPECT_NE(
      en.find(fmt::format("The day's model triage judged: skim · importance {}", t.importance)),
      std::string::npos)
      << en;
  const std::string zh = guide_to_markdown(guides[0]);
  EXPECT_NE(zh.find("分析的判断"), std::string::npos) << zh;
  EXPECT_NE(zh.find("当日模型分诊的判断：浏览即可"), std::string::npos) << zh;
  for (const char* raw : {"close_read", "selective_read", "skim", "skip"})
    EXPECT_EQ(zh.find(raw), std::string::npos) << raw << " untranslated in:\n" << zh;
}

// "What the triage returns goes half unused": the scope in both languages
// and the Chinese reason reach the writer; each score has its own reason.
TEST_F(ModelPath, TheTriagesScopeAndBothReasonsReachTheGuide) {
  TriageJudgment j = t;
  j.verdict = Verdict::kSelectiveRead;
  j.importance = f.importance.value + 2;
  j.insight = f.insight.value + 1;
  j.scope = "the flag in `server_args.py` and `load_model` in `loader.py`";
  j.scope_zh = "`server_args.py` 的参数与 `loader.py` 的 `load_model`";
  Prompt p = build_prompt(c, f, "both", 12000, {}, &j);
  EXPECT_NE(p.user.find(j.scope), std::string::npos);
  EXPECT_NE(p.user.find(j.scope_zh), std::string::npos);
  for (const char* lang : {"zh", "en"}) {
    Facts s = start_facts(f, j, lang);
    ASSERT_EQ(s.importance.reasons.size(), 1u);
    ASSERT_EQ(s.insight.reasons.size(), 1u);
    EXPECT_NE(s.importance.reasons[0], s.insight.reasons[0]) << lang;
    EXPECT_EQ(s.importance.reasons[0], triage_reason(j, lang)) << lang;
    EXPECT_EQ(prose::has_cjk(s.insight.reasons[0]), std::string_view(lang) == "zh") << lang;
  }
  auto guides = write_both(c, f, &j, answer_both(j));
  ASSERT_EQ(guides.size(), 2u);
  EXPECT_EQ(guides[0].triage.scope, j.scope_zh);
  EXPECT_EQ(guides[1].triage.scope, j.scope);
  // The reason as the check left it: the PR the change never names is gone.
  EXPECT_EQ(guides[0].triage.reason, "直接移除 `--torchao-config` 而没有弃用期");
}

// "Map-reduce budget": completion budgets follow the schema and the item
// counts; an answer cut off at its limit is not used and is asked again in
// fewer items.
TEST_F(ModelPath, BudgetsFollowTheSchemaAndACutAnswerIsAskedInFewerItems) {
  EXPECT_GE(notes_completion_budget(8), 1800 * 4 / 3);
  EXPECT_LT(notes_completion_budget(4), notes_completion_budget(8));
  EXPECT_GE(guide_completion_budget("both"), 2 * guide_completion_budget("zh"));
  EXPECT_LE(guide_completion_budget("both"), 16384);
  EXPECT_GE(triage_completion_budget(52), 52 * 190);
  int calls = 0;
  std::string retry;
  const json answer = answer_both(t);
  llm::FakeServer server([&](int, const json& body, httplib::Response& res) {
    if (calls++ == 0) {
      json j = llm::completion(answer.dump().substr(0, 1500));
      j["choices"][0]["finish_reason"] = "length";
      res.status = 200;
      res.set_content(j.dump(), "application/json");
      return;
    }
    retry = body["messages"].back()["content"];
    llm::answer(res, answer.dump());
  });
  llm::Settings s;
  s.base_url = server.base_url();
  s.api_key = "sk-test";
  s.model = "replay";
  s.max_retries = 0;
  llm::FakeSleeper sleeper;
  llm::Client client(s, &sleeper);
  testing::TempDir dir;
  auto store = open_sqlite_store(dir / "db.sqlite");
  ASSERT_TRUE(store);
  LlmWriter writer(client, **store, LlmOptions{});
  auto guides = writer.write_both(c, f, nullptr, &t);
  EXPECT_EQ(calls, 2);
  EXPECT_NE(retry.find("cut off at its"), std::string::npos) << retry;
  EXPECT_NE(retry.find("at most 3 focus points"), std::string::npos) << retry;
  for (const auto& g : guides) EXPECT_EQ(g.writer.kind, "llm") << g.writer.fallback_reason;
}

// "A facts line is clipped in the middle of a sentence": whole lines only.
TEST_F(ModelPath, TheFactsNeverClipInsideASentence) {
  Facts big = f;
  for (int i = 0; i < 40; ++i)
    big.review_points.push_back({"reviewer", "comment", "", 0,
                                 fmt::format("Point {} of the review, with 4 details about the "
                                             "loader and the flag that was removed.",
                                             i)});
  const std::string s = prompt_detail::facts_section(c, big, 600);
  EXPECT_EQ(s.find("[… clipped]"), std::string::npos) << s;
  EXPECT_NE(s.find("more lines of facts not shown"), std::string::npos) << s;
  const size_t open = s.find("<<<UNTRUSTED");
  const size_t close = s.find("\nUNTRUSTED>>>");
  ASSERT_NE(open, std::string::npos);
  size_t pos = s.find('\n', open) + 1;
  while (pos < close) {
    const size_t end = s.find('\n', pos);
    const std::string line = s.substr(pos, end - pos);
    if (line.find("review:") != std::string::npos) {
      EXPECT_TRUE(line.ends_with("removed.")) << "a review line cut: " << line;
    }
    pos = end + 1;
  }
}

// "One triage entry says '122 in code' on its size line and '27 lines of
// code changed' on its analysis line": the two count the same lines.
TEST(ModelPathTriage, TheSizeLineAgreesWithTheAnalysisLine) {
  Change c;
  c.repo = "o/r";
  c.kind = ChangeKind::kSquash;
  c.number = 7;
  c.sha = "7777777777777777777777777777777777777777";
  c.title = "Tidy the loader and fix its guard";
  c.files.push_back(testing::file_from_patch(
      "python/pkg/loader.py", "@@ -1,2 +1,3 @@\n x = 1\n+if x:\n+    y = 2\n-z = 3\n"));
  c.files.push_back(testing::file_from_patch(
      "python/pkg/old_names.py", "@@ -1,2 +1,2 @@\n-a = 1\n-b = 2\n+a_ = 1\n+b_ = 2\n"));
  Facts f;
  f.roles = {{"python/pkg/loader.py", FileRole::kCore},
             {"python/pkg/old_names.py", FileRole::kCore}};
  f.skim = {{"python/pkg/old_names.py", "rename-only"}};
  f.importance = Score{3, {"3 lines of code changed"}};
  f.insight = Score{2, {"routine"}};
  std::vector<TriageInput> in{{1, &c, &f, ""}};
  Prompt p = build_triage_prompt("o/r", "2026-08-14", 1, 1, in);
  EXPECT_NE(p.user.find("(3 lines of code, 4 more in clean-up files)"), std::string::npos)
      << p.user;
  EXPECT_NE(p.user.find("3 lines of code changed"), std::string::npos);
}

// "A planted fabrication survives in the text": the rejected range goes from
// the point's question too.
TEST_F(ModelPath, ARejectedLineRangeGoesWhereverTheItemRepeatsIt) {
  json zh = guide_answer("zh"), en = guide_answer("en");
  zh["focus"].push_back({{"path", "python/pkg/srt/model_loader/loader.py"},
                         {"start_line", 9001},
                         {"end_line", 9010},
                         {"symbol", ""},
                         {"question", "第 9001-9010 行的批量清零是否与单次清零等价？"},
                         {"why", "清零集中在这里。"}});
  en["focus"].push_back({{"path", "python/pkg/srt/model_loader/loader.py"},
                         {"start_line", 9001},
                         {"end_line", 9010},
                         {"symbol", ""},
                         {"question",
                          "Is the batched zeroing at lines 9001-9010 equivalent to zeroing each "
                          "buffer?"},
                         {"why", "The zeroing sits here."}});
  auto guides = write_both(c, f, &t, answer_both(t, zh, en));
  ASSERT_EQ(guides.size(), 2u);
  for (const auto& g : guides) {
    EXPECT_EQ(all_text(g).find("9001"), std::string::npos) << g.lang << ": " << all_text(g);
    ASSERT_EQ(g.focus.size(), 2u) << g.lang;
    EXPECT_EQ(g.focus[1].start_line, 0);
    EXPECT_TRUE(logged(g.writer.removed, "focus[1].question: 9001-9010 (the rejected range"))
        << ::testing::PrintToString(g.writer.removed);
  }
  EXPECT_EQ(guides[0].focus[1].question, "批量清零是否与单次清零等价？");
  EXPECT_EQ(guides[1].focus[1].question,
            "Is the batched zeroing equivalent to zeroing each buffer?");
}

// "Two replayed headlines are still over the examples' length (40 Chinese /
// 90 Latin characters)".
TEST(ModelPathLength, HeadlinesOverTheExamplesLengthAreShortened) {
  const std::string zh =
      "移除 `--torchao-config` 参数并删除加载流程中的 torchao 量化调用以统一到 `--quantization` "
      "路径上避免两套配置";
  ASSERT_GT(headline_width(zh), kHeadlineWidth);
  const std::string zh_fit = fit_headline(zh);
  EXPECT_LE(headline_width(zh_fit), kHeadlineWidth) << zh_fit;
  EXPECT_TRUE(zh.starts_with(zh_fit));
  const std::string en =
      "Drop the torchao configuration flag from the server arguments and remove its call from "
      "the model loader for good";
  ASSERT_GT(en.size(), 90u);
  const std::string en_fit = fit_headline(en);
  EXPECT_LE(en_fit.size(), 90u) << en_fit;
  EXPECT_EQ(en_fit, "Drop the torchao configuration flag from the server arguments");
  EXPECT_NEAR(headline_width(std::string(90, 'a')), kHeadlineWidth, 0.01);
  EXPECT_NEAR(
      headline_width(
          "调度器拆分出口标签与分发标签调度器拆分出口标签与分发标签调度器拆分出口标签与分发"),
      40, 0.01);
}

}  // namespace
}  // namespace mergelens
