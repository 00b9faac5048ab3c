#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan+UBSan, build-fuzz/) and runs
# each for SECONDS (default 10) on its corpus in fuzz/corpus/<target>/.
# New inputs that add coverage go to build-fuzz/corpus/<target>/ (copy the
# interesting ones into fuzz/corpus to keep them); crashes are written to
# build-fuzz/crashes/ and fail the script.
#   scripts/fuzz.sh            10 s per target (the test command runs 5)
#   scripts/fuzz.sh 600        the long run documented in docs/fuzzing.md
set -euo pipefail
cd "$(dirname "$0")/.."
secs="${1:-10}"
cxx="${MERGELENS_FUZZ_CXX:-clang++-16}"
cc="${MERGELENS_FUZZ_CC:-clang-16}"
cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMERGELENS_FUZZ=ON \
  -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_C_COMPILER="$cc" >/dev/null
targets=(diff subject github_json llm_answer config search_query)
cmake --build build-fuzz -j "$(nproc)" --target "${targets[@]/#/fuzz_}"
mkdir -p build-fuzz/crashes
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export LSAN_OPTIONS=suppressions="$PWD/tests/lsan.supp":print_suppressions=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
failed=0
for t in "${targets[@]}"; do
  mkdir -p "build-fuzz/corpus/$t"
  log="build-fuzz/fuzz_$t.log"
  if build-fuzz/fuzz/fuzz_"$t" -max_total_time="$secs" -max_len=65536 -timeout=10 \
      -rss_limit_mb=2048 -artifact_prefix="build-fuzz/crashes/${t}-" -print_final_stats=1 \
      "build-fuzz/corpus/$t" "fuzz/corpus/$t" >"$log" 2>&1; then
    runs=$(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
    echo "fuzz_$t: ${secs} s, ${runs} runs, 0 crashes"
  else
    echo "fuzz_$t: FAILED (see $log)"
    tail -30 "$log"
    failed=1
  fi
done
exit "$failed"
