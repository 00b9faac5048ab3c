"""Kill an ingest with SIGKILL at random points, run it again each time, and
compare the final store with an uninterrupted run: same changes, no
duplicates, no change without all its files."""
import os
import random
import signal
import sqlite3
import subprocess
import time

import common
import linear_repo

args = common.parse_args()
repo = os.path.join(args.work_dir, "repo")
N = 3000
linear_repo.make(repo, N)
ref_db = os.path.join(args.work_dir, "ref.db")
kill_db = os.path.join(args.work_dir, "killed.db")
start = time.monotonic()
common.Binary(args.binary, ref_db).run("ingest", repo, "--batch", "16")
duration = time.monotonic() - start  # kill points are spread over a real run's length


def snapshot(path):
    con = sqlite3.connect(path)
    rows = con.execute("SELECT number, sha, title, file_count, additions, deletions FROM changes "
                       "ORDER BY sha").fetchall()
    files = con.execute("SELECT c.sha, f.path, f.status, f.additions, length(f.patch) > 0 "
                        "FROM change_files f JOIN changes c ON c.id = f.change_id "
                        "ORDER BY c.sha, f.idx").fetchall()
    half = con.execute("SELECT count(*) FROM changes c WHERE file_count != "
                       "(SELECT count(*) FROM change_files f WHERE f.change_id = c.id)").fetchone()[0]
    con.close()
    return rows, files, half


def test_killed_runs_resume_to_the_same_store():
    rng = random.Random(20261130)
    kills = 0
    stored = 0
    for _ in range(8):
        remaining = (N - stored) / N
        p = subprocess.Popen([args.binary, "ingest", repo, "--batch", "16", "--db", kill_db],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.05, 0.9) * duration * remaining)
        if p.poll() is None:
            p.send_signal(signal.SIGKILL)
            kills += 1
        p.wait()
        if os.path.exists(kill_db):
            rows, _, half = snapshot(kill_db)
            assert half == 0, "a change without all its files is visible"
            assert len(rows) == len({r[1] for r in rows}), "duplicated change"
            stored = len(rows)
    assert kills >= 1, "the ingest always finished before the kill: the test proved nothing"
    common.Binary(args.binary, kill_db).run("ingest", repo, "--batch", "16")
    want, killed = snapshot(ref_db), snapshot(kill_db)
    assert len(want[0]) == N, len(want[0])
    assert killed[0] == want[0], "changes differ from the uninterrupted run"
    assert killed[1] == want[1], "files differ from the uninterrupted run"
    print(f"killed {kills} times over a {duration:.2f}s run")


def test_rerun_after_resume_is_a_no_op():
    p = common.Binary(args.binary, kill_db).run("ingest", repo)
    assert b"0 new changes" in p.stdout and b"0 commits walked" in p.stdout, p.stdout


common.main([test_killed_runs_resume_to_the_same_store, test_rerun_after_resume_is_a_no_op])
