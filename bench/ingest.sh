#!/usr/bin/env bash
# Ingest benchmark: mergelens against `git log -p --numstat` on the same clone,
# in the same run, so the ratio holds on a noisy shared machine.
#
#   MERGELENS_BENCH_REPO=/path/to/sglang bench/ingest.sh [N] [--full]
#
# Prints, for the last N first-parent commits (default 2000): both wall times
# and CPU times (user + sys; best of 2 by wall), their ratios, PRs/s and peak RSS; with --full also the whole
# history (time, peak RSS, database size).
set -euo pipefail
cd "$(dirname "$0")/.."
repo="${MERGELENS_BENCH_REPO:?set MERGELENS_BENCH_REPO to a large local clone (e.g. ITCJ/sglang)}"
n="${1:-2000}"
full="${2:-}"
. bench/common.sh
bin="$(mergelens_bin)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

measure() {  # measure NAME CMD... -> appends "secs rss_kb cpu_secs" to $tmp/NAME
  /usr/bin/time -f "%e %M %U %S" -o "$tmp/t" "$@" >/dev/null 2>&1
  read -r e m u s < "$tmp/t"
  echo "$e $m $(echo "$u + $s" | bc -l)" > "$tmp/t"
  cat "$tmp/t" >> "$tmp/$NAME"
}
best() { sort -n "$tmp/$1" | head -1; }

git -C "$repo" log -"$n" --first-parent -p --numstat >/dev/null  # warm the page cache
for round in 1 2; do
  NAME=git measure git -C "$repo" log -"$n" --first-parent -p --numstat
  rm -f "$tmp/ml.db"*
  NAME=ml measure "$bin" ingest "$repo" --limit "$n" --db "$tmp/ml.db" --repo bench/repo
done
read -r git_s git_kb git_cpu <<<"$(best git)"
read -r ml_s ml_kb ml_cpu <<<"$(best ml)"
echo "command: MERGELENS_BENCH_REPO=$repo bench/ingest.sh $n $full"
echo "machine: $(nproc) cores, $(git -C "$repo" rev-list --first-parent --count HEAD) first-parent commits in the clone"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
printf 'git log -%s --first-parent -p --numstat   wall %6.2f s   CPU %6.2f s   peak RSS %4d MB\n' \
  "$n" "$git_s" "$git_cpu" $((git_kb / 1024))
printf 'mergelens ingest --limit %s            wall %6.2f s   CPU %6.2f s   peak RSS %4d MB   %.0f PRs/s\n' \
  "$n" "$ml_s" "$ml_cpu" $((ml_kb / 1024)) "$(echo "$n / $ml_s" | bc -l)"
printf 'ratio mergelens / git                     wall %6.2f     CPU %6.2f\n' \
  "$(echo "$ml_s / $git_s" | bc -l)" "$(echo "$ml_cpu / $git_cpu" | bc -l)"
if [ "$full" = "--full" ]; then
  NAME=full measure "$bin" ingest "$repo" --db "$tmp/full.db" --repo bench/repo
  read -r f_s f_kb <<<"$(best full)"
  count=$(sqlite3 "$tmp/full.db" "select count(*) from changes")
  printf 'full history: %s changes in %.1f s (%.0f PRs/s), peak RSS %d MB, database %d MB\n' \
    "$count" "$f_s" "$(echo "$count / $f_s" | bc -l)" $((f_kb / 1024)) \
    $(( $(stat -c %s "$tmp/full.db") / 1048576 ))
fi
