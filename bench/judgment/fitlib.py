"""The importance fit's shared parts (issue 32 item 5): the labelled rows of a
store, the features a fit sees, a weighted L2 logistic regression with one
intercept per repository, and the figures (ROC AUC, hits in the top k).

Features come from the store the way the product computes them: every rule
of importance.cc is stored per change in facts.scores.importance_features
(title words "w:WORD", path shares, threads and size among them since
analyzer 12). `theme_features` adds what needs a window of neighbouring PRs
(the offline themes), which the analysis of one change cannot see; the fit
measures it and ships no weight for it.

Needs numpy (Debian: python3-numpy; run with /usr/bin/python3).
"""

import datetime as dt
import math
import re

import numpy as np

import facts_lib as fl
import labels as lb


def day(t):
    return dt.datetime.fromtimestamp(t, dt.timezone.utc).date()


def load(db, repo, with_files=False):
    """Every merged PR of `repo` in the store with facts: dicts with id,
    number, title, merged_at, additions, deletions, f (facts)."""
    con = fl.connect(db)
    rows = [c for c in fl.changes(con, repo) if c["number"]]
    facts = fl.facts(con, [c["id"] for c in rows])
    return [dict(c, f=facts[c["id"]]) for c in rows if c["id"] in facts]


def labelled(rows, pools):
    """The rows inside a pool whose highlights name a PR, each with `pool`
    (its index among those pools) and `y` (a release's highlights name it)."""
    top = set().union(*(p["highlights"] for p in pools)) if pools else set()
    use = [i for i, p in enumerate(pools) if p["highlights"]]
    out = []
    for c in rows:
        for k, i in enumerate(use):
            if pools[i]["lo"] < c["merged_at"] <= pools[i]["hi"]:
                out.append(dict(c, pool=k, y=c["number"] in top))
                break
    return out


def load_set(db, repo):
    rows = labelled(load(db, repo), lb.read_labels(repo))
    return rows


def stored(c):
    return c["f"]["scores"].get("importance_features") or {}


def size(c):
    return c["additions"] + c["deletions"]


# ---- Themes over a window (offline, from titles): measured, not shipped.

TOKEN = re.compile(r"[a-z][a-z0-9_]+")


def theme_features(rows, window_days=30):
    """{id: {theme_*: value}}: how many other PRs within +-window_days share a
    rare title word (one in under 1 % of the repository's titles) with it,
    and how many share its series stem (the title without a part marker)."""
    words = {c["id"]: set(TOKEN.findall(re.sub(r"\(#\d+\)", "", c["title"].lower())))
             for c in rows}
    df = {}
    for ws in words.values():
        for w in ws:
            df[w] = df.get(w, 0) + 1
    limit = max(3, 0.01 * len(rows))
    rare = {i: {w for w in ws if df[w] <= limit and len(w) >= 4} for i, ws in words.items()}
    order = sorted(rows, key=lambda c: c["merged_at"])
    times = [c["merged_at"] for c in order]
    span = window_days * 86400
    out = {}
    lo = 0
    for i, c in enumerate(order):
        while times[lo] < c["merged_at"] - span:
            lo += 1
        hi = i
        while hi + 1 < len(order) and times[hi + 1] <= c["merged_at"] + span:
            hi += 1
        mine = rare[c["id"]]
        n = sum(1 for j in range(lo, hi + 1)
                if j != i and mine & rare[order[j]["id"]]) if mine else 0
        out[c["id"]] = {"theme_shared": math.log10(1 + n)} if n else {}
    return out


# ---- The fit.

def design(rows, names, extra=None):
    x = np.zeros((len(rows), len(names)))
    col = {n: i for i, n in enumerate(names)}
    for r, c in enumerate(rows):
        feats = dict(stored(c))
        if extra:
            feats.update(extra.get(c["id"], {}))
        for k, v in feats.items():
            j = col.get(k)
            if j is not None:
                x[r, j] = v
    return x


def fit(x, y, groups, l2, penalties=None, iters=15):
    """Weighted L2 logistic regression by Newton's method, one intercept per
    group (repository), each group weighing the same. Returns (weights,
    {group: intercept})."""
    gs = sorted(set(groups))
    g_idx = np.array([gs.index(g) for g in groups])
    n, d = x.shape
    onehot = np.zeros((n, len(gs)))
    onehot[np.arange(n), g_idx] = 1
    a = np.hstack([x, onehot])
    counts = np.bincount(g_idx, minlength=len(gs))
    sw = 1000.0 / counts[g_idx]  # each repository weighs 1,000 PRs
    pen = np.concatenate([np.full(d, l2) if penalties is None else penalties,
                          np.full(len(gs), 1e-4)])
    w = np.zeros(d + len(gs))
    yv = np.asarray(y, dtype=float)
    for _ in range(iters):
        z = np.clip(a @ w, -30, 30)
        p = 1 / (1 + np.exp(-z))
        grad = a.T @ (sw * (p - yv)) + pen * w
        h = (a * (sw * p * (1 - p))[:, None]).T @ a + np.diag(pen)
        step = np.linalg.solve(h, grad)
        w -= step
        if np.max(np.abs(step)) < 1e-4:
            break
    return w[:d], dict(zip(gs, w[d:]))


def auc(scores, labels):
    return fl.auc(list(scores), list(labels))


def top_hits(keys, labels, k):
    order = sorted(range(len(keys)), key=lambda i: keys[i], reverse=True)
    return sum(1 for i in order[:k] if labels[i])


def pool_aucs(scores, rows):
    """ROC AUC within each pool that holds a positive and a negative."""
    out = []
    for k in sorted({c["pool"] for c in rows}):
        idx = [i for i, c in enumerate(rows) if c["pool"] == k]
        lab = [rows[i]["y"] for i in idx]
        if 0 < sum(lab) < len(lab):
            out.append(auc([scores[i] for i in idx], lab))
    return out
