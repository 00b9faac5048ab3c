// Issue 31, fifth pass of the offline writer: kinds of false or misleading
// sentence found in offline guides of real PRs (bench/README.md, "Fifth
// pass"). A "where to look" item named for the definition before the one its
// added lines sit in (git's hunk header, the hunk's first changed line); a
// test that stands in place of removed tests of its file called new; a
// change of example scripts summed up as "tests, docs, config or CI". Each
// on a crafted change run through the real pipeline (ingest, analyse, write
// in both languages), the test pairing also on mark_replaced_tests itself.
#include <gtest/gtest.h>

#include <algorithm>

#include "mergelens/analysis/code/definition_fates.h"
#include "offline_guide_fixture.h"
#include "test_helpers.h"

namespace mergelens {
namespace {

using testing::GitRepo;

// The checks of one scheme: the same lines before and after #701 moves them
// into _validate_scheme.
constexpr const char* kSchemeChecks = R"(    if scheme.weights is None:
        raise ValueError("weights must be given")

    # static observers only
    if scheme.weights.observer in ("minmax", "mse"):
        new_observer = "static_" + scheme.weights.observer
        logger.warning("replacing the observer with %s", new_observer)
        scheme.weights.observer = new_observer

    input_dynamic = getattr(scheme, "input_dynamic", True)
    output_dynamic = getattr(scheme, "output_dynamic", True)
    if input_dynamic is not True or output_dynamic is not True:
        raise ValueError("cannot calibrate activations")

    if len(scheme.targets) == 0:
        scheme.targets.append("Linear")
)";

const std::string kValidate = R"(import json

from .micro import fused_names, is_micro

__all__ = ["validate_scheme", "load_index"]


def validate_scheme(scheme):
    # treat strings as preset schemes
    if isinstance(scheme, str):
        name, scheme = scheme, preset(scheme)
    else:
        name = "group_0"

    # weights must be given
)" + std::string(kSchemeChecks) +
                              R"(    return name, scheme


def load_index(files, scheme):
    path = files.get("index")
    if path is None:
        return
    if is_micro(scheme):
        with open(path) as f:
            return json.load(f)
)";

const std::string kValidateAfter = R"(import json

from .micro import fused_names, has_micro

__all__ = ["validate_config", "load_index"]


def validate_config(config, scheme, ignore):
    if config is not None and scheme is not None:
        raise ValueError("give config or scheme, not both")

    if config is None and scheme is None:
        raise ValueError("give config or scheme")

    if scheme is not None:
        if isinstance(scheme, str):
            name, scheme = scheme, preset(scheme)
        else:
            name = "group_0"
        config = Config(groups={name: scheme}, ignore=list(ignore))
    elif ignore:
        config = config.copy(ignore=list(config.ignore) + list(ignore))

    for scheme in config.groups.values():
        _validate_scheme(scheme)
    return config


def _validate_scheme(scheme):
)" + std::string(kSchemeChecks) + R"(

def load_index(files, config):
    path = files.get("index")
    if path is None:
        return
    if has_micro(config):
        with open(path) as f:
            return json.load(f)
)";

constexpr const char* kPoolTests = R"(import unittest

from pkg.pool import keys, lookup


class TestKeys(unittest.TestCase):
    def test_keys_basic(self):
        self.assertEqual(keys([1]), ["1"])

    def test_keys_include_layers(self):
        self.assertEqual(keys([1], layers=2), ["1@0", "1@1"])

    def test_keys_multi_tp(self):
        self.assertEqual(keys([1], tp=2), ["1#0", "1#1"])


class TestLookup(unittest.TestCase):
    def test_all_blocks_hit(self):
        self.assertEqual(lookup([1, 2], {1, 2}), 2)

    def test_no_hit(self):
        self.assertEqual(lookup([1, 2], set()), 0)


class TestOther(unittest.TestCase):
    def test_other(self):
        self.assertTrue(True)
)";

constexpr const char* kPoolTestsAfter = R"(import unittest

from pkg.pool import keys, lookup


class TestKeys(unittest.TestCase):
    def test_keys(self):
        for kwargs, want in [({}, ["1"]), ({"layers": 2}, ["1@0", "1@1"]),
                             ({"tp": 2}, ["1#0", "1#1"])]:
            self.assertEqual(keys([1], **kwargs), want)


class TestLookup(unittest.TestCase):
    def test_lookup_tokens(self):
        for hit, want in [({1, 2}, 2), (set(), 0)]:
            self.assertEqual(lookup([1, 2], hit), want)


class TestOther(unittest.TestCase):
    def test_other(self):
        self.assertTrue(True)

    def test_prefix_cache_eviction(self):
        self.assertEqual(lookup([], set()), 0)
)";

// pkg/mappings.py: the Llama list, `gemma_lists`, the resolver and the
// table, whose Gemma rows are `gemma_rows`. The rest is the same at the
// parent and the merge.
std::string mappings(std::string_view gemma_lists, std::string_view gemma_rows) {
  return std::string(R"(_llama_mappings = [
    "input_layernorm",
    "post_attention_layernorm",
]

)") + std::string(gemma_lists) +
         R"(

def resolve(arch):
    mappings = MAPPINGS.get(arch)
    if mappings is None:
        return []
    out = []
    for name in mappings:
        out.append(name)
    return out


MAPPINGS = {
    "LlamaForCausalLM": _llama_mappings,
)" + std::string(gemma_rows) +
         "}\n";
}

const std::string kMappings = mappings(R"(_gemma_mappings = [
    "input_layernorm",
    "pre_feedforward_layernorm",
]
)",
                                       R"(    "Gemma2ForCausalLM": _gemma_mappings,
    "Gemma3ForCausalLM": _gemma_mappings,
)");

const std::string kMappingsAfter = mappings(R"(_gemma2_mappings = [
    "input_layernorm",
    "pre_feedforward_layernorm",
    "post_feedforward_layernorm",
    "post_attention_layernorm",
]
)",
                                            R"(    "Gemma2ForCausalLM": _gemma2_mappings,
    "Gemma3ForCausalLM": _llama_mappings,
)");

class OfflineTruth7 : public testing::OfflineGuideFixture<OfflineTruth7> {
 public:
  static void write_history(GitRepo& repo) {
    repo.run("remote add origin git@github.com:o/r.git");
    repo.write("pkg/validate.py", kValidate);
    repo.write("pkg/pool.py", "def keys(blocks, layers=1, tp=1):\n    return []\n");
    repo.write("tests/test_pool.py", kPoolTests);
    repo.write("examples/quantize.py", "from pkg import run\n\nrun(\"w4a16\")\n");
    repo.write("tests/test_examples.py", "def test_quantize():\n    assert True\n");
    repo.write("pkg/mappings.py", kMappings);
    repo.commit("Initial import", "2026-09-01T08:00:00Z");

    repo.write("pkg/validate.py", kValidateAfter);
    repo.commit("Support quantization configs (#701)", "2026-09-02T09:00:00Z");

    repo.write("pkg/pool.py",
               "def keys(blocks, layers=1, tp=1):\n    return [str(b) for b in "
               "blocks]\n");
    repo.write("tests/test_pool.py", kPoolTestsAfter);
    repo.commit("Simplify the pool helpers and their unit tests (#702)", "2026-09-02T10:00:00Z");

    repo.write("examples/quantize.py",
               "import sys\n\nfrom pkg import run\n\n\ndef main(scheme):\n    return run(scheme)\n"
               "\n\nif __name__ == \"__main__\":\n    main(sys.argv[1])\n");
    repo.write("tests/test_examples.py",
               "def test_quantize():\n    assert True\n\n\ndef test_quantize_cli():\n"
               "    assert True\n");
    repo.commit("Let the quantize example take the scheme (#703)", "2026-09-02T11:00:00Z");

    repo.write("pkg/mappings.py", kMappingsAfter);
    repo.commit("Map Gemma3 like Llama (#704)", "2026-09-02T12:00:00Z");
  }
};

// The line (1-based) of `needle` in `text`.
std::int32_t line_of(std::string_view text, std::string_view needle) {
  const size_t at = text.find(needle);
  EXPECT_NE(at, std::string_view::npos) << needle;
  return static_cast<std::int32_t>(std::count(text.begin(), text.begin() + at, '\n')) + 1;
}

TEST_F(OfflineTruth7, ARegionIsNamedForTheDefinitionItsAddedLinesSitIn) {
  const std::string_view after = kValidateAfter;
  const std::int32_t config_at = line_of(after, "def validate_config");
  const std::int32_t scheme_at = line_of(after, "def _validate_scheme");
  const std::int32_t index_at = line_of(after, "def load_index");
  const Facts f = facts(701);
  ASSERT_FALSE(f.focus.empty());
  bool config_named = false, index_named = false;
  for (const auto& r : f.focus) {
    // A region holding the new validate_config's body is named for it (or
    // for nothing), never for the _validate_scheme below it.
    if (r.start_line <= config_at + 3 && r.end_line >= config_at + 3) {
      EXPECT_NE(r.symbol, "_validate_scheme") << r.start_line << "-" << r.end_line;
      config_named = config_named || r.symbol == "validate_config";
    }
    // The region of load_index's new signature and condition is named for
    // load_index, not for the function before it.
    if (r.start_line <= index_at + 4 && r.end_line >= index_at + 4 && r.start_line > scheme_at) {
      EXPECT_EQ(r.symbol, "load_index") << r.start_line << "-" << r.end_line;
      index_named = true;
    }
    if (r.symbol == "_validate_scheme") {
      EXPECT_LE(r.start_line, scheme_at + 2) << r.end_line;
      EXPECT_GE(r.end_line, scheme_at) << r.start_line;
    }
  }
  EXPECT_TRUE(config_named);
  EXPECT_TRUE(index_named);
  for (const char* lang : {"zh", "en"})
    for (const auto& g : guide(701, lang).focus)
      if (g.symbol == "_validate_scheme") {
        EXPECT_GE(g.end_line, scheme_at) << lang;
        EXPECT_LE(g.start_line, scheme_at + 2) << lang;
      }
}

TEST(OfflineReplacedTests, ATestTakingTheRemovedOnesPlaceIsTold) {
  auto def = [](std::string name, std::string change, std::string path = "tests/test_pool.py") {
    Definition d;
    d.name = std::move(name);
    d.kind = "method";
    d.change = std::move(change);
    d.at.path = std::move(path);
    return d;
  };
  std::vector<Definition> defs = {
      def("TestKeys.test_keys_basic", "removed"),
      def("TestKeys.test_keys_multi_tp", "removed"),
      def("TestKeys.test_keys", "added"),
      def("TestLookup.test_all_blocks_hit", "removed"),
      def("TestLookup.test_lookup_tokens", "added"),
      def("TestOther.test_prefix_cache_eviction", "added"),
      def("TestGone.test_unrelated", "removed"),
      def("test_keys_basic", "removed", "tests/test_other.py"),
  };
  const std::map<std::string, FileRole> roles = {{"tests/test_pool.py", FileRole::kTest},
                                                 {"tests/test_other.py", FileRole::kTest}};
  mark_replaced_tests(defs, roles);
  EXPECT_EQ(defs[2].replaces,
            (std::vector<std::string>{"TestKeys.test_keys_basic", "TestKeys.test_keys_multi_tp"}));
  EXPECT_EQ(defs[4].replaces, std::vector<std::string>{"TestLookup.test_all_blocks_hit"});
  EXPECT_TRUE(defs[5].replaces.empty());
}

TEST_F(OfflineTruth7, AMergedTestIsNotCalledNew) {
  const Facts f = facts(702);
  bool keys = false;
  for (const auto& d : f.definitions)
    if (d.name == "TestKeys.test_keys") {
      keys = true;
      EXPECT_EQ(d.replaces.size(), 3u);
    }
  EXPECT_TRUE(keys);
  for (const char* lang : {"zh", "en"}) {
    const Guide g = guide(702, lang);
    std::string text = g.summary + "\n";
    for (const auto& p : g.focus) text += p.question + "\n" + p.why + "\n";
    for (const char* word :
         {"new `TestKeys.test_keys`", "新增 `TestKeys.test_keys`",
          "new `TestLookup.test_lookup_tokens`", "新增 `TestLookup.test_lookup_tokens`",
          "`TestKeys.test_keys` and", "`TestKeys.test_keys` 和"})
      EXPECT_EQ(text.find(word), std::string::npos) << lang << ": " << word << "\n" << text;
  }
}

TEST_F(OfflineTruth7, ExamplesAreNamedInTheSummary) {
  for (const char* lang : {"zh", "en"}) {
    const Guide g = guide(703, lang);
    EXPECT_EQ(g.summary.find("只涉及测试、文档"), std::string::npos) << g.summary;
    EXPECT_EQ(g.summary.find("only tests, docs"), std::string::npos) << g.summary;
    EXPECT_TRUE(g.summary.find("示例") != std::string::npos ||
                g.summary.find("examples") != std::string::npos)
        << g.summary;
    for (const auto& s : g.skim)
      if (s.path == "examples/quantize.py") {
        EXPECT_NE(s.reason, "docs") << lang;
        EXPECT_NE(s.reason, "文档") << lang;
      }
  }
}

TEST_F(OfflineTruth7, AnItemQuotesTheEditNoEarlierItemQuoted) {
  // The rename `_gemma_mappings` → `_gemma2_mappings` is quoted once; the
  // place that also maps Gemma3 anew quotes that edit, not the rename again.
  for (const char* lang : {"zh", "en"}) {
    const Guide g = guide(704, lang);
    int renames = 0;
    bool gemma3 = false;
    for (const auto& p : g.focus) {
      renames += p.why.find("_gemma2_mappings") != std::string::npos;
      gemma3 = gemma3 || p.why.find("\"Gemma3ForCausalLM\": _llama_mappings") != std::string::npos;
    }
    EXPECT_TRUE(gemma3) << lang;
    EXPECT_LE(renames, 1) << lang;
  }
}

}  // namespace
}  // namespace mergelens
