"""Bad input gets a clear error naming it, with the right exit code, and
nothing already stored is lost."""
import os
import shutil
import sqlite3
import subprocess

import common
import linear_repo

args = common.parse_args()
W = args.work_dir
repo = os.path.join(W, "repo")
linear_repo.make(repo, 30)
db = os.path.join(W, "good", "mergelens.db")
ml = common.Binary(args.binary, db)
ml.run("ingest", repo)


def expect(p, code, *needles):
    err = p.stderr.decode(errors="replace")
    assert p.returncode == code, (p.returncode, err)
    for n in needles:
        assert n in err, (n, err)
    assert "Traceback" not in err and "AddressSanitizer" not in err, err


def test_not_a_repository():
    expect(ml.run("ingest", W, check=False), 2, "not a git repository", W)


def test_missing_path():
    expect(ml.run("ingest", os.path.join(W, "nowhere"), check=False), 2, "nowhere")


def test_empty_repository():
    empty = os.path.join(W, "empty")
    os.makedirs(empty)
    common.git(empty, "init", "-q")
    expect(ml.run("ingest", empty, check=False), 2, "has no commits", empty)


def test_unknown_branch():
    expect(ml.run("ingest", repo, "--branch", "release-42", check=False), 2, "release-42")


def test_bad_dates_and_refs():
    expect(ml.run("ingest", repo, "--since", "yesterday", check=False), 2, "--since", "yesterday")
    expect(ml.run("show", "#9999", check=False), 2, "#9999")
    expect(ml.run("show", "HEAD~1", check=False), 2, "HEAD~1")
    expect(ml.run("list", "--repo", "nope/nope", check=False), 2, "nope/nope")
    expect(ml.run("frobnicate", check=False), 2)


def test_missing_database():
    missing = common.Binary(args.binary, os.path.join(W, "none", "x.db"))
    expect(missing.run("list", check=False), 2, "no database", "x.db")


def test_garbage_database_is_refused_and_kept():
    bad = os.path.join(W, "garbage.db")
    with open(bad, "wb") as f:
        f.write(b"this is not sqlite" * 1000)
    before = open(bad, "rb").read()
    g = common.Binary(args.binary, bad)
    expect(g.run("ingest", repo, check=False), 2, "garbage.db")
    expect(g.run("list", check=False), 2, "garbage.db")
    assert open(bad, "rb").read() == before, "a refused database must not be modified"


def test_damaged_pages_give_an_error_not_a_crash():
    copy = os.path.join(W, "damaged.db")
    shutil.copy(db, copy)
    with open(copy, "r+b") as f:
        size = os.path.getsize(copy)
        f.seek(4096 * 2)
        f.write(os.urandom(min(4096 * 3, size - 8192)))
    d = common.Binary(args.binary, copy)
    for cmd in (["list"], ["show", "#7"], ["ingest", repo]):
        p = d.run(*cmd, check=False)
        # Either the damage is outside what the command reads, or it is named.
        assert p.returncode in (0, 1, 2), (cmd, p.returncode)
        if p.returncode:
            expect(p, p.returncode, "damaged.db")


def test_newer_schema_is_refused():
    newer = os.path.join(W, "newer.db")
    shutil.copy(db, newer)
    con = sqlite3.connect(newer)
    con.execute("PRAGMA user_version = 999")
    con.close()
    expect(common.Binary(args.binary, newer).run("list", check=False), 2, "newer", "newer.db")


def test_read_only_folder():
    ro = os.path.join(W, "ro")
    os.makedirs(ro)
    os.chmod(ro, 0o555)
    os.chmod(W, 0o755)
    cmd = [args.binary, "ingest", repo, "--db", os.path.join(ro, "sub", "m.db")]
    if os.geteuid() == 0:  # root ignores permissions: run as nobody
        os.chmod(args.binary, 0o755)
        cmd = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] + cmd
        subprocess.run(["chmod", "-R", "o+rX", repo], check=True)
        p = W
        while p != "/":
            os.chmod(p, os.stat(p).st_mode | 0o005)
            p = os.path.dirname(p)
    p = subprocess.run(cmd, capture_output=True)
    expect(p, 1, "ro/sub")


def test_good_store_is_intact():
    listed = ml.run("list").stdout.decode()
    assert "#30" in listed and "#1 " in listed, listed


common.main([test_not_a_repository, test_missing_path, test_empty_repository, test_unknown_branch,
             test_bad_dates_and_refs, test_missing_database, test_garbage_database_is_refused_and_kept,
             test_damaged_pages_give_an_error_not_a_crash, test_newer_schema_is_refused,
             test_read_only_folder, test_good_store_is_intact])
