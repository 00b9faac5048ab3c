"""Helpers shared by the end-to-end tests: argument parsing, running the real
mergelens binary, git with a clean configuration, and a tiny test runner that
prints 'N passed, N failed' and exits non-zero on failure."""
import argparse
import os
import shutil
import subprocess
import sys
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
