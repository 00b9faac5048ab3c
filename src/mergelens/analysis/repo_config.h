// A repository's own configuration for the analysis: `mergelens.toml` (role
// overrides and tag rules) and `.github/labeler.yml` (actions/labeler rules,
// read as tag rules).
//
// mergelens.toml:
//
//   disable_tags = ["ci"]                 # tags never assigned
//
//   [roles]                               # first match wins, before the built-in rules
//   "python/pkg/layers/moe/configs/**" = "config"
//
//   [[tags]]                              # adds a tag, or replaces the same-named one
//   name = "moe"
//   paths = ["**/moe/**"]                 # globs (glob.h): any changed file matches any glob
//   path_words = ["moe", "expert*"]       # whole words of a changed path ("fused_moe.py")
//   keywords = ["MoE", "mixture of experts"]  # whole words of the title
//   body = true                           # keywords may also match in the body
//   prefixes = ["[MoE]", "moe:"]          # subject prefixes
//   unless = ["router"]                   # a word in the same path/title voids a word match
//   all_roles = ["docs"]                  # every changed file has one of these roles
//   any_roles = ["kernel"]                # some changed file has one of these roles
//
// `[tags.disable] names = ["ci"]` also lists tags to drop (after `[[tags]]`
// entries TOML nests it in the last entry; it is read as meant). Tags may also
// be written as tables keyed by name: `[tags.moe] paths = [...]`.
// Roles may also be an array: `[[roles]] glob = "..." role = "config"`.
// Unknown keys and sections are ignored and reported in RepoConfig::warnings.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mergelens/analysis/facts.h"
#include "mergelens/analysis/glob.h"
#include "mergelens/util/error.h"

namespace mergelens {

// The four changed-files operators of actions/labeler v5.
enum class FilesOp {
  kAnyGlobToAnyFile,    // some glob matches some file
  kAnyGlobToAllFiles,   // some glob matches every file
  kAllGlobsToAnyFile,   // some file matches every glob
  kAllGlobsToAllFiles,  // every file matches every glob
};

struct FilesCheck {
  FilesOp op = FilesOp::kAnyGlobToAnyFile;
  std::vector<Glob> globs;  // compiled; Glob::pattern() gives the text
};

// A labeler `any:` / `all:` group: with `all`, every check must hold;
// otherwise one is enough. A change with no files satisfies no check.
struct CheckGroup {
  bool all = false;
  std::vector<FilesCheck> checks;
};

// One way for the paths of a change to earn a tag: every group must hold.
// (labeler v5: the label's any/all groups are ANDed; a v4 list item is one
// alternative with one group.)
struct PathAlternative {
  std::vector<CheckGroup> groups;
};

struct TagRuleWords;  // defined in tags.cc

struct TagRule {
  std::string tag;
  // Where the rule comes from: "default" (the built-in taxonomy), "labeler"
  // or "config". Assigned tags report the criterion ("path", "keyword",
  // "prefix", "generic" for roles) for default rules and "labeler"/"config"
  // for the others.
  std::string source;
  // The tag applies when ANY of these holds (labeler semantics). head-branch
  // and base-branch conditions cannot be evaluated and are left out; a group
  // left without checks never holds.
  std::vector<PathAlternative> paths;
  // Whole words of a changed path (old or new), compared case-insensitively
  // with every run of non-alphanumerics as one separator, so "cuda graph"
  // matches "cuda_graph_runner.py"; a trailing '*' accepts any continuation
  // ("quantiz*" matches "quantization"), and a plural 's' is accepted.
  std::vector<std::string> path_words;
  // Words or phrases of the title (and of the body when keywords_in_body),
  // compared the same way: "KV cache" matches "KV-Cache" and "kv_cache".
  std::vector<std::string> keywords;
  bool keywords_in_body = false;
  // Subject prefixes, case-insensitive: "[AMD]" or "amd:" match a whole word
  // of a leading bracket tag ("[AMD][Bugfix] ...", "[AMD/ROCm] ...") or of a
  // conventional type or scope ("amd: ...", "fix(amd): ..."); a bare word
  // ("Revert") matches those and also the title's first word.
  std::vector<std::string> prefixes;
  // Words that void a path-word or keyword match found in the same path or title.
  std::vector<std::string> unless;
  // Role criteria: every changed file has one of `all_roles`, or some changed
  // file has one of `any_roles` (and was added, when `any_role_added`).
  std::vector<FileRole> all_roles;
  std::vector<FileRole> any_roles;
  bool any_role_added = false;
  // Files with one of `share_roles` hold at least `min_share` of the changed
  // lines (a CI change that also edits a test).
  std::vector<FileRole> share_roles;
  double min_share = 0;
  // Whole words of the change's added lines ("hip" in `if _is_hip:`): the
  // diff itself says what it is about.
  std::vector<std::string> code_words;
  // The words above in matching form, shared by copies. prepare_tag_rules()
  // (tags.h) builds it; effective_rules() and default_taxonomy() return
  // prepared rules, and assign_tags() builds a temporary one when it is
  // missing. Rebuild it after editing the words of a prepared rule.
  std::shared_ptr<const TagRuleWords> compiled;
};

struct RoleOverride {
  std::string glob;
  FileRole role = FileRole::kCore;
  Glob matcher;  // compiled from `glob` by the parser
};

struct RepoConfig {
  std::vector<RoleOverride> roles;         // first match wins, before the built-in rules
  std::vector<TagRule> tags;               // added to (or replacing, by tag name) the defaults
  std::vector<std::string> disabled_tags;  // as written; effective_rules() canonicalises
  // Unknown keys and sections, e.g. "mergelens.toml:12: unknown key 'colour' in tag rule
  // ignored".
  // Sections planned for later ([llm], [digest]) are reported here until read.
  std::vector<std::string> warnings;
};

// Parses mergelens.toml. `origin` names the file in messages. Fails with
// kInvalidInput "origin:line: ..." for TOML syntax errors, values of the wrong
// type, unknown role names, invalid globs and tag rules without any criterion.
// The result owns everything it holds.
Result<RepoConfig> parse_mergelens_toml(std::string_view text, std::string_view origin);

// Parses .github/labeler.yml in the actions/labeler v4 format (label: glob or
// list of globs / {any: [...], all: [...]}) or v5 format (label: list of
// {changed-files: [...]} / {any: [...]} / {all: [...]}), one TagRule per label
// with source "labeler", in file order, label names as written. Empty text
// gives no rules. Fails with kInvalidInput "origin:line: ..." for YAML syntax
// errors, labels whose value has the wrong shape, unknown changed-files
// operators (as actions/labeler does) and invalid globs.
Result<std::vector<TagRule>> parse_labeler_yml(std::string_view text, std::string_view origin);

// The role named by `name` as used in mergelens.toml (case-insensitive):
// "core", "kernel", "model", "config", "test"/"tests", "benchmark", "docs",
// "ci", "build"/"deps", "generated"/"vendored"; nullopt for any other name.
std::optional<FileRole> file_role_from_string(std::string_view name);

}  // namespace mergelens
