"""Shallow clones: `git clone --depth N` then `mergelens run` must not stop at the missing parent
of the boundary commit. The boundary change is stored marked shallow, without files, and its guide
says so; a later `git fetch --deepen` or `--unshallow` fills in the older history and the
boundary's real diff, as `run --watch` would see it. Every store is compared with one built from
the complete clone."""
import json
import os
import sqlite3
import subprocess
import time

import common
import linear_repo

args = common.parse_args()
N = 40
origin = os.path.join(args.work_dir, "origin")
linear_repo.make(origin, N)
url = "file://" + origin


def clone(name, *flags):
    path = os.path.join(args.work_dir, name)
    common.git(args.work_dir, "clone", "-q", *flags, url, path)
    return path


def binary(name):
    return common.Binary(args.binary, os.path.join(args.work_dir, name + ".db"))


def rows(db):
    con = sqlite3.connect(db)
    out = con.execute("SELECT c.sha, c.number, c.file_count, c.additions, c.deletions, c.shallow, "
                      "(SELECT count(*) FROM change_files f WHERE f.change_id = c.id), "
                      "(SELECT count(*) FROM facts x WHERE x.change_id = c.id), "
                      "(SELECT count(*) FROM guides g WHERE g.change_id = c.id AND g.stale = 0) "
                      "FROM changes c ORDER BY c.merged_at").fetchall()
    base = con.execute("SELECT base_sha FROM repos").fetchone()
    con.close()
    return out, base[0] if base else None


def full_rows():
    """The store of the complete clone, built once: the reference for every other store."""
    if not hasattr(full_rows, "cache"):
        path = clone("full")
        binary("full").run("run", path, "--lang", "both")
        full_rows.cache = rows(binary("full").db)
    return full_rows.cache


def head(path):
    return common.git(path, "rev-parse", "HEAD").stdout.decode().strip()


def shallow_file(path):
    f = os.path.join(path, ".git", "shallow")
    return open(f).read().split() if os.path.exists(f) else []


def assert_same_as_full(db, depth):
    """The newest `depth` changes equal the full store's, the boundary excepted; older ones absent."""
    got, base = rows(db)
    want, want_base = full_rows()
    assert base == want_base, (base, want_base)
    assert len(got) == depth, (len(got), depth)
    boundary, rest = got[0], got[1:]
    assert boundary[0] == want[N - depth][0], "the boundary is not the oldest commit of the clone"
    assert boundary[2:7] == (0, 0, 0, 1, 0), f"boundary stored with files or unmarked: {boundary}"
    assert boundary[7] == 1 and boundary[8] == 2, f"boundary without facts or guides: {boundary}"
    assert rest == want[N - depth + 1:], "changes above the boundary differ from the full clone's"


def test_depth_1_clone_runs_and_says_where_history_stops():
    path = clone("d1", "--depth", "1")
    assert len(shallow_file(path)) == 1
    p = binary("d1").run("run", path, "--lang", "both")
    out = p.stdout.decode()
    assert out.count("the clone is shallow") == 1, out
    assert head(path)[:12] in out, out
    assert_same_as_full(binary("d1").db, 1)
    # A second run on the unchanged clone is quiet and stores nothing.
    again = binary("d1").run("run", path).stdout.decode()
    assert "the clone is shallow" not in again and "0 new changes" in again, again


def test_depth_n_boundary_is_marked_and_guided_in_both_languages():
    depth = 7
    path = clone("d7", "--depth", str(depth))
    b = binary("d7")
    p = b.run("ingest", path)
    assert p.stdout.decode().count("note: the clone is shallow") == 1, p.stdout
    assert b"0 commits walked" not in p.stdout
    b.run("analyze")
    b.run("write", "--lang", "both")
    assert_same_as_full(b.db, depth)
    number = N - depth + 1
    shown = json.loads(b.run("show", str(number), "--json").stdout)
    assert shown["shallow"] is True and shown["files"] == [], shown
    zh = b.run("show", str(number)).stdout.decode()
    en = b.run("show", str(number), "--lang", "en").stdout.decode()
    assert "浅克隆" in zh and "git fetch --deepen" in zh, zh
    assert "shallow clone" in en and "git fetch --deepen" in en, en
    # The change above the boundary has its ordinary diff.
    above = json.loads(b.run("show", str(number + 1), "--json").stdout)
    assert above["shallow"] is False and above["files"], above


def test_deepen_then_unshallow_fill_in_history_as_watch_sees_it():
    depth = 5
    path = clone("deep", "--depth", str(depth))
    b = binary("deep")
    b.run("run", path, "--lang", "both")
    assert_same_as_full(b.db, depth)
    # New work upstream, fetched together with a deeper history.
    common.git(path, "fetch", "-q", "--deepen=10")
    p = b.run("run", path, "--lang", "both").stdout.decode()
    assert "the clone was deepened: 10 older changes stored, 1 former shallow boundary" in p, p
    assert "the clone is shallow" in p, p
    assert_same_as_full(b.db, depth + 10)
    common.git(path, "fetch", "-q", "--unshallow")
    assert shallow_file(path) == []
    p = b.run("run", path, "--lang", "both").stdout.decode()
    assert "the clone is shallow" not in p, p
    got, base = rows(b.db)
    assert (got, base) == full_rows(), "after --unshallow the store differs from the full clone's"


def test_run_watch_follows_a_shallow_clone_that_deepens_and_grows():
    """`run --watch` on a shallow clone: each pass fetches origin (libgit2); between passes a CI
    job deepens the clone and origin gets new merges. The store ends equal to a full clone's."""
    depth = 3
    upstream = os.path.join(args.work_dir, "upstream")
    common.git(args.work_dir, "clone", "-q", "--bare", origin, upstream)
    path = os.path.join(args.work_dir, "watched")
    common.git(args.work_dir, "clone", "-q", "--depth", str(depth), "file://" + upstream, path)
    db = os.path.join(args.work_dir, "watch.db")
    proc = subprocess.Popen([args.binary, "run", path, "--watch", "1", "--db", db],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        def wait_for(pred, what):
            for _ in range(300):
                if os.path.exists(db):
                    try:
                        if pred(rows(db)[0]):
                            return
                    except sqlite3.OperationalError:
                        pass
                time.sleep(0.1)
            raise AssertionError(f"timed out waiting for {what}")

        wait_for(lambda r: len(r) == depth and all(x[8] == 1 for x in r), "the first pass")
        common.git(path, "fetch", "-q", "--deepen=4")
        wait_for(lambda r: len(r) == depth + 4 and all(x[8] == 1 for x in r), "the deepened pass")
        # Two new merges upstream; the watch's own fetch brings them in.
        work = os.path.join(args.work_dir, "pusher")
        common.git(args.work_dir, "clone", "-q", upstream, work)
        for k in (N + 1, N + 2):
            with open(os.path.join(work, "src", "new.py"), "a") as f:
                f.write(f"def g{k}():\n    return {k}\n")
            common.git(work, "add", "-A")
            common.git(work, "commit", "-q", "-m", f"Change {k} (#{k})")
        common.git(work, "push", "-q", "origin", "main")
        wait_for(lambda r: len(r) == depth + 6 and all(x[8] == 1 for x in r), "the fetched pass")
        got = rows(db)[0]
        assert [r[5] for r in got] == [1] + [0] * (depth + 5), got
    finally:
        proc.terminate()
        out, err = proc.communicate(timeout=30)
    assert b"this pass failed" not in err, err.decode()
    assert out.decode().count("the clone is shallow") == 2, out.decode()


common.main([test_depth_1_clone_runs_and_says_where_history_stops,
             test_depth_n_boundary_is_marked_and_guided_in_both_languages,
             test_deepen_then_unshallow_fill_in_history_as_watch_sees_it,
             test_run_watch_follows_a_shallow_clone_that_deepens_and_grows])
