#!/usr/bin/env bash
# Builds mergelens twice (release, then ASan+UBSan) and runs every test on
# both, plus a short run of each libFuzzer target (clang build). The last
# lines are ctest's summary for the sanitizer build. The store suites and some
# end-to-end tests also run on PostgreSQL, against a cluster started here.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs="$(nproc)"
# The two builds, the fuzz build and the tests' work directories take about 5 GB; a disk that
# fills mid-run fails tests in ways that look like their own (git add, mkdir). Say so first.
free_kb="$(df -Pk . | awk 'NR==2 {print $4}')"
echo "test.sh: $((free_kb / 1024 / 1024)) GB free on $(df -P . | awk 'NR==2 {print $6}') (about 5 GB needed)"
if [ "$free_kb" -lt $((6 * 1024 * 1024)) ]; then
  echo "test.sh: warning: under 6 GB free; tests may fail for want of disk" >&2
fi
# A throwaway PostgreSQL 15 cluster on a free loopback port for the PostgreSQL runs of the
# store and web suites (pg_unit) and of some end-to-end tests (e2e_pg_*); stopped and
# deleted on exit, whatever happens (scripts/pg-test-cluster.sh).
pgdir="$(mktemp -d /tmp/mergelens-pg.XXXXXX)"
trap 'scripts/pg-test-cluster.sh stop "$pgdir"' EXIT
pgport="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
MERGELENS_TEST_PG="$(scripts/pg-test-cluster.sh start "$pgdir" "$pgport")"
export MERGELENS_TEST_PG
# Each phase prints when it ends, in minutes since the start: a CI run that runs out of time
# shows where the time went.
phase() { echo "test.sh: $1 done at $((SECONDS / 60)) min $((SECONDS % 60)) s"; }
scripts/build.sh release all
phase "release build"
(cd build && ctest -j "$jobs" --output-on-failure)
phase "release tests"
df -Ph . | awk 'NR==2 {print "test.sh: before the sanitizer build: " $4 " free"}'
scripts/build.sh asan
phase "sanitizer build"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
export LSAN_OPTIONS=suppressions="$PWD/tests/lsan.supp":print_suppressions=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
scripts/fuzz.sh 5
phase "fuzz build and runs"
# The end-to-end tests on PostgreSQL run in the release build only (CI time), and so does
# e2e_web_checks (the validators see the same pages in both builds) and e2e_first_view (a
# tripwire on page build times, which sanitizers multiply); pg_unit (the store and web
# suites on PostgreSQL) runs in both.
(cd build-asan && ctest -j "$jobs" --output-on-failure -E '^(e2e_pg_|e2e_web_checks$|e2e_first_view$)')
