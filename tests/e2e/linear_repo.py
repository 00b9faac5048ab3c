"""Builds a linear history of squash-merged PRs quickly with git fast-import:
`make(path, n)` creates n commits 'Change k (#k)' touching a few files each."""
import os
import subprocess

import common


def make(path, n, files_per_commit=3):
    os.makedirs(path, exist_ok=True)
    common.git(path, "init", "-q", "-b", "main")
    out = []
    t0 = 1788220800  # 2026-09-01T00:00:00Z
    for k in range(1, n + 1):
        msg = f"Change {k} (#{k})\n\nBody of change {k}.\n".encode()
        out.append(b"commit refs/heads/main\n")
        out.append(f"author Dev{k % 7} <{k % 7}+dev{k % 7}@users.noreply.github.com> "
                   f"{t0 + k * 600} +0000\n".encode())
        out.append(f"committer GitHub <noreply@github.com> {t0 + k * 600} +0000\n".encode())
        out.append(b"data %d\n" % len(msg) + msg)
        for j in range(files_per_commit):
            body = "".join(f"def f{k}_{i}(x):\n    return x + {i}\n" for i in range(20)).encode()
            out.append(f"M 100644 inline src/m{(k + j) % 40}/file{j}.py\n".encode())
            out.append(b"data %d\n" % len(body) + body)
        out.append(b"\n")
    subprocess.run(["git", "fast-import", "--quiet"], cwd=path, input=b"".join(out), check=True,
                   env=dict(os.environ, **common.GIT_ENV))
    common.git(path, "reset", "-q", "--hard", "main")
