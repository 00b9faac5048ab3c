// Issue 31, sixth pass of the offline writer (truth8b): "where to look" items
// and headlines careful readers found false or misleading. A range labelled
// with a function it runs beyond (its subject a removed helper above it or a
// sibling method); an old line paired with one arm of the branch written
// around it as if one line replaced the other; an item quoting one
// behaviour-neutral edit (a rename followed, an equivalent rewrite) of a range
// whose real change it leaves out; a headline dropping the title's "[gemma3]"
// scope. Each on a crafted change run through the real pipeline (ingest,
// analyse, write in both languages); the pairing also on find_replacements.
#include <gtest/gtest.h>

#include <algorithm>

#include "mergelens/analysis/code/rationale.h"
#include "mergelens/guide/offline_parts.h"
#include "mergelens/model/diff.h"
#include "mergelens/pipeline/analyze.h"
#include "mergelens/pipeline/ingest.h"
#include "mergelens/pipeline/write.h"
#include "offline_guide_fixture.h"
#include "test_helpers.h"

namespace mergelens {
namespace {

using testing::GitRepo;
using testing::TempDir;

constexpr const char* kOps = R"(import os

_ENCODER_PARTS = (
    "vision_tower",
    "vision_model",
)


def _skip_for_encoder(prefix):
    return any(part in prefix for part in _ENCODER_PARTS)


def _is_shared(prefix):
    return "shared" in prefix


def _column_op(prefix, layer):
    if "gate_up" in prefix and not _skip_for_encoder(prefix):
        return ColumnOp(layer)
    return None


def get_op(disable, prefix, layer):
    replicated = _is_shared(prefix) and os.environ.get("DP") == "1"
    if disable or replicated:
        return None, 0, 1
    op = _column_op(prefix, layer)
    if op is None:
        return None, 0, 1
    return op, 1, 2
)";

constexpr const char* kOpsAfter = R"(import os


def _is_shared(prefix):
    return "shared" in prefix


def _column_op(prefix, layer):
    if "gate_up" in prefix:
        return ColumnOp(layer)
    return None


def get_op(disable, prefix, layer):
    if _is_shared(prefix):
        # The shared weights are replicated only under data parallelism.
        if os.environ.get("DP") == "1":
            return None, 0, 1
        layer.shared = True
    elif disable:
        return None, 0, 1
    op = _column_op(prefix, layer)
    if op is None:
        return None, 0, 1
    return op, 1, 2
)";

constexpr const char* kNorm = R"(import torch


def install():
    def fused_norm(hidden_states, residual, norm):
        if world_size() > 1:
            hidden_states = torch.ops.pad_and_reduce(hidden_states)
        return norm(hidden_states, residual)

    return fused_norm
)";

constexpr const char* kNormAfter = R"(import torch


def install():
    def fused_norm(hidden_states, residual, norm):
        if world_size() > 1:
            try:
                sp_enabled = current_config().use_sequence_parallel
            except AssertionError:
                sp_enabled = False
            if sp_enabled:
                padding = (-hidden_states.shape[0]) % world_size()
                hidden_states = reduce_scatter(hidden_states, padding)
            else:
                hidden_states = all_reduce(hidden_states)
        return norm(hidden_states, residual)

    return fused_norm
)";

constexpr const char* kRound = R"(class Rounder:
    def __init__(self):
        self._inputs = {}
        self._hooks = []

    def capture(self, module, args, kwargs):
        if module.name not in self._inputs:
            self._inputs[module.name] = []
        self._inputs[module.name].append((args, kwargs))

    def start(self, model):
        for module in model.modules():
            if self.is_layer(module):
                # capture the inputs of each layer
                self.register_hook(
                    module, self.capture, "forward_pre"
                )

    def is_layer(self, module):
        return module.kind == "layer"
)";

constexpr const char* kRoundAfter = R"(class Rounder:
    def __init__(self):
        self._inputs = {}
        self._hooks = []

    def capture(self, module, args, kwargs):
        name = module.name
        self._inputs.setdefault(name, []).append((args, kwargs))

    def start(self, model):
        for module in model.modules():
            if self.is_layer(module):
                handle = self.register_hook(
                    module, self.capture, "forward_pre"
                )
                self._capture_hooks[module.name] = handle

    def is_layer(self, module):
        return module.kind == "layer"
)";

constexpr const char* kMappings = R"(_llama_mappings = [
    "input_layernorm",
    "post_attention_layernorm",
]

# Gemma has a pre-feedforward norm
_gemma_mappings = [
    "input_layernorm",
    "pre_feedforward_layernorm",
]


def resolve(arch):
    return MAPPINGS.get(arch, [])


MAPPINGS = {
    "LlamaForCausalLM": _llama_mappings,
    "Gemma2ForCausalLM": _gemma_mappings,
    "Gemma3ForCausalLM": _gemma_mappings,
    "Gemma3ForConditionalGeneration": _gemma_mappings,
    "MistralForCausalLM": _llama_mappings,
}
)";

constexpr const char* kMappingsAfter = R"(_llama_mappings = [
    "input_layernorm",
    "post_attention_layernorm",
]

# Gemma has a pre-feedforward norm
_gemma2_mappings = [
    "input_layernorm",
    "pre_feedforward_layernorm",
]


def resolve(arch):
    return MAPPINGS.get(arch, [])


MAPPINGS = {
    "LlamaForCausalLM": _llama_mappings,
    "Gemma2ForCausalLM": _gemma2_mappings,
    "Gemma3ForCausalLM": _llama_mappings,
    "Gemma3ForConditionalGeneration": _llama_mappings,
    "MistralForCausalLM": _llama_mappings,
    "Qwen2ForCausalLM": _llama_mappings,
    "Qwen3ForCausalLM": _llama_mappings,
    "PhiForCausalLM": _llama_mappings,
}
)";

constexpr const char* kMoe = R"(def apply(layer, mega_fused, mega_supported):
    if layer.use_list:
        w1 = layer.w1_list
        w2 = layer.w2_list
    elif mega_fused and mega_supported:
        w1 = layer.mega_w1
        w2 = layer.mega_w2
    else:
        w1 = layer.w1
        w2 = layer.w2
    return run(w1, w2)
)";

constexpr const char* kMoeAfter = R"(def apply(layer, mega_fused, mega_supported):
    use_mega_fused = mega_fused and mega_supported
    if layer.use_list:
        w1 = layer.w1_list
        w2 = layer.w2_list
    elif use_mega_fused:
        w1 = layer.mega_w1
        w2 = layer.mega_w2
    else:
        w1 = layer.w1
        w2 = layer.w2
    return run(w1, w2)
)";

constexpr const char* kConsumed = R"(def trace_consumed_names(subgraphs):
    for input_name in all_inputs(subgraphs):
        # find the last subgraph that uses it
        for subgraph in reversed(subgraphs):
            if input_name in subgraph.input_names:
                subgraph.consumed_names.add(input_name)
                break
    return subgraphs
)";

constexpr const char* kConsumedAfter = R"(def trace_consumed_names(subgraphs):
    seen_names = set()
    # The first occurrence in reverse order is the final use in execution order.
    for subgraph in reversed(subgraphs):
        subgraph.consumed_names.update(subgraph.input_names - seen_names)
        seen_names.update(subgraph.input_names)
    return subgraphs
)";

// A module of `n` small functions named `prefix_k`.
std::string module_of(const std::string& prefix, int n) {
  std::string out = "import os\n";
  for (int k = 0; k < n; ++k)
    out += "\n\ndef " + prefix + "_" + std::to_string(k) + "(x):\n    return os.path.join(x, \"" +
           prefix + "\")\n";
  return out;
}

class OfflineTruth8b : public testing::OfflineGuideFixture<OfflineTruth8b> {
 public:
  static void write_history(GitRepo& repo) {
    repo.run("remote add origin git@github.com:o/r.git");
    repo.write("pkg/ops.py", kOps);
    repo.write("pkg/norm.py", kNorm);
    repo.write("pkg/round.py", kRound);
    repo.write("pkg/mappings.py", kMappings);
    repo.write("pkg/moe.py", kMoe);
    repo.write("pkg/consumed.py", kConsumed);
    repo.write("pkg/legacy.py", module_of("old_step", 60));
    repo.commit("Initial import", "2026-09-01T08:00:00Z");

    repo.write("pkg/ops.py", kOpsAfter);
    repo.commit("[Refactor] Drop the encoder skip (#801)", "2026-09-02T09:00:00Z");
    repo.write("pkg/norm.py", kNormAfter);
    repo.commit("Reduce-scatter under sequence parallelism (#802)", "2026-09-02T10:00:00Z");
    repo.write("pkg/round.py", kRoundAfter);
    repo.commit("fix(round): drop each capture hook before rounding (#803)",
                "2026-09-02T11:00:00Z");
    repo.write("pkg/mappings.py", kMappingsAfter);
    repo.commit("[AWQ] [gemma3] remove input layernorm mapping (#804)", "2026-09-02T12:00:00Z");
    repo.write("pkg/moe.py", kMoeAfter);
    repo.commit("Name the mega path's condition (#805)", "2026-09-02T13:00:00Z");
    repo.write("pkg/consumed.py", kConsumedAfter);
    repo.commit("Trace consumed names in one pass (#806)", "2026-09-02T14:00:00Z");
    repo.run("rm -q pkg/legacy.py");
    repo.write("pkg/fresh/legacy.py",
               "def _private_helper(x):\n    return x\n\n\n" + module_of("new_step", 70));
    repo.commit("Move the legacy steps to fresh (#807)", "2026-09-02T15:00:00Z");
  }
};

// The line (1-based) of `needle` in `text`.
std::int32_t line_of(std::string_view text, std::string_view needle) {
  const size_t at = text.find(needle);
  EXPECT_NE(at, std::string_view::npos) << needle;
  return static_cast<std::int32_t>(std::count(text.begin(), text.begin() + at, '\n')) + 1;
}

TEST_F(OfflineTruth8b, ARangeNamedForAFunctionLiesInsideIt) {
  // get_op holds most of the added lines, but the region also holds the
  // removed helper above it and an edit of _column_op: named get_op, its
  // range must start inside get_op.
  const std::int32_t get_op_at = line_of(kOpsAfter, "def get_op");
  const std::int32_t column_at = line_of(kOpsAfter, "def _column_op");
  bool named = false;
  for (const auto& r : facts(801).focus)
    if (r.symbol == "get_op") {
      named = true;
      EXPECT_GE(r.start_line, get_op_at) << r.start_line << "-" << r.end_line;
    } else if (r.symbol == "_column_op") {
      EXPECT_GE(r.start_line, column_at) << r.start_line << "-" << r.end_line;
      EXPECT_LT(r.end_line, get_op_at) << r.start_line << "-" << r.end_line;
    }
  EXPECT_TRUE(named);
  for (const char* lang : {"zh", "en"})
    for (const auto& g : guide(801, lang).focus) {
      if (g.symbol != "get_op") continue;
      EXPECT_GE(g.start_line, get_op_at) << lang;
      // Its question is about what lies in get_op, not the removed helper.
      EXPECT_EQ(g.question.find("_skip_for_encoder"), std::string::npos) << lang << g.question;
    }
}

TEST(OfflineTruth8bPairs, AnArmOfANewBranchReplacesNoLine) {
  // "x = pad_and_reduce(x)" became try/if/else with "x = all_reduce(x)" in
  // the else arm: no one-line replacement.
  const std::string patch = R"(@@ -5,4 +5,13 @@ def install():
     def fused_norm(hidden_states, residual, norm):
         if world_size() > 1:
-            hidden_states = torch.ops.pad_and_reduce(hidden_states)
+            try:
+                sp_enabled = current_config().use_sequence_parallel
+            except AssertionError:
+                sp_enabled = False
+            if sp_enabled:
+                hidden_states = reduce_scatter(hidden_states, padding)
+            else:
+                hidden_states = all_reduce(hidden_states)
         return norm(hidden_states, residual)
)";
  auto hunks = parse_patch(patch);
  ASSERT_TRUE(hunks);
  ASSERT_EQ(hunks->hunks.size(), 1u);
  EXPECT_TRUE(find_replacements(Language::kPython, hunks->hunks.front()).empty());
  // A line edited in place, or under a branch the parent already had, still pairs.
  const std::string same = R"(@@ -1,3 +1,3 @@
 if world_size() > 1:
-    hidden_states = torch.ops.pad_and_reduce(hidden_states)
+    hidden_states = torch.ops.all_reduce(hidden_states)
 return hidden_states
)";
  auto kept = parse_patch(same);
  ASSERT_TRUE(kept);
  EXPECT_EQ(find_replacements(Language::kPython, kept->hunks.front()).size(), 1u);
}

TEST(OfflineTruth8bPairs, ADefinitionHeadPairsOnlyWithADefinitionHead) {
  // A function replaced by another with its parameters on their own lines:
  // the old head is not "replaced by" a parameter line of the new one.
  const std::string patch = R"(@@ -10,3 +10,7 @@ from .helpers import invert
-def validate_scheme(scheme: QuantizationScheme) -> tuple[str, QuantizationScheme]:
+def validate_config(
+    config: QuantizationConfig | None,
+    scheme: QuantizationScheme | str | None,
+    ignore: Iterable[str],
+) -> QuantizationConfig:
     if isinstance(scheme, str):
)";
  auto hunks = parse_patch(patch);
  ASSERT_TRUE(hunks);
  ASSERT_EQ(hunks->hunks.size(), 1u);
  for (const auto& r : find_replacements(Language::kPython, hunks->hunks.front()))
    EXPECT_NE(hunks->hunks.front().lines[r.added].text.find("def "), std::string::npos)
        << hunks->hunks.front().lines[r.added].text;
  // A head whose signature changed in place still pairs with the new head.
  const std::string inplace = R"(@@ -1,2 +1,2 @@
-def validate_scheme(scheme: QuantizationScheme) -> tuple:
+def validate_scheme(scheme: QuantizationScheme | str) -> tuple:
     pass
)";
  auto kept = parse_patch(inplace);
  ASSERT_TRUE(kept);
  EXPECT_EQ(find_replacements(Language::kPython, kept->hunks.front()).size(), 1u);
}

TEST_F(OfflineTruth8b, AnArmOfANewBranchIsNotQuotedAsAReplacement) {
  for (const auto& r : facts(802).replacements)
    EXPECT_EQ(r.new_text.find("all_reduce"), std::string::npos) << r.old_text;
  for (const char* lang : {"zh", "en"}) {
    EXPECT_FALSE(guide(802, lang).focus.empty()) << lang;
    for (const auto& g : guide(802, lang).focus) {
      EXPECT_EQ(g.question.find("pad_and_reduce"), std::string::npos) << lang << g.question;
      EXPECT_EQ(g.why.find("pad_and_reduce"), std::string::npos) << lang << g.why;
    }
  }
}

TEST_F(OfflineTruth8b, AnItemQuotingAnEquivalentRewriteNamesWhatElseItsRangeAdds) {
  // The setdefault rewrite is quoted; the range also stores each hook's
  // handle, the change the fix relies on: the item names it.
  for (const char* lang : {"zh", "en"}) {
    bool quoted = false;
    for (const auto& g : guide(803, lang).focus) {
      if (g.why.find("setdefault") == std::string::npos &&
          g.question.find("setdefault") == std::string::npos)
        continue;
      quoted = true;
      EXPECT_NE(g.why.find("self._capture_hooks[module.name] = handle"), std::string::npos)
          << lang << ": " << g.why;
    }
    EXPECT_TRUE(quoted) << lang;
  }
}

TEST_F(OfflineTruth8b, AnItemDoesNotQuoteALineThatOnlyFollowsARename) {
  // The registry renames Gemma2's list and maps Gemma3 anew; the item on the
  // registry quotes the Gemma3 edit, not the line that follows the rename.
  for (const char* lang : {"zh", "en"}) {
    bool registry = false;
    for (const auto& g : guide(804, lang).focus) {
      if (g.why.find("ForCausalLM") == std::string::npos) continue;
      registry = true;
      EXPECT_EQ(g.why.find("\"Gemma2ForCausalLM\": _gemma_mappings"), std::string::npos)
          << lang << ": " << g.why;
      EXPECT_NE(g.why.find("Gemma3"), std::string::npos) << lang << ": " << g.why;
    }
    EXPECT_TRUE(registry) << lang;
  }
}

TEST_F(OfflineTruth8b, AConditionNamedByANewVariableIsNotAChangedCondition) {
  // "elif mega_fused and mega_supported:" → "elif use_mega_fused:" beside
  // "use_mega_fused = mega_fused and mega_supported": the same condition, no
  // question about the inputs it would split.
  for (const char* lang : {"zh", "en"}) {
    const Guide g = guide(805, lang);
    EXPECT_FALSE(g.focus.empty()) << lang;
    for (const auto& p : g.focus) {
      EXPECT_EQ(p.question.find("condition changes"), std::string::npos) << p.question;
      EXPECT_EQ(p.question.find("条件从"), std::string::npos) << p.question;
    }
  }
}

TEST_F(OfflineTruth8b, TheHeadlineKeepsAScopeWithADigit) {
  for (const char* lang : {"zh", "en"}) {
    const Guide g = guide(804, lang);
    EXPECT_NE(g.headline.find("gemma3"), std::string::npos) << lang << ": " << g.headline;
  }
}

}  // namespace
}  // namespace mergelens

namespace mergelens {
namespace {

TEST_F(OfflineTruth8b, ALoopMovedOutOfAnotherIsNotSomethingTheRangeAdds) {
  // The inner "for subgraph in reversed(subgraphs):" became the only loop:
  // the change removes and writes it again; it adds the seen-names set.
  bool item = false;
  for (const char* lang : {"zh", "en"})
    for (const auto& g : guide(806, lang).focus) {
      item = item || g.why.find("seen_names") != std::string::npos;
      EXPECT_EQ(g.why.find("`for subgraph in reversed(subgraphs):`"), std::string::npos)
          << lang << ": " << g.why;
    }
  EXPECT_TRUE(item);
}

TEST(OfflineTruth8bPairs, AQuotedPairNeverHidesItsEditInACut) {
  // The new line is cut at its bracket, before the only difference: the
  // pair would read `register(name=...)` -> `register`... as if name= went.
  Replacement r;
  r.old_text = "@TextGenerationDataset.register(name=\"ultrachat_200k\")";
  r.new_text = "@TextGenerationDataset.register(name=\"ultrachat_200k\", alias=\"ultrachat\")";
  const std::string label = guide_detail::pair_label(r);
  EXPECT_NE(label.find("alias=\"ultrachat\""), std::string::npos) << label;
}

}  // namespace
}  // namespace mergelens

namespace mergelens {
namespace {

TEST_F(OfflineTruth8b, ASummaryNamesWholeFilesAddedOrDeletedByTheirPaths) {
  // A 240-line module deleted and a 290-line one of the same name added in
  // another folder: the summary names both files, by path since their names
  // are one, and not the first private helper the new file defines.
  for (const char* lang : {"zh", "en"}) {
    const std::string summary = guide(807, lang).summary;
    EXPECT_NE(summary.find("`pkg/legacy.py`"), std::string::npos) << lang << ": " << summary;
    EXPECT_NE(summary.find("`pkg/fresh/legacy.py`"), std::string::npos) << lang << ": " << summary;
    EXPECT_EQ(summary.find("_private_helper"), std::string::npos) << lang << ": " << summary;
  }
}

}  // namespace
}  // namespace mergelens
