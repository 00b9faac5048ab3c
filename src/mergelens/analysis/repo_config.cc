#include "mergelens/analysis/repo_config.h"

#include <algorithm>
#include <cctype>
#include <exception>
#include <tuple>

#include <toml++/toml.h>
#include <yaml-cpp/yaml.h>

#include "mergelens/util/toml_file.h"

namespace mergelens {
namespace {

// ---------------------------------------------------------------- TOML ----

class TomlReader {
 public:
  explicit TomlReader(std::string_view origin) : origin_(origin) {}

  Result<RepoConfig> read(const toml::table& root) {
    for (auto&& [key, node] : root) {
      const std::string_view k = key.str();
      Result<void> r;
      if (k == "roles") {
        r = read_roles(node);
      } else if (k == "tags") {
        r = read_tags(node);
      } else if (k == "disable_tags") {
        auto names = strings(node, "disable_tags");
        if (!names) return std::unexpected(names.error());
        cfg_.disabled_tags.insert(cfg_.disabled_tags.end(), names->begin(), names->end());
      } else {
        warn(node, fmt::format("unknown {} '{}' ignored", node.is_table() ? "section" : "key", k));
      }
      if (!r) return std::unexpected(r.error());
    }
    return std::move(cfg_);
  }

 private:
  std::string where(const toml::node& n) const {
    return fmt::format("{}:{}", origin_, n.source().begin.line);
  }
  void warn(const toml::node& n, std::string what) {
    cfg_.warnings.push_back(fmt::format("{}: {}", where(n), what));
  }
  std::unexpected<Error> error(const toml::node& n, std::string_view what) const {
    return fail(ErrorKind::kInvalidInput, "{}: {}", where(n), what);
  }

  // A string or an array of strings.
  Result<std::vector<std::string>> strings(const toml::node& n, std::string_view what) const {
    std::vector<std::string> out;
    if (auto s = n.value<std::string>(); s && n.is_string()) {
      out.push_back(*s);
      return out;
    }
    const toml::array* arr = n.as_array();
    if (!arr) return error(n, fmt::format("'{}' must be a string or an array of strings", what));
    for (const auto& e : *arr) {
      if (!e.is_string())
        return error(e, fmt::format("'{}' must be a string or an array of strings", what));
      out.push_back(*e.value<std::string>());
    }
    return out;
  }

  Result<void> add_role(const toml::node& at, std::string_view glob, const toml::node& role) {
    const auto name = role.value<std::string>();
    if (!role.is_string() || !name)
      return error(role, fmt::format("[roles] value of '{}' must be a role name", glob));
    const auto r = file_role_from_string(*name);
    if (!r)
      return error(role,
                   fmt::format("[roles] '{}': unknown role '{}' (core, kernel, model, config, "
                               "test, benchmark, docs, ci, build, generated)",
                               glob, *name));
    auto g = Glob::compile(glob);
    if (!g) return error(at, fmt::format("[roles] {}", g.error().message));
    cfg_.roles.push_back({std::string(glob), *r, std::move(*g)});
    return {};
  }

  Result<void> read_roles(const toml::node& node) {
    if (const toml::table* t = node.as_table()) {
      // toml++ tables are sorted by key: restore the file order, which decides precedence.
      std::vector<std::tuple<int, int, std::string, const toml::node*>> entries;
      for (auto&& [key, v] : *t)
        entries.emplace_back(static_cast<int>(key.source().begin.line),
                             static_cast<int>(key.source().begin.column), std::string(key.str()),
                             &v);
      std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
        return std::tie(std::get<0>(a), std::get<1>(a)) < std::tie(std::get<0>(b), std::get<1>(b));
      });
      for (const auto& [line, col, glob, v] : entries)
        if (auto r = add_role(*v, glob, *v); !r) return r;
      return {};
    }
    const toml::array* arr = node.as_array();
    if (!arr) return error(node, "[roles] must be a table of glob = role, or an array of tables");
    for (const auto& e : *arr) {
      const toml::table* t = e.as_table();
      const toml::node* glob = t ? t->get("glob") : nullptr;
      const toml::node* role = t ? t->get("role") : nullptr;
      if (!glob || !glob->is_string() || !role)
        return error(e, "each [[roles]] entry needs glob = \"...\" and role = \"...\"");
      for (auto&& [key, v] : *t)
        if (key.str() != "glob" && key.str() != "role")
          warn(v, fmt::format("unknown key '{}' in [[roles]] ignored", key.str()));
      if (auto r = add_role(*glob, *glob->value<std::string>(), *role); !r) return r;
    }
    return {};
  }

  // `[tags.disable] names = [...]`, or `disable = [...]` inside [tags].
  Result<void> read_disable(const toml::node& v) {
    const toml::table* d = v.as_table();
    const toml::node* names = d ? d->get("names") : &v;
    if (!names) return error(v, "[tags.disable] needs names = [...]");
    auto list = strings(*names, "tags.disable");
    if (!list) return std::unexpected(list.error());
    cfg_.disabled_tags.insert(cfg_.disabled_tags.end(), list->begin(), list->end());
    return {};
  }

  Result<void> read_tag(const toml::table& t, std::string name, const toml::node& at) {
    TagRule rule;
    rule.source = "config";
    for (auto&& [key, v] : t) {
      const std::string_view k = key.str();
      if (k == "name") {
        if (!v.is_string()) return error(v, "tag 'name' must be a string");
        name = *v.value<std::string>();
      } else if (k == "paths") {
        auto globs = strings(v, "paths");
        if (!globs) return std::unexpected(globs.error());
        FilesCheck check;
        for (const auto& g : *globs) {
          auto compiled = Glob::compile(g);
          if (!compiled) return error(v, compiled.error().message);
          check.globs.push_back(std::move(*compiled));
        }
        if (!check.globs.empty())
          rule.paths.push_back(PathAlternative{{CheckGroup{false, {std::move(check)}}}});
      } else if (k == "path_words" || k == "keywords" || k == "prefixes" || k == "unless") {
        auto list = strings(v, k);
        if (!list) return std::unexpected(list.error());
        auto& dst = k == "path_words" ? rule.path_words
                    : k == "keywords" ? rule.keywords
                    : k == "prefixes" ? rule.prefixes
                                      : rule.unless;
        for (auto& s : *list)
          if (!s.empty()) dst.push_back(std::move(s));
      } else if (k == "all_roles" || k == "any_roles") {
        auto list = strings(v, k);
        if (!list) return std::unexpected(list.error());
        for (const auto& name : *list) {
          auto role = file_role_from_string(name);
          if (!role) return error(v, fmt::format("'{}': unknown role '{}'", k, name));
          (k == "all_roles" ? rule.all_roles : rule.any_roles).push_back(*role);
        }
      } else if (k == "disable") {
        // `[tags.disable]` written after a `[[tags]]` entry lands inside that entry (TOML
        // array-of-tables rule); it still means the tags to disable.
        if (auto r = read_disable(v); !r) return r;
      } else if (k == "body") {
        if (!v.is_boolean()) return error(v, "tag 'body' must be true or false");
        rule.keywords_in_body = *v.value<bool>();
      } else {
        warn(v, fmt::format("unknown key '{}' in tag rule ignored", k));
      }
    }
    if (name.empty()) return error(at, "tag rule without a name");
    if (rule.paths.empty() && rule.path_words.empty() && rule.keywords.empty() &&
        rule.prefixes.empty() && rule.all_roles.empty() && rule.any_roles.empty())
      return error(
          at, fmt::format("tag '{}' has no paths, path_words, keywords, prefixes or roles", name));
    rule.tag = std::move(name);
    cfg_.tags.push_back(std::move(rule));
    return {};
  }

  Result<void> read_tags(const toml::node& node) {
    if (const toml::array* arr = node.as_array()) {
      for (const auto& e : *arr) {
        const toml::table* t = e.as_table();
        if (!t) return error(e, "each [[tags]] entry must be a table");
        if (auto r = read_tag(*t, "", e); !r) return r;
      }
      return {};
    }
    const toml::table* t = node.as_table();
    if (!t) return error(node, "'tags' must be [[tags]] entries or [tags.<name>] tables");
    std::vector<std::pair<int, std::pair<std::string, const toml::node*>>> entries;
    for (auto&& [key, v] : *t)
      entries.push_back({static_cast<int>(key.source().begin.line), {std::string(key.str()), &v}});
    std::stable_sort(entries.begin(), entries.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [line, kv] : entries) {
      const auto& [name, v] = kv;
      if (name == "disable") {
        if (auto r = read_disable(*v); !r) return r;
        continue;
      }
      const toml::table* rule = v->as_table();
      if (!rule) return error(*v, fmt::format("[tags.{}] must be a table", name));
      if (auto r = read_tag(*rule, name, *v); !r) return r;
    }
    return {};
  }

  std::string origin_;
  RepoConfig cfg_;
};

// ---------------------------------------------------------------- YAML ----

class LabelerReader {
 public:
  explicit LabelerReader(std::string_view origin) : origin_(origin) {}

  Result<std::vector<TagRule>> read(const YAML::Node& root) {
    std::vector<TagRule> rules;
    if (!root || root.IsNull()) return rules;
    if (!root.IsMap()) return error(root, "expected a map from label names to rules");
    for (auto it = root.begin(); it != root.end(); ++it) {
      if (!it->first.IsScalar()) return error(it->first, "label names must be strings");
      const std::string label = it->first.Scalar();
      if (label == "changed-files-labels-limit") continue;  // a top-level option
      label_ = label;
      auto rule = read_label(it->second);
      if (!rule) return std::unexpected(rule.error());
      rule->tag = label;
      rules.push_back(std::move(*rule));
    }
    return rules;
  }

 private:
  std::unexpected<Error> error(const YAML::Node& n, std::string_view what) const {
    const int line = n.Mark().line >= 0 ? n.Mark().line + 1 : 0;
    if (label_.empty()) return fail(ErrorKind::kInvalidInput, "{}:{}: {}", origin_, line, what);
    return fail(ErrorKind::kInvalidInput, "{}:{}: label '{}': {}", origin_, line, label_, what);
  }

  // A glob or a list of globs.
  Result<std::vector<Glob>> globs(const YAML::Node& n) const {
    std::vector<Glob> out;
    auto add = [&](const YAML::Node& s) -> Result<void> {
      if (!s.IsScalar()) return error(s, "expected a glob string");
      auto g = Glob::compile(s.Scalar());
      if (!g) return error(s, g.error().message);
      out.push_back(std::move(*g));
      return {};
    };
    if (n.IsSequence()) {
      for (const auto& s : n)
        if (auto r = add(s); !r) return std::unexpected(r.error());
    } else if (auto r = add(n); !r) {
      return std::unexpected(r.error());
    }
    return out;
  }

  static bool all_scalars(const YAML::Node& n) {
    if (!n.IsSequence()) return n.IsScalar();
    for (const auto& e : n)
      if (!e.IsScalar()) return false;
    return true;
  }

  // The value of a `changed-files` key: entries appended to `out`.
  Result<void> changed_files(const YAML::Node& n, std::vector<FilesCheck>& out) const {
    if (n.IsNull()) return {};
    auto entry = [&](const YAML::Node& e) -> Result<void> {
      if (all_scalars(e)) {
        auto g = globs(e);
        if (!g) return std::unexpected(g.error());
        out.push_back({FilesOp::kAnyGlobToAnyFile, std::move(*g)});
        return {};
      }
      if (!e.IsMap()) return error(e, "\"changed-files\" entries must be globs or operator maps");
      for (auto it = e.begin(); it != e.end(); ++it) {
        const std::string op = it->first.Scalar();
        FilesOp kind;
        if (op == "any-glob-to-any-file") {
          kind = FilesOp::kAnyGlobToAnyFile;
        } else if (op == "any-glob-to-all-files") {
          kind = FilesOp::kAnyGlobToAllFiles;
        } else if (op == "all-globs-to-any-file") {
          kind = FilesOp::kAllGlobsToAnyFile;
        } else if (op == "all-globs-to-all-files") {
          kind = FilesOp::kAllGlobsToAllFiles;
        } else {
          return error(it->first, fmt::format("unknown \"changed-files\" operator '{}'", op));
        }
        auto g = globs(it->second);
        if (!g) return std::unexpected(g.error());
        out.push_back({kind, std::move(*g)});
      }
      return {};
    };
    if (n.IsSequence()) {
      for (const auto& e : n)
        if (auto r = entry(e); !r) return r;
      return {};
    }
    return entry(n);
  }

  // A v5 base config ({changed-files, head-branch, base-branch}) into `group`.
  Result<void> base_config(const YAML::Node& n, CheckGroup& group) const {
    if (!n.IsMap()) return error(n, "\"any\"/\"all\" entries must be maps");
    for (auto it = n.begin(); it != n.end(); ++it)
      if (it->first.Scalar() == "changed-files")
        if (auto r = changed_files(it->second, group.checks); !r) return r;
    // head-branch / base-branch cannot be evaluated from a merged change: skipped.
    return {};
  }

  Result<TagRule> read_label(const YAML::Node& value) {
    TagRule rule;
    rule.source = "labeler";
    if (value.IsScalar()) {  // v4: label: glob
      auto g = globs(value);
      if (!g) return std::unexpected(g.error());
      rule.paths.push_back(one_check(false, FilesOp::kAnyGlobToAnyFile, std::move(*g)));
      return rule;
    }
    if (!value.IsSequence()) return error(value, "expected a glob or a list of rules");
    std::vector<CheckGroup> groups;  // v5: all must hold
    int implicit_any = -1;           // where bare changed-files keys go (labeler's first `any`)
    for (const auto& item : value) {
      if (item.IsNull()) continue;
      if (item.IsScalar()) {  // v4: a glob
        auto g = globs(item);
        if (!g) return std::unexpected(g.error());
        rule.paths.push_back(one_check(false, FilesOp::kAnyGlobToAnyFile, std::move(*g)));
        continue;
      }
      if (!item.IsMap()) return error(item, "list items must be globs or maps");
      CheckGroup v4;  // v4 {any: [globs], all: [globs]}: both must hold
      v4.all = true;
      for (auto it = item.begin(); it != item.end(); ++it) {
        const std::string key = it->first.Scalar();
        const YAML::Node v = it->second;  // a copy: it-> yields a temporary
        if ((key == "any" || key == "all") && all_scalars(v) && !v.IsNull()) {
          auto g = globs(v);
          if (!g) return std::unexpected(g.error());
          v4.checks.push_back(
              {key == "any" ? FilesOp::kAllGlobsToAnyFile : FilesOp::kAllGlobsToAllFiles,
               std::move(*g)});
        } else if (key == "any" || key == "all") {
          if (!v.IsSequence()) return error(v, fmt::format("\"{}\" must be a list", key));
          CheckGroup group;
          group.all = key == "all";
          for (const auto& base : v)
            if (auto r = base_config(base, group); !r) return std::unexpected(r.error());
          if (key == "any" && implicit_any < 0) implicit_any = static_cast<int>(groups.size());
          groups.push_back(std::move(group));
        } else if (key == "changed-files" || key == "head-branch" || key == "base-branch") {
          if (implicit_any < 0) {
            implicit_any = static_cast<int>(groups.size());
            groups.push_back(CheckGroup{});
          }
          if (key == "changed-files")
            if (auto r = changed_files(v, groups[implicit_any].checks); !r)
              return std::unexpected(r.error());
        }
        // Other keys are ignored, as actions/labeler does.
      }
      if (!v4.checks.empty()) rule.paths.push_back(PathAlternative{{std::move(v4)}});
    }
    if (!groups.empty()) rule.paths.push_back(PathAlternative{std::move(groups)});
    return rule;
  }

  static PathAlternative one_check(bool all, FilesOp op, std::vector<Glob> g) {
    return PathAlternative{{CheckGroup{all, {FilesCheck{op, std::move(g)}}}}};
  }

  std::string origin_;
  std::string label_;
};

}  // namespace

std::optional<FileRole> file_role_from_string(std::string_view name) {
  std::string n;
  for (char c : name) n += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (n == "core") return FileRole::kCore;
  if (n == "kernel" || n == "kernels") return FileRole::kKernel;
  if (n == "model" || n == "models") return FileRole::kModel;
  if (n == "config") return FileRole::kConfig;
  if (n == "test" || n == "tests") return FileRole::kTest;
  if (n == "benchmark" || n == "benchmarks" || n == "bench") return FileRole::kBenchmark;
  if (n == "docs" || n == "doc") return FileRole::kDocs;
  if (n == "ci") return FileRole::kCi;
  if (n == "build" || n == "deps") return FileRole::kBuild;
  if (n == "generated" || n == "vendored" || n == "vendor") return FileRole::kGenerated;
  return std::nullopt;
}

Result<RepoConfig> parse_mergelens_toml(std::string_view text, std::string_view origin) {
  auto root = parse_toml(text, origin);
  if (!root) return std::unexpected(root.error());
  try {
    return TomlReader(origin).read(*root);
  } catch (const std::exception& e) {
    return fail(ErrorKind::kInternal, "{}: {}", origin, e.what());
  }
}

Result<std::vector<TagRule>> parse_labeler_yml(std::string_view text, std::string_view origin) {
  try {
    const YAML::Node root = YAML::Load(std::string(text));
    return LabelerReader(origin).read(root);
  } catch (const YAML::Exception& e) {
    return fail(ErrorKind::kInvalidInput, "{}:{}: {}", origin,
                e.mark.line >= 0 ? e.mark.line + 1 : 0, e.msg);
  } catch (const std::exception& e) {
    return fail(ErrorKind::kInvalidInput, "{}: {}", origin, e.what());
  }
}

}  // namespace mergelens
