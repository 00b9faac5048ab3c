"""Partial clones: `git clone --filter=blob:limit=1k` leaves large blobs out.
A change touching one is stored with that file marked unavailable (why, in
`show --json`), the changes after it are ingested too, the analysis lists the
file as unread; once the blobs are fetched, the next ingest rewrites the
change with its diff and the analysis recomputes its facts."""
import json
import os
import subprocess

import common

args = common.parse_args()
common.skip_unless_backend_available()
src = os.path.join(args.work_dir, "src")
clone = os.path.join(args.work_dir, "clone.git")
T0 = 1788220800


def write(path, text):
    full = os.path.join(src, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w") as f:
        f.write(text)


def commit(n, title):
    common.git(src, "add", "-A")
    os.environ["GIT_AUTHOR_DATE"] = os.environ["GIT_COMMITTER_DATE"] = f"{T0 + n * 3600} +0000"
    common.git(src, "commit", "-q", "-m", f"{title} (#{n})")


def big(k):  # well over 1 KiB, so the filtered clone leaves it out
    return "".join(f"def f{k}_{i}(x):\n    return x * {i} + {k}\n" for i in range(120))


def make_source():
    os.makedirs(src)
    common.git(src, "init", "-q", "-b", "main")
    common.git(src, "config", "uploadpack.allowFilter", "true")
    common.git(src, "config", "uploadpack.allowAnySHA1InWant", "true")
    write("pkg/__init__.py", "")
    write("pkg/small.py", "X = 1\n")
    commit(1, "Start")
    write("pkg/large.py", big(1))
    commit(2, "Add a large module")
    write("pkg/large.py", big(2))
    write("pkg/small.py", "X = 2\n")
    commit(3, "Change the large module")
    write("pkg/small.py", "X = 3\n")
    commit(4, "Change the small one")
    os.environ.pop("GIT_AUTHOR_DATE")
    os.environ.pop("GIT_COMMITTER_DATE")


make_source()
common.git(args.work_dir, "clone", "-q", "--bare", "--no-local", "--filter=blob:limit=1k",
           "file://" + src, clone)
b = common.Binary(args.binary, common.store(args, "store"))


def show(n):
    return json.loads(b.run("show", f"#{n}", "--json").stdout)


def file_of(j, path):
    return next(f for f in j["files"] if f["path"] == path)


def test_a_missing_blob_marks_the_file_and_the_run_goes_on():
    missing = subprocess.run(["git", "-C", clone, "rev-list", "--objects", "--missing=print", "--all"],
                             capture_output=True, check=True).stdout.decode()
    assert "?" in missing, "the filtered clone holds every blob: the test proves nothing"
    p = b.run("ingest", clone)
    assert b"4 new changes" in p.stdout, p.stdout
    assert b"without" in p.stdout, p.stdout  # the note on files stored without a diff
    for n in (2, 3):
        f = file_of(show(n), "pkg/large.py")
        assert f["unavailable"] and "not in the clone" in f["unavailable"], f
        assert f["additions"] == 0 and f["hunks"] == [], f
    small = file_of(show(3), "pkg/small.py")
    assert small["unavailable"] is None and small["additions"] == 1, small
    assert file_of(show(4), "pkg/small.py")["unavailable"] is None
    b.run("analyze")
    j = show(3)
    assert any(u.startswith("pkg/large.py: ") for u in j["unread_files"]), j["unread_files"]
    assert show(4)["unread_files"] == []


def test_fetching_the_blobs_fills_the_files_in():
    # Lift the filter and bring every blob in (the promisor remote serves them).
    common.git(clone, "config", "--unset", "remote.origin.partialclonefilter")
    objs = subprocess.run(["git", "-C", clone, "rev-list", "--objects", "--missing=print", "--all"],
                          capture_output=True, check=True).stdout.decode()
    wanted = "".join(line[1:] + "\n" for line in objs.splitlines() if line.startswith("?"))
    subprocess.run(["git", "-C", clone, "cat-file", "--batch-check"], input=wanted.encode(),
                   capture_output=True, check=True, env=dict(os.environ, **common.GIT_ENV))
    still = subprocess.run(["git", "-C", clone, "rev-list", "--objects", "--missing=print",
                            "--all"], capture_output=True, check=True).stdout.decode()
    assert "?" not in still, "the blobs did not arrive"
    before = show(3)["id"]
    p = b.run("ingest", clone)
    assert b"2 stored changes read again" in p.stdout, p.stdout
    j = show(3)
    assert j["id"] == before, "the change was not rewritten in place"
    f = file_of(j, "pkg/large.py")
    assert f["unavailable"] is None and f["additions"] > 0 and f["hunks"], f
    assert not j["analysed"], "the facts of the rewritten change were kept"
    b.run("analyze")
    assert show(3)["unread_files"] == [] and show(2)["unread_files"] == []
    p = b.run("ingest", clone)
    assert b"read again" not in p.stdout, p.stdout  # nothing left to complete


common.main([test_a_missing_blob_marks_the_file_and_the_run_goes_on,
             test_fetching_the_blobs_fills_the_files_in])
