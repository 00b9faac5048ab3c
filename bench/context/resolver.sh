#!/usr/bin/env bash
# The context resolver's cost and yield over a whole history: `analyze --force --stats` with
# the build before it (MERGELENS_BEFORE) and this one, alternately, on copies of one store
# of the repository's whole first-parent history; CPU (user + sys, ctags' child included),
# wall and peak RSS of each, the ratio, and what the context holds per change.
#   MERGELENS_BENCH_REPO=/path/to/sglang MERGELENS_BEFORE=/path/to/main/mergelens \
#     bench/context/resolver.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/../.."
. bench/common.sh
repo="${MERGELENS_BENCH_REPO:?set MERGELENS_BENCH_REPO to a clone}"
before="${MERGELENS_BEFORE:?set MERGELENS_BEFORE to the build to compare with}"
after="$(realpath "$(mergelens_bin)")"
runs="${1:-2}"
tmp="${MERGELENS_BENCH_TMP:-$(mktemp -d)}"
[ -f "$tmp/base.db" ] || "$before" ingest "$repo" --db "$tmp/base.db" --repo bench/repo >/dev/null 2>&1
echo "command: MERGELENS_BENCH_REPO=$repo MERGELENS_BEFORE=$before bench/context/resolver.sh $runs"
echo "changes: $(sqlite3 "$tmp/base.db" 'select count(*) from changes')"
for i in $(seq "$runs"); do
  for build in before after; do
    bin="$before"; [ "$build" = after ] && bin="$after"
    cp "$tmp/base.db" "$tmp/$build.db"
    /usr/bin/time -f "%e %U %S %M" -o "$tmp/t" "$bin" analyze --db "$tmp/$build.db" --force --stats \
      > "$tmp/$build.out" 2>/dev/null
    read -r wall user sys kb < "$tmp/t"
    printf '%s run %d: wall %.1f s, CPU %.1f s (user %.1f + sys %.1f), peak RSS %d MB; %s\n' \
      "$build" "$i" "$wall" "$(echo "$user + $sys" | bc -l)" "$user" "$sys" $((kb / 1024)) \
      "$(grep -E 'import graph|tree' "$tmp/$build.out" | head -1)"
  done
done
python3 bench/context/stats.py "$tmp/after.db"
