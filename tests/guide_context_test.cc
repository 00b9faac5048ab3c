// The model writer's prompt with the code around the change, and the checks
// that keep what the model says about that code true: claims about switches,
// defaults and "new" things judged against the parent, and the prompt's own
// words kept out of the guide.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "mergelens/guide/citations.h"
#include "mergelens/guide/claims.h"
#include "mergelens/guide/prompt.h"
#include "mergelens/guide/prompt_context.h"
#include "mergelens/guide/prompt_excerpt.h"
#include "mergelens/guide/prompt_leaks.h"
#include "mergelens/llm/tokens.h"
#include "test_helpers.h"

namespace mergelens {
namespace {

using testing::file_from_patch;

// An added Python file of three functions, the second and third 30 lines long.
Change three_functions() {
  std::string patch = "@@ -0,0 +1,75 @@\n";
  auto fn = [&](const std::string& name, int lines) {
    patch += fmt::format("+def {}(x):\n", name);
    for (int i = 0; i < lines - 2; ++i) patch += fmt::format("+    x = x + {}  # step {}\n", i, i);
    patch += "+    return x\n";
  };
  fn("first", 10);
  patch += "+\n";
  fn("second", 30);
  patch += "+\n";
  fn("third", 33);
  Change c;
  c.repo = "o/r";
  c.sha = "0123456789abcdef0123456789abcdef01234567";
  c.files.push_back(file_from_patch("pkg/steps.py", patch, FileStatus::kAdded));
  return c;
}

TEST(PromptExcerpt, APartNeverEndsMidFunctionWhenTheFunctionFits) {
  Change c = three_functions();
  Facts f;
  f.languages["pkg/steps.py"] = Language::kPython;
  f.roles["pkg/steps.py"] = FileRole::kCore;
  f.focus.push_back({"pkg/steps.py", 1, 75, "", 1.0, {}, 75});
  // Room for the first function and most of the second (which alone fits).
  const auto& lines = c.files[0].hunks[0].lines;
  long room = 0;
  for (size_t i = 0; i < 36; ++i)
    room +=
        static_cast<long>(llm::estimate_tokens(fmt::format("{:>5} +{}\n", i + 1, lines[i].text)));
  auto ex = prompt_detail::build_excerpt(c, f, {0}, room + 40, /*other_hunks=*/false);
  EXPECT_NE(ex.diff.find("def first(x):"), std::string::npos);
  EXPECT_NE(ex.diff.find("    return x"), std::string::npos) << "the first function is whole";
  EXPECT_EQ(ex.diff.find("+def second(x):"), std::string::npos)
      << "the second function fits a part whole, so it is not begun:\n"
      << ex.diff;
  EXPECT_NE(ex.diff.find("cut before `def second(x):`"), std::string::npos) << ex.diff;
  ASSERT_FALSE(ex.cut.empty());
  EXPECT_NE(ex.cut[0].find("pkg/steps.py: new-file lines 12-"), std::string::npos) << ex.cut[0];
  // A function larger than the whole room is cut where the room ends.
  auto tiny = prompt_detail::build_excerpt(c, f, {0}, 60, /*other_hunks=*/false);
  EXPECT_NE(tiny.diff.find("def first(x):"), std::string::npos);
}

TEST(Prompt, TheContextHasItsOwnHeadingAndTheWholeDiffWhenItFits) {
  Change c = three_functions();
  Facts f;
  f.languages["pkg/steps.py"] = Language::kPython;
  f.switches_known = true;
  SwitchFact sw;
  sw.name = "SGLANG_OPT_X";
  sw.kind = "env";
  sw.change = "used";
  sw.existed_at_parent = true;
  sw.before = {
      true, "pkg/environ.py", 12, "registry", "True", true, "SGLANG_OPT_X = EnvBool(True)"};
  sw.after = sw.before;
  f.switches.push_back(sw);
  ContextText helper{{"called", "clamp", "function", "pkg/util.py", 4, 6, "parent", "(x, lo=0)",
                      "pkg/steps.py:3", ""},
                     "def clamp(x, lo=0):\n    \"\"\"Clamps x.\"\"\"\n    return max(lo, x)\n"};
  Prompt p = build_prompt(c, f, "en", 12000, {helper});
  auto ctx = p.user.find("## Code around the change");
  ASSERT_NE(ctx, std::string::npos) << p.user;
  EXPECT_NE(p.user.find("def clamp(x, lo=0):", ctx), std::string::npos);
  EXPECT_NE(p.user.find("`SGLANG_OPT_X` (environment variable): before this change: declared "
                        "in the env registry at pkg/environ.py:12"),
            std::string::npos)
      << p.user;
  EXPECT_NE(p.user.find("it existed before"), std::string::npos);
  EXPECT_NE(p.user.find("## The whole diff"), std::string::npos);
  EXPECT_EQ(p.user.find("## What you were not shown"), std::string::npos);
  // In a small budget the diff is an excerpt and what it leaves out is named.
  // (No focus region here, so the excerpt has no lines and no empty fence.)
  Prompt small = build_prompt(c, f, "en", 2600, {helper});
  EXPECT_EQ(small.user.find("## The whole diff"), std::string::npos);
  EXPECT_EQ(small.user.find("## Diff excerpt"), std::string::npos) << small.user;
  EXPECT_NE(small.user.find("## What you were not shown"), std::string::npos) << small.user;
  EXPECT_NE(small.system.find("ask it in \"questions\""), std::string::npos);
}

// A class too long to show whole shows its head and then its members: each
// method's `def` line and the first line of its docstring, so what the class
// does to its input is in the prompt ("strips decorators").
TEST(Prompt, ALongClassShowsItsMembersAfterItsHead) {
  Change c = three_functions();
  Facts f;
  f.languages["pkg/steps.py"] = Language::kPython;
  std::string cls =
      "class Rewriter(ast.NodeTransformer):\n"
      "    \"\"\"Rewrites a forward for tracing.\"\"\"\n"
      "\n"
      "    def rewrite(self, tree):\n"
      "        return self.visit(tree)\n"
      "\n"
      "    def visit_FunctionDef(self, node):\n"
      "        \"\"\"\n"
      "        Remove decorators which prevent recompilation\n"
      "        \"\"\"\n"
      "        node.decorator_list = []\n"
      "        def inner():\n"
      "            pass\n";
  for (int i = 0; i < 120; ++i) cls += fmt::format("        node.x{} = {}\n", i, i);
  cls += "    def visit_Name(self, node):  \"\"\"Collect local names.\"\"\"\n        return node\n";
  ContextText rewriter{{"callee", "Rewriter", "class", "pkg/rewriter.py", 1, 140, "merge",
                        "class Rewriter(ast.NodeTransformer)", "pkg/steps.py:3", ""},
                       cls};
  Prompt p = build_prompt(c, f, "en", 12000, {rewriter});
  const size_t ctx = p.user.find("## Code around the change");
  ASSERT_NE(ctx, std::string::npos) << p.user;
  EXPECT_NE(p.user.find("called at pkg/steps.py:3 by a definition this change edits", ctx),
            std::string::npos)
      << p.user;
  EXPECT_NE(p.user.find("    def visit_FunctionDef(self, node):\n", ctx), std::string::npos);
  EXPECT_NE(p.user.find("Remove decorators which prevent recompilation…", ctx), std::string::npos);
  EXPECT_NE(p.user.find("    def visit_Name(self, node):", ctx), std::string::npos);
  EXPECT_NE(p.user.find("Collect local names.\"\"\"\n", ctx), std::string::npos);
  EXPECT_EQ(p.user.find("def inner():", ctx), std::string::npos) << "a nested def is no member";
  EXPECT_EQ(p.user.find("node.x100 = 100", ctx), std::string::npos) << "the body stays out";
}

// Where an attribute the change reads is set is a few lines that settle a
// reader's doubt; it goes before the long definitions, which would
// otherwise take its room.
TEST(Prompt, WhereAnAttributeIsSetComesBeforeLongDefinitions) {
  Change c = three_functions();
  Facts f;
  f.languages["pkg/steps.py"] = Language::kPython;
  std::string body = "def transfer(self, req):\n";
  for (int i = 0; i < 70; ++i)
    body += fmt::format("    self.queue.put((req, {}))  # a step that takes room {}\n", i, i);
  ContextText called{{"called", "Thread.transfer", "method", "pkg/thread.py", 10, 80, "parent",
                      "(self, req)", "pkg/steps.py:3", ""},
                     body};
  ContextText attribute{{"attribute", "Thread.stored", "attribute", "pkg/thread.py", 5, 5, "merge",
                         "", "pkg/steps.py:4", ""},
                        "        self.stored = defaultdict(int)\n"};
  const long both = static_cast<long>(prompt_detail::context_cost(c, f, {called, attribute}));
  const long attribute_only = static_cast<long>(prompt_detail::context_cost(c, f, {attribute}));
  // Room for the attribute, not for the definition (nor its head) as well.
  auto section = prompt_detail::context_section(c, f, {called, attribute}, attribute_only + 10);
  EXPECT_NE(section.text.find("self.stored = defaultdict(int)"), std::string::npos) << section.text;
  EXPECT_NE(section.text.find("where `Thread.stored`, read by the changed line pkg/steps.py:4, "
                              "is set; unchanged by this change"),
            std::string::npos)
      << section.text;
  ASSERT_EQ(section.left_out.size(), 1u);
  EXPECT_NE(section.left_out[0].find("Thread.transfer"), std::string::npos);
  // With room for both, the attribute still comes first.
  auto all = prompt_detail::context_section(c, f, {called, attribute}, both + 100);
  EXPECT_TRUE(all.left_out.empty());
  EXPECT_LT(all.text.find("self.stored ="), all.text.find("def transfer"));
}

// An existing test that calls an edited definition is named with what it
// calls; a long one shows its head and the lines around the call, and the
// count of the lines left out leaves out those it shows.
TEST(Prompt, AnExistingTestShowsItsCallOfTheEditedDefinition) {
  Change c = three_functions();
  Facts f;
  f.languages["pkg/steps.py"] = Language::kPython;
  std::string body = "def test_long_run():\n    \"\"\"Runs many steps.\"\"\"\n";
  for (int i = 0; i < 100; ++i) body += fmt::format("    state = advance(state, {})\n", i);
  body += "    assert second(state) == 7\n";
  for (int i = 0; i < 10; ++i) body += fmt::format("    state = advance(state, {})\n", i);
  // Lines 20-132 at the merge; the call is the test's line 103, file line 122.
  ContextText test{{"test", "test_long_run", "function", "tests/test_steps.py", 20, 132, "merge",
                    "()", "tests/test_steps.py:122", "second"},
                   body};
  auto section = prompt_detail::context_section(c, f, {test}, 100000);
  const std::string& t = section.text;
  EXPECT_NE(t.find("an existing test, unchanged by this change, that calls `second` (call at "
                   "tests/test_steps.py:122)"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("def test_long_run():"), std::string::npos) << t;
  EXPECT_NE(t.find("    assert second(state) == 7\n"), std::string::npos) << t;
  EXPECT_NE(t.find("advance(state, 99)"), std::string::npos) << "two lines before the call";
  EXPECT_EQ(t.find("advance(state, 50)"), std::string::npos) << "the middle stays out";
  // 113 lines: the head (2 lines, up to the docstring) and 5 around the call.
  EXPECT_NE(t.find("(106 other lines not shown)"), std::string::npos) << t;
}

TEST(PromptLeaks, WordsOfThePromptAreRewrittenOrRemovedInBothLanguages) {
  Guide g;
  g.summary = "According to the facts, `step` returns early. It keeps the cache warm.";
  g.why = "The excerpt stops before the consumer, so its effect is unclear.";
  g.design_decisions = {"事实部分显示该开关默认关闭。缓存保持预热。",
                        "The guard (not shown in the excerpt) protects the fast path.",
                        "The fact that `step` returns early saves a copy.",
                        "Prompt tokens are counted before the prefix cache is read."};
  g.questions = {"摘录中没有展示调用方，调用方是否也要改？"};
  EXPECT_EQ(rewrite_prompt_words(g), 3u);
  EXPECT_EQ(g.summary, "`step` returns early. It keeps the cache warm.");
  EXPECT_EQ(g.design_decisions[0], "该开关默认关闭。缓存保持预热。");
  EXPECT_EQ(g.design_decisions[1], "The guard protects the fast path.");
  std::vector<CitationFailure> leaks;
  find_prompt_leaks(g, leaks);
  std::vector<std::string> fields;
  for (const auto& l : leaks) fields.push_back(l.field);
  EXPECT_EQ(fields, (std::vector<std::string>{"why", "questions[0]"}));
  EXPECT_TRUE(mentions_prompt("The analysis flags `x` as a fallback."));
  EXPECT_FALSE(mentions_prompt("The analysis's verdict undersells it.", /*allow_analysis=*/true));
  // Removing them leaves the rest of each text.
  Change c = three_functions();
  Facts f;
  CitationIndex index(c, f);
  Guide fallback;
  fallback.why = "";
  remove_failed_citations(g, leaks, fallback, index);
  EXPECT_TRUE(g.questions.empty());
  EXPECT_EQ(g.why.find("excerpt"), std::string::npos);
  EXPECT_EQ(g.design_decisions[2], "The fact that `step` returns early saves a copy.");
}

class Claims : public ::testing::Test {
 protected:
  Claims() {
    c = three_functions();
    c.files.push_back(
        file_from_patch("pkg/environ.py",
                        "@@ -10,2 +10,3 @@\n class Envs:\n     SGLANG_A = EnvBool(True)\n"
                        "+    SGLANG_OPT_X = EnvBool(True)\n"));
    c.files.push_back(file_from_patch("pkg/cache.py",
                                      "@@ -1,2 +1,2 @@\n def free(self):\n-    if flag:\n"
                                      "+    if envs.SGLANG_OPT_X.get() and not self.is_eagle:\n"));
    f.switches_known = true;
    f.context_known = true;
    SwitchFact x;  // read with a default long before this change moved it to the registry
    x.name = "SGLANG_OPT_X";
    x.kind = "env";
    x.change = "redeclared";
    x.existed_at_parent = true;
    x.before = {true,
                "pkg/cache.py",
                2,
                "read_default",
                "\"true\"",
                true,
                "get_bool_env_var(\"SGLANG_OPT_X\", \"true\")"};
    x.after = {
        true, "pkg/environ.py", 12, "registry", "True", true, "SGLANG_OPT_X = EnvBool(True)"};
    x.introduced_by = "#120";
    SwitchFact a;
    a.name = "SGLANG_A";
    a.kind = "env";
    a.change = "used";
    a.existed_at_parent = true;
    a.before = {true, "pkg/environ.py", 11, "registry", "True", true, "SGLANG_A = EnvBool(True)"};
    a.after = a.before;
    f.switches = {a, x};
    f.context.push_back({"changed", "free", "function", "pkg/cache.py", 1, 2, "parent", "(self)",
                         "pkg/cache.py:2", ""});
  }
  std::vector<CitationFailure> check(const Guide& g) {
    CitationIndex index(c, f);
    std::vector<CitationFailure> out;
    check_claims(g, index, out);
    return out;
  }
  Change c;
  Facts f;
};

TEST_F(Claims, ASwitchThatPreExistsIsNotNewNorIsWhatArguesFromIt) {
  Guide g;
  g.headline = "新增开关 `SGLANG_OPT_X` 控制缓存释放";
  g.summary = "This PR introduces the `SGLANG_OPT_X` switch and skips eagle trees.";
  g.design_decisions = {
      "Guarding the path with a switch allows a gradual rollout of "
      "`SGLANG_OPT_X`.",
      "`self.is_eagle` is checked before the free."};
  g.why = "`SGLANG_OPT_X` is read from the env registry.";
  auto fails = check(g);
  std::vector<std::string> fields;
  for (const auto& x : fails) fields.push_back(x.field);
  EXPECT_EQ(fields, (std::vector<std::string>{"headline", "summary", "design_decisions[0]"}));
  EXPECT_NE(fails[0].reason.find("existed before this change (read_default at pkg/cache.py:2)"),
            std::string::npos)
      << fails[0].reason;
}

TEST_F(Claims, DefaultsAreCheckedAgainstTheDeclarationBeforeAndAfter) {
  Guide g;
  g.design_decisions = {"`SGLANG_A` is off by default, so users opt in.",
                        "`SGLANG_A` defaults to `True`.",
                        "This PR changes the default of `SGLANG_A`.",
                        "It only matters when `SGLANG_OPT_X` is on; limited reach.",
                        "`SGLANG_OPT_X` is on by default."};
  auto fails = check(g);
  std::vector<std::string> fields;
  for (const auto& x : fails) fields.push_back(x.field);
  EXPECT_EQ(fields, (std::vector<std::string>{"design_decisions[0]", "design_decisions[2]",
                                              "design_decisions[3]"}));
  EXPECT_NE(fails[1].reason.find("before and after"), std::string::npos) << fails[1].reason;
  EXPECT_NE(fails[2].reason.find("on by default"), std::string::npos) << fails[2].reason;
}

TEST_F(Claims, AClaimAboutTheParentThatIsFalse) {
  Guide g;
  g.why = "The PR adds a new function `free` that skips eagle trees.";
  g.summary = "新增文件 `pkg/cache.py`，并新增函数 `first`。";
  auto fails = check(g);
  ASSERT_EQ(fails.size(), 2u);
  EXPECT_EQ(fails[0].field, "summary");
  EXPECT_EQ(fails[0].citation, "`pkg/cache.py`") << "`first` is added by the change: true";
  EXPECT_EQ(fails[1].field, "why");
  EXPECT_EQ(fails[1].citation, "`free`");
}

TEST_F(Claims, NewBeforeANameThatModifiesAnotherNounClaimsNothingAboutTheName) {
  // "the new `free` rule": the rule is new; `free` is not said to be. A true
  // sentence that only names a subject found false elsewhere stays.
  Guide g;
  g.advice.push_back({"maintainers", "Check that weight loading matches the new `free` rule."});
  g.digest = "Read `free` and the two new helpers; the rest follows.";
  g.why = "The new `free` path is taken for eagle trees.";
  g.summary = "Adds a new function `free` that skips eagle trees.";
  g.design_decisions = {"The new `free` reads the flag once.",
                        "新的 `free` 规则只在 eagle 树上生效。", "`free` 新增了一个分支。",
                        "`free` 是新增的。"};
  auto fails = check(g);
  std::vector<std::string> fields;
  for (const auto& x : fails) fields.push_back(x.field);
  EXPECT_EQ(fields,
            (std::vector<std::string>{"summary", "design_decisions[0]", "design_decisions[3]"}));
}

// The change that first declared a switch is named by the prompt ("First
// declared by #120"): a guide may cite it; a PR the material never names
// still fails.
TEST_F(Claims, TheChangeThatFirstDeclaredASwitchMayBeCited) {
  Guide g;
  g.references.push_back({"#120", "context", "first declared `SGLANG_OPT_X`"});
  g.references.push_back({"#121", "context", "a PR nothing names"});
  CitationIndex index(c, f);
  auto fails = check_citations(g, index);
  std::vector<std::string> refs;
  for (const auto& x : fails) refs.push_back(x.citation);
  EXPECT_EQ(refs, std::vector<std::string>{"#121"});
}

// A gap asking for an assertion the change's tests already add is false (the
// model proposed, word for word, an `assert` its PR adds): the sentence goes.
// The same assertion in a code file, a different one, a short fragment or a
// test the change does not touch leave the gap alone.
TEST(GapClaims, AnAssertionTheChangeAlreadyAddsIsNoGap) {
  Change c;
  c.repo = "o/r";
  c.files.push_back(
      file_from_patch("tests/ut/test_registration.py",
                      "@@ -1,2 +1,9 @@\n def test_registered():\n     registrations = load()\n"
                      "+    assert registrations[\"OffloadingConnector\"] == (\n"
                      "+        \"vllm_ascend.kv_offload\",\n"
                      "+        \"AscendConnector\",\n"
                      "+    )\n"
                      "+    assert len(registrations)   >  3\n"
                      "+    self.assertEqual(load_spec(\"cpu\").backend, \"native\")\n",
                      FileStatus::kModified));
  c.files.push_back(file_from_patch(
      "pkg/registry.py", "@@ -1 +1,2 @@\n x = 1\n+assert handlers[\"npu\"] is not None\n",
      FileStatus::kModified));
  Facts f;
  f.roles["tests/ut/test_registration.py"] = FileRole::kTest;
  f.roles["pkg/registry.py"] = FileRole::kCore;
  Guide g;
  g.gaps = {
      "Pin the registration: add `assert registrations['OffloadingConnector'] == …` to the test.",
      "Add `assert registrations[\"OffloadingConnector\"] == (\"vllm_ascend.kv_offload\", "
      "\"AscendConnector\")` to the test. Also cover two workers.",
      "补一条断言 `assert len(registrations) > 3`。",
      "Add `self.assertEqual(load_spec(\"cpu\").backend, \"native\")` beside the NPU case.",
      "Add `assert handlers[\"npu\"] is not None` to a test.",
      "Add `assert len(registrations) > 4` for the new entry.",
      "Add `assert x`.",
      "Measure `load()` on 8 workers.",
      "Next to `assert len(registrations) > 3`, check the CPU backend too."};
  CitationIndex index(c, f);
  std::vector<CitationFailure> fails;
  check_gap_claims(g, index, fails);
  std::vector<std::string> fields;
  for (const auto& x : fails) fields.push_back(x.field);
  EXPECT_EQ(fields, (std::vector<std::string>{"gaps[0]", "gaps[1]", "gaps[2]", "gaps[3]"}))
      << "gaps[0] quotes with single quotes (the same Python), gaps[4] an assertion of a code "
         "file, gaps[5] another bound, gaps[6] too short a fragment, gaps[8] names the "
         "assertion as a place";
  ASSERT_EQ(fails.size(), 4u);
  EXPECT_EQ(g.gaps[1].substr(fails[1].begin, fails[1].end - fails[1].begin),
            "Add `assert registrations[\"OffloadingConnector\"] == (\"vllm_ascend.kv_offload\", "
            "\"AscendConnector\")` to the test. ")
      << "only the sentence that asks for it";
  EXPECT_NE(fails[1].reason.find("tests/ut/test_registration.py"), std::string::npos);
}

}  // namespace
}  // namespace mergelens
