#!/usr/bin/env bash
# Memory benchmark: peak RSS of each step over a whole history, beside
# `git log -p --numstat` over the same history in the same run (the baseline).
#
#   MERGELENS_BENCH_REPO=/path/to/sglang bench/memory.sh
#
# Steps, each its own process on a fresh store: ingest, analyze, write --lang
# both; then `run --lang both` alone on another fresh store (one process does
# everything). Prints wall time, peak RSS (ru_maxrss, which counts the store's
# pages mapped into the process) and the ratio to git log's peak RSS, then where
# the memory was at each peak (bench/rss_split.py: heap, store, git packs). Target:
# run --lang both under 400 MB. MERGELENS_BIN names a prebuilt binary (say, an
# older build for a before/after pair).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/common.sh
repo="${MERGELENS_BENCH_REPO:?set MERGELENS_BENCH_REPO to a large local clone (e.g. ITCJ/sglang)}"
bin="$(mergelens_bin)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# measure LABEL CMD... : one line "LABEL secs rss_kb" in $tmp/out (the peak of the
# command, which rss_split.py runs as its child), and where the memory was at the
# sampled peak in $tmp/split.
measure() {
  local label="$1"
  shift
  /usr/bin/time -f "%e %M" -o "$tmp/t" bench/rss_split.py --label "$label" -- "$@" \
    >>"$tmp/split" 2>"$tmp/log" || {
    echo "$label failed:" >&2
    tail -5 "$tmp/log" >&2
    exit 1
  }
  echo "$label $(cat "$tmp/t")" >>"$tmp/out"
}

git -C "$repo" log --first-parent -p --numstat >/dev/null  # warm the page cache
measure "git log --first-parent -p --numstat" git -C "$repo" log --first-parent -p --numstat
db="$tmp/steps.db"
measure "mergelens ingest" "$bin" --db "$db" --repo bench/repo ingest "$repo"
measure "mergelens analyze" "$bin" --db "$db" --repo bench/repo analyze
measure "mergelens write --lang both" "$bin" --db "$db" --repo bench/repo write --lang both
measure "mergelens run --lang both" "$bin" --db "$tmp/run.db" --repo bench/repo run "$repo" \
  --lang both

echo "command: MERGELENS_BENCH_REPO=$repo${MERGELENS_BIN:+ MERGELENS_BIN=$MERGELENS_BIN} bench/memory.sh"
echo "machine: $(nproc) cores; $(git -C "$repo" rev-list --first-parent --count HEAD) first-parent" \
  "commits; store $(($(stat -c %s "$tmp/run.db") / 1048576)) MB after run"
read -r -a base <<<"$(head -1 "$tmp/out" | awk '{print $(NF-1), $NF}')"
while read -r line; do
  kb="${line##* }"
  rest="${line% *}"
  secs="${rest##* }"
  label="${rest% *}"
  printf '%-38s %7.1f s   peak RSS %5d MB   %.2fx git log\n' "$label" "$secs" $((kb / 1024)) \
    "$(echo "$kb / ${base[1]}" | bc -l)"
done <"$tmp/out"
echo "where the memory was at each command's sampled peak (smaps every 0.5 s):"
sed 's/^/  /' "$tmp/split"
