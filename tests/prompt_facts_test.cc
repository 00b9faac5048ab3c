// The facts section of a guide prompt names what a guide must not get wrong
// about the change's own code: the tests it adds (so a guide does not ask for
// them) and the overrides it removes that a base class still defines (so a
// guide does not call them gone).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "mergelens/analysis/analyzer.h"
#include "mergelens/guide/prompt.h"
#include "test_helpers.h"

namespace mergelens {
namespace {

Change kv_change() {
  Change c;
  c.repo = "o/r";
  c.kind = ChangeKind::kSquash;
  c.number = 77;
  c.sha = "89abcdef0123456789abcdef0123456789abcdef";
  c.title = "Drop the subclass copies of the stored-request counters (#77)";
  c.merged_at = 1788000000;
  c.files.push_back(testing::file_from_patch("pkg/transfer.py",
                                             "@@ -10,8 +10,3 @@ class LayerThread(BaseThread):\n"
                                             "     def run(self):\n"
                                             "         self.step()\n"
                                             "-    def add_stored_request(self, rid):\n"
                                             "-        self.stored[rid] += 1\n"
                                             "-\n"
                                             "-    def dec_stored_request(self, rid):\n"
                                             "-        self.stored[rid] -= 1\n"
                                             "     def step(self):\n",
                                             FileStatus::kModified));
  c.files.push_back(testing::file_from_patch("tests/test_transfer.py",
                                             "@@ -1,2 +1,8 @@\n"
                                             " import pytest\n"
                                             " \n"
                                             "+def test_counts_survive_a_retry():\n"
                                             "+    assert True\n"
                                             "+\n"
                                             "+\n"
                                             "+def test_counter_goes_to_zero():\n"
                                             "+    assert True\n",
                                             FileStatus::kModified));
  return c;
}

Facts kv_facts(const Change& c) {
  auto ctx = make_context(c.repo, "", "");
  EXPECT_TRUE(ctx);
  Facts f = analyze_change(c, *ctx);
  // What the parser reports when it reads both trees: the base class still
  // defines the removed overrides (analysis/code/context.h, DefinitionFate).
  for (auto& d : f.definitions)
    if (d.name.ends_with("add_stored_request") || d.name.ends_with("dec_stored_request"))
      d.change = "inherited";
  return f;
}

TEST(PromptFacts, NamesTheTestsTheChangeAdds) {
  Change c = kv_change();
  Facts f = kv_facts(c);
  ASSERT_FALSE(f.tests.empty());
  Prompt p = build_prompt(c, f, "en", 12000);
  const size_t at = p.user.find("test: tests/test_transfer.py");
  ASSERT_NE(at, std::string::npos) << p.user;
  const std::string line = p.user.substr(at, p.user.find('\n', at) - at);
  EXPECT_NE(line.find("the change adds or edits"), std::string::npos) << line;
  EXPECT_NE(line.find("test_counts_survive_a_retry"), std::string::npos) << line;
  EXPECT_NE(line.find("test_counter_goes_to_zero"), std::string::npos) << line;
}

TEST(PromptFacts, ARemovedOverrideIsNotCalledGone) {
  Change c = kv_change();
  Facts f = kv_facts(c);
  bool inherited = false;
  for (const auto& d : f.definitions) inherited |= d.change == "inherited";
  ASSERT_TRUE(inherited) << "the change's removed methods are not in the facts";
  Prompt p = build_prompt(c, f, "en", 12000);
  EXPECT_NE(p.user.find("removed override (a base class still defines) method"), std::string::npos)
      << p.user;
  EXPECT_EQ(p.user.find("inherited method"), std::string::npos);
  // The rules say what a removed override means, and to look before asking.
  EXPECT_NE(p.system.find("still inherited from its base"), std::string::npos);
  EXPECT_NE(p.system.find("Look for the answer before you ask"), std::string::npos);
}

// A split PR's notes over their share of the reduce prompt lose whole notes,
// the last of each part first, never a part's every note nor half a sentence.
TEST(PromptReduce, NotesOverTheirShareKeepWholeNotesOfEveryPart) {
  Change c = kv_change();
  Facts f = kv_facts(c);
  std::string notes;
  for (int part = 1; part <= 3; ++part) {
    notes += fmt::format("Part {}:\n", part);
    for (int k = 1; k <= 12; ++k) {
      notes += fmt::format("- `pkg/transfer.py`:10-12 `run`: note {}.{} says", part, k);
      for (int w = 0; w < 60; ++w) notes += " word";
      notes += fmt::format(" and ends here {}.{}.\n", part, k);
    }
  }
  const size_t budget = 6000;
  Prompt p = build_reduce_prompt(c, f, "en", notes, budget);
  EXPECT_EQ(p.user.find("[… clipped]"), std::string::npos);
  for (int part = 1; part <= 3; ++part) {
    EXPECT_NE(p.user.find(fmt::format("Part {}:", part)), std::string::npos) << part;
    // Each part keeps its best note, whole.
    EXPECT_NE(p.user.find(fmt::format("note {}.1 says", part)), std::string::npos) << part;
    EXPECT_NE(p.user.find(fmt::format("ends here {}.1.", part)), std::string::npos) << part;
  }
  // Every note shown is shown whole, and what was left out is counted.
  for (int part = 1; part <= 3; ++part)
    for (int k = 1; k <= 12; ++k)
      EXPECT_EQ(p.user.find(fmt::format("note {}.{} says", part, k)) == std::string::npos,
                p.user.find(fmt::format("ends here {}.{}.", part, k)) == std::string::npos)
          << part << "." << k;
  EXPECT_NE(p.user.find("more notes of this part left out for room"), std::string::npos);
  EXPECT_EQ(p.user.find("note 1.12 says"), std::string::npos) << "the notes were not over budget";
}

// A diff excerpt with no room for any line is left out, not shown as an
// empty fence.
TEST(PromptReduce, NoEmptyDiffFence) {
  Change c = kv_change();
  Facts f = kv_facts(c);
  std::string notes = "Part 1:\n";
  for (int k = 1; k <= 40; ++k) {
    notes += fmt::format("- `pkg/transfer.py`:10-12 `run`: note {}", k);
    for (int w = 0; w < 60; ++w) notes += " word";
    notes += ".\n";
  }
  Prompt p = build_reduce_prompt(c, f, "en", notes, 2500);
  const std::string fence = "<<<UNTRUSTED " + c.sha.substr(0, 12) + "\nUNTRUSTED>>>";
  EXPECT_EQ(p.user.find(fence), std::string::npos) << p.user;
}

}  // namespace
}  // namespace mergelens
