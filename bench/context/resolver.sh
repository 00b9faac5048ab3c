#!/usr/bin/env bash
# The context resolver's cost and yield over a whole history: `analyze --force --stats` with
# the build before it (MERGELENS_BEFORE, e.g. main at 2c92726) and this one, alternately, on a
# fresh copy of one store of the repository's whole first-parent history per run; CPU (user +
# sys, ctags' child included), wall and peak RSS of each, the tree thread's CPU as --stats
# prints it ("import graph: ..."), the medians and their ratio, and what the context holds
# per change (stats.py).
#   MERGELENS_BENCH_REPO=/path/to/clone MERGELENS_BEFORE=/path/to/old/mergelens \
#     bench/context/resolver.sh [RUNS]
# MERGELENS_BENCH_STORE=/path/to/store.db uses that store (copied once per run, never written)
# instead of ingesting the clone with the old build; MERGELENS_BENCH_TMP keeps the last run's
# copies and the outputs (else they are deleted). The last run's two stores are compared
# change by change (same_facts.py): the resolver's work must not change a fact.
# MERGELENS_BENCH_BEFORE_SCHEMA=N gives the old build a copy marked schema vN, for a store
# written by a newer build whose later migrations only add tables the old build never reads
# (2c92726 knows v10; v11 adds switch_origins): an old build refuses a newer store.
set -euo pipefail
cd "$(dirname "$0")/../.."
. bench/common.sh
before="${MERGELENS_BEFORE:?set MERGELENS_BEFORE to the build to compare with}"
after="$(realpath "$(mergelens_bin)")"
runs="${1:-2}"
tmp="${MERGELENS_BENCH_TMP:-$(mktemp -d)}"
mkdir -p "$tmp"
if [ -n "${MERGELENS_BENCH_STORE:-}" ]; then
  base="$MERGELENS_BENCH_STORE"  # read, never written: each run copies it
  echo "command: MERGELENS_BENCH_STORE=$MERGELENS_BENCH_STORE MERGELENS_BEFORE=$before bench/context/resolver.sh $runs"
else
  repo="${MERGELENS_BENCH_REPO:?set MERGELENS_BENCH_REPO to a clone (or MERGELENS_BENCH_STORE)}"
  base="$tmp/base.db"
  [ -f "$base" ] || "$before" ingest "$repo" --db "$base" --repo bench/repo >/dev/null 2>&1
  echo "command: MERGELENS_BENCH_REPO=$repo MERGELENS_BEFORE=$before bench/context/resolver.sh $runs"
fi
echo "changes: $(sqlite3 "$base" 'select count(*) from changes'); load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
: > "$tmp/runs"
for i in $(seq "$runs"); do
  for build in before after; do
    bin="$before"; [ "$build" = after ] && bin="$after"
    rm -f "$tmp/$build.db" "$tmp/$build.db-wal" "$tmp/$build.db-shm"
    sqlite3 "$base" ".backup '$tmp/$build.db'"  # one copy per run
    [ "$build" = after ] || [ -z "${MERGELENS_BENCH_BEFORE_SCHEMA:-}" ] ||
      sqlite3 "$tmp/$build.db" "PRAGMA user_version = $MERGELENS_BENCH_BEFORE_SCHEMA"
    /usr/bin/time -f "%e %U %S %M" -o "$tmp/t" "$bin" analyze --db "$tmp/$build.db" --force --stats \
      > "$tmp/$build.out" 2>/dev/null
    read -r wall user sys kb < "$tmp/t"
    tree="$(sed -n 's/^import graph: \([0-9.]*\) s of CPU.*/\1/p' "$tmp/$build.out")"
    cpu="$(echo "$user + $sys" | bc -l)"
    echo "$build $cpu $wall $((kb / 1024)) ${tree:-?}" >> "$tmp/runs"
    printf '%s run %d: wall %.1f s, CPU %.1f s (user %.1f + sys %.1f), peak RSS %d MB, tree thread %s s; load %s\n' \
      "$build" "$i" "$wall" "$cpu" "$user" "$sys" $((kb / 1024)) "${tree:-?}" "$(cut -d' ' -f1 /proc/loadavg)"
  done
done
python3 - "$tmp/runs" <<'EOF'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
med = {}
for b in ("before", "after"):
    r = [x for x in rows if x[0] == b]
    med[b] = [statistics.median(float(x[i]) for x in r) for i in (1, 2, 3)]
    tree = [float(x[4]) for x in r if x[4] != "?"]
    med[b].append(statistics.median(tree) if tree else float("nan"))
    print(f"{b} median: CPU {med[b][0]:.1f} s, tree thread {med[b][3]:.1f} s, wall {med[b][1]:.1f} s, "
          f"peak RSS {med[b][2]:.0f} MB")
print(f"ratio after/before: CPU {med['after'][0]/med['before'][0]:.2f}x, "
      f"tree thread {med['after'][3]/med['before'][3]:.2f}x, wall {med['after'][1]/med['before'][1]:.2f}x, "
      f"peak RSS {med['after'][2]/med['before'][2]:.2f}x")
EOF
# The last run's stores: the same facts for every change? (exit status kept)
python3 bench/context/same_facts.py "$tmp/before.db" "$tmp/after.db" || true
python3 bench/context/stats.py "$tmp/after.db"
[ -n "${MERGELENS_BENCH_TMP:-}" ] || rm -rf "$tmp"
