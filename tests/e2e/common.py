"""Helpers shared by the end-to-end tests: argument parsing, running the real
mergelens binary, git with a clean configuration, and a tiny test runner that
prints 'N passed, N failed' and exits non-zero on failure."""
import argparse
import os
import shutil
import subprocess
import sys
import time
import traceback

GIT_ENV = {
    "GIT_CONFIG_GLOBAL": "/dev/null",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "test@example.com",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "test@example.com",
}


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--binary", required=True)
    p.add_argument("--source-dir", required=True)
    p.add_argument("--work-dir", required=True)
    args = p.parse_args()
    shutil.rmtree(args.work_dir, ignore_errors=True)
    os.makedirs(args.work_dir)
    return args


def git(cwd, *args, input=None):
    env = dict(os.environ, **GIT_ENV)
    return subprocess.run(["git", "-c", "commit.gpgsign=false", *args], cwd=cwd, env=env,
                          input=input, check=True, capture_output=True)


class Binary:
    def __init__(self, path, db):
        self.path = path
        self.db = db

    def run(self, *args, db=True, check=True, **kw):
        cmd = [self.path, *args] + (["--db", self.db] if db else [])
        p = subprocess.run(cmd, capture_output=True, **kw)
        if check and p.returncode != 0:
            raise AssertionError(f"{cmd} exited {p.returncode}: {p.stderr.decode(errors='replace')}")
        return p


# --- the store's backend (tests/CMakeLists.txt runs some tests twice) ---
# MERGELENS_E2E_BACKEND=pg runs a test on PostgreSQL: each store() is then a
# fresh database on the server MERGELENS_TEST_PG names (scripts/test.sh
# starts a throwaway cluster); without a server such a run is skipped (77).

def backend():
    return os.environ.get("MERGELENS_E2E_BACKEND", "sqlite")


def skip_unless_backend_available():
    if backend() == "pg" and not os.environ.get("MERGELENS_TEST_PG"):
        print("MERGELENS_TEST_PG is not set: skipped")
        sys.exit(77)


def pg_url(db):
    server = os.environ["MERGELENS_TEST_PG"]
    head, _, tail = server.partition("//")
    host, _, rest = tail.partition("/")
    query = rest.partition("?")[2]
    return f"{head}//{host}/{db}" + (f"?{query}" if query else "")


def psql(url, *commands):
    """Runs each command on its own (CREATE DATABASE cannot share a transaction)."""
    cmd = ["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", url]
    for c in commands:
        cmd += ["-c", c]
    subprocess.run(cmd, check=True, capture_output=True)


def store(args, name):
    """A location for a fresh store: work_dir/name/mergelens.db, or on
    PostgreSQL a new database named after the test and `name`."""
    if backend() != "pg":
        return os.path.join(args.work_dir, name, "mergelens.db")
    test = os.path.basename(args.work_dir.rstrip("/"))
    db = "e2e_" + "".join(ch if ch.isalnum() else "_" for ch in f"{test}_{name}").lower()[:50]
    psql(os.environ["MERGELENS_TEST_PG"], f"DROP DATABASE IF EXISTS {db} WITH (FORCE)",
         f"CREATE DATABASE {db}")
    return pg_url(db)


def is_pg(location):
    return location.startswith("postgresql://") or location.startswith("postgres://")


def pg_rows(url, sql):
    """Rows of a query as tuples of strings (NULL as None)."""
    p = subprocess.run(["psql", "-X", "-A", "-t", "-F", "\x1f", "-R", "\x1e", "-P", "null=\x1d",
                        "-v", "ON_ERROR_STOP=1", url, "-c", sql], check=True, capture_output=True)
    out = p.stdout.decode(errors="surrogateescape")
    if out.endswith("\n"):
        out = out[:-1]
    return [tuple(None if f == "\x1d" else f for f in r.split("\x1f"))
            for r in out.split("\x1e") if r != ""]


def make_sample(args, out_name="sample"):
    repo = os.path.join(args.work_dir, out_name)
    manifest = os.path.join(args.work_dir, out_name + ".manifest.json")
    subprocess.run([sys.executable, os.path.join(args.source_dir, "scripts", "make-sample-repo.py"),
                    repo, "--manifest", manifest], check=True, capture_output=True)
    return repo, manifest


def free_port():
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    import socket
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def http_get(url, timeout=10):
    """(status, body as text) of a GET; an HTTP error status is returned, not raised."""
    import urllib.error
    import urllib.request
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def wait_serving(base, tries=100):
    """Waits until the server at `base` answers `/` at all (any status)."""
    import urllib.error
    import urllib.request
    for _ in range(tries):
        try:
            urllib.request.urlopen(base + "/", timeout=5).close()
            return
        except urllib.error.HTTPError:
            return
        except OSError:
            time.sleep(0.2)


def stop(proc):
    """Terminates a process the test started (kills it after 10 s)."""
    if proc is None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()


def main(tests):
    passed = failed = 0
    for t in tests:
        try:
            t()
            passed += 1
            print(f"[ OK ] {t.__name__}")
        except Exception:  # noqa: BLE001 - report every failure and go on
            failed += 1
            print(f"[FAIL] {t.__name__}")
            traceback.print_exc()
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)
