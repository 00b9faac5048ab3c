#!/bin/sh
# The release-notes figures of bench/README.md ("Release notes: themes"):
# drafts of real releases of vllm-ascend and dask beside their published
# Highlights, under each judgment:
#   theme pass      the model's themes of the release (stand-in answers in
#                   bench/judgment/theme-answers/REPO/, replayed); vllm-ascend's
#                   over the day triage, dask's over the analysis (its day
#                   triage was answered in the same round as its themes)
#   triage, per PR  the day-by-day triage alone (stand-in answers in
#                   bench/judgment/triage-answers/REPO/, replayed), one PR a bullet
#   triage, themes  the analysis's themes ranked by the triage's judgment
#   analysis        the analysis's themes (threads, tags, paths), no model
#   analysis per PR the analysis's judgment, one PR a bullet (the draft before themes)
#   changed lines   the 8 biggest PRs
#
#   MERGELENS_VA_REPO=/work/.mirror/vllm-project+vllm-ascend/repo \
#   MERGELENS_DASK_REPO=/work/.mirror/dask+dask/repo \
#   bench/release_notes.sh build/mergelens WORKDIR VA_STORE DASK_STORE
#
# VA_STORE, DASK_STORE: analysed stores holding the releases below (ingest
# --since 2026-03-01 and 2025-06-01 at least; analyze) that are copied, never
# written. A missing answer is not asked: a theme request is written to
# WORKDIR/requests/REPO/ for a stand-in to answer (docs/themes.md), the day
# triage fails for that day (its changes keep the analysis's judgment; the
# table says how many of a release's changes the triage judged), and a
# release without a theme answer has no theme-pass row.
set -eu
BIN=$(realpath "${1:?usage: release_notes.sh BINARY WORKDIR VA_STORE DASK_STORE}")
WORK=${2:?usage: release_notes.sh BINARY WORKDIR VA_STORE DASK_STORE}
VA_STORE=${3:?}
DASK_STORE=${4:?}
: "${MERGELENS_VA_REPO:?set MERGELENS_VA_REPO to a vllm-ascend clone}"
: "${MERGELENS_DASK_REPO:?set MERGELENS_DASK_REPO to a dask clone}"
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/common.sh"
mkdir -p "$WORK/requests"

serve() {  # serve DIR: starts the replay server on a free port, sets PORT and PID
  replay_start "$WORK/replay.out" --answers "$1" --log "$WORK/replay.jsonl"
  PORT=$REPLAY_PORT PID=$REPLAY_PID
}

# bench_repo NAME KIND CLONE STORE TRIAGE_SINCE TRIAGE_UNTIL THEMES_OVER PREVIOUS RELEASES
# THEMES_OVER: triage (the theme pass runs on the triaged store) or analysis.
bench_repo() {
  name=$1 kind=$2 clone=$3 store=$4 since=$5 until=$6 over=$7 previous=$8 releases=$9
  cp "$store" "$WORK/$name-analysis.db"
  cp "$store" "$WORK/$name-triage.db"
  variants="--variant analysis=$WORK/$name-analysis.db
            --variant analysis-per-pr=$WORK/$name-analysis.db:per-pr"
  if [ -d "$HERE/judgment/triage-answers/$name" ]; then
    serve "$HERE/judgment/triage-answers/$name"
    "$BIN" --db "$WORK/$name-triage.db" triage --since "$since" --until "$until" \
      --llm-base-url "http://127.0.0.1:$PORT" --llm-model standin > "$WORK/$name-triage.log" 2>&1 || true
    kill "$PID"
    grep -m1 "triage:" "$WORK/$name-triage.log" || true
    variants="$variants --variant triage-themes=$WORK/$name-triage.db
              --variant triage-per-pr=$WORK/$name-triage.db:per-pr"
  fi
  cp "$WORK/$name-$over.db" "$WORK/$name-themes.db"
  serve "$HERE/judgment/theme-answers/$name"
  prev=$previous
  answered=0
  for rel in $(echo "$releases" | tr ',' ' '); do
    from=$(git -C "$clone" merge-base "$prev" main)
    to=$(git -C "$clone" merge-base "$rel" main)
    if "$BIN" --db "$WORK/$name-themes.db" themes --from "$from" --to "$to" --git "$clone" \
        --llm-base-url "http://127.0.0.1:$PORT" --llm-model standin \
        > "$WORK/$name-themes-$rel.log" 2>&1 && grep -q "stored$" "$WORK/$name-themes-$rel.log"; then
      answered=$((answered + 1))
      sed -n 's/^ *themes: //p' "$WORK/$name-themes-$rel.log" | sed "s/^/$name $rel: /"
    else
      "$BIN" --db "$WORK/$name-themes.db" themes --from "$from" --to "$to" --git "$clone" \
        --dump-requests "$WORK/requests/$name" > /dev/null
      echo "$name $rel: no stored theme answer; request written to $WORK/requests/$name/"
    fi
    prev=$rel
  done
  kill "$PID"
  [ "$answered" -gt 0 ] && variants="--variant theme-pass=$WORK/$name-themes.db $variants"
  # shellcheck disable=SC2086
  python3 "$HERE/release_notes.py" --binary "$BIN" --kind "$kind" --clone "$clone" \
    --previous "$previous" --releases "$releases" $variants \
    --out "$WORK/drafts/$name" --json "$WORK/$name.json" --markdown
}

# vllm-ascend: stand-in triage answers for 2026-06-04 … 06-30 (issue 21's
# prompt); v0.21.0rc1 starts on 05-30, v0.23.0rc1 ends on 07-06.
bench_repo vllm-ascend vllm-ascend "$MERGELENS_VA_REPO" "$VA_STORE" 2026-05-29 2026-07-07 triage \
  v0.20.2rc1 v0.21.0rc1,v0.22.1rc1,v0.23.0rc1
# dask: stand-in triage answers for every day of 2026.7.0 (2026-06-11 … 07-06).
bench_repo dask dask "$MERGELENS_DASK_REPO" "$DASK_STORE" 2026-06-11 2026-07-07 analysis \
  2026.3.0 2026.6.0,2026.7.0
