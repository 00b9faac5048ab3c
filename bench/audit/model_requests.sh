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
before="${MERGELENS_BEFORE:?set MERGELENS_BEFORE to the mergelens binary of main}"
after="$(cd "$root" && realpath "$(mergelens_bin)")"
mkdir -p "$out"

# Each side is bench/audit/model_side.sh for its build; the committed
# answers (our own text) are used when no answer is in OUT.
for build in before after; do
  bin="$before"
  [ "$build" = after ] && bin="$after"
  mkdir -p "$out/$build/answers"
  if [ -d "$here/answers/$build" ]; then
    cp -n "$here/answers/$build"/*.json "$out/$build/answers/" 2>/dev/null || true
  fi
  echo "$build: $(MERGELENS_AUDIT_MIRRORS="$mirrors" "$here/model_side.sh" "$bin" "$out/$build" "$stage")"
done
