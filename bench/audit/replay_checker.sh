#!/usr/bin/env bash
# The checker's removals on the model writer's audit (issue 31): the stand-ins'
# answers replayed through `write --llm --lang both` on copies of the audit's
# stores (their model cache emptied), and every removal the checker made listed
# as "pr<TAB>lang<TAB>field: token (reason): what was done".
#
#   bench/audit/replay_checker.sh STORES ANSWERS OUT [BIN]
#     STORES   a folder with OWNER+NAME.db stores, ingested and analysed
#     ANSWERS  a folder of N.KIND.json stand-in answers (bench/audit/answers/after)
#     OUT      → OUT/removed.tsv, OUT/guides/N.{zh,en}.json
#     BIN      the mergelens binary (default: this checkout's build)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$here/../.."
. "$root/bench/common.sh"
stores="$(realpath "${1:?usage: replay_checker.sh STORES ANSWERS OUT [BIN]}")"
answers="$(realpath "${2:?answers folder}")"
out="$(realpath -m "${3:?out folder}")"
bin="${4:-$(cd "$root" && realpath "$(mergelens_bin)")}"
mkdir -p "$out/guides"
: > "$out/removed.tsv"
for mirror in $(tail -n +2 "$here/prs.tsv" | cut -f1 | sort -u); do
  db="$out/$mirror.db"
  cp "$stores/$mirror.db" "$db"
  sqlite3 "$db" "delete from llm_cache"
  prs=$(awk -F'\t' -v m="$mirror" '$1 == m {print $2}' "$here/prs.tsv" | tr '\n' ' ')
  replay_start "$out/server-$mirror.out" --answers "$answers" --log "$out/replay-$mirror.jsonl"
  # shellcheck disable=SC2086
  OPENAI_BASE_URL="http://127.0.0.1:$REPLAY_PORT" OPENAI_API_KEY=replay OPENAI_MODEL=stand-in \
    "$bin" write --db "$db" --llm --lang both --no-triage --force $prs > "$out/write-$mirror.txt" 2>&1 || true
  replay_stop
  for n in $prs; do
    for lang in en zh; do
      "$bin" show --db "$db" "$n" --lang "$lang" --json > "$out/guides/$n.$lang.json" 2>/dev/null || true
      "$bin" show --db "$db" "$n" --lang "$lang" > "$out/guides/$n.$lang.md" 2>/dev/null || true
    done
  done
done
python3 - "$out" <<'PY' >> "$out/removed.tsv"
import json, pathlib, sys
out = pathlib.Path(sys.argv[1])
for lang in ("en", "zh"):
    for f in sorted(out.glob(f"guides/*.{lang}.json")):
        try:
            g = json.loads(f.read_text())["guide"]
        except Exception:
            continue
        for r in g.get("writer", {}).get("removed", []):
            print(f"{f.name.split('.')[0]}\t{lang}\t{r}")
PY
echo "$(wc -l < "$out/removed.tsv") removals in $out/removed.tsv"
