#!/usr/bin/env bash
# First view of each page kind after a server start, and first-time searches
# (issue 36): see bench/first_view.py and bench/README.md.
#
#   bench/first_view.sh STORE [ROUNDS]     MERGELENS_BIN: the binary measured
#                                          MERGELENS_BASE_BIN: a "before" binary, run alternately
#                                          MERGELENS_BASE_DB: its copy of STORE (when AFTER migrates it)
set -euo pipefail
cd "$(dirname "$0")/.."
db="${1:?usage: bench/first_view.sh STORE [ROUNDS] (a store of the whole sglang history)}"
rounds="${2:-7}"
. bench/common.sh
bin="$(mergelens_bin)"
echo "command: MERGELENS_BIN=$bin${MERGELENS_BASE_BIN:+ MERGELENS_BASE_BIN=$MERGELENS_BASE_BIN}${MERGELENS_BASE_DB:+ MERGELENS_BASE_DB=$MERGELENS_BASE_DB} bench/first_view.sh $db $rounds"
exec python3 bench/first_view.py --db "$db" --bin "$bin" ${MERGELENS_BASE_BIN:+--base-bin "$MERGELENS_BASE_BIN"} \
  ${MERGELENS_BASE_DB:+--base-db "$MERGELENS_BASE_DB"} --rounds "$rounds"
