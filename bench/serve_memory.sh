#!/usr/bin/env bash
# The server's memory under unique-query traffic (issue 34): `mergelens serve`
# gets requests whose query string was never sent before (bench/unique_query.lua:
# a 16 KB unknown parameter, a 3 KB unknown parameter, a unique 2 KB filter)
# from wrk (16 connections, 2 threads) for DURATION, and the script samples the
# server's RSS every 10 s and prints it with the requests answered so far.
# The bound to hold: RSS flat once the page cache is full (--cache-mb, 256 MiB
# by default; CACHE_MB below), whatever the traffic's length.
#
#   bench/serve_memory.sh [DB] [DURATION]     (default: the sample store, 600s)
#   CACHE_MB=32 bench/serve_memory.sh         (a smaller cache fills sooner)
#   MERGELENS_BASELINE_BIN=/path/to/old/mergelens bench/serve_memory.sh DB 600s
#       also runs an older binary for BASELINE_SECONDS (default 20) first, as
#       the named baseline (main before issue 34 grew by ~50 MB/s here).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/common.sh
bin="$(mergelens_bin)"
db="${1:-}"
dur="${2:-600s}"
cache_mb="${CACHE_MB:-256}"
command -v wrk >/dev/null || { echo "wrk missing (scripts/install-deps.sh)"; exit 2; }
tmp="$(mktemp -d /tmp/mergelens-bench-memory.XXXXXX)"
cleanup() {
  [ -n "${serve_pid:-}" ] && kill "$serve_pid" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
if [ -z "$db" ]; then
  python3 scripts/make-sample-repo.py "$tmp/sample" >/dev/null
  db="$tmp/sample.db"
  "$bin" run "$tmp/sample" --db "$db" --lang both >/dev/null
fi
day=$("$bin" list --db "$db" --limit 1 --json | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["day"])')
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
rss_mb() { awk '/^VmRSS/ {printf "%.1f", $2/1024}' "/proc/$1/status" 2>/dev/null || echo "-"; }

# run_one BIN SECONDS LABEL EXTRA...: serves DB with BIN, drives wrk for SECONDS
# and prints "seconds RSS" every 10 s (every 2 s for a short run).
run_one() {
  local b="$1" secs="$2" label="$3"
  shift 3
  local port
  port=$(free_port)
  "$b" serve --db "$db" --port "$port" "$@" >"$tmp/serve.log" 2>&1 &
  serve_pid=$!
  for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.2; done
  local start
  start=$(rss_mb "$serve_pid")
  BENCH_DAY="$day" wrk -t2 -c16 -d"${secs}s" -s bench/unique_query.lua \
    "http://127.0.0.1:$port" >"$tmp/wrk.out" 2>&1 &
  local wrk_pid=$! every=10
  [ "$secs" -lt 60 ] && every=2
  echo "$label: RSS at start ${start} MB"
  printf '%8s %10s\n' "seconds" "RSS MB"
  local t=0 peak=0 rss
  while kill -0 "$wrk_pid" 2>/dev/null; do
    sleep "$every"
    t=$((t + every))
    rss=$(rss_mb "$serve_pid")
    printf '%8d %10s\n' "$t" "$rss"
  done
  wait "$wrk_pid" || true
  grep -E "Requests/sec|requests " "$tmp/wrk.out" | sed 's/^/  wrk: /'
  echo "  peak (VmHWM): $(awk '/^VmHWM/ {printf "%.1f MB", $2/1024}' /proc/$serve_pid/status)"
  kill "$serve_pid"
  wait "$serve_pid" 2>/dev/null || true
  serve_pid=
}

echo "command: CACHE_MB=$cache_mb bench/serve_memory.sh ${1:-} $dur   (day $day; $(nproc) cores)"
if [ -n "${MERGELENS_BASELINE_BIN:-}" ]; then
  run_one "$MERGELENS_BASELINE_BIN" "${BASELINE_SECONDS:-20}" "baseline $MERGELENS_BASELINE_BIN"
fi
secs="${dur%s}"
run_one "$bin" "$secs" "$bin --cache-mb $cache_mb" --cache-mb "$cache_mb"
