#!/usr/bin/env bash
# Configures and builds one flavour of mergelens.
#   scripts/build.sh              the release binary build/mergelens (what the demo runs)
#   scripts/build.sh release all  release build of everything: tests, benchmarks (scripts/test.sh)
#   scripts/build.sh asan         ASan+UBSan build of everything in build-asan/ (tests only)
#   scripts/build.sh FLAVOUR TARGET...  only those CMake targets
set -euo pipefail
cd "$(dirname "$0")/.."
flavour="${1:-release}"
shift || true
case "$flavour" in
  release) dir=build; flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo); targets=(mergelens) ;;
  asan) dir=build-asan; flags=(-DCMAKE_BUILD_TYPE=Debug -DMERGELENS_SANITIZE=ON -DMERGELENS_BENCH=OFF)
        targets=(all) ;;
  *) echo "usage: $0 [release|asan] [all|TARGET...]" >&2; exit 2 ;;
esac
if [ $# -gt 0 ]; then targets=("$@"); fi
# Everything includes the tests: they must be configured (GoogleTest required).
if [ "${targets[*]}" = all ]; then flags+=(-DMERGELENS_TESTS=ON); fi
cmake -S . -B "$dir" -G Ninja "${flags[@]}" >/dev/null
cmake --build "$dir" -j "$(nproc)" --target "${targets[@]}"
