#!/usr/bin/env bash
# One side of the model writer's audit (issue 31), for one build: the exact
# requests `write --llm --lang both --no-triage --force` sends for the PRs of
# bench/audit/prs.tsv, then the stand-ins' answers replayed and the published
# guides written out for careful readers (bench/README.md, "The model writer's
# audit, prompt 6").
#
#   MERGELENS_AUDIT_MIRRORS=/work/.mirror bench/audit/model_side.sh BIN DIR requests
#       → DIR/requests/N.KIND.request.json (KIND: both, notes-K, reduce-both)
#   (stand-ins answer each request alone into DIR/answers/N.KIND.json; a split
#    PR's reduce request quotes its checked notes, so run `requests` again on a
#    fresh DIR holding the notes answers to get it)
#   MERGELENS_AUDIT_MIRRORS=/work/.mirror bench/audit/model_side.sh BIN DIR replay
#       → DIR/guides/N.{zh,en}.{json,md}, DIR/write-OWNER+NAME.txt
#
# DIR/OWNER+NAME.db is made by BIN (ingest and analyze of the whole mirror)
# when absent; its model cache answers a second run, so start from a copy
# made before any write to ask again. The requests quote the other
# repositories' code: they are regenerated, never committed.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$here/../.."
. "$root/bench/common.sh"
bin="$(realpath "${1:?usage: model_side.sh BIN DIR requests|replay}")"
dir="$(realpath -m "${2:?usage: model_side.sh BIN DIR requests|replay}")"
stage="${3:-requests}"
mirrors="${MERGELENS_AUDIT_MIRRORS:?set MERGELENS_AUDIT_MIRRORS to the folder of OWNER+NAME/repo clones}"
mkdir -p "$dir/requests" "$dir/answers" "$dir/guides"
for mirror in $(tail -n +2 "$here/prs.tsv" | cut -f1 | sort -u); do
  db="$dir/${mirror}.db"
  if [ ! -f "$db" ]; then
    "$bin" ingest "$mirrors/$mirror/repo" --db "$db" --repo "${mirror/+//}" > /dev/null
    "$bin" analyze --db "$db" > /dev/null
  fi
  prs=$(awk -F'\t' -v m="$mirror" '$1 == m {print $2}' "$here/prs.tsv" | tr '\n' ' ')
  args=(--answers "$dir/answers" --log "$dir/replay-$mirror.jsonl")
  if [ "$stage" = requests ]; then args+=(--synthesize --dump "$dir/requests"); fi
  replay_start "$dir/server-$mirror.out" "${args[@]}"
  # shellcheck disable=SC2086
  OPENAI_BASE_URL="http://127.0.0.1:$REPLAY_PORT" OPENAI_API_KEY=replay OPENAI_MODEL=stand-in \
    "$bin" write --db "$db" --llm --lang both --no-triage --force $prs > "$dir/write-$mirror.txt" 2>&1 || true
  replay_stop
  if [ "$stage" = replay ]; then
    for n in $prs; do
      for lang in zh en; do
        "$bin" show --db "$db" "$n" --lang "$lang" --json > "$dir/guides/$n.$lang.json" 2>/dev/null || true
        "$bin" show --db "$db" "$n" --lang "$lang" > "$dir/guides/$n.$lang.md" 2>/dev/null || true
      done
    done
  fi
done
echo "$(ls "$dir/requests" | wc -l) requests in $dir/requests, $(ls "$dir/answers" | wc -l) answers"
