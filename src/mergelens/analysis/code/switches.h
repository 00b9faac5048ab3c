// Switches and settings a repository declares, and the registry of them that
// the pipeline moves along the changes in merge order (as it moves the import
// graph), so a change's switches are known at its parent and at its merge.
//
// A switch is an environment variable, a command-line option or a field of a
// configuration class. Python sources are read (where these projects declare
// them):
//   - an env registry: `NAME = EnvBool(True)` / `NAME: EnvInt = EnvInt(4)` in
//     a class or at module level (any `Env*(...)` constructor), or a dict
//     entry `"NAME": lambda: int(os.getenv("NAME", "0"))`;
//   - a read with or without a default: `os.environ.get("NAME", "1")`,
//     `os.getenv("NAME")`, `os.environ["NAME"]`, `get_bool_env_var("NAME",
//     "false")` (any call whose name holds "env");
//   - an argparse option: `add_argument("--flag", ..., default=X)`, over
//     several lines;
//   - a field of a class named `*Args`, `*Arguments`, `*Config`, `*Settings`
//     or `*Options`: `name: T = default`, the annotation over several lines
//     (`name: A[bool, "help"] = False`), or `field(default=X, ...)`;
//   - a configuration key read with a default: `additional_config.get("key",
//     default)` (a receiver whose name holds "config").
// The default is kept as written (`True`, `"1"`, `None`); "" with
// has_default false when there is none.
//
// Pure: the pipeline feeds file contents. Not thread-safe; a const registry
// may be read from one thread while no one edits it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "mergelens/analysis/facts.h"
#include "mergelens/model/change.h"

namespace mergelens {

struct SwitchDecl {
  std::string name;           // "SGLANG_X", "--enable-foo", "enable_foo"
  std::string kind;           // "env", "cli", "config"
  std::string origin;         // "registry", "field", "argparse", "config_read", "read"
  std::string default_value;  // as written, whitespace collapsed; "" when none
  bool has_default = false;
  std::string path;
  std::int32_t line = 0;  // 1-based line of the declaring statement
  std::string text;       // the statement, whitespace collapsed, at most ~200 bytes
};

// True for the files the registry reads (.py, .pyi).
bool switch_scan_tracks(std::string_view path);

// Every declaration and read of `content` (the file `path`), in line order.
// Never fails; a statement it cannot read is skipped.
std::vector<SwitchDecl> scan_switches(std::string_view path, std::string_view content);

// The switches of a tree, file by file.
class SwitchRegistry {
 public:
  // Replaces what `path` declared with what `content` declares; ignores
  // files switch_scan_tracks() refuses.
  void set_file(const std::string& path, std::string_view content);
  void remove_file(const std::string& path);
  void clear();

  size_t files() const { return by_path_.size(); }
  size_t names() const { return by_name_.size(); }

  // The declarations of `name` (an env var, "--flag" or a field name), the
  // primary one first: registry, then field, argparse, config read, read;
  // then by path and line. Empty when the tree does not have it.
  std::vector<SwitchDecl> lookup(std::string_view name) const;
  // lookup(name).front() without the copies (of the fields only when
  // `fields_only`); nullptr when there is none. Valid until the next edit.
  const SwitchDecl* primary(std::string_view name, bool fields_only = false) const;
  // The declarations `path` holds.
  const std::vector<SwitchDecl>* in_file(const std::string& path) const;
  // Whether `name` is a field of a configuration class anywhere.
  bool is_field(std::string_view name) const;

  // The commit whose tree the registry holds, as the caller set it.
  std::string commit;

 private:
  // A declaration of a name: its file (a key of by_path_) and its index there.
  struct DeclRef {
    const std::string* path;
    const std::vector<SwitchDecl>* file;
    std::uint32_t index;
  };
  std::map<std::string, std::vector<SwitchDecl>> by_path_;
  // name → its declarations, by path then line order (a file's own order):
  // a lookup reads only the declarations of the name, not every one of the
  // files declaring it (a registry file declares hundreds).
  std::map<std::string, std::vector<DeclRef>, std::less<>> by_name_;
};

// What a change does to switches, measured around an edit of the registry:
// construct it on the registry at the change's parent, apply the change's
// files to the registry, then call finish() on it at the merge. The facts
// name every switch a changed line reads, sets or declares (env names, "--
// flags", configuration fields read as `args.x` / `config.x`) and every
// declaration the changed files add, remove or edit, each with its primary
// declaration before and after (at most 40 switches; names sorted).
class SwitchProbe {
 public:
  SwitchProbe(const SwitchRegistry& parent, const Change& change);
  std::vector<SwitchFact> finish(const SwitchRegistry& merge) const;

 private:
  const Change& change_;
  std::set<std::string> names_;               // candidates
  std::map<std::string, SwitchDecl> before_;  // primary declaration at the parent
  std::map<std::string, std::vector<SwitchDecl>> parent_decls_;  // changed files' decls
};

// Marks `switches` unread (SwitchFact::unread) whose declaration at the
// merge assigns the value to a variable its file never reads again: a name
// indented under a function, or a module name starting with '_' (others may
// be imported). `read` gives a file at the merge; a file it cannot give
// leaves its switches as they are.
void mark_unread_switches(
    std::vector<SwitchFact>& switches,
    const std::function<std::optional<std::string>(const std::string& path)>& read);

// The names of switches written on one line of code: env-style names in
// quotes or after `envs.`, "--flags", and fields read through a receiver
// named like `args`, `server_args`, `config` (`x.args.enable_foo`).
void switch_names_on_line(std::string_view line, std::vector<std::string>& out);

}  // namespace mergelens
