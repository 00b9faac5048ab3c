#!/usr/bin/env bash
# The model writer on real answers and real PRs: the six strong-model answers
# of ../shared/data/model-answers replayed through `write --llm` by the
# current build and a "before" build (items kept, fabrications caught, guides
# lost), the largest PRs' calls and tokens, and the tokens one call for both
# languages saves over the last LAST_N PRs. See bench/model_answers.py.
#
#   MERGELENS_BENCH_REPO=/path/to/sglang [MERGELENS_BEFORE=/path/to/old/mergelens] \
#     bench/model_answers.sh [LAST_N]
#
# The model path end to end (issue 33: a day's triage first, then both
# languages, on repositories other than sglang): MERGELENS_BENCH_REPOS names
# the clones as OWNER/NAME=PATH pairs separated by spaces, ingested from
# MERGELENS_BENCH_SINCE (a date), and MERGELENS_ANSWERS a folder with prs.tsv
# (bench/model-answers/i33; bench/model_answers_triage.py):
#   MERGELENS_BENCH_REPOS="vllm-project/vllm-ascend=/path/a vllm-project/llm-compressor=/path/b" \
#   MERGELENS_BENCH_SINCE=2026-08-10 MERGELENS_ANSWERS=bench/model-answers/i33 \
#   MERGELENS_BEFORE=/path/to/old/mergelens bench/model_answers.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/common.sh
if [ -n "${MERGELENS_BENCH_REPOS:-}" ]; then
  bin="$(mergelens_bin)"
  tmp="${MERGELENS_BENCH_TMP:-$(mktemp -d)}"
  db="$tmp/repos.db"
  if [ ! -f "$db" ]; then
    maker="${MERGELENS_BEFORE:-$bin}"
    for pair in $MERGELENS_BENCH_REPOS; do
      name="${pair%%=*}" path="${pair#*=}"
      "$maker" --db "$db" --repo "$name" ingest "$path" --since "${MERGELENS_BENCH_SINCE:?}" \
        --url-base "https://github.com/$name" >/dev/null
      "$maker" --db "$db" --repo "$name" analyze >/dev/null
    done
  fi
  bins=()
  [ -n "${MERGELENS_BEFORE:-}" ] && bins+=(--bin "before=$MERGELENS_BEFORE")
  bins+=(--bin "after=$bin")
  echo "command: MERGELENS_BENCH_REPOS=\"$MERGELENS_BENCH_REPOS\" MERGELENS_BENCH_SINCE=$MERGELENS_BENCH_SINCE MERGELENS_ANSWERS=${MERGELENS_ANSWERS:?}${MERGELENS_BEFORE:+ MERGELENS_BEFORE=$MERGELENS_BEFORE} bench/model_answers.sh"
  exec python3 bench/model_answers.py --db "$db" --answers "$MERGELENS_ANSWERS" "${bins[@]}" \
    --answers-only
fi
repo="${MERGELENS_BENCH_REPO:?set MERGELENS_BENCH_REPO to a clone of the sglang history}"
# MERGELENS_ANSWERS: one or more folders of answers, separated by ':' (the
# shared answers, and e.g. /work/standin/i23/answers for both languages).
answers="${MERGELENS_ANSWERS:-../shared/data/model-answers}"
answer_args=()
IFS=: read -ra answer_dirs <<<"$answers"
for d in "${answer_dirs[@]}"; do
  [ -d "$d" ] || { echo "no model answers at $d" >&2; exit 2; }
  answer_args+=(--answers "$d")
done
last="${1:-2000}"
bin="$(mergelens_bin)"
tmp="${MERGELENS_BENCH_TMP:-$(mktemp -d)}"
db="$tmp/sglang.db"
if [ ! -f "$db" ]; then
  # The store is made by the oldest binary measured, so each can open it.
  maker="${MERGELENS_BEFORE:-$bin}"
  "$maker" --db "$db" --repo sgl-project/sglang ingest "$repo" \
    --url-base https://github.com/sgl-project/sglang >/dev/null
  "$maker" --db "$db" analyze >/dev/null
fi
bins=()
[ -n "${MERGELENS_BEFORE:-}" ] && bins+=(--bin "before=$MERGELENS_BEFORE")
bins+=(--bin "after=$bin")
echo "command: MERGELENS_BENCH_REPO=$repo${MERGELENS_BEFORE:+ MERGELENS_BEFORE=$MERGELENS_BEFORE} bench/model_answers.sh $last"
python3 bench/model_answers.py --db "$db" "${answer_args[@]}" "${bins[@]}" --last "$last" \
  ${MERGELENS_ANSWERS_ONLY:+--answers-only}
