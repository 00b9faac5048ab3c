// The fates of the definitions a change removes, adds or re-signs, as a
// parser's tags at the parent and at the merge tell them (ContextProbe::fates
// in context.h finds them; definition_fates.cc), and their application to the
// definitions the diff's outline found. Pure.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "mergelens/analysis/facts.h"

namespace mergelens {

// What the parser says, at the parent and at the merge, of a definition
// whose own line the change removes or adds, or whose signature it changes
// (definition_fates.cc). The diff's outline cannot tell a definition deleted
// from one rewritten in place, moved to another file, nested in a function
// or still inherited from a base class; the tags of both trees can.
struct DefinitionFate {
  std::string path;  // the change's file (its new path)
  std::string name;  // qualified, as the parser gives it: "Model.forward", "Model.run.helper"
  // '-': its line is removed (read at the parent); '+': added (read at the
  // merge); '=': its signature differs between the parent and the merge.
  char side = '-';
  // '-' and '+': "kept" (the same file defines the same qualified name on
  // the other side: rewritten in place), "moved" (another file does),
  // "nested" (it sits inside a function or method: no caller outside it),
  // "inherited" ('-', a method: a base class named in its class's header
  // defines it at the merge), "gone" ('-') or "new" ('+'). '=': "resigned".
  std::string fate;
  std::string enclosing;  // "nested": the function or method holding it (qualified)
  // "kept" and "resigned": every call the parent's signature accepted still
  // binds (parameters kept in order, only parameters with defaults appended,
  // annotations and defaults' values aside).
  bool compatible = false;
};

// Whether a call written for `before` still binds with `after` (parameter
// lists as the parser gives them, "(self, x: int, y=2)"): the same
// parameters in order, a parameter with a default keeps one, and only
// parameters with a default, *args or **kwargs are appended. Annotations and
// default values are ignored. False when either cannot be read.
bool signature_compatible(std::string_view before, std::string_view after);

// Applies `fates` to the definitions the diff's outline found (pure): a
// removed or added one the parser found "kept" becomes "modified" (dropped
// when already listed), "moved" and "inherited" become that change, a
// "nested" one is replaced by its enclosing definition, "modified" (unless
// listed), and a re-signed one whose calls still bind is marked compatible.
// Drops the "dead_code_removed" signals of definitions no longer removed.
void apply_definition_fates(const std::vector<DefinitionFate>& fates,
                            std::vector<Definition>& definitions, std::vector<Signal>& signals);

// Marks "moved" an added function or method whose bare name (last
// component, leading underscores dropped) a removed one of another qualified
// name had ("KVPoolScheduler._uses_hybrid_kv_cache" → "uses_hybrid_kv_cache"
// in another module), or the same name in another file, and that removed
// one too: a helper extracted from a class to be shared, or moved to another
// module, is not new code (pure). Drops the "dead_code_removed"
// signal of the removed one.
void mark_extracted_helpers(std::vector<Definition>& definitions, std::vector<Signal>& signals);

// Fills `replaces` of the tests a change adds to a test file (role kTest in
// `roles`; functions and methods named test*) from the tests it removes from
// that file (pure): a removed test goes to the added one whose bare name
// shares its leading words (`test_keys` and `test_keys_basic`,
// `test_finished_early_returns` and `test_finished_no_put`: one a prefix of
// the other, or two words in common after "test"), else to the one test added
// to its class, if the class gets exactly one.
void mark_replaced_tests(std::vector<Definition>& definitions,
                         const std::map<std::string, FileRole>& roles);

}  // namespace mergelens
