#!/usr/bin/env bash
# Workers on PostgreSQL over a real backlog: throughput with 1, 2 and 4 workers
# against the replay model server (latency shaped like a real model, scaled
# down), the store's own ceiling, and 4 workers SIGKILLed at random that must
# end with the result of one `mergelens run`, asking the model no change twice
# except after a kill. See bench/workers.py for the steps.
#
#   MERGELENS_BENCH_REPO=/work/.mirror/ITCJ+sglang/repo [MERGELENS_BIN=build/mergelens] bench/workers.sh
#
# Environment (defaults): MERGELENS_WORKERS_WINDOW (2000) newest first-parent
# changes, MERGELENS_WORKERS_SCALE (0.02: p50 8 s x 0.02 = 0.16 s, p99 0.8 s),
# MERGELENS_WORKERS_RPM (900: the shared limit, in scaled minutes of requests),
# MERGELENS_WORKERS_DURATION (60 s per throughput run), MERGELENS_WORKERS_DIR
# (/tmp/mergelens-workers), MERGELENS_BENCH_NAME (sgl-project/sglang),
# MERGELENS_BENCH_URL (https://github.com/sgl-project/sglang), MERGELENS_BENCH_BRANCH (main).
# A throwaway PostgreSQL 15 cluster is started for the run (scripts/pg-test-cluster.sh)
# and stopped at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
src="${MERGELENS_BENCH_REPO:?set MERGELENS_BENCH_REPO to a large local clone (e.g. ITCJ/sglang)}"
. bench/common.sh
bin="$(realpath "$(mergelens_bin)")"
window="${MERGELENS_WORKERS_WINDOW:-2000}"
branch="${MERGELENS_BENCH_BRANCH:-main}"
dir="${MERGELENS_WORKERS_DIR:-/tmp/mergelens-workers}"
name="${MERGELENS_BENCH_NAME:-sgl-project/sglang}"
url="${MERGELENS_BENCH_URL:-https://github.com/sgl-project/sglang}"
mkdir -p "$dir"
repo="$dir/window.git"
make_window_repo "$src" "$repo" "$(git -C "$src" rev-parse "$branch")" "$window" "$name"
root="$(git -C "$repo" rev-list --max-parents=0 main)"
wtip="$(git -C "$repo" rev-parse main)"

# The seed: the window's root commit alone, ingested, analysed and guided offline
# (the workers then catch up the WINDOW changes after it).
rm -f "$dir/seed.db"*
git -C "$repo" update-ref refs/heads/main "$root"
"$bin" --db "$dir/seed.db" --repo "$name" run "$repo" --url-base "$url" --lang zh >/dev/null 2>&1 ||
  { git -C "$repo" update-ref refs/heads/main "$wtip"; echo "seed run failed" >&2; exit 1; }
git -C "$repo" update-ref refs/heads/main "$wtip"

pgdir="$dir/cluster"
scripts/pg-test-cluster.sh stop "$pgdir"
trap 'scripts/pg-test-cluster.sh stop "$pgdir"' EXIT
port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
server="$(scripts/pg-test-cluster.sh start "$pgdir" "$port")"

echo "command: MERGELENS_BENCH_REPO=$src MERGELENS_WORKERS_WINDOW=$window bench/workers.sh"
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg); PostgreSQL 15 on loopback"
echo "window: $window first-parent changes of $name ($(git -C "$repo" log -1 --format=%cs "$root")" \
  "… $(git -C "$repo" log -1 --format=%cs "$wtip")), guides in zh by the replay model"
python3 bench/workers.py --binary "$bin" --repo "$repo" --seed "$dir/seed.db" --server "$server" \
  --work "$dir" --name "$name" --url-base "$url" --scale "${MERGELENS_WORKERS_SCALE:-0.02}" \
  --rpm "${MERGELENS_WORKERS_RPM:-900}" --duration "${MERGELENS_WORKERS_DURATION:-60}"
