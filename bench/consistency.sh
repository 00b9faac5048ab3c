#!/usr/bin/env bash
# Consistency of the offline guides over a whole history: every analysed
# change's guide in zh and en, written by the current build, checked with the
# writer's own citation checker (target: 0 failures) and for contradictions
# between sections or with the facts (bench/consistency_check.cc lists the
# rules).
#
#   MERGELENS_BENCH_DB=/path/to/analysed.db bench/consistency.sh
#   MERGELENS_BENCH_REPO=/path/to/sglang bench/consistency.sh   # ingests and analyses first
#
# MERGELENS_BENCH_DB is read, never written. With only MERGELENS_BENCH_REPO,
# a fresh store is built in a temporary folder (ingest + analyze, untimed).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/common.sh
bin="$(mergelens_bin)"
check="$(dirname "$bin")/bench/mergelens_consistency_check"
[ -x "$check" ] || cmake --build "$(dirname "$bin")" --target mergelens_consistency_check >/dev/null
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
if [ -n "${MERGELENS_BENCH_DB:-}" ]; then
  db="$MERGELENS_BENCH_DB"
  # The store's facts must be of this build's analyzer: analyse a copy when not.
  cp "$db" "$tmp/store.db"
  db="$tmp/store.db"
  "$bin" --db "$db" analyze >/dev/null 2>&1
else
  repo="${MERGELENS_BENCH_REPO:?set MERGELENS_BENCH_DB (an analysed store) or MERGELENS_BENCH_REPO}"
  db="$tmp/store.db"
  "$bin" --db "$db" --repo bench/repo ingest "$repo" >/dev/null 2>&1
  "$bin" --db "$db" analyze >/dev/null 2>&1
fi
echo "command: ${MERGELENS_BENCH_DB:+MERGELENS_BENCH_DB=$MERGELENS_BENCH_DB }${MERGELENS_BENCH_REPO:+MERGELENS_BENCH_REPO=$MERGELENS_BENCH_REPO }bench/consistency.sh"
"$check" --db "$db" --lang zh,en
