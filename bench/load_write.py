#!/usr/bin/env python3
"""Load while writing over a real history (run by bench/load_write.sh).

Builds a store from REPO's history up to CUT days before its newest merge
(ingest, analyse, write --lang zh), serves it, then for DURATION seconds
keeps CONNS wrk connections on its day and PR pages while, against the same
store, `ingest --since` brings in the last CUT days, `analyze` and `write`
cover them and `write --force` rewrites guides until the time is up. The
checkers of tests/e2e/loadcheck.py poll every new PR, a sample of older
ones and every day of the window, and compare what they saw with the final
store. Prints the wrk figures, the writers' work and the inconsistencies."""
import argparse
import json
import os
import random
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "e2e"))
import loadcheck  # noqa: E402

p = argparse.ArgumentParser()
p.add_argument("--binary", required=True)
p.add_argument("--repo", required=True)
p.add_argument("--work", required=True)
p.add_argument("--history-days", type=int, default=120)
p.add_argument("--cut-days", type=int, default=5)
p.add_argument("--duration", type=int, default=60)
p.add_argument("--conns", type=int, default=256)
p.add_argument("--name", default="sgl-project/sglang")
a = p.parse_args()
os.makedirs(a.work, exist_ok=True)
db = os.path.join(a.work, "mergelens.db")
if os.path.exists(db):
    os.remove(db)


def ml(*args, check=True):
    r = subprocess.run([a.binary, *args, "--db", db], capture_output=True, text=True)
    if check and r.returncode:
        sys.exit(f"{args[0]} failed: {r.stderr}")
    return r


newest = subprocess.run(["git", "--git-dir" if os.path.isdir(os.path.join(a.repo, "objects"))
                         else "-C", a.repo, "log", "-1", "--format=%ct"],
                        capture_output=True, text=True, check=True).stdout.strip()
day = lambda t: time.strftime("%Y-%m-%d", time.gmtime(t))  # noqa: E731
cut = day(int(newest) - a.cut_days * 86400)
start_day = day(int(newest) - a.history_days * 86400)
repo_args = ["--repo", a.name, "--url-base", f"https://github.com/{a.name}"]
t = time.monotonic()
ml("ingest", a.repo, *repo_args, "--since", start_day, "--until", cut)
ml("analyze", "--repo", a.name)
ml("write", "--repo", a.name, "--lang", "zh")
listed = json.loads(ml("list", "--repo", a.name, "--json", "--limit", "100000").stdout)
print(f"store before the load: {len(listed)} changes from {start_day} to {cut} "
      f"(built in {time.monotonic() - t:.0f} s)")

serve = subprocess.Popen([a.binary, "serve", "--db", db, "--repo", a.name, "--port", "0"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
m = re.search(r"(http://127\.0\.0\.1:\d+)/", serve.stdout.readline())
if not m:
    sys.exit(serve.stderr.read())
base = m.group(1)
paths = sorted({f"/day/{c['day']}" for c in listed}) + \
    [f"/pr/{c['ref'].lstrip('#')}" for c in listed]
random.Random(7).shuffle(paths)
# Every PR of the window that is about to arrive, and a sample of the others.
log = subprocess.run(["git", "--git-dir" if os.path.isdir(os.path.join(a.repo, "objects")) else "-C",
                      a.repo, "log", "--first-parent", f"--since={cut}T00:00:00Z", "--format=%s"],
                     capture_output=True, text=True, check=True).stdout
new_refs = sorted({n for n in re.findall(r"\(#(\d+)\)\s*$", log, re.M)})
old_refs = [c["ref"].lstrip("#") for c in random.Random(8).sample(listed, min(200, len(listed)))]
days = sorted({day(int(newest) - k * 86400) for k in range(a.cut_days + 2)})
checker = loadcheck.Checker(base, new_refs + old_refs, days).start()
wrk = loadcheck.start_wrk(base, paths, conns=a.conns, seconds=a.duration)
t0 = time.monotonic()
steps = []


def step(*args):
    s = time.monotonic()
    r = ml(*args)
    steps.append(f"{args[0]}{' --force' if '--force' in args else ''} "
                 f"{time.monotonic() - s:.1f} s: {r.stdout.strip().splitlines()[-1] if r.stdout.strip() else ''}")


step("ingest", a.repo, *repo_args, "--since", cut)
step("analyze", "--repo", a.name)
step("write", "--repo", a.name, "--lang", "zh")
while wrk.poll() is None and time.monotonic() - t0 < a.duration - 5:
    step("write", "--repo", a.name, "--lang", "zh", "--force")
out, _ = wrk.communicate()
time.sleep(0.5)
checker.stop()
problems = checker.compare_with_final()
serve.terminate()
serve.wait()
w = loadcheck.parse_wrk(out)
print(f"\nwriters during the load ({time.monotonic() - t0:.0f} s):")
for s in steps:
    print("  " + s)
print(f"\nwrk {a.conns} connections, {a.duration} s, {len(paths)} distinct pages: "
      f"{w['requests']} requests, {w['rps']:.0f} req/s, p50 {w['p50_ms']:.2f} ms, "
      f"p99 {w['p99_ms']:.2f} ms, {w['errors']} socket errors, {w['non2xx']} non-2xx")
print(f"checkers: {checker.polls} polls of {len(new_refs)} arriving and {len(old_refs)} older PRs "
      f"and {len(days)} days; {len(checker.seen)} PRs seen; {len(problems)} inconsistencies")
for pr in problems[:20]:
    print("  " + pr)
sys.exit(1 if problems or w["errors"] or w["non2xx"] else 0)
