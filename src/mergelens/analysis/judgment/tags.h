// Topic tags for a change ("quantization", "amd", "bugfix", ...), each with
// the rule that assigned it, so every tag can be explained.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "mergelens/analysis/facts.h"
#include "mergelens/analysis/repo_config.h"
#include "mergelens/model/change.h"

namespace mergelens {

// The built-in taxonomy for ML-systems repositories, one rule per tag:
//   hardware   amd, nvidia, blackwell, hopper, intel, npu, tpu, cpu
//   subsystems moe, quantization, attention, kv-cache, speculative-decoding, lora,
//              multimodal, diffusion, distributed, cuda-graph, scheduler, router,
//              sampling, structured-output, tool-calling, model-support, kernels,
//              disaggregation, deterministic
//   generic    bugfix, feature, perf, refactor, docs, ci, tests, deps, revert
// Hardware tags also read the added code (`if _is_hip:` says amd); ci holds
// when CI files carry at least a third of the changed lines.
// Rules use subject prefixes, whole words of paths and titles, a few globs and
// file roles (docs/tests/ci/deps when every file has that role; kernels when
// a kernel file changed; model-support when a model file was added); none
// reads the body. Built once; the reference stays valid for the program's life.
const std::vector<TagRule>& default_taxonomy();

// Applies `rules` to `change`: changed paths (new and old paths; "all files"
// checks use the new paths), title prefixes, title words (and body words for
// rules with keywords_in_body), the roles in `roles` (keyed by path; a
// missing path is classified with classify_role and no overrides) and words
// of the added lines of code, test and benchmark files that the change does
// not also remove (code_words: a changelog or moved code is no evidence).
// A rule's criteria are tried in the order
// prefixes, globs, path words, roles, role shares, title keywords, code
// words, body keywords. Each tag comes once, from the first rule (in `rules`
// order) that matches, with Tag::source "prefix", "path", "keyword", "code"
// or "generic" (roles) for default rules and the rule's own source
// ("labeler", "config") otherwise, and Tag::rule naming the prefix, glob,
// word or role criterion that matched. A change whose text claims a
// performance figure (hints.perf_claim) is tagged perf ("numbers"), and one
// that says it fixes a reported problem (hints.fixes) bugfix ("references"),
// when the rules know those tags. Every tag carries its evidence, the share of changed
// lines in the files its rule covers, and a weight (the strength of the
// evidence, prefix > title word > files > code or description words, plus
// the share); the result is ranked by weight and cut to kMaxTags. Never
// fails.
struct TagHints {
  std::string perf_claim;  // a speed, throughput, latency or memory figure the text claims
  std::string fixes;       // a problem the text says the change fixes ("#123")
};

// A reader can use a few tags; more say nothing about any of them.
inline constexpr size_t kMaxTags = 6;

std::vector<Tag> assign_tags(const Change& change, const std::map<std::string, FileRole>& roles,
                             const std::vector<TagRule>& rules, const TagHints& hints = {});

// The rules to use for a repository: config rules first, then labeler rules,
// then the defaults. Tag names are canonicalised (canonical_tag_name) so a
// labeler's "documentation" or "quant" merges with the default "docs" or
// "quantization" tag; a config rule replaces every other rule of its tag;
// tags in config->disabled_tags are removed. Either pointer may be null.
// Returns prepared copies (see prepare_tag_rules); the inputs are not modified.
std::vector<TagRule> effective_rules(const std::vector<TagRule>* labeler, const RepoConfig* config);

// Builds TagRule::compiled (the words in matching form) for every rule, so
// assign_tags() does not redo it per change. Never fails.
void prepare_tag_rules(std::vector<TagRule>& rules);

// A tag name in canonical form: lowercase, runs of other characters as one
// '-', and common aliases folded ("documentation" → "docs", "quant" →
// "quantization", "Multi-modal" → "multimodal", "rocm" → "amd", ...).
std::string canonical_tag_name(std::string_view name);

}  // namespace mergelens
