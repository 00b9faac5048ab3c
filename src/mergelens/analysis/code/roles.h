// File roles: what a changed file is for (core code, kernel, test, docs, ...),
// decided from its repository-relative path alone.
#pragma once

#include <string_view>

#include "mergelens/analysis/facts.h"
#include "mergelens/analysis/repo_config.h"
#include "mergelens/model/change.h"

namespace mergelens {

// The role of `path`. The repository's overrides (config.roles, first match)
// come first; then built-in rules that hold for most repositories, in this
// order (the first that applies wins):
//   generated  vendored folders (third_party/, 3rdparty/, vendor/, node_modules/,
//              generated/), lock files, protobuf/grpc output, *.min.js
//   ci         .github/, .gitlab-ci.yml, .circleci/, .buildkite/, .jenkins/, ci/ and
//              .ci/ folders at any depth, Jenkinsfile, .pre-commit-config.yaml
//   build      CMakeLists.txt, *.cmake, Makefile, setup.py, pyproject.toml,
//              requirements*.txt, Cargo.toml, go.mod, package.json, Dockerfile*,
//              Bazel files, tool configs (.clang-format, .gitignore, ...),
//              docker/, cmake/ and requirements/ folders
//   docs       *.md, *.mdx, *.rst, *.ipynb, README*, LICENSE*, CHANGELOG*, ...
//   test / docs / benchmark by the outermost folder among test(s)/, testing/,
//              __tests__/, e2e/...; docs/, doc/, examples/, tutorials/; bench/,
//              benches/, benchmark(s)/, perf/
//   test       test_*.*, *_test.*, *_tests.*, *.test.ts, *.spec.js, *_spec.*, conftest.py
//   benchmark  bench_*, *_bench*, benchmark*, *_benchmark*, perf_*
//   config     *.json, *.yaml, *.yml, *.toml, *.ini, *.cfg, *.csv, and *.txt in configs/
//   kernel     *.cu, *.cuh, *.hip, *.metal, *.cl, *.ptx; csrc/, kernel(s)/ and
//              *-kernel(s)/ folders; folders named *triton*; *_kernel(s).*, kernel_*,
//              triton_* / *_triton files (not *backend*)
//   model      models/ folders, modeling_*.py
//   core       everything else
// Folder and file names compare case-insensitively. Very large added files
// are left to the caller. Never fails; allocates one lowercase copy of the path.
FileRole classify_role(std::string_view path, const RepoConfig& config);

// Whether `fc`, of role `role` (classify_role's), is a runnable example
// script rather than documentation: a docs-role file (examples/, example/,
// experimental/, recipes/, cookbook/, tutorials/ folders) that is a Python
// or shell script and is under an examples/ or example/ folder, or named
// *_example.* or example_*.*, or runs when executed: a shell script, or a
// Python file whose lines at the merge (added and context lines of its diff)
// hold `if __name__ == "__main__"` or an unindented call statement
// (`model_free_ptq(...)`, `print(...)`), which a library module seldom has.
// Files under docs/, doc/ or documentation/ folders (a Sphinx conf.py) are
// documentation's own code, never examples. Any other role is not an
// example script: experimental/ code a repository's overrides class as
// core stays code. Never fails; allocates the lowercase path.
bool example_script(const FileChange& fc, FileRole role);

}  // namespace mergelens
