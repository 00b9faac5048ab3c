#include "mergelens/analysis/code/roles.h"

#include <algorithm>
#include <cctype>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

namespace mergelens {
namespace {

using Names = std::initializer_list<std::string_view>;

bool is_one_of(std::string_view s, Names names) {
  return std::find(names.begin(), names.end(), s) != names.end();
}

bool starts_with_any(std::string_view s, Names prefixes) {
  return std::any_of(prefixes.begin(), prefixes.end(),
                     [&](std::string_view p) { return s.starts_with(p); });
}

bool ends_with_any(std::string_view s, Names suffixes) {
  return std::any_of(suffixes.begin(), suffixes.end(),
                     [&](std::string_view p) { return s.ends_with(p); });
}

// A lowercased path cut into folders, file name, stem and extension.
struct PathParts {
  std::string lower;
  std::vector<std::string_view> dirs;  // outermost first
  std::string_view name, stem, ext;    // ext without the dot, "" when none

  explicit PathParts(std::string_view path) : lower(path) {
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    std::string_view p(lower);
    while (p.starts_with("./")) p.remove_prefix(2);
    while (p.starts_with("/")) p.remove_prefix(1);
    for (std::size_t slash; (slash = p.find('/')) != std::string_view::npos;) {
      if (slash > 0) dirs.push_back(p.substr(0, slash));
      p.remove_prefix(slash + 1);
    }
    name = p;
    const std::size_t dot = name.rfind('.');
    stem = dot == std::string_view::npos || dot == 0 ? name : name.substr(0, dot);
    ext = dot == std::string_view::npos || dot == 0 ? std::string_view() : name.substr(dot + 1);
  }

  bool has_dir(Names names) const {
    return std::any_of(dirs.begin(), dirs.end(),
                       [&](std::string_view d) { return is_one_of(d, names); });
  }
};

bool is_generated(const PathParts& p) {
  if (p.has_dir({"third_party", "third-party", "thirdparty", "3rdparty", "vendor", "vendored",
                 "node_modules", "generated", "_generated", "__generated__"}))
    return true;
  if (p.ext == "lock") return true;  // Cargo.lock, poetry.lock, yarn.lock, uv.lock, ...
  if (is_one_of(p.name, {"package-lock.json", "npm-shrinkwrap.json", "pnpm-lock.yaml", "go.sum",
                         "gemfile.lock"}))
    return true;
  return ends_with_any(p.name, {"_pb2.py", "_pb2.pyi", "_pb2_grpc.py", ".pb.go", ".pb.h", ".pb.cc",
                                ".pb.cpp", ".min.js", ".min.css"}) ||
         ends_with_any(p.stem, {"_generated", ".generated"});
}

bool is_ci(const PathParts& p) {
  if (!p.dirs.empty() && p.dirs.front() == ".github") return true;
  if (p.has_dir({".circleci", ".buildkite", ".gitlab", ".jenkins", ".ci", "ci", ".azure-pipelines",
                 ".travis"}))
    return true;
  if (is_one_of(p.name, {".gitlab-ci.yml", "jenkinsfile", ".travis.yml", "azure-pipelines.yml",
                         "appveyor.yml", ".appveyor.yml", ".pre-commit-config.yaml", "codecov.yml",
                         ".codecov.yml", ".mergify.yml", "codeowners"}))
    return true;
  return p.ext == "sh" && starts_with_any(p.name, {"ci_", "ci-", "run_ci"});
}

bool is_build(const PathParts& p) {
  if (p.has_dir({"cmake", "docker", "requirements", ".devcontainer"})) return true;
  if (is_one_of(p.name, {"cmakelists.txt",   "makefile",
                         "gnumakefile",      "setup.py",
                         "setup.cfg",        "pyproject.toml",
                         "cargo.toml",       "go.mod",
                         "package.json",     "dockerfile",
                         "containerfile",    "compose.yaml",
                         "compose.yml",      "build",
                         "build.bazel",      "workspace",
                         "workspace.bazel",  "module.bazel",
                         ".bazelrc",         ".bazelversion",
                         "meson.build",      "meson_options.txt",
                         "build.rs",         "build.gradle",
                         "build.gradle.kts", "settings.gradle",
                         "pom.xml",          "tox.ini",
                         "noxfile.py",       "pipfile",
                         "environment.yml",  "environment.yaml",
                         "manifest.in",      ".gitmodules",
                         ".gitignore",       ".gitattributes",
                         ".dockerignore",    ".clang-format",
                         ".clang-tidy",      ".flake8",
                         ".pylintrc",        "pylintrc",
                         "mypy.ini",         ".isort.cfg",
                         "ruff.toml",        ".ruff.toml",
                         ".editorconfig",    ".python-version",
                         "rust-toolchain",   "rust-toolchain.toml",
                         "tsconfig.json",    ".npmrc",
                         "go.work"}))
    return true;
  if (p.ext == "cmake" || p.ext == "bzl" || p.ext == "mk" || p.ext == "dockerfile") return true;
  if (p.name.starts_with("dockerfile.") || p.name.starts_with("docker-compose")) return true;
  return (p.ext == "txt" || p.ext == "in") &&
         starts_with_any(p.name, {"requirements", "constraints", "requirements-"});
}

bool is_docs_file(const PathParts& p) {
  if (is_one_of(p.ext, {"md", "mdx", "rst", "adoc", "asciidoc", "ipynb"})) return true;
  // README, LICENSE.txt, LICENSE-APACHE, CHANGELOG, ... but not security.py.
  if (is_one_of(p.ext, {"py", "pyi", "c", "cc", "cpp", "h", "hpp", "cu", "rs", "go", "js", "ts",
                        "java", "sh", "json", "yaml", "yml", "toml"}))
    return false;
  return starts_with_any(p.name, {"readme", "license", "licence", "copying", "notice", "changelog",
                                  "changes", "history", "authors", "contributors", "contributing",
                                  "code_of_conduct", "security", "citation"});
}

// The role given by the outermost test/docs/benchmark folder, if any. A
// top-level experimental/ or recipes/ folder holds scripts beside the
// package, not code it ships: docs, like examples (example_script tells a
// runnable script there from documentation).
std::optional<FileRole> folder_role(const PathParts& p) {
  if (!p.dirs.empty() && is_one_of(p.dirs.front(), {"experimental", "recipes", "cookbook"}))
    return FileRole::kDocs;
  for (std::string_view d : p.dirs) {
    if (is_one_of(d,
                  {"test", "tests", "testing", "__tests__", "unittest", "unittests", "unit_tests",
                   "integration_tests", "e2e", "e2e_test", "e2e_tests", "testdata", "test_data"}))
      return FileRole::kTest;
    if (is_one_of(d,
                  {"docs", "doc", "documentation", "examples", "example", "tutorials", "tutorial"}))
      return FileRole::kDocs;
    if (is_one_of(d, {"bench", "benches", "benchmark", "benchmarks", "perf"}))
      return FileRole::kBenchmark;
  }
  return std::nullopt;
}

bool is_test_file(const PathParts& p) {
  if (is_one_of(p.name, {"conftest.py", "tests.py", "test.py"})) return true;
  if (p.stem.starts_with("test_") || ends_with_any(p.stem, {"_test", "_tests", "_spec"}))
    return true;
  return ends_with_any(p.stem, {".test", ".spec"});
}

bool is_benchmark_file(const PathParts& p) {
  if (starts_with_any(p.stem, {"bench_", "benchmark", "perf_"})) return true;
  return p.stem.find("_bench") != std::string_view::npos || p.stem.ends_with("_perf");
}

bool is_config_file(const PathParts& p) {
  if (is_one_of(p.ext, {"json", "jsonc", "yaml", "yml", "toml", "ini", "cfg", "conf", "csv", "tsv",
                        "properties"}))
    return true;
  return p.ext == "txt" && p.has_dir({"configs", "config", "configurations"});
}

bool is_kernel(const PathParts& p) {
  if (is_one_of(p.ext, {"cu", "cuh", "hip", "metal", "cl", "ptx", "cuf"})) return true;
  for (std::string_view d : p.dirs) {
    if (is_one_of(d, {"csrc", "kernels", "kernel"})) return true;
    if (ends_with_any(d, {"-kernel", "_kernel", "-kernels", "_kernels"})) return true;
    if (d.find("triton") != std::string_view::npos) return true;
  }
  if (ends_with_any(p.stem, {"_kernel", "_kernels"}) || p.stem.starts_with("kernel_")) return true;
  return (p.stem.starts_with("triton_") || p.stem.ends_with("_triton")) &&
         p.stem.find("backend") == std::string_view::npos;
}

bool is_model(const PathParts& p) {
  return p.has_dir({"models"}) || (p.stem.starts_with("modeling_") && p.ext == "py");
}

// An unindented Python line that runs something: `if __name__ ==
// "__main__":` or a call statement (`main()`, `pkg.run(x=1)`), not a
// definition, an import, a decorator or an assignment.
bool runs_at_top(std::string_view t) {
  if (t.starts_with("if __name__")) return true;
  size_t e = 0;
  while (e < t.size() &&
         (std::isalnum(static_cast<unsigned char>(t[e])) || t[e] == '_' || t[e] == '.'))
    ++e;
  if (e == 0 || e >= t.size() || t[e] != '(' || std::isdigit(static_cast<unsigned char>(t[0])))
    return false;
  const std::string_view word = t.substr(0, e);
  return !is_one_of(word, {"if", "elif", "while", "for", "with", "return", "assert", "del", "not",
                           "and", "or", "lambda", "yield", "await"});
}

}  // namespace

bool example_script(const FileChange& fc, FileRole role) {
  if (role != FileRole::kDocs) return false;
  const PathParts p(fc.path);
  const bool python = p.ext == "py", shell = p.ext == "sh" || p.ext == "bash";
  if (!python && !shell) return false;
  if (p.has_dir({"docs", "doc", "documentation"})) return false;
  if (p.has_dir({"examples", "example"}) || p.stem.ends_with("_example") ||
      p.stem.starts_with("example_"))
    return true;
  if (shell) return true;
  for (const auto& h : fc.hunks)
    for (const auto& l : h.lines)
      if (l.origin != '-' && l.origin != '\\' && runs_at_top(l.text)) return true;
  return false;
}

FileRole classify_role(std::string_view path, const RepoConfig& config) {
  for (const auto& o : config.roles)
    if (o.matcher.matches(path)) return o.role;
  const PathParts p(path);
  if (is_generated(p)) return FileRole::kGenerated;
  if (is_ci(p)) return FileRole::kCi;
  if (is_build(p)) return FileRole::kBuild;
  if (is_docs_file(p)) return FileRole::kDocs;
  if (auto r = folder_role(p)) return *r;
  if (is_test_file(p)) return FileRole::kTest;
  if (is_benchmark_file(p)) return FileRole::kBenchmark;
  if (is_config_file(p)) return FileRole::kConfig;
  if (is_kernel(p)) return FileRole::kKernel;
  if (is_model(p)) return FileRole::kModel;
  return FileRole::kCore;
}

}  // namespace mergelens
