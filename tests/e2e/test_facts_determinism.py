"""Facts are a function of the repository at the change's commit and of
nothing else: one fixture history (Python imports changing over several
squash-merged PRs, a package wide enough that transitive reach saturates, a
symlink named like a module)
is analysed in one run, in batches (ingest --until, analyse after each),
after an interrupted analysis (the facts of the later half dropped, as a
kill between batches leaves them) and with `analyze --force`; `show --json`
of every change must be the same bytes each way (the store's row id aside)."""
import json
import os
import sqlite3

import common

args = common.parse_args()
repo = os.path.join(args.work_dir, "repo")
DAY = 86400
T0 = 1788220800  # 2026-09-01T00:00:00Z


def write(path, text):
    full = os.path.join(repo, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w") as f:
        f.write(text)


def remove(path):
    os.remove(os.path.join(repo, path))


def commit(n, title):
    when = f"{T0 + n * DAY} +0000"
    common.git(repo, "add", "-A")
    os.environ["GIT_AUTHOR_DATE"] = os.environ["GIT_COMMITTER_DATE"] = when
    common.git(repo, "commit", "-q", "-m", f"{title} (#{n})")


def leaves(mid, count, start=0):
    for i in range(start, start + count):
        write(f"python/pkg/{mid}_leaf{i}.py", f"from pkg import {mid}\n\n\ndef f{i}():\n    return {i}\n")


def make_history():
    os.makedirs(repo)
    common.git(repo, "init", "-q", "-b", "main")
    write("python/pkg/__init__.py", "")
    write("python/pkg/core.py", "def core():\n    return 0\n")
    for mid in ("a", "b", "c"):
        write(f"python/pkg/{mid}.py", "from pkg import core\n")
    leaves("a", 300)
    leaves("b", 300)
    leaves("c", 10)
    commit(1, "Initial package")
    write("python/pkg/core.py", "def core():\n    return 1\n")
    commit(2, "Change core")
    # A new module between a and b in tree order, appended to an edited graph.
    write("python/pkg/ab.py", "from pkg import core\n")
    leaves("ab", 150)
    write("python/pkg/core.py", "def core():\n    return 2\n")
    commit(3, "Add ab with its users")
    write("python/pkg/core.py", "def core():\n    return 3\n")
    leaves("c", 40, start=10)
    commit(4, "More users of c")
    # A sub-package appears and a module moves into it.
    write("python/pkg/sub/__init__.py", "from .moved import thing\n")
    os.rename(os.path.join(repo, "python/pkg/c.py"), os.path.join(repo, "python/pkg/sub/moved.py"))
    write("python/pkg/c.py", "from pkg.sub import moved\nfrom pkg import core\n")
    write("python/pkg/core.py", "def core():\n    return 4\n")
    commit(5, "Move c into a sub-package")
    for i in range(0, 120):
        remove(f"python/pkg/a_leaf{i}.py")
    write("python/pkg/b.py", "from pkg import core\nfrom pkg import ab\n")
    commit(6, "Drop a leaves, b uses ab")
    write("python/pkg/core.py", "def core():\n    return 6\n")
    write("python/pkg/sub/moved.py", "from pkg import core\n")
    commit(7, "Core and moved")
    write("python/pkg/ab.py", "import os\n")
    write("python/pkg/core.py", "def core():\n    return 7\n")
    commit(8, "ab stops importing core")
    # A symlink named like a module: the whole-tree read skips it, so an edit
    # must too (its blob is a link target, not Python).
    os.symlink("core.py", os.path.join(repo, "python/pkg/alias.py"))
    for i in range(5):
        write(f"python/pkg/alias_user{i}.py", "from pkg import alias\n")
    commit(9, "Add an alias link and its users")
    os.remove(os.path.join(repo, "python/pkg/alias.py"))
    os.symlink("a.py", os.path.join(repo, "python/pkg/alias.py"))
    commit(10, "Point the alias elsewhere")
    os.environ.pop("GIT_AUTHOR_DATE")
    os.environ.pop("GIT_COMMITTER_DATE")


N = 10


def day(n):
    """The --until date that takes changes 1..n-1 (commit n lands on day n)."""
    import datetime
    return datetime.datetime.fromtimestamp(T0 + n * DAY, datetime.timezone.utc).strftime("%Y-%m-%d")


def facts(db):
    """Every change's `show --json`, without the store's row id."""
    b = common.Binary(args.binary, db)
    out = {}
    for n in range(1, N + 1):
        j = json.loads(b.run("show", f"#{n}", "--json").stdout)
        j.pop("id", None)
        out[n] = json.dumps(j, sort_keys=True)
    return out


def differences(want, got):
    return [n for n in want if want[n] != got[n]]


make_history()
one_db = os.path.join(args.work_dir, "one", "mergelens.db")
one = common.Binary(args.binary, one_db)
one.run("ingest", repo)
one.run("analyze")
reference = facts(one_db)


def test_reach_is_known_and_capped():
    j = json.loads(reference[2])
    assert j["reach"]["known"], j["reach"]
    assert j["reach"]["importers"] == 500, j["reach"]


def test_batched_ingest_and_analysis_give_the_same_facts():
    db = os.path.join(args.work_dir, "batched", "mergelens.db")
    b = common.Binary(args.binary, db)
    for until in (3, 5, 7, 10):
        b.run("ingest", repo, "--until", day(until))
        b.run("analyze")
    b.run("ingest", repo)
    b.run("analyze")
    got = facts(db)
    assert not differences(reference, got), f"changes differ: {differences(reference, got)}"


def test_interrupted_analysis_resumes_to_the_same_facts():
    db = os.path.join(args.work_dir, "interrupted", "mergelens.db")
    b = common.Binary(args.binary, db)
    b.run("ingest", repo)
    b.run("analyze")
    # What a kill between two batches leaves: the later changes without facts.
    con = sqlite3.connect(db)
    con.execute("DELETE FROM facts WHERE change_id IN "
                "(SELECT id FROM changes WHERE number IN (4, 5, 7, 10))")
    con.commit()
    con.close()
    b.run("analyze")
    got = facts(db)
    assert not differences(reference, got), f"changes differ: {differences(reference, got)}"


def test_forced_reanalysis_gives_the_same_facts():
    one.run("analyze", "--force")
    got = facts(one_db)
    assert not differences(reference, got), f"changes differ: {differences(reference, got)}"


common.main([test_reach_is_known_and_capped, test_batched_ingest_and_analysis_give_the_same_facts,
             test_interrupted_analysis_resumes_to_the_same_facts,
             test_forced_reanalysis_gives_the_same_facts])
