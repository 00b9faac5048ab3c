#!/usr/bin/env bash
# The exact requests mergelens sends for the PRs of ANSWERS/prs.tsv, written
# to OUT for a strong-model stand-in to answer (docs: bench/README.md, "The
# model path end to end"). The requests quote the other repositories' code:
# they are regenerated from the clones, never committed.
#
#   MERGELENS_BENCH_REPOS="vllm-project/vllm-ascend=/path/a vllm-project/llm-compressor=/path/b" \
#   MERGELENS_BENCH_SINCE=2026-08-10 bench/standin_requests.sh bench/model-answers/i33 OUT
#
# Each run writes what the current answers lead to: run it once for the
# days' triage requests (triage-OWNER+NAME-DAY-K.request.json), again once
# those are answered for the guide and notes requests (N.both.request.json,
# N.notes-K.request.json; a guide starts from its day's triage), and again
# once the notes are answered for the final call of a PR read in parts
# (N.reduce-both.request.json). Answers go into ANSWERS under the request's
# name without ".request".
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/common.sh
answers="${1:?ANSWERS folder with prs.tsv}" out="${2:?OUT folder}"
bin="$(mergelens_bin)"
tmp="$(mktemp -d)"
trap 'kill "${REPLAY_PID:-}" 2>/dev/null || true; rm -rf "$tmp"' EXIT
db="$tmp/repos.db"
for pair in ${MERGELENS_BENCH_REPOS:?}; do
  name="${pair%%=*}" path="${pair#*=}"
  "$bin" --db "$db" --repo "$name" ingest "$path" --since "${MERGELENS_BENCH_SINCE:?}" \
    --url-base "https://github.com/$name" >/dev/null
  "$bin" --db "$db" --repo "$name" analyze >/dev/null
done
mkdir -p "$out"
replay_start "$tmp/port" --answers "$answers" --log "$tmp/log.jsonl" --synthesize --dump "$out"
port=$REPLAY_PORT
for repo in $(awk '!/^#/ && NF {print $1}' "$answers/prs.tsv" | sort -u); do
  prs=$(awk -v r="$repo" '$1 == r {print $2}' "$answers/prs.tsv")
  # shellcheck disable=SC2086
  OPENAI_API_KEY=replay "$bin" --db "$db" --repo "$repo" write --force --lang both --llm \
    --llm-base-url "http://127.0.0.1:$port" --llm-model replay $prs >/dev/null
done
ls "$out"
