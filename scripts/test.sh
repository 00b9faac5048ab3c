#!/usr/bin/env bash
# Builds mergelens twice (release, then ASan+UBSan) and runs every test on
# both, plus a short run of each libFuzzer target (clang build). The last
# lines are ctest's summary for the sanitizer build.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs="$(nproc)"
scripts/build.sh release
(cd build && ctest -j "$jobs" --output-on-failure)
scripts/build.sh asan
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
export LSAN_OPTIONS=suppressions="$PWD/tests/lsan.supp":print_suppressions=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
scripts/fuzz.sh 5
(cd build-asan && ctest -j "$jobs" --output-on-failure)
