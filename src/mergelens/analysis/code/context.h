// The code around a change that a careful reviewer opens: the definitions the
// hunks edit (as they stood at the parent), the functions, classes and
// constants the changed lines call or use, and the callers of a definition
// whose signature the change edits (at the merge).
//
// The pipeline keeps a SymbolIndex of the tree (a parser's tags per file, fed
// file by file and edited along the changes in merge order, as it does the
// import graph) and measures each change around an edit of it: a
// ContextProbe built on the index at the parent, finished on the index at the
// merge. Pure: the tags and file contents come from the pipeline. Not
// thread-safe; a const index may be read while no one edits it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "mergelens/analysis/code/definition_fates.h"
#include "mergelens/analysis/facts.h"
#include "mergelens/model/change.h"
#include "mergelens/model/code_tag.h"

namespace mergelens {

class ImportGraph;

class SymbolIndex {
 public:
  void set_file(const std::string& path, std::vector<CodeTag> tags);
  void remove_file(const std::string& path);
  void clear();

  size_t files() const { return by_path_.size(); }
  size_t tags() const { return tag_count_; }
  const std::vector<CodeTag>* in_file(const std::string& path) const;
  // Every definition named `name` (unqualified), as (path, tag), by path.
  std::vector<std::pair<const std::string*, const CodeTag*>> lookup(std::string_view name) const;
  // The innermost function, method or class of `path` holding `line`; nullptr when none.
  const CodeTag* enclosing(const std::string& path, std::int32_t line) const;

  std::string commit;  // the tree the index holds, as the caller set it

 private:
  // A tag of a name: its file (a key of by_path_ and its tags) and its index there.
  struct TagRef {
    const std::string* path;
    const std::vector<CodeTag>* file;
    std::uint32_t index;
  };
  std::map<std::string, std::vector<CodeTag>> by_path_;
  // name → its tags, by path then the file's order: a lookup reads only the
  // tags of the name, not every tag of the files holding it.
  std::unordered_map<std::string, std::vector<TagRef>> by_name_;
  size_t tag_count_ = 0;
};

// Reads a file at the merge commit for the callers' search; nullopt when absent.
using MergeReader = std::function<std::optional<std::string>(const std::string& path)>;

class ContextProbe {
 public:
  // On the index and import graph at the change's parent.
  ContextProbe(const SymbolIndex& parent, const ImportGraph& parent_graph, const Change& change);
  // On the index and graph at the merge: adds the callers of every definition
  // whose signature changed (their files read through `read`, at most 12 per
  // definition). Items: changed definitions first (at most 8), then called
  // ones (8), constants (4), callers (6), where the attributes that added
  // lines read are set ("attribute", at the merge, 8), what the changed
  // functions call on their unchanged lines ("callee", at the merge, 4), then
  // existing tests that call an edited definition ("test", at the merge, 4).
  std::vector<ContextItem> finish(const SymbolIndex& merge, const ImportGraph& merge_graph,
                                  const MergeReader& read) const;
  // On the index at the merge: the fates of the definitions on the change's
  // removed and added lines and of those it re-signs (a removed method is
  // "inherited" when its class's bases, CodeTag::bases, name a class that
  // defines it). Sorted by path, side, name.
  std::vector<DefinitionFate> fates(const SymbolIndex& merge) const;

 private:
  const Change& change_;
  std::vector<ContextItem> items_;
  // Definitions of the changed files at the parent, by qualified name.
  std::map<std::string, std::map<std::string, CodeTag>> parent_defs_;
  // Definitions whose line the change removes, read at the parent.
  struct RemovedDef {
    std::string path;  // new path
    CodeTag tag;
    std::string enclosing;  // the function or method holding it, "" when none
  };
  std::vector<RemovedDef> removed_;
  // Definitions at the parent named on added lines: where an added
  // definition may have been before. Qualified name → the first path
  // holding it and whether another path holds it too.
  struct NamedAt {
    std::string path;
    bool elsewhere_too = false;
  };
  std::unordered_map<std::string, NamedAt> parent_named_;
  void note_definitions(const SymbolIndex& parent);
  void add_callees(std::vector<ContextItem>& out, const SymbolIndex& merge,
                   const ImportGraph& graph, const MergeReader& read,
                   std::map<std::string, std::optional<std::string>>& files_read) const;
  // context_attributes.cc: where the attributes the added Python lines read
  // (`self.x`, `layer.x`) are set, in the edited method's class or its
  // bases, or in the same file; at most 8 "attribute" items, none the diff shows.
  void add_attributes(std::vector<ContextItem>& out, const SymbolIndex& merge,
                      const ImportGraph& graph, const MergeReader& read,
                      std::map<std::string, std::optional<std::string>>& files_read) const;
  // context_tests.cc: existing Python tests (test files importing an edited
  // module or its package) whose `test…` function calls a definition the
  // change edits (a method as `.name(` where the test or its test class names
  // the method's class) and lies outside the diff's hunks; at most 4 "test"
  // items, 2 per definition, one per test.
  void add_tests(std::vector<ContextItem>& out, const SymbolIndex& merge, const ImportGraph& graph,
                 const MergeReader& read,
                 std::map<std::string, std::optional<std::string>>& files_read) const;
};

// Which of `defs` (every definition of one name, as SymbolIndex::lookup
// gives them) a use of the name in `path` means: the first in `path`, else
// the only one in a file `path` imports (`imports()` gives those paths,
// sorted; called only when needed), else the only one outside test files.
// nullptr when none is certain. Points into `defs`.
using DefinitionRef = std::pair<const std::string*, const CodeTag*>;
const DefinitionRef* definition_meant(
    const std::vector<DefinitionRef>& defs, const std::string& path,
    const std::function<const std::vector<std::string>&()>& imports);

// The names called on one line of code: `name(` and `.name(` (the receiver
// "self", "cls" or another), without keywords and builtins of Python and C++.
struct CalledName {
  std::string name;
  std::string receiver;  // "" for a plain call
};
void called_names(std::string_view line, std::vector<CalledName>& out);

// `line` without a trailing `# comment` (a `#` inside a string is rare in
// the statements read here; cutting there only shortens what is matched).
inline std::string_view code_of(std::string_view line) {
  const size_t hash = line.find('#');
  return hash == std::string_view::npos ? line : line.substr(0, hash);
}

// The bases of a class as ctags gives them ("Base, Mixin[T], metaclass=ABCMeta",
// CodeTag::bases), each as its last dotted name, without subscripts, access
// specifiers or keywords; "object" and empty entries are left out.
std::vector<std::string> base_names(std::string_view bases);

// The last part of a qualified name: "A.b" and "A::b" give "b".
inline std::string_view last_part(std::string_view name) {
  const size_t p = name.find_last_of(":.");
  return p == std::string_view::npos ? name : name.substr(p + 1);
}

// Decorator lines in a Python hunk's lines (context_runs.cc). Each reads
// `lines` only; `k` is an index into it.
//   decorator_line: `text` is a decorator, `@name...` after indentation.
//   decorators_only_run: the run of added lines holding `lines[k]` is
//     decorators (and blank lines) only, followed by a kept line: decorators
//     added to a kept definition, not a new definition placed before it.
//   removes_a_definition: the run of removed lines holding `lines[k]` removes
//     a `def` or `class` line, so a decorator in it is that definition's.
bool decorator_line(std::string_view text);
bool decorators_only_run(const std::vector<DiffLine>& lines, size_t k);
bool removes_a_definition(const std::vector<DiffLine>& lines, size_t k);

}  // namespace mergelens
