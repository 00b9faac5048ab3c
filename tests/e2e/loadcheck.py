"""Load while writing, shared by tests/e2e/test_load_while_writing.py and
bench/load_write.sh: wrk hammers a served store while ingest/analyse/write
commit to it, and checkers poll the JSON mirror of every PR and day to prove
that no reader ever sees a change half-written.

What a reader may see of PR N at any moment: nothing (404), or the change
with exactly its final files and line counts; and when a guide shows, the
guide's final headline and verdict with the facts' scores beside it. What a
reader may see of a day: as many items as the page says were merged."""
import json
import os
import re
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request

WRK_SCRIPT = """
paths = {}
for line in io.lines(os.getenv("MERGELENS_WRK_PATHS")) do paths[#paths + 1] = line end
counter = 0
request = function()
  counter = counter + 1
  return wrk.format("GET", paths[(counter % #paths) + 1])
end
"""


def start_wrk(base, paths, conns, seconds, threads=2):
    """Starts wrk against `base` cycling through `paths`; returns the Popen."""
    d = tempfile.mkdtemp(prefix="mergelens-wrk-")
    with open(os.path.join(d, "paths.txt"), "w") as f:
        f.write("\n".join(paths) + "\n")
    with open(os.path.join(d, "cycle.lua"), "w") as f:
        f.write(WRK_SCRIPT)
    env = dict(os.environ, MERGELENS_WRK_PATHS=os.path.join(d, "paths.txt"))
    return subprocess.Popen(["wrk", f"-t{threads}", f"-c{conns}", f"-d{seconds}s", "--latency",
                             "--timeout", "5s", "-s", os.path.join(d, "cycle.lua"), base],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)


def parse_wrk(text):
    """wrk's report as {requests, rps, p50_ms, p99_ms, errors, non2xx}."""
    def lat(p):
        m = re.search(r"^\s+%s%%\s+([\d.]+)(us|ms|s)\s*$" % p, text, re.M)
        v, u = float(m.group(1)), m.group(2)
        return v / 1000 if u == "us" else v * 1000 if u == "s" else v
    m = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
    return {
        "requests": int(re.search(r"(\d+) requests in", text).group(1)),
        "rps": float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1)),
        "p50_ms": lat(50),
        "p99_ms": lat(99),
        "errors": sum(int(x) for x in re.findall(r"(?:connect|read|write|timeout) (\d+)", text)),
        "non2xx": int(m.group(1)) if m else 0,
    }


def fetch(url):
    try:
        with urllib.request.urlopen(url, timeout=30) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, None


def pr_view(m, lang):
    """What must never be seen half-way, from a PR page's JSON."""
    v = {"title": m["title"], "sha": m["sha"], "files": m["files"],
         "additions": m["additions"], "deletions": m["deletions"]}
    if m.get("has_guide") and m.get("guide_lang") == lang:
        v["guide"] = (m["headline"], m["verdict"])
    return v


class Checker:
    """Polls /api/pr/REF and /api/day/D for every ref and day, in `threads`
    threads, until stop(); keeps what it saw and every inconsistency."""

    def __init__(self, base, refs, days, lang="zh", threads=3):
        self.base, self.refs, self.days, self.lang = base.rstrip("/"), refs, days, lang
        self.seen = {}  # ref -> list of views
        self.problems = []
        self.polls = 0
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._threads = [threading.Thread(target=self._loop, args=(i, threads), daemon=True)
                         for i in range(threads)]

    def start(self):
        for t in self._threads:
            t.start()
        return self

    def stop(self):
        self._stop.set()
        for t in self._threads:
            t.join()

    def _loop(self, i, n):
        refs = self.refs[i::n]
        days = self.days[i::n]
        while not self._stop.is_set():
            for ref in refs:
                status, m = fetch(f"{self.base}/api/pr/{ref}?lang={self.lang}")
                with self._lock:
                    self.polls += 1
                    if status == 200:
                        self.seen.setdefault(ref, []).append(pr_view(m, self.lang))
                        if m.get("has_guide") and not m.get("importance", {}).get("scored"):
                            self.problems.append(f"#{ref}: a guide shown without its facts")
                    elif status != 404:
                        self.problems.append(f"#{ref}: HTTP {status}")
            for day in days:
                status, m = fetch(f"{self.base}/api/day/{day}?lang={self.lang}")
                with self._lock:
                    self.polls += 1
                    if status != 200:
                        self.problems.append(f"day {day}: HTTP {status}")
                    elif m["merged"] != len(m.get("items", [])) + len(m.get("skipped", [])):
                        # Skip-verdict changes are listed apart, one line each.
                        listed = len(m.get("items", [])) + len(m.get("skipped", []))
                        self.problems.append(f"day {day}: says {m['merged']} merged, lists {listed}")

    def compare_with_final(self):
        """After the writers finished: every view seen must equal the final
        one (a guide may be missing from an earlier view, never different)."""
        for ref, views in self.seen.items():
            status, m = fetch(f"{self.base}/api/pr/{ref}?lang={self.lang}")
            if status != 200:
                self.problems.append(f"#{ref}: seen during the load, HTTP {status} after it")
                continue
            final = pr_view(m, self.lang)
            for v in views:
                for k, want in final.items():
                    if k == "guide" and k not in v:
                        continue
                    if v.get(k) != want:
                        self.problems.append(f"#{ref}: saw {k}={v.get(k)!r}, final {want!r}")
                        break
        return self.problems
