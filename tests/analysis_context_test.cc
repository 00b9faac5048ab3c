// The context resolver's indexes: the switch registry's and the symbol
// index's lookups by name, as edits move them along a history.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "mergelens/analysis/code/context.h"
#include "mergelens/analysis/code/switches.h"

namespace mergelens {
namespace {

// The by-name index follows edits: a lookup gives every declaration of the
// name by path, then in the file's order, after files are set, re-set
// (fewer declarations) and removed in any order.
TEST(Switches, TheNameIndexFollowsEdits) {
  SwitchRegistry r;
  r.set_file("z/late.py", "A = os.getenv(\"SOME_X\")\nB = os.getenv(\"SOME_X\", \"1\")\n");
  r.set_file("a/early.py", "A = os.getenv(\"SOME_X\")\nC = os.getenv(\"OTHER_Y\")\n");
  r.set_file("m/mid.py", "A = os.getenv(\"SOME_X\")\nB = os.getenv(\"SOME_X\")\n");
  auto where = [&](std::string_view name) {
    std::vector<std::string> out;
    for (const auto& d : r.lookup(name)) out.push_back(fmt::format("{}:{}", d.path, d.line));
    return out;
  };
  // lookup() sorts by origin first: reads with a default before those without.
  EXPECT_EQ(where("SOME_X"), (std::vector<std::string>{"z/late.py:2", "a/early.py:1", "m/mid.py:1",
                                                       "m/mid.py:2", "z/late.py:1"}));
  r.set_file("m/mid.py", "B = os.getenv(\"SOME_X\")\n");  // re-set: one declaration left
  r.remove_file("a/early.py");
  EXPECT_EQ(where("SOME_X"),
            (std::vector<std::string>{"z/late.py:2", "m/mid.py:1", "z/late.py:1"}));
  EXPECT_TRUE(where("OTHER_Y").empty());
  EXPECT_EQ(r.names(), 1u);
  r.set_file("z/late.py", "x = 1\n");
  EXPECT_EQ(r.primary("SOME_X")->path, "m/mid.py");
  r.remove_file("m/mid.py");
  EXPECT_EQ(r.primary("SOME_X"), nullptr);
  EXPECT_EQ(r.names(), 0u);
}

// The symbol index's by-name lookup: every tag of the name, by path then in
// the file's order, whatever order files were set, replaced and removed in.
TEST(Context, TheSymbolIndexLookupFollowsEdits) {
  auto tag = [](std::string name, std::string scope, std::int32_t line) {
    return CodeTag{std::move(name), std::move(scope), "method", line, line + 2, "(self)", ""};
  };
  SymbolIndex index;
  index.set_file("z.py", {tag("run", "Z", 3), tag("stop", "Z", 9), tag("run", "Y", 20)});
  index.set_file("a.py", {tag("run", "A", 5)});
  index.set_file("m.py", {tag("run", "M", 7), tag("run", "N", 12)});
  auto where = [&](std::string_view name) {
    std::vector<std::string> out;
    for (const auto& [p, t] : index.lookup(name)) out.push_back(fmt::format("{}:{}", *p, t->line));
    return out;
  };
  EXPECT_EQ(where("run"),
            (std::vector<std::string>{"a.py:5", "m.py:7", "m.py:12", "z.py:3", "z.py:20"}));
  index.set_file("m.py", {tag("run", "M", 8)});
  index.remove_file("a.py");
  EXPECT_EQ(where("run"), (std::vector<std::string>{"m.py:8", "z.py:3", "z.py:20"}));
  EXPECT_EQ(where("stop"), (std::vector<std::string>{"z.py:9"}));
  index.set_file("z.py", {});
  EXPECT_EQ(where("run"), (std::vector<std::string>{"m.py:8"}));
  EXPECT_TRUE(where("stop").empty());
  EXPECT_EQ(index.tags(), 1u);
  EXPECT_EQ(index.files(), 1u);
}

}  // namespace
}  // namespace mergelens
