"""Crash-resume trials and store comparison, shared by the e2e test
(tests/e2e/test_crash_resume.py, the sample repository) and the benchmark
(bench/crash_resume.sh, a window of a large real history).

kill_trials() kills `mergelens run` with SIGKILL at random points and runs it
to completion afterwards; the check_* functions and compare() then hold each
resulting store against one from an uninterrupted run: the same changes,
files, facts, tags and guides, no duplicates, no partial rows, an intact
database. Each check raises AssertionError naming the store and the rows."""
import itertools
import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import time

import common


def run_to_end(binary, run_args, db):
    p = subprocess.run([binary, *run_args, "--db", db], capture_output=True)
    assert p.returncode == 0, p.stderr.decode(errors="replace")


def attempts(trials):
    """How many runs kill_trials() kills: every second trial is killed twice."""
    return sum(1 + i % 2 for i in range(trials))


def kill_trials(binary, run_args, work_dir, full, trials, rng, prepare=None, new_store=None):
    """Runs `trials` trials; returns (kills, stores, kill points in seconds).

    Each trial starts from a fresh store (empty, or what prepare(db) puts at
    db), is killed at a random point of a run lasting `full` seconds, then
    restarted to completion; every second trial is killed twice."""
    kills = 0
    dbs = []
    points = []
    for i in range(trials):
        fresh = new_store or (lambda name: os.path.join(work_dir, name, "mergelens.db"))
        db = fresh(f"killed-{i}")
        if prepare:
            prepare(db)
        for _ in range(1 + i % 2):
            # A random point of the run; when the run ends first (the machine got
            # faster), try again earlier, so every trial really kills a running job.
            delay = rng.uniform(0.0, full)
            for _attempt in range(8):
                p = subprocess.Popen([binary, *run_args, "--db", db], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
                time.sleep(delay)
                if p.poll() is None:
                    p.send_signal(signal.SIGKILL)
                    p.wait()
                    kills += 1
                    points.append(delay)
                    break
                p.wait()
                if common.is_pg(db):  # finished: start afresh
                    db = fresh(f"killed-{i}")
                else:
                    shutil.rmtree(os.path.dirname(db), ignore_errors=True)
                if prepare:
                    prepare(db)
                delay /= 2
        run_to_end(binary, run_args, db)
        dbs.append(db)
    return kills, dbs, points


def rows(path, sql):
    """Rows of a query on a SQLite file, or on a PostgreSQL URL (as strings)."""
    if common.is_pg(path):
        return common.pg_rows(path, sql)
    con = sqlite3.connect(path)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def check_intact(db):
    if common.is_pg(db):  # PostgreSQL enforces the keys itself; the queries must work
        assert rows(db, "SELECT count(*) FROM changes") != [], db
        return
    assert rows(db, "PRAGMA integrity_check") == [("ok",)], db
    assert rows(db, "PRAGMA foreign_key_check") == [], db


CHANGES = "SELECT sha, number, title, file_count, additions, deletions FROM changes ORDER BY sha"


def check_same_changes(db, ref_db):
    """The same changes as the reference, none twice; returns how many."""
    got = rows(db, CHANGES)
    assert got == rows(ref_db, CHANGES), db
    assert rows(db, "SELECT sha, count(*) FROM changes GROUP BY repo_id, sha "
                    "HAVING count(*) > 1") == [], db
    return len(got)


def check_complete(db, langs=2):
    """Every change has all its files and commits, its facts and `langs` current guides."""
    partial = rows(db, f"""
        SELECT c.sha FROM changes c
        WHERE c.file_count != (SELECT count(*) FROM change_files f WHERE f.change_id = c.id)
           OR NOT EXISTS (SELECT 1 FROM change_commits m WHERE m.change_id = c.id)
           OR NOT EXISTS (SELECT 1 FROM facts x WHERE x.change_id = c.id)
           OR (SELECT count(*) FROM guides g WHERE g.change_id = c.id AND g.stale = 0) != {langs}""")
    assert partial == [], (db, partial)


COMPARED = (
    "SELECT c.sha, f.idx, f.path, f.status, f.patch FROM change_files f "
    "JOIN changes c ON c.id = f.change_id ORDER BY 1, 2",
    "SELECT c.sha, x.version, x.verdict, x.importance, x.insight, x.doc FROM facts x "
    "JOIN changes c ON c.id = x.change_id ORDER BY 1",
    "SELECT c.sha, t.name FROM change_tags t JOIN changes c ON c.id = t.change_id ORDER BY 1, 2",
    "SELECT c.sha, g.lang, g.writer, g.headline, g.doc FROM guides g "
    "JOIN changes c ON c.id = g.change_id ORDER BY 1, 2",
)


def _stream(path, sql):
    if common.is_pg(path):
        yield from common.pg_rows(path, sql)
        return
    con = sqlite3.connect(path)
    try:
        yield from con.execute(sql)
    finally:
        con.close()


def _pg_doc(value, shas):
    """A PostgreSQL row's zstd JSON document (hex text) decoded, with change ids
    replaced by shas: the ids of a PostgreSQL store have gaps where a killed
    transaction took a sequence value, so they differ between stores."""
    raw = subprocess.run(["zstd", "-d", "-c", "-q"], input=bytes.fromhex(value[2:]),
                         capture_output=True, check=True).stdout
    doc = json.loads(raw)

    def walk(x):
        if isinstance(x, dict):
            return {k: (shas.get(str(v), v) if k == "change_id" else walk(v)) for k, v in x.items()}
        if isinstance(x, list):
            return [walk(v) for v in x]
        return x
    return walk(doc)


def _rows_for_compare(path, sql):
    if not common.is_pg(path):
        yield from _stream(path, sql)
        return
    shas = {str(i): sha for i, sha in common.pg_rows(path, "SELECT id, sha FROM changes")}
    doc_last = re.search(r"\.doc FROM", sql) is not None
    for row in common.pg_rows(path, sql):
        if doc_last and row[-1]:
            row = row[:-1] + (_pg_doc(row[-1], shas),)
        yield row


def compare(db, ref_db):
    """Files (with their patches), facts, tags and guides equal to the reference's,
    row by row (read as streams, so large stores fit); returns {table: rows compared}."""
    counts = {}
    for q in COMPARED:
        n_got = n_want = 0
        diff = []
        for a, b in itertools.zip_longest(_rows_for_compare(db, q), _rows_for_compare(ref_db, q)):
            n_got += a is not None
            n_want += b is not None
            if a is not None and b is not None and a != b and len(diff) < 5:
                diff.append((a[0], a[1]))
        assert n_got == n_want, (q, n_got, n_want)
        assert not diff, (db, q.split()[1], diff)
        counts[re.search(r"FROM (\w+)", q).group(1)] = n_got
    return counts


def show_json(binary, db, sha, global_args=()):
    """`show SHA --json` of a store, without the store's row id (which counts
    insertions, not the change)."""
    p = subprocess.run([binary, "--db", db, *global_args, "show", sha, "--json"],
                       capture_output=True)
    assert p.returncode == 0, (db, sha, p.stderr.decode(errors="replace"))
    j = json.loads(p.stdout)
    j.pop("id", None)
    return json.dumps(j, sort_keys=True)


def compare_show(binary, db, ref_db, global_args=(), cache=None, every=1, first=0):
    """`show --json` of every change of the reference, byte for byte the same in
    `db` (the change, its files, every fact and the guides as the user sees
    them); `cache` (a dict) keeps the reference's answers between stores.
    With `every` > 1, only changes first, first + every, ... (in sha order).
    Returns the number of changes compared."""
    cache = {} if cache is None else cache
    shas = [r[0] for r in rows(ref_db, "SELECT sha FROM changes ORDER BY sha")][first::every]
    diff = []
    for sha in shas:
        if sha not in cache:
            cache[sha] = show_json(binary, ref_db, sha, global_args)
        got = show_json(binary, db, sha, global_args)
        if got != cache[sha]:
            a, b = json.loads(got), json.loads(cache[sha])
            keys = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
            diff.append(f"{sha[:12]} ({', '.join(keys)})")
    assert not diff, f"show --json differs for {len(diff)} of {len(shas)} changes: {diff[:10]}"
    return len(shas)


def change_ids_by_ref(db):
    """{"#N" or any sha prefix of 7+ digits: change id} (how a prompt names a change)."""
    ids = {}
    for number, sha, cid in rows(db, "SELECT number, sha, id FROM changes"):
        ids[f"#{number}"] = str(cid)
        for n in range(7, 41):
            ids.setdefault(sha[:n], str(cid))
    return ids
