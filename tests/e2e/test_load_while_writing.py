"""Load while writing: wrk keeps 256 connections busy on `mergelens serve`
while `run` ingests, analyses and writes the second half of the sample and
`write --force` rewrites every guide, all against the same store. No request
may fail, and the checkers (tests/e2e/loadcheck.py) must never see a change
half-written. The long version over the sglang history is bench/load_write.sh."""
import json
import os
import re
import subprocess
import time

import common
import loadcheck

args = common.parse_args()
repo, manifest = common.make_sample(args)
db = os.path.join(args.work_dir, "store", "mergelens.db")
ml = common.Binary(args.binary, db)


def test_readers_see_whole_changes_while_writers_commit():
    # The first half of the history is served; the rest arrives under load.
    ml.run("ingest", repo, "--until", "2026-09-05")
    ml.run("analyze")
    ml.run("write", "--lang", "both")
    listed = json.loads(ml.run("list", "--json").stdout)
    served = subprocess.Popen([args.binary, "serve", "--db", db, "--port", "0"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        m = re.search(r"(http://127\.0\.0\.1:\d+)/", served.stdout.readline())
        assert m, served.stderr.read()
        base = m.group(1)
        paths = sorted({f"/day/{c['day']}" for c in listed}) + \
            [f"/pr/{c['ref'].lstrip('#')}" for c in listed]
        with open(manifest) as f:
            changes = json.load(f)["changes"]
        refs = [str(c["number"]) if c["number"] else c["sha"] for c in changes]
        days = sorted({c["merged_at"][:10] for c in changes})
        checker = loadcheck.Checker(base, refs, days).start()
        wrk = loadcheck.start_wrk(base, paths, conns=256, seconds=12)
        time.sleep(1)
        start = time.monotonic()
        ml.run("run", repo, "--lang", "both", "--batch", "1")
        ml.run("write", "--lang", "both", "--force", "--batch", "1")
        writing = time.monotonic() - start
        out, _ = wrk.communicate(timeout=120)
        time.sleep(0.5)  # the server notices the last commit within 200 ms
        checker.stop()
        problems = checker.compare_with_final()
        w = loadcheck.parse_wrk(out)
        print(f"writers {writing:.1f} s under load; wrk: {w['requests']} requests, "
              f"{w['rps']:.0f} req/s, p50 {w['p50_ms']:.2f} ms, p99 {w['p99_ms']:.2f} ms, "
              f"{w['errors']} socket errors, {w['non2xx']} non-2xx; checkers: {checker.polls} "
              f"polls, {len(checker.seen)} PRs seen, {len(problems)} inconsistencies")
        assert w["errors"] == 0 and w["non2xx"] == 0, out
        assert not problems, "\n".join(problems[:20])
        assert len(checker.seen) == len(refs), "some PRs were never seen"
    finally:
        served.terminate()
        served.wait(timeout=20)


common.main([test_readers_see_whole_changes_while_writers_commit])
