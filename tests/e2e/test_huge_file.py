"""A huge file (200 MB of text) under a 1.5 GB address-space limit: ingest
holds memory bounded by its limits, not by the file's size. The file added is
counted (its lines) and stored truncated, without hunks; the file modified is
too large to diff and is stored marked unavailable with the reason, never as
an empty "+0 -0" diff; the small file beside it keeps its diff; exit 0."""
import json
import os
import resource
import shutil
import subprocess
import sys

import common

args = common.parse_args()
repo = os.path.join(args.work_dir, "repo")
LINES = 2_000_000
LINE = "value = 0123456789 abcdefghij klmnopqrstuvwxyz ABCDEFGHIJ KLMNOPQRS\n"  # 70 bytes
LIMIT = 1536 << 20

if shutil.which("prlimit") is None:
    print("prlimit is not installed: skipped\n0 passed, 0 failed, 1 skipped")
    sys.exit(0)
if shutil.disk_usage(args.work_dir).free < 2 << 30:
    print("less than 2 GB free on the work folder: skipped\n0 passed, 0 failed, 1 skipped")
    sys.exit(0)


def write_big(path, extra):
    with open(path, "w") as f:
        chunk = LINE * 10000
        for _ in range(LINES // 10000):
            f.write(chunk)
        f.write(extra)


def commit(n, title):
    common.git(repo, "add", "-A")
    common.git(repo, "commit", "-q", "-m", f"{title} (#{n})")


os.makedirs(repo)
common.git(repo, "init", "-q", "-b", "main")
common.git(repo, "config", "core.bigFileThreshold", "1g")  # deltas and compression, as pushed
with open(os.path.join(repo, "small.py"), "w") as f:
    f.write("X = 1\n")
commit(1, "Start")
write_big(os.path.join(repo, "data.txt"), "")
commit(2, "Add the huge file")
write_big(os.path.join(repo, "data.txt"), "one more line\n")
with open(os.path.join(repo, "small.py"), "w") as f:
    f.write("X = 2\n")
commit(3, "Change the huge file and a small one")
os.remove(os.path.join(repo, "data.txt"))
commit(4, "Drop the huge file")
db = os.path.join(args.work_dir, "store", "mergelens.db")
b = common.Binary(args.binary, db)


def file_of(n, path):
    j = json.loads(b.run("show", f"#{n}", "--json").stdout)
    return next(f for f in j["files"] if f["path"] == path)


# A sanitizer build (scripts/test.sh sets ASAN_OPTIONS for it) reserves terabytes of
# shadow address space at start, so no address-space limit can apply to it: there the
# ingest runs unlimited and the same outcome is checked.
SANITIZED = bool(os.environ.get("ASAN_OPTIONS"))


def test_ingest_under_a_memory_limit_stores_every_file_honestly():
    limit = [] if SANITIZED else ["prlimit", f"--as={LIMIT}"]
    if SANITIZED:
        print("a sanitizer build: no address-space limit (the peak RSS is checked below)")
    p = subprocess.run([*limit, args.binary, "--db", db, "ingest", repo], capture_output=True)
    assert p.returncode == 0, p.stderr.decode(errors="replace")
    assert b"4 new changes" in p.stdout, p.stdout
    added = file_of(2, "data.txt")
    assert added["additions"] == LINES and added["truncated"] and added["hunks"] == [], \
        {k: v for k, v in added.items() if k != "hunks"}
    assert added["unavailable"] is None, added["unavailable"]
    modified = file_of(3, "data.txt")
    assert modified["unavailable"] and "too large to diff" in modified["unavailable"], modified
    assert file_of(3, "small.py")["additions"] == 1
    assert file_of(4, "data.txt")["deletions"] == LINES + 1


def test_peak_memory_does_not_follow_the_file_size():
    # A Python parent of its own whose only child is the ingest: its children's
    # maximum RSS is the ingest's (this process's children include git).
    db2 = os.path.join(args.work_dir, "store2", "mergelens.db")
    probe = ("import resource, subprocess, sys\n"
             "r = subprocess.run(sys.argv[1:], capture_output=True)\n"
             "print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n")
    out = subprocess.run([sys.executable, "-c", probe, args.binary, "--db", db2, "ingest", repo],
                         capture_output=True, check=True).stdout.split()
    assert out[0] == b"0", out
    peak = int(out[1]) // 1024  # MiB
    print(f"peak RSS of ingest: {peak} MiB for a {LINES * len(LINE) // (1 << 20)} MiB file "
          "added, modified and deleted")
    assert peak < 700, f"ingest peaked at {peak} MiB"


common.main([test_ingest_under_a_memory_limit_stores_every_file_honestly,
             test_peak_memory_does_not_follow_the_file_size])
