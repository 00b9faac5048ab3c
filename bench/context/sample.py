#!/usr/bin/env python3
"""bench/context: a stratified sample of the context resolver's items for a hand check.

Usage: sample.py --seed N --prs K --out EVIDENCE.txt --tsv SAMPLE.tsv STORE.db:CLONE [STORE.db:CLONE ...]

Picks K PRs that change code (seeded, spread over the stores), then from them up to the quota
of each stratum (definitions the hunks edit, definitions called, constants used, callers of a
changed signature, switches' declared defaults, switches the change declares: did they exist
before?), and writes for each item the evidence a checker needs from the clone: the lines the
item names at its revision (and the three after, to see a cut definition), the changed line it
relates to, and for switches the declaring line at the parent and `git grep` of the name at the
parent. SAMPLE.tsv gets one row per item with empty verdict and evidence columns to fill.
"""
import json
import random
import sqlite3
import subprocess
import sys

QUOTA = {"changed": 10, "called": 9, "constant": 4, "caller": 6, "switch_default": 7, "switch_existed": 6}


def git(clone, *args):
    r = subprocess.run(["git", "-C", clone, *args], capture_output=True, text=True, errors="replace")
    return r.stdout


def lines(clone, rev, path, a, b):
    text = git(clone, "show", f"{rev}:{path}").split("\n")
    return "\n".join(f"    {i:5} {text[i-1]}" for i in range(max(a, 1), min(b, len(text)) + 1))


def load(db):
    con = sqlite3.connect(db)
    for number, sha, parent, doc in con.execute(
            "SELECT c.number, c.sha, c.parent_sha, f.doc FROM facts f JOIN changes c ON c.id = f.change_id"):
        f = json.loads(subprocess.run(["zstd", "-dcq"], input=doc, capture_output=True, check=True).stdout)
        yield number, sha, parent, f


def main():
    a = sys.argv[1:]
    opt = {}
    while a and a[0].startswith("--"):
        opt[a[0]] = a[1]
        a = a[2:]
    rnd = random.Random(int(opt.get("--seed", "31")))
    pool = []
    for spec in a:
        db, clone = spec.split(":", 1)
        for number, sha, parent, f in load(db):
            if f.get("context") or f.get("switches"):
                pool.append((db, clone, number, sha, parent, f))
    rnd.shuffle(pool)
    per_store = int(opt.get("--prs", "15"))
    # Spread PRs over the stores, preferring PRs that hold several strata.
    picked, by_db = [], {}
    for p in pool:
        kinds = {c["why"] for c in p[5].get("context", [])} | (
            {"switch_default"} if any((s["before"] or {}).get("has_default") for s in p[5].get("switches", [])) else set())
        if len(kinds) < 2 or by_db.get(p[0], 0) >= (per_store + 1) // len(a):
            continue
        by_db[p[0]] = by_db.get(p[0], 0) + 1
        picked.append(p)
    items = []
    left = dict(QUOTA)
    for db, clone, number, sha, parent, f in picked:
        cands = [("ctx", c["why"], c) for c in f.get("context", [])]
        for s in f.get("switches", []):
            if s["change"] != "used":
                cands.append(("sw", "switch_existed", s))
            elif (s["before"] or {}).get("has_default"):
                cands.append(("sw", "switch_default", s))
        rnd.shuffle(cands)
        took = {}
        for kind, stratum, x in cands:
            if left.get(stratum, 0) <= 0 or took.get(stratum, 0) >= 2:
                continue
            left[stratum] -= 1
            took[stratum] = took.get(stratum, 0) + 1
            items.append((db, clone, number, sha, parent, kind, stratum, x))
    out = open(opt["--out"], "w")
    tsv = open(opt["--tsv"], "w")
    tsv.write("id\trepo\tpr\tsha\tstratum\titem\tresolver_says\tverdict\tevidence\n")
    for i, (db, clone, number, sha, parent, kind, stratum, x) in enumerate(items, 1):
        repo = clone.rstrip("/").split("/")[-2]
        out.write(f"=== {i} {repo} #{number} {sha[:12]} (parent {parent[:12]}) {stratum}\n")
        if kind == "ctx":
            rev = sha if x["revision"] == "merge" else parent
            says = f"{x['kind']} {x['name']} {x['path']}:{x['start_line']}-{x['end_line']} ({x['revision']}) at {x['at']}"
            out.write(f"  {says}\n  signature: {x.get('signature', '')}\n")
            out.write(lines(clone, rev, x["path"], x["start_line"] - 1, x["end_line"] + 3) + "\n")
            at_path, at_line = x["at"].rsplit(":", 1)
            out.write(f"  changed line {x['at']} at the merge:\n" +
                      lines(clone, sha, at_path, int(at_line) - 1, int(at_line) + 1) + "\n")
        else:
            b, af = x["before"] or {}, x["after"] or {}
            says = (f"{x['kind']} {x['name']} {x['change']} existed={x['existed_at_parent']} default "
                    f"{b.get('default')!r} -> {af.get('default')!r} before {b.get('path')}:{b.get('line')} "
                    f"after {af.get('path')}:{af.get('line')} intro={x['introduced_by']}")
            out.write(f"  {says}\n  before text: {b.get('text')}\n  after text: {af.get('text')}\n")
            if b.get("path"):
                out.write(lines(clone, parent, b["path"], b["line"] - 1, b["line"] + 3) + "\n")
            needle = x["name"].lstrip("-")
            hits = git(clone, "grep", "-n", "-F", needle, parent, "--", "*.py").splitlines()
            out.write(f"  git grep at parent: {len(hits)} hits\n" + "\n".join("    " + h[:220] for h in hits[:12]) + "\n")
        tsv.write(f"{i}\t{repo}\t{number}\t{sha[:12]}\t{stratum}\t{x['name']}\t{says}\t\t\n")
    print(f"{len(items)} items from {len(picked)} PRs; unfilled quotas: {left}")


if __name__ == "__main__":
    main()
