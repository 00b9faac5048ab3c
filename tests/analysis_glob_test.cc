// Tests for analysis/glob.h: the glob dialect of mergelens.toml and of
// labeler files (globstar, braces, extglobs, classes), its errors and its
// linear-time matching.

#include <string>
#include <string_view>

#include <gtest/gtest.h>

#include "mergelens/analysis/glob.h"

namespace mergelens {
namespace {

Glob glob(std::string_view pattern) {
  auto g = Glob::compile(pattern);
  EXPECT_TRUE(g.has_value()) << pattern << ": " << (g ? "" : g.error().message);
  return g ? *g : Glob();
}

// ------------------------------------------------------------------ globs --

TEST(Glob, StarStaysInsideOneSegment) {
  const Glob g = glob("src/*.py");
  EXPECT_TRUE(g.matches("src/a.py"));
  EXPECT_TRUE(g.matches("src/.hidden.py"));
  EXPECT_FALSE(g.matches("src/sub/a.py"));
  EXPECT_FALSE(g.matches("src/a.pyc"));
  EXPECT_FALSE(glob("a*b").matches("a/b"));
  EXPECT_TRUE(glob("a*b").matches("ab"));
}

TEST(Glob, GlobstarAtStartMiddleAndEnd) {
  const Glob start = glob("**/CMakeLists.txt");
  EXPECT_TRUE(start.matches("CMakeLists.txt"));  // zero folders
  EXPECT_TRUE(start.matches("a/b/CMakeLists.txt"));
  EXPECT_FALSE(start.matches("a/xCMakeLists.txt"));

  const Glob middle = glob("a/**/b");
  EXPECT_TRUE(middle.matches("a/b"));
  EXPECT_TRUE(middle.matches("a/x/y/b"));
  EXPECT_FALSE(middle.matches("a/xb"));
  EXPECT_FALSE(middle.matches("a/b/c"));
  EXPECT_TRUE(glob("a/**/b/**/c").matches("a/x/b/y/z/c"));

  const Glob end = glob("docs/**");
  EXPECT_TRUE(end.matches("docs/a.md"));
  EXPECT_TRUE(end.matches("docs/x/y/z.png"));
  EXPECT_FALSE(end.matches("docs"));  // minimatch: "a/**" does not match "a"
  EXPECT_FALSE(end.matches("docsx/a.md"));

  const Glob all_under = glob("sgl-model-gateway/**/*");
  EXPECT_TRUE(all_under.matches("sgl-model-gateway/Cargo.toml"));
  EXPECT_TRUE(all_under.matches("sgl-model-gateway/src/a/b.rs"));
  EXPECT_FALSE(all_under.matches("sgl-model-gateway"));

  EXPECT_TRUE(glob("**").matches("any/thing/at/all"));
  EXPECT_TRUE(glob("a**b").matches("axxb"));  // "**" inside a segment is a plain star
  EXPECT_FALSE(glob("a**b").matches("ax/xb"));
}

TEST(Glob, PatternWithoutSlashMatchesWholePathNotBasename) {
  EXPECT_TRUE(glob("*.md").matches("README.md"));
  EXPECT_FALSE(glob("*.md").matches("docs/README.md"));
  EXPECT_TRUE(glob("README*").matches("README.rst"));
  EXPECT_FALSE(glob("README*").matches("python/README.md"));
}

TEST(Glob, BracesAndSequences) {
  const Glob g = glob("{src,lib}/**/*.{cc,h}");
  EXPECT_TRUE(g.matches("src/a.cc"));
  EXPECT_TRUE(g.matches("lib/x/y.h"));
  EXPECT_FALSE(g.matches("src/a.py"));
  EXPECT_FALSE(g.matches("test/a.cc"));
  EXPECT_TRUE(glob("a{b,{c,d}e}f").matches("adef"));
  EXPECT_TRUE(glob("v{1..3}.txt").matches("v2.txt"));
  EXPECT_FALSE(glob("v{1..3}.txt").matches("v4.txt"));
  EXPECT_TRUE(glob("f{01..10}").matches("f07"));
  EXPECT_TRUE(glob("{a..c}x").matches("bx"));
  EXPECT_TRUE(glob("a{b}c").matches("a{b}c"));  // not a set: literal, as brace-expansion does
  EXPECT_TRUE(glob("x{,.bak}").matches("x"));
  EXPECT_TRUE(glob("x{,.bak}").matches("x.bak"));
}

TEST(Glob, DotfilesMatchLikeDotTrue) {
  EXPECT_TRUE(glob("*").matches(".gitignore"));
  EXPECT_TRUE(glob("**/*.yml").matches(".github/workflows/ci.yml"));
  EXPECT_TRUE(glob("**/*").matches(".pre-commit-config.yaml"));
  EXPECT_TRUE(glob("?git*").matches(".gitmodules"));
}

TEST(Glob, NegativeExtglob) {
  const Glob dir = glob("python/sglang/kernels/!(aot)/**/*");
  EXPECT_FALSE(dir.matches("python/sglang/kernels/aot/x.py"));
  EXPECT_FALSE(dir.matches("python/sglang/kernels/aot/csrc/a/b.cu"));
  EXPECT_TRUE(dir.matches("python/sglang/kernels/jit/x.py"));
  EXPECT_TRUE(dir.matches("python/sglang/kernels/aotx/x.py"));  // only the whole segment "aot"
  EXPECT_FALSE(dir.matches("python/sglang/kernels/x.py"));      // needs a folder

  const Glob file = glob("python/sglang/kernels/!(*.md)");
  EXPECT_TRUE(file.matches("python/sglang/kernels/x.py"));
  EXPECT_FALSE(file.matches("python/sglang/kernels/README.md"));
  EXPECT_FALSE(file.matches("python/sglang/kernels/jit/x.py"));

  // The negated part sees the rest of the segment (minimatch semantics).
  const Glob tail = glob("x!(a)b");
  EXPECT_FALSE(tail.matches("xab"));
  EXPECT_TRUE(tail.matches("xb"));
  EXPECT_TRUE(tail.matches("xcb"));
  EXPECT_TRUE(tail.matches("xaab"));
  EXPECT_TRUE(glob("!(a|b)").matches("c"));  // leading '!' is negation of "(a|b)"
}

TEST(Glob, PositiveExtglobs) {
  EXPECT_TRUE(glob("@(a|b).py").matches("b.py"));
  EXPECT_FALSE(glob("@(a|b).py").matches("ab.py"));
  EXPECT_TRUE(glob("x?(y).c").matches("x.c"));
  EXPECT_TRUE(glob("x?(y).c").matches("xy.c"));
  EXPECT_FALSE(glob("x?(y).c").matches("xyy.c"));
  EXPECT_TRUE(glob("+(ab)c").matches("ababc"));
  EXPECT_FALSE(glob("+(ab)c").matches("c"));
  EXPECT_TRUE(glob("*(ab)c").matches("c"));
  EXPECT_FALSE(glob("*(ab)c").matches("abac"));
  EXPECT_TRUE(glob("test_@(foo|bar*).py").matches("test_barbaz.py"));
  EXPECT_TRUE(glob("a/@(b|c)/**").matches("a/c/d"));
}

TEST(Glob, CharacterClasses) {
  EXPECT_TRUE(glob("[abc].txt").matches("b.txt"));
  EXPECT_FALSE(glob("[abc].txt").matches("d.txt"));
  EXPECT_TRUE(glob("[!a-c]x").matches("dx"));
  EXPECT_FALSE(glob("[!a-c]x").matches("bx"));
  EXPECT_TRUE(glob("[^a]x").matches("zx"));
  EXPECT_TRUE(glob("v[[:digit:]]").matches("v7"));
  EXPECT_FALSE(glob("v[[:digit:]]").matches("vx"));
  EXPECT_TRUE(glob("[]]").matches("]"));
  EXPECT_FALSE(glob("a[!x]b").matches("a/b"));  // never crosses '/'
}

TEST(Glob, NegationCommentEscapesAndUtf8) {
  const Glob neg = glob("!docs/**");
  EXPECT_TRUE(neg.negated());
  EXPECT_FALSE(neg.matches("docs/a.md"));
  EXPECT_TRUE(neg.matches("src/a.py"));
  EXPECT_TRUE(glob("!!a").matches("a"));              // double negation
  EXPECT_FALSE(glob("#docs/**").matches("#docs/a"));  // a comment matches nothing
  EXPECT_TRUE(glob("a\\*b").matches("a*b"));
  EXPECT_FALSE(glob("a\\*b").matches("axb"));
  EXPECT_TRUE(glob("caf?.md").matches("caf\xC3\xA9.md"));  // '?' is one code point
  EXPECT_TRUE(glob("/docs/*.md").matches("docs/a.md"));    // leading '/' and './' dropped
  EXPECT_TRUE(glob("./docs/*.md").matches("./docs/a.md"));
  EXPECT_FALSE(Glob().matches("anything"));
}

TEST(Glob, MalformedPatternsAreErrorsNamingThePattern) {
  for (const char* bad :
       {"", "a[bc", "@(a|b", "x/+(a/b)", "{a,b", "a\\", "[z-a]", "[[:nope:]]", "!", "v{1..5000}"}) {
    auto g = Glob::compile(bad);
    ASSERT_FALSE(g.has_value()) << bad;
    EXPECT_EQ(g.error().kind, ErrorKind::kInvalidInput);
    EXPECT_NE(g.error().message.find(std::string("'") + bad + "'"), std::string::npos)
        << g.error().message;
  }
}

// Backtracking took minutes on these; the automaton answers at once. No clock here: a
// return of the blow-up runs into the test's ctest timeout.
TEST(Glob, PathologicalPatternsStayFast) {
  const Glob g = glob("**/*a*a*a*a*a*a*a*a*b/**/*c*c*c*d");
  const std::string seg(60, 'a');
  std::string path;
  for (int i = 0; i < 12; ++i) path += seg + "/";
  path += "ccccccccccccccccccccccccccccccccccccccccc";
  EXPECT_FALSE(g.matches(path));
  EXPECT_FALSE(glob("+(a|aa|aaa)b").matches(std::string(40, 'a')));
}

// Nested extglobs made the backtracking matcher take minutes for one path
// (issue 34); the automaton's work is states × length whatever the pattern.
TEST(Glob, NestedExtglobsMatchInLinearTime) {
  const std::string seg(200, 'Q');
  for (const char* p : {"*(*(*(*(?))))[Q]*", "*(*(*(*(?))))x", "+(+(+(a|aa)))b", "*(!(*(a)))b",
                        "@(*|*)*(*|*)*(*|*)*(*|*)x", "!(!(!(!(*a*))))z"}) {
    const Glob g = glob(p);
    ASSERT_FALSE(g.pattern().empty()) << p;
    for (const std::string& path : {seg, "d/" + seg, std::string(4000, 'a')}) g.matches(path);
  }
  EXPECT_TRUE(glob("*(*(*(*(?))))[Q]*").matches("QQQ"));
  EXPECT_FALSE(glob("*(*(*(*(?))))x").matches(seg));
  EXPECT_TRUE(glob("*(*(*(*(?))))x").matches(seg + "x"));
  // Many globstars: segments × parts, not a search over every split.
  std::string deep;
  for (int i = 0; i < 200; ++i) deep += "x/";
  EXPECT_FALSE(glob("**/x/**/x/**/x/**/x/**/x/**/x/**/y").matches(deep + "z"));
  EXPECT_TRUE(glob("**/x/**/x/**/x/**/x/**/x/**/x/**/y").matches(deep + "y"));
}

TEST(Glob, OversizedPatternsAreRefused) {
  std::string nested;
  for (int i = 0; i < 20; ++i) nested += "@(";
  nested += "a";
  for (int i = 0; i < 20; ++i) nested += ")";
  auto deep = Glob::compile(nested);
  ASSERT_FALSE(deep);
  EXPECT_NE(deep.error().message.find("nested"), std::string::npos) << deep.error().message;
  // 1024 alternatives of a ~30-state pattern: more states than one glob may hold.
  auto big = Glob::compile(
      "{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}/*(a|b)*(c|d)*(e|f)*(g|h)???????????");
  ASSERT_FALSE(big);
  EXPECT_NE(big.error().message.find("too complex"), std::string::npos) << big.error().message;
}

TEST(Glob, ExtglobSemanticsKeptByTheAutomaton) {
  EXPECT_TRUE(
      glob("*(a|b)").matches(""
                             "ab"));
  EXPECT_TRUE(glob("a*(b)").matches("a"));
  EXPECT_FALSE(glob("+(a)").matches("b"));
  EXPECT_TRUE(glob("z!(a)").matches("zb"));
  EXPECT_FALSE(glob("z!(a)").matches("za"));
  EXPECT_TRUE(glob("z!(a)").matches("zaa"));
  EXPECT_TRUE(glob("z*(!(a))").matches("zaa"));
  EXPECT_TRUE(glob("d/!(*.py|*.md)").matches("d/x.cc"));
  EXPECT_FALSE(glob("d/!(*.py|*.md)").matches("d/x.md"));
  EXPECT_TRUE(glob("a/!(b)/c").matches("a/x/c"));
  EXPECT_FALSE(glob("a/!(b)/c").matches("a/b/c"));
  EXPECT_TRUE(glob("@(a|b)!(c)").matches("ad"));
  EXPECT_FALSE(glob("@(a|b)!(c)").matches("ac"));
  EXPECT_TRUE(glob("**").matches("a/b"));
  EXPECT_TRUE(glob("a/**/b/**/c").matches("a/b/c"));
  EXPECT_TRUE(glob("a/**/b/**/c").matches("a/x/b/y/z/c"));
  EXPECT_FALSE(glob("a/**/b/**/c").matches("a/x/c"));
  EXPECT_FALSE(glob("a/**").matches("a"));
  EXPECT_TRUE(glob("caf[\xC3\xA9]").matches("caf\xC3\xA9"));
}

}  // namespace
}  // namespace mergelens
