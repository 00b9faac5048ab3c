#!/usr/bin/env bash
# Prompt benchmark: size of the model prompt at the default budget and the
# share of each PR's top-3 focus regions it shows, against a largest-files-first
# selection at 32k tokens, over the newest LAST_N changes of a large clone.
#
#   MERGELENS_BENCH_REPO=/path/to/sglang bench/prompt.sh [LAST_N]
set -euo pipefail
cd "$(dirname "$0")/.."
repo="${MERGELENS_BENCH_REPO:?set MERGELENS_BENCH_REPO to a large local clone (e.g. ITCJ/sglang)}"
last="${1:-2000}"
[ -x build/mergelens ] && [ -x build/bench/mergelens_prompt_bench ] || scripts/build.sh release mergelens mergelens_prompt_bench >/dev/null
tmp="${MERGELENS_BENCH_TMP:-$(mktemp -d)}"
db="$tmp/prompt.db"
./build/mergelens ingest "$repo" --db "$db" --repo bench/repo --limit "$last" >/dev/null 2>&1
./build/mergelens analyze --db "$db" >/dev/null 2>&1
echo "command: MERGELENS_BENCH_REPO=$repo bench/prompt.sh $last"
./build/bench/mergelens_prompt_bench --db "$db" --last "$last" --budget 12000 --baseline-budget 32000
