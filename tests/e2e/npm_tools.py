"""Shared by the end-to-end tests that drive the server with npm tools
(tests/npm/: the MCP TypeScript SDK client, the OpenAPI validator, ajv): a
sample store, a running `mergelens serve`, and running a script of tests/npm/."""
import os
import re
import shutil
import subprocess
import sys

import common


def node_or_skip(args):
    """The npm project's folder; exits 77 (skipped) when node is missing, and
    fails when its packages are not installed (scripts/install-deps.sh runs
    `npm ci` there)."""
    if shutil.which("node") is None:
        print("node is not installed: skipped (scripts/install-deps.sh installs it)")
        sys.exit(77)
    npm = os.path.join(args.source_dir, "tests", "npm")
    if not os.path.isdir(os.path.join(npm, "node_modules", "@modelcontextprotocol")):
        sys.exit(f"{npm}/node_modules is missing: run scripts/install-deps.sh (npm ci in tests/npm)")
    return npm


def sample_store(args):
    """The sample repository analysed, with guides in both languages."""
    repo, _ = common.make_sample(args)
    db = os.path.join(args.work_dir, "store", "mergelens.db")
    if os.path.exists(db):
        os.remove(db)
    os.makedirs(os.path.dirname(db), exist_ok=True)
    subprocess.run([args.binary, "run", repo, "--db", db, "--lang", "both"], check=True,
                   capture_output=True)
    return db


def serve(args, db, *extra):
    """Starts `mergelens serve` on a free port; returns (process, base URL).
    A sanitizer build (ASAN_OPTIONS set) builds answers several times slower:
    its deadline is 120 s instead of 15 (test_request_limits checks the
    deadline itself)."""
    slow = ["--timeout", "120"] if os.environ.get("ASAN_OPTIONS") else []
    p = subprocess.Popen([args.binary, "serve", "--db", db, "--port", "0", *slow, *extra],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    m = re.search(r"at (http://127\.0\.0\.1:\d+)/", line)
    if not m:
        common.stop(p)
        raise AssertionError(f"no URL line: {line!r} {p.stderr.read()}")
    return p, m.group(1)


def node(npm, script, *script_args):
    """Runs tests/npm/SCRIPT; fails with its output when it fails."""
    r = subprocess.run(["node", os.path.join(npm, script), *script_args], capture_output=True,
                       text=True, timeout=300)
    print(r.stdout, end="")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
