#!/usr/bin/env bash
# Configures and builds one flavour of mergelens.
#   scripts/build.sh            release build in build/
#   scripts/build.sh asan       ASan+UBSan build in build-asan/
set -euo pipefail
cd "$(dirname "$0")/.."
flavour="${1:-release}"
case "$flavour" in
  release) dir=build; flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo) ;;
  asan) dir=build-asan; flags=(-DCMAKE_BUILD_TYPE=Debug -DMERGELENS_SANITIZE=ON -DMERGELENS_BENCH=OFF) ;;
  *) echo "usage: $0 [release|asan]" >&2; exit 2 ;;
esac
cmake -S . -B "$dir" -G Ninja "${flags[@]}" >/dev/null
cmake --build "$dir" -j "$(nproc)"
