// Switch declarations and the registry moved along changes: what a change does
// to an environment variable, an option or a configuration field, judged
// against the tree at its parent and at its merge.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "analysed_facts.h"
#include "mergelens/analysis/code/context.h"
#include "mergelens/analysis/code/switches.h"
#include "mergelens/analysis/facts.h"
#include "mergelens/pipeline/analyze.h"
#include "mergelens/pipeline/ingest.h"
#include "mergelens/source/ctags.h"
#include "test_helpers.h"

namespace mergelens {
namespace {

using testing::analysed_facts;
using testing::file_from_patch;

const SwitchDecl* find(const std::vector<SwitchDecl>& v, std::string_view name,
                       std::string_view origin = "") {
  for (const auto& d : v)
    if (d.name == name && (origin.empty() || d.origin == origin)) return &d;
  return nullptr;
}

TEST(Switches, ReadsRegistriesReadsOptionsAndFields) {
  const std::string src = R"py(import os

class Envs:
    # Whether to fuse.
    SGLANG_OPT_FUSE = EnvBool(True)
    SGLANG_LIMIT: EnvInt = EnvInt(16)
    SGLANG_ROLE = EnvStr("off")

env_variables = {
    "VLLM_ASCEND_ENABLE_NZ": lambda: int(os.getenv("VLLM_ASCEND_ENABLE_NZ", 1)),
    "MAX_JOBS": lambda: os.getenv("MAX_JOBS", None),
}

def f():
    if get_bool_env_var("SGLANG_OLD_FLAG", "false"):  # a comment "NOT_A_NAME"
        return os.environ.get("HOME")
    x = os.environ["SGLANG_REQUIRED"]
    monkeypatch.setenv("SGLANG_TEST_ONLY", "1")
    return additional_config.get("enable_prefetch", False)

@dataclasses.dataclass
class ServerArgs:
    enable_torch_compile: A[
        bool,
        "Optimize the model with torch.compile.",
    ] = False
    max_bs: int = 32
    name: Optional[str] = field(default="x", metadata={"help": "h"})
    FLAG: ClassVar[int] = 1

    def method(self):
        local: int = 3

def add(parser):
    parser.add_argument(
        "--enable-foo",
        action="store_true",
        help="Enable foo.",
    )
    parser.add_argument("-n", "--num-x", type=int, default=4)
)py";
  auto d = scan_switches("pkg/envs.py", src);
  const SwitchDecl* x = find(d, "SGLANG_OPT_FUSE", "registry");
  ASSERT_NE(x, nullptr);
  EXPECT_EQ(x->default_value, "True");
  EXPECT_EQ(x->line, 5);
  EXPECT_EQ(x->kind, "env");
  ASSERT_NE(find(d, "SGLANG_LIMIT", "registry"), nullptr);
  EXPECT_EQ(find(d, "SGLANG_LIMIT")->default_value, "16");
  EXPECT_EQ(find(d, "SGLANG_ROLE")->default_value, "\"off\"");
  ASSERT_NE(find(d, "VLLM_ASCEND_ENABLE_NZ", "registry"), nullptr);
  EXPECT_EQ(find(d, "VLLM_ASCEND_ENABLE_NZ", "registry")->default_value, "1");
  EXPECT_EQ(find(d, "VLLM_ASCEND_ENABLE_NZ", "registry")->line, 10);
  EXPECT_EQ(find(d, "MAX_JOBS", "registry")->default_value, "None");
  ASSERT_NE(find(d, "SGLANG_OLD_FLAG", "read_default"), nullptr);
  EXPECT_EQ(find(d, "SGLANG_OLD_FLAG")->default_value, "\"false\"");
  EXPECT_EQ(find(d, "SGLANG_OLD_FLAG")->line, 15);
  ASSERT_NE(find(d, "HOME", "read"), nullptr);
  EXPECT_FALSE(find(d, "HOME")->has_default);
  ASSERT_NE(find(d, "SGLANG_REQUIRED", "read"), nullptr);
  EXPECT_EQ(find(d, "SGLANG_TEST_ONLY"), nullptr) << "setenv sets, it declares nothing";
  EXPECT_EQ(find(d, "NOT_A_NAME"), nullptr) << "comments are not code";
  ASSERT_NE(find(d, "enable_prefetch", "config_read"), nullptr);
  EXPECT_EQ(find(d, "enable_prefetch")->default_value, "False");
  ASSERT_NE(find(d, "enable_torch_compile", "field"), nullptr);
  EXPECT_EQ(find(d, "enable_torch_compile")->default_value, "False");
  EXPECT_EQ(find(d, "enable_torch_compile")->line, 23);
  EXPECT_EQ(find(d, "max_bs")->default_value, "32");
  EXPECT_EQ(find(d, "name")->default_value, "\"x\"");
  EXPECT_EQ(find(d, "FLAG"), nullptr) << "a ClassVar is no field";
  EXPECT_EQ(find(d, "local"), nullptr) << "a method's local is no field";
  ASSERT_NE(find(d, "--enable-foo", "argparse"), nullptr);
  EXPECT_EQ(find(d, "--enable-foo")->default_value, "False") << "store_true defaults to False";
  EXPECT_EQ(find(d, "--enable-foo")->line, 35);
  EXPECT_EQ(find(d, "--num-x")->default_value, "4");
}

// A string continued on the next line by a backslash (a usage text in a
// docstring, as vllm-ascend's examples and config classes write them) still
// counts its lines: the declarations after it keep their line numbers.
TEST(Switches, LinesAfterABackslashContinuedString) {
  const std::string src =
      "\"\"\"Usage:\n"
      "    python serve.py --enable-ep \\\n"
      "        --trust-remote-code \\\n"
      "        --port 8000\n"
      "\"\"\"\n"
      "HELP = 'one \\\n"
      "two'\n"
      "import os\n"
      "X = os.getenv(\"SGLANG_AFTER\", \"1\")\n"
      "def add(parser):\n"
      "    parser.add_argument(\"--enable-ep\", action=\"store_true\")\n";
  auto d = scan_switches("examples/serve.py", src);
  ASSERT_NE(find(d, "SGLANG_AFTER"), nullptr);
  EXPECT_EQ(find(d, "SGLANG_AFTER")->line, 9);
  ASSERT_NE(find(d, "--enable-ep", "argparse"), nullptr);
  EXPECT_EQ(find(d, "--enable-ep", "argparse")->line, 11);
}

// The prefilters skip only what cannot declare: a read spelled in mixed
// case, a field of a class named *Options, a config read in a function; a
// file without any of the words declares nothing.
TEST(Switches, PrefiltersKeepEveryDeclaration) {
  auto d = scan_switches("a.py", "x = 1\nVALUE = os.GetEnv(\"SOME_FLAG\", \"0\")\n");
  ASSERT_NE(find(d, "SOME_FLAG", "read_default"), nullptr);
  d = scan_switches("b.py", "class RunOptions:\n    fast: bool = True\n");
  ASSERT_NE(find(d, "fast", "field"), nullptr);
  EXPECT_EQ(find(d, "fast")->default_value, "True");
  d = scan_switches("c.py", "x = MY_CFG.get(\"depth\", 3)  # no such word in a comment\n");
  EXPECT_TRUE(d.empty()) << "the receiver must hold \"config\"";
  d = scan_switches("d.py", "def f(a):\n    return a.Config.get(\"depth\", 3)\n");
  ASSERT_NE(find(d, "depth", "config_read"), nullptr);
  EXPECT_EQ(find(d, "depth")->default_value, "3");
  EXPECT_TRUE(scan_switches("e.py", "def f(a):\n    return a + 1\n").empty());
  // Strings with escapes, brackets and quotes across lines keep the depth.
  d = scan_switches("f.py",
                    "s = \"a(\\\"[\"\nt = '''x)\n]'''\nX = os.environ.get(\"SOME_X\", \"1\")\n");
  ASSERT_NE(find(d, "SOME_X", "read_default"), nullptr);
  EXPECT_EQ(find(d, "SOME_X")->line, 4);
}

// Builds the registry of a tree given as path → content.
SwitchRegistry registry_of(const std::map<std::string, std::string>& files) {
  SwitchRegistry r;
  for (const auto& [p, c] : files) r.set_file(p, c);
  return r;
}

// primary() is lookup()'s front, the fields-only one its first field.
TEST(Switches, PrimaryIsLookupsFront) {
  auto r = registry_of({
      {"tests/test_x.py", "import os\nA = os.environ.get(\"SOME_X\", \"2\")\n"},
      {"pkg/a.py", "import os\nA = os.getenv(\"SOME_X\")\nB = os.getenv(\"SOME_X\", \"1\")\n"},
      {"pkg/b.py", "class RunConfig:\n    depth: int = 3\n    SOME_X: int = 4\n"},
      {"pkg/envs.py", "SOME_X = EnvInt(5)\n"},
  });
  for (const char* name : {"SOME_X", "depth", "missing"}) {
    auto all = r.lookup(name);
    const SwitchDecl* p = r.primary(name);
    ASSERT_EQ(p == nullptr, all.empty()) << name;
    if (!p) continue;
    EXPECT_EQ(p->path, all.front().path) << name;
    EXPECT_EQ(p->line, all.front().line) << name;
    EXPECT_EQ(p->origin, all.front().origin) << name;
  }
  EXPECT_EQ(r.primary("SOME_X")->origin, "registry");
  ASSERT_NE(r.primary("SOME_X", true), nullptr);
  EXPECT_EQ(r.primary("SOME_X", true)->path, "pkg/b.py");
  EXPECT_TRUE(r.is_field("depth"));
  EXPECT_FALSE(r.is_field("missing"));
}

const SwitchFact* fact(const std::vector<SwitchFact>& v, std::string_view name) {
  for (const auto& f : v)
    if (f.name == name) return &f;
  return nullptr;
}

// The issue's case: a change adds `SGLANG_OPT_X = EnvBool(True)` to the
// registry, but the variable was read with a default months before: it is
// not a new switch.
TEST(Switches, ASwitchThatPreExistsIsNotNew) {
  std::map<std::string, std::string> tree = {
      {"pkg/environ.py", "class Envs:\n    SGLANG_A = EnvBool(False)\n"},
      {"pkg/cache.py",
       "def free():\n    if get_bool_env_var(\"SGLANG_OPT_UNIFIED_FREE\", \"true\"):\n"
       "        return 1\n"}};
  SwitchRegistry r = registry_of(tree);
  Change c;
  c.files.push_back(
      file_from_patch("pkg/environ.py",
                      "@@ -1,2 +1,3 @@\n class Envs:\n     SGLANG_A = EnvBool(False)\n"
                      "+    SGLANG_OPT_UNIFIED_FREE = EnvBool(True)\n"));
  c.files.push_back(file_from_patch(
      "pkg/cache.py",
      "@@ -1,3 +1,3 @@\n def free():\n-    if get_bool_env_var(\"SGLANG_OPT_UNIFIED_FREE\", "
      "\"true\"):\n"
      "+    if envs.SGLANG_OPT_UNIFIED_FREE.get() and not self.is_eagle:\n         return 1\n"));
  SwitchProbe probe(r, c);
  r.set_file(
      "pkg/environ.py",
      "class Envs:\n    SGLANG_A = EnvBool(False)\n    SGLANG_OPT_UNIFIED_FREE = EnvBool(True)\n");
  r.set_file("pkg/cache.py",
             "def free():\n    if envs.SGLANG_OPT_UNIFIED_FREE.get() and not self.is_eagle:\n"
             "        return 1\n");
  auto facts = probe.finish(r);
  const SwitchFact* f = fact(facts, "SGLANG_OPT_UNIFIED_FREE");
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE(f->existed_at_parent);
  EXPECT_NE(f->change, "added");
  EXPECT_EQ(f->change, "redeclared");
  EXPECT_EQ(f->before.path, "pkg/cache.py");
  EXPECT_EQ(f->before.origin, "read_default");
  EXPECT_EQ(f->after.path, "pkg/environ.py");
  EXPECT_EQ(f->after.line, 3);
  EXPECT_FALSE(f->default_changed) << "\"true\" and True are the same default";
  EXPECT_EQ(fact(facts, "SGLANG_A"), nullptr) << "an untouched neighbour is not the change's";
}

TEST(Switches, ADefaultChangedInARegistry) {
  SwitchRegistry r = registry_of({{"pkg/environ.py",
                                   "class Envs:\n    SGLANG_A = EnvBool(False)\n"
                                   "    SGLANG_B = EnvInt(4)\n"}});
  Change c;
  c.files.push_back(
      file_from_patch("pkg/environ.py",
                      "@@ -1,3 +1,3 @@\n class Envs:\n-    SGLANG_A = EnvBool(False)\n"
                      "+    SGLANG_A = EnvBool(True)\n     SGLANG_B = EnvInt(4)\n"));
  SwitchProbe probe(r, c);
  r.set_file("pkg/environ.py",
             "class Envs:\n    SGLANG_A = EnvBool(True)\n    SGLANG_B = EnvInt(4)\n");
  auto facts = probe.finish(r);
  ASSERT_EQ(facts.size(), 1u);
  EXPECT_EQ(facts[0].name, "SGLANG_A");
  EXPECT_EQ(facts[0].change, "default_changed");
  EXPECT_TRUE(facts[0].default_changed);
  EXPECT_TRUE(facts[0].existed_at_parent);
  EXPECT_EQ(facts[0].before.default_value, "False");
  EXPECT_EQ(facts[0].after.default_value, "True");
}

// An environment variable read in two places is no default change when the
// read shown moves from one to the other: a test's `os.environ.pop("X",
// None)` before (the test drops it), the code's `os.getenv("X")` after
// (both None when unset).
TEST(Switches, AReadMovingFromATestToTheCodeIsNoDefaultChange) {
  SwitchRegistry r = registry_of(
      {{"tests/test_backend.py", "import os\nos.environ.pop(\"STORE_CONFIG_PATH\", None)\n"}});
  Change c;
  c.files.push_back(file_from_patch("pkg/backend.py",
                                    "@@ -0,0 +1,2 @@\n+import os\n"
                                    "+path = os.getenv(\"STORE_CONFIG_PATH\")\n",
                                    FileStatus::kAdded));
  c.files.push_back(file_from_patch("tests/test_backend.py",
                                    "@@ -1,2 +1,1 @@\n import os\n"
                                    "-os.environ.pop(\"STORE_CONFIG_PATH\", None)\n"));
  SwitchProbe probe(r, c);
  r.set_file("pkg/backend.py", "import os\npath = os.getenv(\"STORE_CONFIG_PATH\")\n");
  r.set_file("tests/test_backend.py", "import os\n");
  auto facts = probe.finish(r);
  ASSERT_EQ(facts.size(), 1u);
  EXPECT_TRUE(facts[0].existed_at_parent);
  EXPECT_FALSE(facts[0].default_changed) << facts[0].before.path << " -> " << facts[0].after.path;
  EXPECT_NE(facts[0].change, "default_changed");
}

TEST(Switches, ANewSwitchAndARemovedOneAndAFieldReadAsAnOption) {
  SwitchRegistry r =
      registry_of({{"pkg/args.py",
                    "class ServerArgs:\n    enable_foo: bool = False\n    old_knob: int = 3\n"}});
  Change c;
  c.files.push_back(file_from_patch(
      "pkg/args.py",
      "@@ -1,3 +1,3 @@\n class ServerArgs:\n     enable_foo: bool = False\n-    old_knob: int = 3\n"
      "+    new_knob: int = 5\n"));
  c.files.push_back(file_from_patch("docs/usage.md",
                                    "@@ -1,0 +1,1 @@\n+Run with `--enable-foo` to turn it on.\n"));
  SwitchProbe probe(r, c);
  r.set_file("pkg/args.py",
             "class ServerArgs:\n    enable_foo: bool = False\n    new_knob: int = 5\n");
  auto facts = probe.finish(r);
  ASSERT_NE(fact(facts, "new_knob"), nullptr);
  EXPECT_EQ(fact(facts, "new_knob")->change, "added");
  EXPECT_FALSE(fact(facts, "new_knob")->existed_at_parent);
  EXPECT_EQ(fact(facts, "new_knob")->after.default_value, "5");
  ASSERT_NE(fact(facts, "old_knob"), nullptr);
  EXPECT_EQ(fact(facts, "old_knob")->change, "removed");
  const SwitchFact* flag = fact(facts, "--enable-foo");
  ASSERT_NE(flag, nullptr) << "a dataclass-generated option resolves to its field";
  EXPECT_EQ(flag->change, "used");
  EXPECT_TRUE(flag->existed_at_parent);
  EXPECT_EQ(flag->after.default_value, "False");
}

// Through the pipeline: facts at each change, the same whether the tracker
// walked the history or read the tree whole at a later change's parent.
TEST(Switches, ThePipelineKnowsEachChangesParentHoweverTheRunStarts) {
  testing::TempDir dir;
  testing::GitRepo repo(dir / "work");
  repo.write("pkg/environ.py", "class Envs:\n    SGLANG_A = EnvBool(False)\n");
  repo.write("pkg/cache.py",
             "def free():\n    return get_bool_env_var(\"SGLANG_OPT_X\", \"true\")\n");
  repo.commit("Initial import", "2026-09-01T08:00:00Z");
  repo.write("pkg/environ.py",
             "class Envs:\n    SGLANG_A = EnvBool(False)\n    SGLANG_OPT_X = EnvBool(True)\n");
  repo.write("pkg/cache.py", "def free():\n    return envs.SGLANG_OPT_X.get()\n");
  repo.commit("Move the switch to the registry (#1)", "2026-09-02T08:00:00Z");
  repo.write("pkg/environ.py",
             "class Envs:\n    SGLANG_A = EnvBool(True)\n    SGLANG_OPT_X = EnvBool(True)\n");
  repo.commit("Turn A on (#2)", "2026-09-03T08:00:00Z");
  repo.write("pkg/environ.py",
             "class Envs:\n    SGLANG_A = EnvBool(True)\n    SGLANG_OPT_X = EnvBool(True)\n"
             "    SGLANG_NEW = EnvStr(\"x\")\n");
  repo.commit("Add a new one (#3)", "2026-09-04T08:00:00Z");

  auto check = [&](Store& store, std::int64_t repo_id) {
    auto get = [&](int n) {
      auto c = store.get_change_by_number(repo_id, n);
      EXPECT_TRUE(c && *c);
      auto f = store.get_facts((**c).id);
      EXPECT_TRUE(f && *f);
      EXPECT_TRUE((**f).switches_known) << "#" << n;
      return (**f).switches;
    };
    auto one = get(1);
    ASSERT_NE(fact(one, "SGLANG_OPT_X"), nullptr);
    EXPECT_TRUE(fact(one, "SGLANG_OPT_X")->existed_at_parent);
    // Declared by the first commit (no PR number: its short sha).
    EXPECT_EQ(fact(one, "SGLANG_OPT_X")->introduced_by.size(), 12u);
    auto two = get(2);
    ASSERT_NE(fact(two, "SGLANG_A"), nullptr);
    EXPECT_EQ(fact(two, "SGLANG_A")->change, "default_changed");
    auto three = get(3);
    ASSERT_NE(fact(three, "SGLANG_NEW"), nullptr);
    EXPECT_EQ(fact(three, "SGLANG_NEW")->change, "added");
    EXPECT_EQ(fact(three, "SGLANG_NEW")->after.line, 4);
    EXPECT_EQ(fact(three, "SGLANG_NEW")->introduced_by, "") << "it is this change's";
    auto origins = store.switch_origins(repo_id);
    ASSERT_TRUE(origins);
    bool found = false;
    for (const auto& o : *origins) found = found || (o.name == "SGLANG_NEW" && o.ref == "#3");
    EXPECT_TRUE(found);
  };
  // One run over the whole history, then two runs split before #3 (the
  // second run reads #3's parent whole).
  for (int split : {0, 3}) {
    auto store = open_sqlite_store(dir / fmt::format("db{}.sqlite", split));
    ASSERT_TRUE(store);
    IngestOptions io;
    io.repo_path = repo.path();
    ASSERT_TRUE(ingest(**store, io, nullptr));
    auto rec = resolve_repo(**store, "");
    ASSERT_TRUE(rec);
    if (split) {
      auto c = (*store)->get_change_by_number(rec->id, split);
      ASSERT_TRUE(c && *c);
      AnalyzeOptions first;
      ASSERT_TRUE(analyze(**store, *rec, first, nullptr));
      Facts stale;
      stale.version = 0;  // forget #3's facts
      ASSERT_TRUE(
          (*store)->put_facts(std::vector<std::pair<std::int64_t, Facts>>{{(**c).id, stale}}));
    }
    auto report = analyze(**store, *rec, AnalyzeOptions{}, nullptr);
    ASSERT_TRUE(report) << report.error().message;
    check(**store, rec->id);
  }
}

// A field name is not one switch in the whole tree: the `dataset` of a class
// deleted long ago did not "first declare" the `dataset` another class
// declares later. An environment variable keeps its first declaration.
TEST(Switches, AFieldsOriginIsItsOwnFilesNotAnEarlierNamesake) {
  testing::TempDir dir;
  testing::GitRepo repo(dir / "work");
  repo.write("pkg/readme.md", "A package.\n");
  repo.commit("Initial import", "2026-09-01T08:00:00Z");
  repo.write("pkg/old_args.py", "class OldArgs:\n    dataset: str = None\n");
  repo.write("pkg/environ.py", "class Envs:\n    PKG_DEBUG = EnvBool(False)\n");
  repo.commit("Old arguments (#1)", "2026-09-02T08:00:00Z");
  repo.run("rm -q pkg/old_args.py");
  repo.write("pkg/environ.py", "class Envs:\n    PKG_OTHER = EnvBool(False)\n");
  repo.commit("Drop the old arguments (#2)", "2026-09-03T08:00:00Z");
  repo.write("pkg/args.py", "class DatasetArguments:\n    dataset: str = None\n");
  repo.write("pkg/environ.py",
             "class Envs:\n    PKG_OTHER = EnvBool(False)\n    PKG_DEBUG = EnvBool(False)\n");
  repo.commit("Dataset arguments (#3)", "2026-09-04T08:00:00Z");
  repo.write("pkg/args.py", "class DatasetArguments:\n    dataset: str = \"c4\"\n");
  repo.write("pkg/environ.py",
             "class Envs:\n    PKG_OTHER = EnvBool(False)\n    PKG_DEBUG = EnvBool(True)\n");
  repo.commit("Default to c4 (#4)", "2026-09-05T08:00:00Z");

  auto f = analysed_facts(dir, repo, 4);
  ASSERT_TRUE(f);
  const SwitchFact* field = fact(f->switches, "dataset");
  ASSERT_NE(field, nullptr);
  EXPECT_EQ(field->change, "default_changed");
  EXPECT_EQ(field->introduced_by, "#3") << "#1 declared another class's field";
  const SwitchFact* env = fact(f->switches, "PKG_DEBUG");
  ASSERT_NE(env, nullptr);
  EXPECT_EQ(env->introduced_by, "#1") << "an environment variable is one name";
}

}  // namespace
}  // namespace mergelens

namespace mergelens {
namespace {

using testing::analysed_facts;
using testing::context_item;

// Tags as ctags writes them, escapes and non-ASCII bytes included (the
// reader's own JSON scanner hands those lines to nlohmann's parser).
TEST(Context, TagsKeepEscapedAndNonAsciiSignatures) {
  auto reader = CtagsReader::start();
  if (!reader) GTEST_SKIP() << "built without universal-ctags";
  const std::string src =
      "def f(a=\"x\\\"y\", b='\\\\n', d=\"\\t\"):\n    return a\n\n\n"
      "def h(c=\"\xc3\xa9\"):\n    return c\n\n\n"
      "class K:\n    \"\"\"Doc.\"\"\"\n\n    def g(self, x=1):\n        pass\n";
  auto tags = (*reader)->tags("pkg/esc.py", src);
  ASSERT_TRUE(tags);
  auto tag = [&](std::string_view name) -> const CodeTag* {
    for (const auto& t : *tags)
      if (t.name == name) return &t;
    return nullptr;
  };
  ASSERT_NE(tag("f"), nullptr);
  EXPECT_EQ(tag("f")->kind, "function");
  EXPECT_EQ(tag("f")->line, 1);
  EXPECT_EQ(tag("f")->end, 2);
  EXPECT_EQ(tag("f")->signature, "(a=\"x\"y\", b='\\n', d=\"t\")") << "ctags drops a backslash";
  ASSERT_NE(tag("h"), nullptr);
  EXPECT_EQ(tag("h")->signature, "(c=\"\xc3\xa9\")");
  ASSERT_NE(tag("K"), nullptr);
  EXPECT_EQ(tag("K")->end, 13);
  ASSERT_NE(tag("g"), nullptr);
  EXPECT_EQ(tag("g")->kind, "method");
  EXPECT_EQ(tag("g")->scope, "K");
  EXPECT_EQ(tag("g")->line, 12);
  // The reader stays in step: a second file right after is read whole.
  auto again = (*reader)->tags("pkg/two.py", "def one():\n    pass\n");
  ASSERT_TRUE(again);
  ASSERT_EQ(again->size(), 1u);
  EXPECT_EQ(again->front().name, "one");
}

// The context a reviewer opens: the function as it stood, the helper it
// calls, the constant it reads, and the callers of a re-signed function.
TEST(Context, DefinitionsAtTheParentAndCallersAtTheMerge) {
  if (!CtagsReader::start()) GTEST_SKIP() << "built without universal-ctags";
  testing::TempDir dir;
  testing::GitRepo repo(dir / "work");
  repo.write("pkg/__init__.py", "");
  repo.write("pkg/util.py",
             "LIMIT_MAX = 8\n\n\ndef clamp(x, lo=0):\n    \"\"\"Clamps x.\"\"\"\n"
             "    return max(lo, min(x, LIMIT_MAX))\n");
  repo.write("pkg/core.py",
             "from pkg.util import clamp, LIMIT_MAX\n\n\nclass Runner:\n    def step(self, n):\n"
             "        return n\n\n    def run(self, n):\n        return self.step(n)\n");
  repo.write("pkg/user.py",
             "from pkg.core import Runner\n\n\ndef go():\n    return Runner().run(3)\n");
  repo.commit("Initial import", "2026-09-01T08:00:00Z");
  repo.write("pkg/core.py",
             "from pkg.util import clamp, LIMIT_MAX\n\n\nclass Runner:\n    def step(self, n):\n"
             "        return n\n\n    def run(self, n, fast=False):\n"
             "        if fast:\n            return clamp(self.step(n)) + LIMIT_MAX\n        return "
             "self.step(n)\n");
  repo.commit("Clamp the fast path (#7)", "2026-09-02T08:00:00Z");
  auto f = analysed_facts(dir, repo, 7);
  ASSERT_TRUE(f);
  const auto& ctx = f->context;
  ASSERT_TRUE(f->context_known);
  const ContextItem* run = context_item(ctx, "changed", "Runner.run");
  ASSERT_NE(run, nullptr);
  EXPECT_EQ(run->revision, "parent");
  EXPECT_EQ(run->start_line, 8);
  EXPECT_EQ(run->end_line, 9);
  const ContextItem* clamp = context_item(ctx, "called", "clamp");
  ASSERT_NE(clamp, nullptr);
  EXPECT_EQ(clamp->path, "pkg/util.py");
  EXPECT_EQ(clamp->start_line, 4);
  EXPECT_EQ(clamp->end_line, 6);
  ASSERT_NE(context_item(ctx, "called", "Runner.step"), nullptr)
      << "self.step( resolves in the class";
  const ContextItem* limit = context_item(ctx, "constant", "LIMIT_MAX");
  ASSERT_NE(limit, nullptr);
  EXPECT_EQ(limit->start_line, 1);
  const ContextItem* caller = context_item(ctx, "caller", "go");
  ASSERT_NE(caller, nullptr) << "run's signature changed: its caller in an importer is context";
  EXPECT_EQ(caller->revision, "merge");
  EXPECT_EQ(caller->at, "pkg/user.py:5");
}

// Lines added between two methods edit the class, not the method after them
// (the diff aligns the added method after b's decorator, both being
// @staticmethod: the first added line sits just above b's own line); a line
// added inside a method edits the method.
TEST(Context, LinesAddedBeforeADefinitionDoNotEditIt) {
  if (!CtagsReader::start()) GTEST_SKIP() << "built without universal-ctags";
  testing::TempDir dir;
  testing::GitRepo repo(dir / "work");
  repo.write("pkg/t.py",
             "class K:\n    def a(self):\n        x = 1\n        return x\n\n"
             "    @staticmethod\n    def b():\n        return 2\n");
  repo.commit("Initial import", "2026-09-01T08:00:00Z");
  repo.write("pkg/t.py",
             "class K:\n    def a(self):\n        x = 1\n        x += 1\n        return x\n\n"
             "    @staticmethod\n    def new():\n        return 3\n\n"
             "    @staticmethod\n    def b():\n        return 2\n");
  repo.commit("Add new (#8)", "2026-09-02T08:00:00Z");
  auto f = analysed_facts(dir, repo, 8);
  ASSERT_TRUE(f);
  const auto& ctx = f->context;
  EXPECT_NE(context_item(ctx, "changed", "K.a"), nullptr) << "x += 1 is inside a";
  EXPECT_NE(context_item(ctx, "changed", "K"), nullptr) << "new is added to the class";
  EXPECT_EQ(context_item(ctx, "changed", "K.b"), nullptr) << "b and its decorator are untouched";
}

// The parser's ranges start at `def`: a decorator replaced, or one added
// right above a kept definition, edits that definition.
TEST(Context, ADecoratorEditsTheDefinitionItDecorates) {
  if (!CtagsReader::start()) GTEST_SKIP() << "built without universal-ctags";
  testing::TempDir dir;
  testing::GitRepo repo(dir / "work");
  repo.write("pkg/t.py",
             "class K:\n    @property\n    def c(self):\n        return 1\n\n"
             "    def d(self):\n        return 2\n");
  repo.commit("Initial import", "2026-09-01T08:00:00Z");
  repo.write("pkg/t.py",
             "class K:\n    @cached_property\n    def c(self):\n        return 1\n\n"
             "    @torch.no_grad()\n    def d(self):\n        return 2\n");
  repo.commit("Decorate (#9)", "2026-09-02T08:00:00Z");
  auto f = analysed_facts(dir, repo, 9);
  ASSERT_TRUE(f);
  const auto& ctx = f->context;
  EXPECT_NE(context_item(ctx, "changed", "K.c"), nullptr) << "its decorator was replaced";
  EXPECT_NE(context_item(ctx, "changed", "K.d"), nullptr) << "it gained a decorator";
  EXPECT_EQ(context_item(ctx, "changed", "K"), nullptr) << "no line outside c and d changed";
}

}  // namespace
}  // namespace mergelens
