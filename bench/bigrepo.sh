#!/usr/bin/env bash
# Scale benchmark: a generated repository of COMMITS first-parent commits
# (default 100,000) through ingest, a second (incremental) ingest, analyze and
# write --lang zh, each timed with /usr/bin/time -v: wall time, CPU time, peak
# RSS, and the store size after the step. RSS and progress are also sampled
# every 2 s, so a footprint that grows with history shows up (RSS at 25/50/75/
# 100 % of a step) and so does a step that slows down as the store grows (its
# rate in the first and the last quarter of its run).
#
#   [MERGELENS_BIN=build/mergelens] bench/bigrepo.sh [COMMITS]
#
# The repository comes from scripts/make-big-repo.py (deterministic) and lives
# outside the project, in $MERGELENS_BIGREPO_DIR (default /tmp/mergelens-bigrepo):
# repo-COMMITS/ is reused when the same generator made it; the store
# store-COMMITS.db is made afresh each run. Set MERGELENS_BIGREPO_STEPS to a
# subset of "ingest reingest analyze write" to run fewer steps (later steps
# need the store of the earlier ones).
set -euo pipefail
cd "$(dirname "$0")/.."
commits="${1:-100000}"
. bench/common.sh
bin="$(mergelens_bin)"
dir="${MERGELENS_BIGREPO_DIR:-/tmp/mergelens-bigrepo}"
steps="${MERGELENS_BIGREPO_STEPS:-ingest reingest analyze write}"
repo="$dir/repo-$commits"
db="$dir/store-$commits.db"
log="$dir/log-$commits"
mkdir -p "$dir" "$log"

stamp="$(sha256sum scripts/make-big-repo.py | cut -c1-16) $commits"
if [ "$(cat "$repo/bench-generator" 2>/dev/null)" != "$stamp" ]; then
  start=$(date +%s.%N)
  python3 scripts/make-big-repo.py "$repo" --commits "$commits" --bare >/dev/null
  echo "$stamp" > "$repo/bench-generator"
  printf 'generated %s (%s commits) in %.1f s, pack %d MB\n' "$repo" "$commits" \
    "$(echo "$(date +%s.%N) - $start" | bc -l)" $(( $(du -sk "$repo" | cut -f1) / 1024 ))
fi
case " $steps " in *" ingest "*) rm -f "$db" "$db-wal" "$db-shm" ;; esac

store_mb() {  # database + WAL, in MB
  local s=0 f
  for f in "$db" "$db-wal"; do [ -f "$f" ] && s=$((s + $(stat -c %s "$f"))); done
  echo $((s / 1048576))
}

sample() {  # sample PID ERR OUT: every 2 s, "seconds VmRSS(kB) done" of PID's child (mergelens)
  local parent=$1 err=$2 out=$3 child rss done t0=$SECONDS
  while kill -0 "$parent" 2>/dev/null; do
    child=$(pgrep -P "$parent" | head -1 || true)
    rss=$( [ -n "$child" ] && awk '/^VmRSS/ {print $2}' "/proc/$child/status" 2>/dev/null || true)
    done=$(tail -c 400 "$err" 2>/dev/null | grep -o '[0-9]\+/[0-9]\+' | tail -1 | cut -d/ -f1 || true)
    [ -n "$rss" ] && echo "$((SECONDS - t0)) $rss ${done:-0}" >> "$out"
    sleep 2
  done
}

results=()
measure() {  # measure NAME ARGS... : runs $bin ARGS under /usr/bin/time -v
  local name=$1; shift
  : > "$log/$name.rss"
  /usr/bin/time -v -o "$log/$name.time" "$bin" --db "$db" "$@" > "$log/$name.out" 2> "$log/$name.err" &
  local pid=$!
  sample "$pid" "$log/$name.err" "$log/$name.rss" &
  local sampler=$!
  local rc=0
  wait "$pid" || rc=$?
  wait "$sampler" || true
  if [ "$rc" != 0 ]; then
    echo "FAILED ($rc): $bin --db $db $*" >&2
    tail -5 "$log/$name.err" >&2
    exit 1
  fi
  local wall cpu_u cpu_s rss
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' "$log/$name.time")
  cpu_u=$(awk -F': ' '/User time/ {print $2}' "$log/$name.time")
  cpu_s=$(awk -F': ' '/System time/ {print $2}' "$log/$name.time")
  rss=$(awk -F': ' '/Maximum resident set size/ {print int($2/1024)}' "$log/$name.time")
  # RSS at 25/50/75/100 % of the run, and the rate (items/s) in its first and last quarter.
  local curve
  curve=$(awk '{t[NR]=$1; v[NR]=$2; d[NR]=$3} END {if (NR < 4) {print "-"; exit}
    a=int((NR+3)/4); b=int((3*NR+3)/4)
    printf "RSS at 25/50/75/100%%: %d/%d/%d/%d MB; rate first/last quarter: %.0f/%.0f per s",
      v[a]/1024, v[int((NR+1)/2)]/1024, v[b]/1024, v[NR]/1024,
      d[a]/(t[a]>0?t[a]:1), (d[NR]-d[b])/(t[NR]>t[b]?t[NR]-t[b]:1)}' "$log/$name.rss")
  results+=("$(printf '%-9s %8.1f s  cpu %7.1f s  peak RSS %4d MB  store %5d MB  (%s)' \
    "$name" "$wall" "$(echo "$cpu_u + $cpu_s" | bc -l)" "$rss" "$(store_mb)" "$curve")")
  echo "${results[-1]}"
  echo "          $(tail -1 "$log/$name.out")"
}

echo "command: MERGELENS_BIN=$bin bench/bigrepo.sh $commits"
echo "machine: $(nproc) cores, $(free -g | awk '/^Mem/ {print $2}') GiB, load average $(cut -d' ' -f1-3 /proc/loadavg)"
for step in $steps; do
  case $step in
    ingest)   measure ingest ingest "$repo" ;;
    reingest) measure reingest ingest "$repo" ;;
    analyze)  measure analyze analyze ;;
    write)    measure write write --lang zh ;;
    *) echo "unknown step $step" >&2; exit 2 ;;
  esac
done
echo
echo "summary ($commits commits; logs in $log):"
printf '%s\n' "${results[@]}"
sqlite3 "$db" "select 'changes ' || (select count(*) from changes) || ', facts ' ||
  (select count(*) from facts) || ', guides ' || (select count(*) from guides) ||
  ', change_files ' || (select count(*) from change_files)"
printf 'store %d MB (%s)\n' "$(store_mb)" "$db"
