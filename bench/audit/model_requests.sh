#!/usr/bin/env bash
# The model writer's audit (issue 31): the exact requests `write --llm --lang both`
# sends for the PRs of bench/audit/prs.tsv, from two builds (before: main's, after:
# this one), for strong-model stand-ins to answer; then the answers replayed through
# the same command and the published guides written out for careful readers.
#
#   MERGELENS_AUDIT_MIRRORS=/work/.mirror MERGELENS_BEFORE=/path/to/main/build/mergelens \
#     bench/audit/model_requests.sh OUT requests
#       → OUT/{before,after}/requests/N.KIND.request.json (KIND: both, notes-K, reduce-both)
#   (stand-ins answer each request alone; answers go to OUT/{before,after}/answers/N.KIND.json,
#    or to bench/audit/answers/{before,after}/ to be committed)
#   ... bench/audit/model_requests.sh OUT requests   (again: a split PR's reduce request
#       quotes its notes, so it can only be asked once the notes calls are answered)
#   ... bench/audit/model_requests.sh OUT replay
#       → OUT/{before,after}/guides/N.{zh,en}.{json,md} and removed.txt (what the check removed)
#
# The requests quote the other repositories' code, so they are regenerated from the
# mirrors and never committed. MERGELENS_AUDIT_MIRRORS holds OWNER+NAME/repo clones.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$here/../.."
. "$root/bench/common.sh"
out="$(realpath -m "${1:?usage: model_requests.sh OUT requests|replay}")"
stage="${2:-requests}"
mirrors="${MERGELENS_AUDIT_MIRRORS:?set MERGELENS_AUDIT_MIRRORS to the folder of OWNER+NAME/repo clones}"
before="${MERGELENS_BEFORE:?set MERGELENS_BEFORE to main's mergelens binary}"
after="$(cd "$root" && realpath "$(mergelens_bin)")"
mkdir -p "$out"

for build in before after; do
  bin="$before"
  [ "$build" = after ] && bin="$after"
  dir="$out/$build"
  mkdir -p "$dir/requests" "$dir/answers" "$dir/guides"
  # Committed answers (our own text) are used when no answer is in OUT.
  if [ -d "$here/answers/$build" ]; then
    cp -n "$here/answers/$build"/*.json "$dir/answers/" 2>/dev/null || true
  fi
  for mirror in $(tail -n +2 "$here/prs.tsv" | cut -f1 | sort -u); do
    db="$dir/${mirror}.db"
    name="${mirror/+//}"
    if [ ! -f "$db" ]; then
      "$bin" ingest "$mirrors/$mirror/repo" --db "$db" --repo "$name" >/dev/null
      "$bin" analyze --db "$db" >/dev/null
    fi
    prs=$(awk -F'\t' -v m="$mirror" '$1 == m {print $2}' "$here/prs.tsv" | tr '\n' ' ')
    log="$dir/replay-$mirror.jsonl"
    args=(--answers "$dir/answers" --log "$log")
    if [ "$stage" = requests ]; then args+=(--synthesize --dump "$dir/requests"); fi
    replay_start "$dir/server.out" "${args[@]}"
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
  echo "$build: $(ls "$dir/requests" | wc -l) requests in $dir/requests, $(ls "$dir/answers" | wc -l) answers"
done
