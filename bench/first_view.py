#!/usr/bin/env python3
"""First view of each page kind on a freshly started server, and first-time searches.

    bench/first_view.py --db STORE --bin AFTER [--base-bin BEFORE [--base-db COPY]] [--rounds 7]
                        [--searches 200] [--search-runs 1] [--kinds day,pr,tags,tag,week]

For each of the five page kinds (a day digest, a PR page, the tag list, a tag's
aggregation, a week page) and each round, a `mergelens serve` is started on a
copy-free read of STORE, the first request for one page of that kind is timed
(wall time of one HTTP GET of the HTML page, connection included), and the server
is stopped. Each round asks another page of the kind (another day, PR, sort,
tag, week), so nothing is cached anywhere but in the operating system's page
cache. With --base-bin the two binaries alternate page by page on the same
targets, so a load on the shared machine falls on both alike; the ratio
AFTER/BEFORE of the medians is printed beside the targets of issue 36.
A binary that migrates the store (a newer schema) needs its own copy: BEFORE
then reads --base-db, a copy of STORE made before AFTER first opened it. AFTER
is started once before the rounds (a store written before the page briefs is
filled in then, once; that start is not timed).

Then --searches distinct queries (half Chinese of 2-4 characters cut from
guide text, half English words or prefixes from titles; the same generator as
bench/serve.sh) go one by one to /api/search of one server per binary, each
the first request for its query; p50/p95/max of the wall time and the server's
CPU per query are printed. --search-runs N starts N fresh servers per binary,
alternated, and prints the medians of their figures (--kinds "" for searches
only).
"""

import argparse
import datetime
import json
import os
import random
import re
import socket
import sqlite3
import statistics
import subprocess
import sys
import time
import urllib.parse
import urllib.request

TARGETS_MS = {"day": 20, "pr": None, "tags": 60, "tag": 60, "week": 60}


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Server:
    def __init__(self, binary, db, wait=60):
        self.port = free_port()
        self.proc = subprocess.Popen(
            [binary, "serve", "--db", db, "--port", str(self.port), "--no-mcp"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + wait
        while time.time() < deadline:
            try:
                # A static file: answered without the store, so no page is built yet.
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/robots.txt") as r:
                    r.read()
                return
            except OSError:
                if self.proc.poll() is not None:
                    sys.exit(f"{binary} serve exited with {self.proc.returncode}")
                time.sleep(0.05)
        sys.exit(f"{binary} serve did not answer within {wait} s")

    def cpu_ns(self):
        """CPU time the server's threads have run, in ns (/proc/PID/task/*/schedstat)."""
        total = 0
        base = f"/proc/{self.proc.pid}/task"
        for tid in os.listdir(base):
            try:
                with open(f"{base}/{tid}/schedstat") as f:
                    total += int(f.read().split()[0])
            except OSError:
                pass  # a thread that just ended
        return total

    def get(self, path):
        """(wall ms of the request, server CPU ms spent on it, body bytes)."""
        c = self.cpu_ns()
        t = time.perf_counter()
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}{path}") as r:
            body = r.read()
            status = r.status
        ms = (time.perf_counter() - t) * 1000
        cpu = (self.cpu_ns() - c) / 1e6
        if status != 200:
            sys.exit(f"{path}: HTTP {status}")
        return ms, cpu, len(body)

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def iso_week(t):
    d = datetime.datetime.fromtimestamp(t, datetime.timezone.utc).isocalendar()
    return f"{d[0]:04d}-W{d[1]:02d}"


def targets(db, rounds):
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    times = [r[0] for r in con.execute(
        "select merged_at from changes where open = 0 order by merged_at desc")]
    newest = times[0]
    # Days and weeks spread over the last year, newest first.
    year = [t for t in times if t > newest - 365 * 86400]
    days, weeks = [], []
    for k in range(rounds):
        t = year[min(len(year) - 1, k * len(year) // rounds)]
        day = time.strftime("%Y-%m-%d", time.gmtime(t))
        if day not in days:
            days.append(day)
        w = iso_week(t)
        if w not in weeks:
            weeks.append(w)
    numbers = [r[0] for r in con.execute(
        "select number from changes where number is not null and open = 0 "
        "order by merged_at desc")]
    prs = [numbers[k * len(numbers) // rounds] for k in range(rounds)]
    # The largest tags: the costliest aggregations, each another reader's page.
    tags = [r[0] for r in con.execute(
        "select name from change_tags group by name order by count(*) desc limit ?", (rounds,))]
    sorts = ["", "?sort=recent", "?sort=name"]
    return {
        "day": [f"/day/{d}" for d in days],
        "pr": [f"/pr/{n}" for n in prs],
        "tags": [f"/tags{sorts[k % 3]}" for k in range(rounds)],
        "tag": [f"/tags/{urllib.parse.quote(t)}" for t in tags],
        "week": [f"/week/{w}" for w in weeks],
    }


def search_queries(db, n):
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    random.seed(7)
    # Sampled with the seeded generator (SQLite's random() is not seeded), so
    # every run of a bench on the same store asks the same queries.
    heads = [r[0] for r in con.execute("select text from guides where lang='zh' order by change_id")]
    titles = [r[0] for r in con.execute("select title from changes order by id")]
    heads = random.sample(heads, min(2000, len(heads)))
    titles = random.sample(titles, min(2000, len(titles)))
    zh, en = set(), set()
    for h in heads:
        for run in re.findall(r"[\u4e00-\u9fff]{2,}", h):
            k = random.choice((2, 2, 3, 4))
            if len(run) >= k:
                i = random.randrange(len(run) - k + 1)
                zh.add(run[i:i + k])
    for t in titles:
        words = re.findall(r"[A-Za-z][A-Za-z0-9_]{2,}", t)
        if words:
            w = random.choice(words).lower()
            en.add(w if random.random() < 0.7 else w[:4] + "*")
    qs = sorted(zh)[:n // 2] + sorted(en)[:n // 2]
    random.shuffle(qs)
    return qs


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, int(round(p / 100 * len(xs))) - 1))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--db", required=True)
    ap.add_argument("--bin", required=True)
    ap.add_argument("--base-bin")
    ap.add_argument("--base-db", help="BEFORE's copy of the store (default: --db)")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--searches", type=int, default=200)
    ap.add_argument("--search-runs", type=int, default=1,
                    help="fresh servers per binary for the searches, alternated (medians printed)")
    ap.add_argument("--kinds", default="day,pr,tags,tag,week",
                    help="page kinds to measure (comma-separated)")
    a = ap.parse_args()
    bins = [("after", a.bin)] + ([("before", a.base_bin)] if a.base_bin else [])
    dbs = {"after": a.db, "before": a.base_db or a.db}
    t = time.perf_counter()
    Server(a.bin, a.db, wait=1800).stop()  # migrations and the page briefs, once
    print(f"first start of AFTER on the store (migrations, briefs): {time.perf_counter() - t:.1f} s")
    tg = {k: v for k, v in targets(a.db, a.rounds).items() if k in a.kinds.split(",")}
    n = sqlite3.connect(f"file:{a.db}?mode=ro", uri=True).execute(
        "select count(*) from changes").fetchone()[0]
    load = os.getloadavg()
    print(f"store: {a.db} ({n} changes); {os.cpu_count()} cores; "
          f"load average at start {load[0]:.1f}")
    times = {name: {k: [] for k in tg} for name, _ in bins}
    cpus = {name: {k: [] for k in tg} for name, _ in bins}
    for kind, paths in tg.items():
        for path in paths:
            for name, binary in bins:
                s = Server(binary, dbs[name])
                try:
                    ms, cpu, _ = s.get(path)
                finally:
                    s.stop()
                times[name][kind].append(ms)
                cpus[name][kind].append(cpu)
    print("\nfirst request after start: wall ms of the request (median, min-max over the rounds);"
          "\nserver CPU ms spent on it (median; less sensitive to the machine's load):\n")
    head = "| page | examples | " + " | ".join(
        f"{name}: wall (min-max) | {name}: CPU" for name, _ in bins) + \
        (" | after/before (wall, CPU) |" if a.base_bin else " |") + " target |"
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    for kind, paths in tg.items():
        cells = []
        meds, cmeds = {}, {}
        for name, _ in bins:
            xs = times[name][kind]
            meds[name] = statistics.median(xs)
            cmeds[name] = statistics.median(cpus[name][kind])
            cells.append(f"{meds[name]:.1f} ({min(xs):.1f}-{max(xs):.1f}) | {cmeds[name]:.1f}")
        ratio = (f" {meds['after'] / meds['before']:.2f}, "
                 f"{cmeds['after'] / max(cmeds['before'], 1e-9):.2f} |") if a.base_bin else ""
        target = TARGETS_MS[kind]
        print(f"| {kind} | `{paths[0]}` … ({len(paths)}) | " + " | ".join(cells) + " |" + ratio +
              (f" ≤ {target} |" if target else " - |"))
    if a.searches:
        qs = search_queries(a.db, a.searches)
        print(f"\nsearch: {len(qs)} distinct queries over HTTP (/api/search), each its first request"
              f" (wall ms; server CPU ms), {a.search_runs} fresh server(s) per binary:")
        runs = {name: [] for name, _ in bins}
        for r in range(a.search_runs):
            for name, binary in bins:
                s = Server(binary, dbs[name])
                lat, cpu = [], []
                try:
                    for q in qs:
                        ms, c, _ = s.get("/api/search?q=" + urllib.parse.quote(q))
                        lat.append(ms)
                        cpu.append(c)
                finally:
                    s.stop()
                row = (pct(lat, 50), pct(lat, 95), max(lat), pct(cpu, 50), pct(cpu, 95))
                runs[name].append(row)
                print(f"  {name}: p50 {row[0]:.2f} ms, p95 {row[1]:.2f} ms, max {row[2]:.2f} ms; "
                      f"CPU p50 {row[3]:.2f}, p95 {row[4]:.2f}")
        if a.search_runs > 1:
            for name, rows in runs.items():
                m = [statistics.median(x) for x in zip(*rows)]
                print(f"  {name}, medians of {len(rows)}: p50 {m[0]:.2f} ms, p95 {m[1]:.2f} ms, "
                      f"max {m[2]:.2f} ms; CPU p50 {m[3]:.2f}, p95 {m[4]:.2f}")
    load = os.getloadavg()
    print(f"\nload average at the end {load[0]:.1f}")


if __name__ == "__main__":
    main()
