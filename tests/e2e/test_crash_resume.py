"""Crash-resume: kill `mergelens run` (ingest → analyse → write, both
languages) with SIGKILL at 20 random points (6 in a sanitizer build, 10 on PostgreSQL) of a full
run over the sample repository, restart it each time to completion, and compare each store with
one from an uninterrupted run: the same changes, facts and guides, no
duplicates, no partial rows, an intact database. The trials and the checks
live in crash_resume.py (bench/crash_resume.sh runs them over a real history)."""
import os
import random
import time

import common
import crash_resume

args = common.parse_args()
common.skip_unless_backend_available()
repo, _ = common.make_sample(args)
binary = args.binary
ref_db = common.store(args, "ref")
RUN = ["run", repo, "--lang", "both", "--batch", "3"]
# A sanitizer build (ASAN_OPTIONS set) runs 6 trials: it looks for memory errors on the
# kill-and-resume paths, which a few trials reach; at 20 it took 7.5 of CI's minutes. The
# PostgreSQL run takes 10 with kill points of its own (another seed): at 20 it was the
# release suite's longest test (354 s of a 600 s timeout). The SQLite release run keeps 20.
SANITIZED = "ASAN_OPTIONS" in os.environ
PG = common.backend() == "pg"
TRIALS = 6 if SANITIZED else 10 if PG else 20

start = time.monotonic()
crash_resume.run_to_end(binary, RUN, ref_db)
full = time.monotonic() - start

rng = random.Random(int(os.environ.get("MERGELENS_CRASH_SEED", "20261205" if PG else "20261130")))
kills, killed_dbs, _ = crash_resume.kill_trials(binary, RUN, args.work_dir, full, TRIALS, rng,
                                                new_store=lambda name: common.store(args, name))
runs = crash_resume.attempts(TRIALS)
print(f"uninterrupted run {full:.2f} s; {kills} of {runs} runs killed mid-run")


def test_the_process_was_really_killed_mid_run():
    assert kills >= runs - 2, f"only {kills} of {runs} runs were still running when killed ({full:.2f} s runs)"


def test_database_is_intact():
    for db in killed_dbs:
        crash_resume.check_intact(db)


def test_same_changes_without_duplicates():
    for db in killed_dbs:
        crash_resume.check_same_changes(db, ref_db)


def test_no_partial_rows():
    # Every change has all its files and commits, its facts and both guides.
    for db in killed_dbs:
        crash_resume.check_complete(db, langs=2)


def test_same_files_facts_and_guides():
    for db in killed_dbs:
        crash_resume.compare(db, ref_db)


def test_same_show_json_for_every_change():
    # What the user sees: every fact (reach included) and guide, byte for byte. A sanitizer
    # build, where each `show` process costs some 0.5 s, checks every change once, in one
    # killed store or another (store i takes changes i, i + 6, ...); the others check all.
    shown = {}
    every = len(killed_dbs) if SANITIZED else 1
    for i, db in enumerate(killed_dbs):
        crash_resume.compare_show(binary, db, ref_db, cache=shown, every=every, first=i % every)


common.main([test_the_process_was_really_killed_mid_run, test_database_is_intact,
             test_same_changes_without_duplicates, test_no_partial_rows,
             test_same_files_facts_and_guides, test_same_show_json_for_every_change])
