#!/usr/bin/env bash
# Search across the two languages: recall of 40 zh/en query pairs
# (bench/search_pairs.tsv) over an analysed store with guides in both
# languages, with the glossary's query expansion against the baseline (the
# queries as typed), in the same run.
#
#   MERGELENS_BENCH_DB=/work/data/sglang-ingest.db bench/search_glossary.sh
#
# The ingested store is copied (never modified), then `analyze` and
# `write --lang both` (offline) run on the copy; MERGELENS_BENCH_TMP keeps the
# copy between runs (an existing analysed copy is reused).
set -euo pipefail
cd "$(dirname "$0")/.."
src="${MERGELENS_BENCH_DB:?set MERGELENS_BENCH_DB to an ingested store (e.g. /work/data/sglang-ingest.db)}"
source bench/common.sh
bin="$(mergelens_bin)"
[ -x build/bench/mergelens_search_glossary_bench ] || cmake --build build --target mergelens_search_glossary_bench >/dev/null
tmp="${MERGELENS_BENCH_TMP:-$(mktemp -d)}"
db="$tmp/search.db"
if [ ! -f "$tmp/.written" ]; then
  cp "$src" "$db"
  "$bin" analyze --db "$db" >/dev/null 2>&1
  "$bin" write --lang both --db "$db" >/dev/null 2>&1
  touch "$tmp/.written"
fi
echo "command: MERGELENS_BENCH_DB=$src bench/search_glossary.sh"
echo "store: $db (analysed, offline guides in zh and en)"
build/bench/mergelens_search_glossary_bench --db "$db" --pairs bench/search_pairs.tsv
