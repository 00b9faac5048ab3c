"""The main job as a service: `mergelens run SAMPLE --watch 1 --serve --export
DIR` ingests, analyses and writes the sample, exports the site, serves the
digest and prints its URL; a PR merged into the clone afterwards shows up on
the served pages on a later pass without a restart; SIGTERM stops it cleanly.
Bad options fail before anything is stored."""
import json
import os
import re
import signal
import subprocess
import time
import urllib.error
import urllib.request

import common

args = common.parse_args()
repo, _ = common.make_sample(args)
db = os.path.join(args.work_dir, "store", "mergelens.db")
site = os.path.join(args.work_dir, "site")


def get(url):
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def wait_for(pred, seconds, what):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        v = pred()
        if v:
            return v
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def served_url(p, lines):
    """The URL `run --serve` prints, reading its output into `lines`."""
    def url_line():
        line = p.stdout.readline()
        lines.append(line)
        if p.poll() is not None and not line:
            raise AssertionError(f"exited {p.returncode}: {p.stderr.read()}")
        m = re.search(r"serving the digest at (http://127\.0\.0\.1:\d+/)", line)
        return m and m.group(1)
    return wait_for(url_line, 120, "the URL line")


def test_watch_serve_export_and_stop():
    p = subprocess.Popen([args.binary, "run", repo, "--db", db, "--lang", "both", "--watch", "1",
                          "--serve", "--port", "0", "--export", site],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        lines = []
        base = served_url(p, lines)
        out = "".join(lines)
        assert "50 new changes ingested" in out, out
        assert re.search(r"exported \d+ pages", out), out
        assert os.path.exists(os.path.join(site, "index.html"))
        assert os.path.exists(os.path.join(site, "en", "index.html"))
        status, home = get(base)
        assert status == 200 and "2026-09-10" in home, home[:300]
        status, _ = get(base + "api/pr/4242")
        assert status == 404

        # A new squash merge lands in the clone: a later pass picks it up and
        # the server shows it without a restart.
        path = os.path.join(repo, "docs", "watch-note.md")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write("# Watch mode\n\nmergelens keeps the store current.\n")
        common.git(repo, "add", "docs/watch-note.md")
        env = dict(os.environ, **common.GIT_ENV, GIT_AUTHOR_DATE="2026-09-11T10:00:00Z",
                   GIT_COMMITTER_DATE="2026-09-11T10:00:00Z")
        subprocess.run(["git", "-c", "commit.gpgsign=false", "commit", "-q", "-m",
                        "[Docs] Describe watch mode (#4242)"], cwd=repo, env=env, check=True)
        # The pass stores the change, then its facts, then its guide, each as
        # it goes: the page can show the change a moment before its guide
        # (longer under the sanitizers, where analysis reads the import graph
        # slowly), so wait for the guide, not for the first sight of the PR.
        def served():
            status, body = get(base + "api/pr/4242")
            return status == 200 and json.loads(body)
        model = wait_for(served, 60, "PR 4242 on the served pages")
        assert model["title"] == "[Docs] Describe watch mode", model["title"]
        wait_for(lambda: served()["has_guide"], 60, "the guide of PR 4242 on the served pages")
        wait_for(lambda: os.path.exists(os.path.join(site, "pr", "4242.html")), 30,
                 "PR 4242 in the export")

        p.send_signal(signal.SIGTERM)
        rc = p.wait(timeout=60)  # a signal during an export lets it finish first
        assert rc == 0, f"exit {rc}: {p.stderr.read()}"
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()


def test_bad_time_zone_fails_before_storing():
    bad_db = os.path.join(args.work_dir, "bad", "mergelens.db")
    p = subprocess.run([args.binary, "run", repo, "--db", bad_db, "--lang", "zh", "--serve",
                        "--tz", "Mars/Olympus"], capture_output=True, text=True, timeout=120)
    assert p.returncode != 0
    assert "Mars/Olympus" in p.stderr, p.stderr
    assert not os.path.exists(bad_db), "a bad option stored something"


def test_a_failing_first_pass_is_retried_and_the_pages_served():
    """Issue 22, defect 10: the first pass fails (here the clone is not there
    yet); the server starts on what the store holds, and a later pass, once
    the clone is there, succeeds."""
    late = os.path.join(args.work_dir, "late-clone")
    p = subprocess.Popen([args.binary, "run", late, "--db", db, "--lang", "zh", "--watch", "1",
                          "--serve", "--port", "0"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        lines = []
        base = served_url(p, lines)
        status, home = get(base)
        assert status == 200 and "2026-09-10" in home, home[:300]
        common.git(args.work_dir, "clone", "-q", repo, late)

        def ingested():
            line = p.stdout.readline()
            lines.append(line)
            return re.search(r"\d+ new changes? ingested", line)
        wait_for(ingested, 120, "a pass over the clone")
        p.send_signal(signal.SIGTERM)
        rc = p.wait(timeout=60)
        err = p.stderr.read()
        assert rc == 0, f"exit {rc}: {err}"
        assert "this pass failed, trying again in 1 s" in err, err
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()


common.main([test_watch_serve_export_and_stop, test_a_failing_first_pass_is_retried_and_the_pages_served,
             test_bad_time_zone_fails_before_storing])
