"""Crash-resume: kill `mergelens run` (ingest → analyse → write, both
languages) with SIGKILL at 20 random points of a full run over the sample
repository, restart it each time to completion, and compare each store with
one from an uninterrupted run: the same changes, facts and guides, no
duplicates, no partial rows, an intact database."""
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import time

import common

args = common.parse_args()
repo, _ = common.make_sample(args)
binary = args.binary
ref_db = os.path.join(args.work_dir, "ref", "mergelens.db")
db = os.path.join(args.work_dir, "killed", "mergelens.db")
RUN = ["run", repo, "--lang", "both", "--batch", "3"]


def run(path):
    p = subprocess.run([binary, *RUN, "--db", path], capture_output=True)
    assert p.returncode == 0, p.stderr.decode(errors="replace")


start = time.monotonic()
run(ref_db)
full = time.monotonic() - start

rng = random.Random(int(os.environ.get("MERGELENS_CRASH_SEED", "20261130")))
kills = 0
killed_dbs = []
for i in range(20):
    # Each trial starts from an empty store, is killed at a random point of the
    # run, then restarted; every second trial is killed twice.
    db = os.path.join(args.work_dir, f"killed-{i}", "mergelens.db")
    for _ in range(1 + i % 2):
        # A random point of the run; when the run ends first (the machine got
        # faster), try again earlier, so every trial really kills a running job.
        delay = rng.uniform(0.0, full)
        for _attempt in range(8):
            p = subprocess.Popen([binary, *RUN, "--db", db], stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL)
            time.sleep(delay)
            if p.poll() is None:
                p.send_signal(signal.SIGKILL)
                p.wait()
                kills += 1
                break
            p.wait()
            shutil.rmtree(os.path.dirname(db), ignore_errors=True)  # finished: start afresh
            delay /= 2
    run(db)
    killed_dbs.append(db)
print(f"uninterrupted run {full:.2f} s; {kills} of 30 runs killed mid-run")


def rows(path, sql):
    con = sqlite3.connect(path)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def test_the_process_was_really_killed_mid_run():
    assert kills >= 28, f"only {kills} of 30 runs were still running when killed ({full:.2f} s runs)"


def test_database_is_intact():
    for db in killed_dbs:
        assert rows(db, "PRAGMA integrity_check") == [("ok",)], db
        assert rows(db, "PRAGMA foreign_key_check") == [], db


def test_same_changes_without_duplicates():
    q = "SELECT sha, number, title, file_count, additions, deletions FROM changes ORDER BY sha"
    for db in killed_dbs:
        assert rows(db, q) == rows(ref_db, q), db
        assert rows(db, "SELECT sha, count(*) FROM changes GROUP BY repo_id, sha "
                        "HAVING count(*) > 1") == [], db


def test_no_partial_rows():
    # Every change has all its files and commits, its facts and both guides.
    for db in killed_dbs:
        check_complete(db)


def check_complete(db):
    partial = rows(db, """
        SELECT c.sha FROM changes c
        WHERE c.file_count != (SELECT count(*) FROM change_files f WHERE f.change_id = c.id)
           OR NOT EXISTS (SELECT 1 FROM change_commits m WHERE m.change_id = c.id)
           OR NOT EXISTS (SELECT 1 FROM facts x WHERE x.change_id = c.id)
           OR (SELECT count(*) FROM guides g WHERE g.change_id = c.id AND NOT g.stale) != 2""")
    assert partial == [], (db, partial)


def test_same_files_facts_and_guides():
    for db in killed_dbs:
        compare(db)


def compare(db):
    for q in ("SELECT c.sha, f.idx, f.path, f.status, f.patch FROM change_files f "
              "JOIN changes c ON c.id = f.change_id ORDER BY 1, 2",
              "SELECT c.sha, x.version, x.verdict, x.importance, x.insight, x.doc FROM facts x "
              "JOIN changes c ON c.id = x.change_id ORDER BY 1",
              "SELECT c.sha, t.name FROM change_tags t JOIN changes c ON c.id = t.change_id ORDER BY 1, 2",
              "SELECT c.sha, g.lang, g.writer, g.headline, g.doc FROM guides g "
              "JOIN changes c ON c.id = g.change_id ORDER BY 1, 2"):
        got, want = rows(db, q), rows(ref_db, q)
        assert len(got) == len(want), (q, len(got), len(want))
        diff = [(a[0], a[1]) for a, b in zip(got, want) if a != b]
        assert not diff, (db, q.split()[1], diff[:5])


common.main([test_the_process_was_really_killed_mid_run, test_database_is_intact,
             test_same_changes_without_duplicates, test_no_partial_rows,
             test_same_files_facts_and_guides])
