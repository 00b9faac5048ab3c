#!/usr/bin/env bash
# Analysis benchmark over a large real history, plus the verdict and score
# distributions used to calibrate the verdict thresholds.
#
#   MERGELENS_BENCH_REPO=/path/to/sglang bench/analyze.sh [LAST_N]
#
# Ingests the whole first-parent history into a fresh store (not timed here:
# see ingest.sh), then times `analyze` over every change (2 cores), printing
# total time, PRs/s, per-change p50/p90/p99 and peak RSS; then the verdict
# and score distributions over the last LAST_N changes (default 2000).
set -euo pipefail
cd "$(dirname "$0")/.."
repo="${MERGELENS_BENCH_REPO:?set MERGELENS_BENCH_REPO to a large local clone (e.g. ITCJ/sglang)}"
last="${1:-2000}"
. bench/common.sh
bin="$(mergelens_bin)"
tmp="${MERGELENS_BENCH_TMP:-$(mktemp -d)}"
db="$tmp/analyze.db"
if [ ! -f "$db" ]; then
  "$bin" ingest "$repo" --db "$db" --repo bench/repo >/dev/null 2>&1
fi
echo "command: MERGELENS_BENCH_REPO=$repo bench/analyze.sh $last"
/usr/bin/time -f "%e %M" -o "$tmp/t" "$bin" analyze --db "$db" --force --stats 2>/dev/null | tail -2
read -r secs kb < "$tmp/t"
count=$(sqlite3 "$db" "select count(*) from changes")
printf 'analyze: %s changes in %.1f s (%.0f PRs/s), peak RSS %d MB\n' "$count" "$secs" \
  "$(echo "$count / $secs" | bc -l)" $((kb / 1024))
echo
echo "last $last changes:"
"$bin" list --db "$db" --limit "$last" --json | python3 -c '
import collections, json, sys
rows = json.load(sys.stdin)
n = len(rows)
v = collections.Counter(r["verdict"] for r in rows)
print("verdicts: " + ", ".join(f"{k} {c} ({100*c/n:.0f}%)" for k, c in v.most_common()))
for key in ("importance", "insight"):
    h = collections.Counter(r[key] for r in rows)
    print(f"{key:10}: " + " ".join(f"{s}:{h.get(s, 0)}" for s in range(1, 11)))
by_day = collections.defaultdict(list)
for r in rows:
    by_day[r["day"]].append(r["verdict"])
days = sorted(by_day)[-10:]
CLOSE = "close_read"
print("close reads per day (last 10 days): " + ", ".join(
    f"{d[5:]} {by_day[d].count(CLOSE)}/{len(by_day[d])}" for d in days))
'
