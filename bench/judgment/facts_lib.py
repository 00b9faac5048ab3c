"""Shared helpers of the judgment benchmarks: read stored facts and changes
from a mergelens SQLite store (facts are zstd-compressed JSON documents; the
`zstd` command decompresses them, all in one call).

Python 3 standard library plus the `zstd` and `sqlite3` modules/commands.
"""

import json
import os
import sqlite3
import subprocess
import tempfile


def connect(db):
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    con.row_factory = sqlite3.Row
    return con


def changes(con, repo=None, last=None):
    """Changes (id, number, title, sha, merged_at, additions, deletions, files), oldest first."""
    q = ("SELECT c.id, c.number, c.title, c.sha, c.merged_at, c.additions, c.deletions, "
         "c.file_count AS files FROM changes c JOIN repos r ON r.id=c.repo_id WHERE c.open = 0")
    args = []
    if repo:
        q += " AND r.name=?"
        args.append(repo)
    q += " ORDER BY c.merged_at, c.id"
    rows = [dict(r) for r in con.execute(q, args)]
    if last:
        rows = rows[-last:]
    return rows


def facts(con, ids):
    """{change id: facts JSON} for the given ids (those with stored facts)."""
    ids = list(ids)
    out = {}
    for start in range(0, len(ids), 2000):
        chunk = ids[start:start + 2000]
        rows = con.execute(
            f"SELECT change_id, doc FROM facts WHERE change_id IN ({','.join('?' * len(chunk))}) "
            "ORDER BY change_id", chunk).fetchall()
        if not rows:
            continue
        with tempfile.NamedTemporaryFile(delete=False) as tmp:
            for r in rows:
                tmp.write(r["doc"])
            name = tmp.name
        try:
            text = subprocess.run(["zstd", "-dcq", name], capture_output=True, check=True).stdout
        finally:
            os.unlink(name)
        text = text.decode("utf-8", "replace")
        dec = json.JSONDecoder()
        pos = 0
        for r in rows:
            doc, pos = dec.raw_decode(text, pos)
            out[r["change_id"]] = doc
    return out


def auc(scores, labels):
    """ROC AUC (Mann-Whitney, ties count one half)."""
    pairs = sorted(zip(scores, labels), key=lambda p: p[0])
    n_pos = sum(1 for _, l in pairs if l)
    n_neg = len(pairs) - n_pos
    if not n_pos or not n_neg:
        return float("nan")
    rank_sum = 0.0
    i = 0
    while i < len(pairs):
        j = i
        while j < len(pairs) and pairs[j][0] == pairs[i][0]:
            j += 1
        mid = (i + j + 1) / 2.0  # average 1-based rank of the tie group
        rank_sum += mid * sum(1 for k in range(i, j) if pairs[k][1])
        i = j
    return (rank_sum - n_pos * (n_pos + 1) / 2.0) / (n_pos * n_neg)


def ranks(xs):
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    r = [0.0] * len(xs)
    i = 0
    while i < len(order):
        j = i
        while j < len(order) and xs[order[j]] == xs[order[i]]:
            j += 1
        for k in range(i, j):
            r[order[k]] = (i + j - 1) / 2.0 + 1
        i = j
    return r


def spearman(xs, ys):
    rx, ry = ranks(xs), ranks(ys)
    n = len(xs)
    mx, my = sum(rx) / n, sum(ry) / n
    cov = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    vx = sum((a - mx) ** 2 for a in rx)
    vy = sum((b - my) ** 2 for b in ry)
    return cov / (vx * vy) ** 0.5 if vx and vy else float("nan")


def quantile(xs, q):
    xs = sorted(xs)
    if not xs:
        return float("nan")
    k = min(len(xs) - 1, max(0, int(round(q * (len(xs) - 1)))))
    return xs[k]


def command_line(argv):
    import shlex
    return " ".join(shlex.quote(a) for a in ["python3"] + argv)
