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
// Rules use subject prefixes, whole words of paths and titles, a few globs and
// file roles (docs/tests/ci/deps when every file has that role; kernels when
// a kernel file changed; model-support when a model file was added); none
// reads the body. Built once; the reference stays valid for the program's life.
const std::vector<TagRule>& default_taxonomy();

// Applies `rules` to `change`: changed paths (new and old paths; "all files"
// checks use the new paths), title prefixes, title words (and body words for
// rules with keywords_in_body) and the roles in `roles` (keyed by path; a
// missing path is classified with classify_role and no overrides). A rule's
// criteria are tried in the order prefixes, globs, path words, roles, title
// keywords, body keywords. Returns each tag once, from the first rule (in
// `rules` order) that matches, with Tag::source "prefix", "path", "keyword"
// or "generic" (roles) for default rules and the rule's own source
// ("labeler", "config") otherwise, and Tag::rule naming the prefix, glob,
// word or role criterion that matched; sorted by name. Never fails.
std::vector<Tag> assign_tags(const Change& change, const std::map<std::string, FileRole>& roles,
                             const std::vector<TagRule>& rules);

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
