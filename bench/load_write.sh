#!/usr/bin/env bash
# Load while writing: wrk at CONNS connections for DURATION seconds against
# `mergelens serve` while ingest, analyse and write commit to the same store,
# over a real history (see bench/load_write.py for what is checked).
#
#   MERGELENS_BENCH_REPO=/path/to/sglang bench/load_write.sh [DURATION] [CONNS]
#
# Defaults: 60 s, 256 connections; the store holds the 120 days before the
# last 5, which arrive under load. Exits non-zero on any failed request or
# inconsistency.
set -euo pipefail
cd "$(dirname "$0")/.."
repo="${MERGELENS_BENCH_REPO:?set MERGELENS_BENCH_REPO to a clone (e.g. of sglang)}"
dur="${1:-60}"
conns="${2:-256}"
. bench/common.sh
bin="$(mergelens_bin)"
command -v wrk >/dev/null || { echo "wrk missing (scripts/install-deps.sh)"; exit 2; }
work="$(mktemp -d /tmp/mergelens-load-write.XXXXXX)"
trap 'rm -rf "$work"' EXIT
echo "command: MERGELENS_BENCH_REPO=$repo bench/load_write.sh $dur $conns   ($(nproc) cores)"
python3 bench/load_write.py --binary "$bin" --repo "$repo" --work "$work" --duration "$dur" \
  --conns "$conns"
