#!/usr/bin/env bash
# The offline writer's audit (issue 31 item 4): ingest the two repositories of
# bench/offline_audit/prs.tsv, analyse them, write the offline guides of those
# PRs in both languages and split them into statements for a careful reader.
#
#   MERGELENS_MIRRORS=/work/.mirror bench/offline_audit/run.sh OUT [BINARY]
#
# OUT gets va.db, lc.db (the stores), statements-va.tsv, statements-lc.tsv
# (key, pr, element, English, Chinese) and guides/ (both languages as
# Markdown). Classify the statements (reader_requests.py writes one request
# per PR for a reader), then count them with tally.py. Needs the mirrors of
# vllm-project/vllm-ascend and vllm-project/llm-compressor as bare clones at
# $MERGELENS_MIRRORS/OWNER+NAME/repo.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: run.sh OUT [BINARY]}
bin=${2:-$here/../../build/mergelens}
mirrors=${MERGELENS_MIRRORS:?set MERGELENS_MIRRORS to the folder of the mirrors}
mkdir -p "$out/guides"
prs=$here/prs.tsv
for spec in "va vllm-project/vllm-ascend 2026-05-01" "lc vllm-project/llm-compressor 2026-03-01"; do
  set -- $spec
  db=$out/$1.db repo=$2 since=$3
  if [ ! -f "$db" ]; then
    "$bin" --db "$db" --repo "$repo" ingest "$mirrors/${repo/\//+}/repo" --since "$since" >/dev/null
  fi
  "$bin" --db "$db" analyze >/dev/null
  list=$(awk -F'\t' -v r="${repo/\//+}" '$1==r{printf "%s ", $2}' "$prs")
  "$bin" --db "$db" write --force --lang both $list >/dev/null
  for pr in $list; do
    for lang in en zh; do "$bin" --db "$db" show "$pr" --lang "$lang" >"$out/guides/$1-$pr.$lang.md"; done
  done
  python3 "$here/statements.py" --db "$db" --repo "$repo" --prs $list --binary "$bin" \
    --out "$out/statements-$1.tsv"
done
wc -l "$out"/statements-*.tsv
