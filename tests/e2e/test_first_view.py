"""A tripwire, not a benchmark (issue 36): on a generated repository of 10,000
merged PRs (scripts/make-big-repo.py), stored once by `mergelens run --lang
zh`, a freshly started `serve` must build the first view of each page kind
within ten times its target: a day's digest and a PR page 20 ms, the tag
list, a tag's aggregation and a week page 60 ms each, a first-time search
10 ms. A page that scans every PR (or decodes every document) of a 10k
store trips it; bench/first_view.py measures the real figures on sglang.

Each kind is asked of its own freshly started server, the best of three
servers counting (one slow start on a loaded machine is not a regression).
The store is built once and shared by every check. The release build only:
sanitizers slow every page several times (scripts/test.sh leaves it out of
the ASan run)."""
import datetime
import os
import sqlite3
import subprocess
import sys
import time
import urllib.parse
import urllib.request

import common

args = common.parse_args()
COMMITS = int(os.environ.get("MERGELENS_FIRST_VIEW_COMMITS", "10000"))
TARGETS_MS = {"day": 20, "pr": 20, "tags": 60, "tag": 60, "week": 60, "search": 10}
MARGIN = 10
repo = os.path.join(args.work_dir, "enginekit.git")
db = os.path.join(args.work_dir, "store.db")

t0 = time.monotonic()
subprocess.run([sys.executable, os.path.join(args.source_dir, "scripts", "make-big-repo.py"),
                repo, "--commits", str(COMMITS), "--bare"], check=True, capture_output=True)
t1 = time.monotonic()
subprocess.run([args.binary, "run", repo, "--db", db, "--lang", "zh"], check=True,
               capture_output=True)
t2 = time.monotonic()
print(f"repository of {COMMITS} commits in {t1 - t0:.1f} s; store in {t2 - t1:.1f} s")


def targets():
    """One page of each kind, in the middle of the history (not the newest day)."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    (n,) = con.execute("select count(*) from changes").fetchone()
    assert n >= COMMITS * 0.95, f"only {n} changes stored"
    (mid,) = con.execute("select merged_at from changes order by merged_at "
                         "limit 1 offset ?", (n // 2,)).fetchone()
    day = time.strftime("%Y-%m-%d", time.gmtime(mid))
    y, w, _ = datetime.datetime.fromtimestamp(mid, datetime.timezone.utc).isocalendar()
    (number,) = con.execute("select number from changes where number is not null and "
                            "merged_at >= ? order by merged_at limit 1", (mid,)).fetchone()
    (tag,) = con.execute("select name from change_tags group by name "
                         "order by count(*) desc limit 1").fetchone()
    return {"day": f"/day/{day}", "pr": f"/pr/{number}", "tags": "/tags",
            "tag": "/tags/" + urllib.parse.quote(tag), "week": f"/week/{y:04d}-W{w:02d}",
            "search": "/search?q=" + urllib.parse.quote("cache")}


def first_view_ms(path):
    """The wall time of `path` as the first request of a freshly started server."""
    port = common.free_port()
    p = subprocess.Popen([args.binary, "serve", "--db", db, "--port", str(port), "--no-mcp"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        base = f"http://127.0.0.1:{port}"
        for _ in range(300):  # a static file: answered without building a page
            try:
                urllib.request.urlopen(base + "/robots.txt", timeout=5).close()
                break
            except OSError:
                if p.poll() is not None:
                    raise AssertionError(f"serve exited: {p.stderr.read().decode()}")
                time.sleep(0.1)
        t = time.perf_counter()
        with urllib.request.urlopen(base + path, timeout=60) as r:
            r.read()
            assert r.status == 200, f"{path}: HTTP {r.status}"
        return (time.perf_counter() - t) * 1000
    finally:
        common.stop(p)


PAGES = targets()


def check(kind):
    limit = TARGETS_MS[kind] * MARGIN
    times = []
    for _ in range(3):
        times.append(first_view_ms(PAGES[kind]))
        if times[-1] <= limit:
            break
    print(f"{kind} {PAGES[kind]}: first view {min(times):.1f} ms (tripwire {limit} ms)")
    assert min(times) <= limit, (
        f"{kind} page {PAGES[kind]}: first view took {min(times):.0f} ms in each of "
        f"{len(times)} fresh servers, over {MARGIN}x its {TARGETS_MS[kind]} ms target")


def test_day():
    check("day")


def test_pr():
    check("pr")


def test_tag_list():
    check("tags")


def test_tag_aggregation():
    check("tag")


def test_week():
    check("week")


def test_search():
    check("search")


common.main([test_day, test_pr, test_tag_list, test_tag_aggregation, test_week, test_search])
