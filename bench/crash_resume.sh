#!/usr/bin/env bash
# Crash-resume over a large real history: the e2e test tests/e2e/test_crash_resume.py
# (SIGKILL `mergelens run` at random points, run it to completion, compare the
# store with an uninterrupted run's) on the newest WINDOW first-parent changes of
# a real clone instead of the sample repository.
#
#   MERGELENS_BENCH_REPO=/path/to/sglang [MERGELENS_BIN=build/mergelens] bench/crash_resume.sh
#
# `run` has no --since or --limit (and an `ingest --since` before it does not
# help: such an ingest does not move the stored base, so `run` would walk the
# whole history), so the window is made a repository of its own, outside the
# project: a bare repository borrowing the clone's objects (alternates) whose
# main is one root commit holding the tree of main~WINDOW followed by the WINDOW
# newest first-parent commits with their trees, messages, authors and dates
# (one git fast-import stream; the diffs against the first parent are the
# originals). A seed store holds that root commit, analysed and guided; every
# run, the uninterrupted one and each trial, starts from a copy of it, so `run`
# catches up WINDOW new merges on an existing store, as `run --watch` does.
#
# Environment (defaults): MERGELENS_CRASH_WINDOW (5000) changes,
# MERGELENS_CRASH_TRIALS (10; every second trial is killed twice),
# MERGELENS_CRASH_SEED (20261130), MERGELENS_CRASH_LANG (both),
# MERGELENS_CRASH_BATCH (unset: each step's own batch size),
# MERGELENS_BENCH_NAME (sgl-project/sglang), MERGELENS_BENCH_URL
# (https://github.com/sgl-project/sglang), MERGELENS_BENCH_BRANCH (main),
# MERGELENS_CRASH_DIR (/tmp/mergelens-crash-resume; the window repository is
# reused when it matches, the stores are made afresh).
# Prints the uninterrupted run's time, the kills, each store's result and the
# rows compared (the tables, then `show --json` of every change, byte for byte
# but the row id: every fact, reach included), then the same `show --json`
# comparison for the window caught up in three batches (ingest --until, analyze)
# and for the reference after `analyze --force`; exits 1 when a store differs.
set -euo pipefail
cd "$(dirname "$0")/.."
src="${MERGELENS_BENCH_REPO:?set MERGELENS_BENCH_REPO to a large local clone (e.g. ITCJ/sglang)}"
. bench/common.sh
bin="$(mergelens_bin)"
bin="$(realpath "$bin")"
window="${MERGELENS_CRASH_WINDOW:-5000}"
branch="${MERGELENS_BENCH_BRANCH:-main}"
dir="${MERGELENS_CRASH_DIR:-/tmp/mergelens-crash-resume}"
name="${MERGELENS_BENCH_NAME:-sgl-project/sglang}"
url="${MERGELENS_BENCH_URL:-https://github.com/sgl-project/sglang}"
mkdir -p "$dir"
repo="$dir/window.git"
tip="$(git -C "$src" rev-parse "$branch")"

# 1. The window repository (bench/common.sh; reused when it was made from the same tip and size).
make_window_repo "$src" "$repo" "$tip" "$window" "$name"
root="$(git -C "$repo" rev-list --max-parents=0 main)"
wtip="$(git -C "$repo" rev-parse main)"

# 2. The seed store: the root commit alone, ingested, analysed and guided.
lang="${MERGELENS_CRASH_LANG:-both}"
run_args=(--repo "$name" run "$repo" --url-base "$url" --lang "$lang")
[ -n "${MERGELENS_CRASH_BATCH:-}" ] && run_args+=(--batch "$MERGELENS_CRASH_BATCH")
rm -rf "$dir/stores"
mkdir -p "$dir/stores"
git -C "$repo" update-ref refs/heads/main "$root"
"$bin" --db "$dir/stores/seed.db" "${run_args[@]}" >/dev/null 2>&1 ||
  { git -C "$repo" update-ref refs/heads/main "$wtip"; echo "seed run failed" >&2; exit 1; }
git -C "$repo" update-ref refs/heads/main "$wtip"
sqlite3 "$dir/stores/seed.db" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null

echo "command: MERGELENS_BENCH_REPO=$src MERGELENS_CRASH_WINDOW=$window" \
  "MERGELENS_CRASH_TRIALS=${MERGELENS_CRASH_TRIALS:-10} bench/crash_resume.sh"
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "window: $window first-parent changes of $name ($(git -C "$repo" log -1 --format=%cs "$root")" \
  "… $(git -C "$repo" log -1 --format=%cs "$wtip")), run: $bin --db DB ${run_args[*]}"

# 3. The uninterrupted run, the trials and the comparison (tests/e2e/crash_resume.py).
PYTHONPATH=tests/e2e python3 - "$bin" "$dir/stores" "$lang" "${run_args[@]}" <<'EOF'
import os, random, shutil, sys, time
import crash_resume as cr

binary, work, lang, run_args = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
trials = int(os.environ.get("MERGELENS_CRASH_TRIALS", "10"))
seed_db = os.path.join(work, "seed.db")


def prepare(db):  # every store starts as a copy of the seed
    shutil.rmtree(os.path.dirname(db), ignore_errors=True)
    os.makedirs(os.path.dirname(db))
    shutil.copyfile(seed_db, db)


ref_db = os.path.join(work, "ref", "mergelens.db")
prepare(ref_db)
start = time.monotonic()
cr.run_to_end(binary, run_args, ref_db)
full = time.monotonic() - start
changes = cr.rows(ref_db, "SELECT count(*) FROM changes")[0][0]
print(f"uninterrupted run: {full:.1f} s for {changes} changes (seed included)", flush=True)
langs = 2 if lang == "both" else 1
try:
    cr.check_complete(ref_db, langs)
except AssertionError as e:  # not a crash-resume matter: the uninterrupted run left these
    print(f"  note: the uninterrupted run itself left changes incomplete: {str(e)[:300]}")

rng = random.Random(int(os.environ.get("MERGELENS_CRASH_SEED", "20261130")))
start = time.monotonic()
kills, dbs, points = cr.kill_trials(binary, run_args, work, full, trials, rng, prepare)
print(f"{trials} trials in {time.monotonic() - start:.0f} s: {kills} of {cr.attempts(trials)} runs "
      f"killed mid-run, at {', '.join(f'{p:.1f}' for p in points)} s", flush=True)

failed = 0
shown = {}  # the reference's `show --json`, by sha
for db in dbs:
    try:
        cr.check_intact(db)
        n = cr.check_same_changes(db, ref_db)
        cr.check_complete(db, langs)
        counts = cr.compare(db, ref_db)
        counts["show --json"] = cr.compare_show(binary, db, ref_db, run_args[:2], shown)
        print(f"  {os.path.basename(os.path.dirname(db))}: equal ({n} changes, "
              + ", ".join(f"{v} {k}" for k, v in counts.items()) + ")", flush=True)
    except AssertionError as e:
        failed += 1
        print(f"  {os.path.basename(os.path.dirname(db))}: DIFFERENT: {str(e)[:600]}", flush=True)
print(f"{len(dbs) - failed} of {len(dbs)} stores equal to the uninterrupted run's")

# The same window caught up in three batches (ingest --until a third and two
# thirds of the way, analyse after each, then the run), and the reference
# re-analysed with --force: show --json of every change as the reference's.
import subprocess
name, repo, url = run_args[1], run_args[3], run_args[5]
days = subprocess.run(["git", "-C", repo, "log", "--first-parent", "--format=%cs", "main"],
                      capture_output=True, check=True).stdout.decode().split()[::-1]
cuts = [days[len(days) // 3], days[2 * len(days) // 3]]
batched = os.path.join(work, "batched", "mergelens.db")
prepare(batched)
for until in cuts:
    for step in (["ingest", repo, "--url-base", url, "--until", until], ["analyze"]):
        subprocess.run([binary, "--db", batched, "--repo", name, *step], capture_output=True,
                       check=True)
cr.run_to_end(binary, run_args, batched)
forced = os.path.join(work, "forced", "mergelens.db")
prepare(forced)
shutil.copyfile(ref_db, forced)
subprocess.run([binary, "--db", forced, "--repo", name, "analyze", "--force"], capture_output=True,
               check=True)
for label, db in ((f"three batches (ingest --until {cuts[0]}, {cuts[1]})", batched),
                  ("analyze --force on the reference", forced)):
    try:
        n = cr.compare_show(binary, db, ref_db, run_args[:2], shown)
        print(f"  {label}: equal ({n} show --json)", flush=True)
    except AssertionError as e:
        failed += 1
        print(f"  {label}: DIFFERENT: {str(e)[:600]}", flush=True)
sys.exit(1 if failed else 0)
EOF
