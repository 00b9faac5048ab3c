#!/usr/bin/env bash
# A throwaway PostgreSQL 15 cluster on loopback for the tests.
#   scripts/pg-test-cluster.sh start DIR PORT   initdb in DIR, start on 127.0.0.1:PORT,
#                                               print the URL the tests take (MERGELENS_TEST_PG)
#   scripts/pg-test-cluster.sh stop DIR         stop it and delete DIR
#   scripts/pg-test-cluster.sh restart DIR [S]  stop and start again (same data), down
#                                               for S seconds in between (default 0)
# initdb and postgres refuse to run as root: as root (CI), they run as the
# unprivileged user `nobody`, which owns DIR. The cluster uses UTF8 (the
# default of managed services; see docs/operations.md) with the C.UTF-8
# locale, trust authentication on loopback only, and a Unix socket inside DIR.
# A SQL_ASCII database (a store made by mergelens before UTF8 support) can be
# made in it with: createdb -E SQL_ASCII -l C -T template0 NAME
set -euo pipefail
cmd="${1:?usage: $0 start DIR PORT | stop DIR | restart DIR}"
dir="${2:?data directory}"
bin="${PG_BIN:-/usr/lib/postgresql/15/bin}"
as_owner() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u nobody -- "$@"; else "$@"; fi
}
case "$cmd" in
  start)
    port="${3:?port}"
    mkdir -p "$dir"
    [ "$(id -u)" -eq 0 ] && chown nobody "$dir" && chmod 700 "$dir"
    as_owner "$bin/initdb" -D "$dir/data" -U mergelens --auth=trust --encoding=UTF8 \
      --locale=C.UTF-8 --no-sync >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; exit 1; }
    cat >>"$dir/data/postgresql.conf" <<EOF
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$dir'
fsync = off
synchronous_commit = off
full_page_writes = off
max_connections = 200
shared_buffers = 64MB
EOF
    echo "$port" >"$dir/port"
    as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 start >/dev/null
    echo "postgresql://mergelens@127.0.0.1:$port/postgres"
    ;;
  restart)
    pause="${3:-0}"
    if [ "$pause" = 0 ]; then
      as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 -m fast restart >/dev/null
    else
      as_owner "$bin/pg_ctl" -D "$dir/data" -w -t 60 -m fast stop >/dev/null
      sleep "$pause"
      as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 start >/dev/null
    fi
    ;;
  stop)
    if [ -f "$dir/data/postmaster.pid" ]; then
      as_owner "$bin/pg_ctl" -D "$dir/data" -w -t 60 -m immediate stop >/dev/null 2>&1 || true
    fi
    rm -rf "$dir"
    ;;
  *) echo "usage: $0 start DIR PORT | stop DIR | restart DIR [SECONDS]" >&2; exit 2 ;;
esac
