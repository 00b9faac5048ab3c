#!/usr/bin/env bash
# Web server benchmark: `mergelens serve` against nginx serving the static
# export of the same pages, in the same run, with wrk; then search latency.
#
#   bench/serve.sh [DB] [DURATION]      (default /tmp/bench-serve.db, 30s)
#
# DB must hold a large store (ingest + analyze + write of the sglang history:
# see bench/README.md); when it is missing and MERGELENS_BENCH_REPO names a
# clone, it is built first. For each of the digest page of the newest day and
# the PR page of that day's first entry, wrk runs 64 connections on 2 threads
# for DURATION against each server (mergelens first, then nginx), and the
# script prints req/s, p50, p99, errors and the ratio mergelens/nginx. Then
# 200 distinct searches (half Chinese, half English, built from the store's
# own headlines and titles) go one by one to /api/search and their p50/p95/max
# latency is printed.
set -euo pipefail
cd "$(dirname "$0")/.."
db="${1:-/tmp/bench-serve.db}"
dur="${2:-30s}"
. bench/common.sh
bin="$(mergelens_bin)"
for tool in wrk nginx; do
  command -v "$tool" >/dev/null || [ -x "/usr/sbin/$tool" ] || { echo "$tool missing (scripts/install-deps.sh)"; exit 2; }
done
if [ ! -f "$db" ]; then
  repo="${MERGELENS_BENCH_REPO:?no store at $db; set MERGELENS_BENCH_REPO to a large clone to build it}"
  "$bin" ingest "$repo" --repo bench/repo --db "$db" >/dev/null
  "$bin" analyze --db "$db" >/dev/null
  "$bin" write --db "$db" --lang zh >/dev/null
fi
tmp="$(mktemp -d /tmp/mergelens-bench-serve.XXXXXX)"
chmod 755 "$tmp"  # nginx workers run as another user
cleanup() {
  [ -n "${serve_pid:-}" ] && kill "$serve_pid" 2>/dev/null || true
  [ -n "${nginx_pid:-}" ] && kill "$nginx_pid" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

changes=$(sqlite3 "$db" "select count(*) from changes")
guides=$(sqlite3 "$db" "select count(*) from guides")
echo "command: bench/serve.sh $db $dur   ($changes changes, $guides guides; $(nproc) cores)"
t0=$(date +%s.%N)
"$bin" export --db "$db" --out "$tmp/site" --lang zh >/dev/null
t1=$(date +%s.%N)
printf 'export: %s HTML pages in %.1f s\n' "$(find "$tmp/site" -name '*.html' | wc -l)" \
  "$(echo "$t1 - $t0" | bc -l)"

day=$("$bin" list --db "$db" --limit 1 --json | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["day"])')
pr=$("$bin" digest --db "$db" --date "$day" --format json | python3 -c '
import json, sys
items = json.load(sys.stdin)["items"]
print(items[0]["ref"].lstrip("#"))')

sport=$(free_port)
"$bin" serve --db "$db" --port "$sport" >"$tmp/serve.log" 2>&1 &
serve_pid=$!
nport=$(free_port)
mkdir -p "$tmp/nginx"
cat >"$tmp/nginx/nginx.conf" <<CONF
daemon off;
worker_processes 2;
pid $tmp/nginx/nginx.pid;
error_log $tmp/nginx/error.log;
events { worker_connections 1024; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 100000;
  gzip on;
  gzip_types text/html application/atom+xml;
  types { text/html html; text/css css; application/atom+xml xml; }
  client_body_temp_path $tmp/nginx; proxy_temp_path $tmp/nginx; fastcgi_temp_path $tmp/nginx;
  uwsgi_temp_path $tmp/nginx; scgi_temp_path $tmp/nginx;
  server { listen 127.0.0.1:$nport; root $tmp/site; }
}
CONF
/usr/sbin/nginx -c "$tmp/nginx/nginx.conf" -p "$tmp/nginx" &
nginx_pid=$!
for _ in $(seq 50); do
  curl -sf "http://127.0.0.1:$sport/day/$day" >/dev/null && curl -sf "http://127.0.0.1:$nport/index.html" >/dev/null && break
  sleep 0.2
done

run_wrk() {  # URL [wrk args] -> "req/s p50 p99 errors"
  wrk -t2 -c64 -d"$dur" --latency "${@:2}" "$1" | python3 -c '
import re, sys
t = sys.stdin.read()
rps = float(re.search(r"Requests/sec:\s+([\d.]+)", t).group(1))
def lat(p):
    m = re.search(r"^\s+%s%%\s+([\d.]+)(us|ms|s)\s*$" % p, t, re.M)
    v, u = float(m.group(1)), m.group(2)
    return v / 1000 if u == "us" else v * 1000 if u == "s" else v
err = sum(int(x) for x in re.findall(r"(?:connect|read|write|timeout) (\d+)", t))
m = re.search(r"Non-2xx or 3xx responses: (\d+)", t)
err += int(m.group(1)) if m else 0
print(f"{rps:.0f} {lat(50):.2f} {lat(99):.2f} {err}")'
}

printf '\n| page | server | req/s | p50 ms | p99 ms | errors |\n|---|---|---|---|---|---|\n'
for page in digest pr; do
  if [ "$page" = digest ]; then s="/day/$day"; n="/day/$day.html"; else s="/pr/$pr"; n="/pr/$pr.html"; fi
  read -r mr mp50 mp99 merr <<<"$(run_wrk "http://127.0.0.1:$sport$s")"
  read -r nr np50 np99 nerr <<<"$(run_wrk "http://127.0.0.1:$nport$n")"
  printf '| %s `%s` | mergelens | %s | %s | %s | %s |\n' "$page" "$s" "$mr" "$mp50" "$mp99" "$merr"
  printf '| %s `%s` | nginx (export) | %s | %s | %s | %s |\n' "$page" "$n" "$nr" "$np50" "$np99" "$nerr"
  ratios+="$page: mergelens/nginx = $(echo "scale=2; $mr / $nr" | bc -l)x; "
done
# What browsers send: both compress (mergelens once per cached page, nginx
# per request at its default gzip level 1).
br=(-H "Accept-Encoding: gzip, deflate, br")
read -r mr mp50 mp99 merr <<<"$(run_wrk "http://127.0.0.1:$sport/pr/$pr" "${br[@]}")"
read -r nr np50 np99 nerr <<<"$(run_wrk "http://127.0.0.1:$nport/pr/$pr.html" "${br[@]}")"
printf '| pr, browser headers (gzip) | mergelens | %s | %s | %s | %s |\n' "$mr" "$mp50" "$mp99" "$merr"
printf '| pr, browser headers (gzip) | nginx (export, gzip on) | %s | %s | %s | %s |\n' "$nr" "$np50" "$np99" "$nerr"
ratios+="pr with gzip: mergelens/nginx = $(echo "scale=2; $mr / $nr" | bc -l)x"
echo
echo "$ratios"

echo
python3 - "$db" "$sport" <<'PY'
import json, sys, time, urllib.parse, urllib.request
sys.path.insert(0, "bench")
from first_view import search_queries  # the same 200 queries as bench/first_view.py
db, port = sys.argv[1], sys.argv[2]
qs = search_queries(db, 200)
zh = [q for q in qs if not q.isascii()]
en = [q for q in qs if q.isascii()]
lat, hits = [], 0
for q in qs:
    url = f"http://127.0.0.1:{port}/api/search?q=" + urllib.parse.quote(q)
    t = time.perf_counter()
    with urllib.request.urlopen(url) as r:
        body = r.read()
    lat.append((time.perf_counter() - t) * 1000)
    hits += len(json.loads(body)["results"])
lat.sort()
p = lambda x: lat[min(len(lat) - 1, int(round(x / 100 * len(lat))) - 1)]
print(f"search over HTTP: {len(qs)} distinct queries ({min(100, len(zh))} zh, {min(100, len(en))} en), "
      f"{hits} results; p50 {p(50):.2f} ms, p95 {p(95):.2f} ms, max {lat[-1]:.2f} ms")
PY
